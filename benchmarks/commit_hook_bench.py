"""`git commit` ×100 with the commit-msg hook vs without it. Target: ≤ 1.3×.

    .venv/bin/python benchmarks/commit_hook_bench.py [--commits N] [--rounds N]

Three repositories, identical but for the hook: none; the hook with a refocus
active (it adds the trailer); the hook with nothing active (it exits early).
Each commit stages a one-line change (untimed), then `git commit -q -m` is
timed; the three repositories take turns commit by commit so that machine
noise hits them alike. The ratio is total time with the hook / without, per
round; the median round is reported.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import core_bench  # noqa: E402

ENV = dict(core_bench.ENV)
ENV.pop("GIT_EDITOR", None)
RID = "2026-04-26-mcp-standard-a3f91c"
HOOK = os.path.join(ROOT, "githooks", "commit-msg")


def sh(*args, cwd):
    subprocess.run(args, cwd=cwd, env=ENV, check=True, capture_output=True)


def make(root: str, name: str, hook: bool, active: bool) -> str:
    path = os.path.join(root, name)
    sh("git", "init", "-q", path, cwd=root)
    sh("git", "commit", "-q", "--allow-empty", "-m", "init", cwd=path)
    if hook:
        shutil.copy(HOOK, os.path.join(path, ".git", "hooks", "commit-msg"))
    if active:
        os.makedirs(os.path.join(path, ".git", "refocus"))
        with open(os.path.join(path, ".git", "refocus", "active"), "w") as fh:
            fh.write(RID + "\n")
    return path


def one_commit(path: str, i: int) -> float:
    with open(os.path.join(path, "file.txt"), "a") as fh:
        fh.write(f"line {i}\n")
    sh("git", "add", "file.txt", cwd=path)
    t0 = time.perf_counter()
    subprocess.run(["git", "commit", "-q", "-m", f"change {i}", "-m", "A body line explaining the change."],
                   cwd=path, env=ENV, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    cases = {"no hook": (False, False), "hook, refocus active": (True, True), "hook, nothing active": (True, False)}
    ratios = {name: [] for name in cases if name != "no hook"}
    totals = {name: [] for name in cases}
    with tempfile.TemporaryDirectory(prefix="refocus-commitbench-") as root:
        for r in range(args.rounds):
            repos = {name: make(root, f"r{r}-{i}", *flags) for i, (name, flags) in enumerate(cases.items())}
            spent = dict.fromkeys(cases, 0.0)
            for i in range(args.commits):
                order = list(cases) if i % 2 == 0 else list(reversed(cases))
                for name in order:
                    spent[name] += one_commit(repos[name], i)
            for name in cases:
                totals[name].append(spent[name])
            for name in ratios:
                ratios[name].append(spent[name] / spent["no hook"])
            tagged = subprocess.run(["git", "log", "--format=%(trailers:key=Refocus-Id,valueonly)", "-1"],
                                    cwd=repos["hook, refocus active"], env=ENV, capture_output=True, text=True).stdout
            assert tagged.strip() == RID, "the hook did not tag the commit"
        print(f"git commit x{args.commits}, {args.rounds} rounds (median round shown)")
        width = max(map(len, cases))
        for name in cases:
            med = statistics.median(totals[name])
            print(f"  {name:<{width}}  {med * 1000:7.0f} ms total  {med / args.commits * 1000:5.2f} ms/commit")
        for name, values in ratios.items():
            med = statistics.median(values)
            print(f"  ratio {name:<{width}} / no hook: {med:.3f}  (rounds: {', '.join(f'{v:.2f}' for v in values)})"
                  f"  target <= 1.3 -> {'MET' if med <= 1.3 else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
