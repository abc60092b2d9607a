"""Issue 14 item 11: does the SessionEnd hook fit its budget (all SessionEnd hooks share 1.5 s)
on a repository with many refocuses and a cold cache? And the next SessionStart after it.

    .venv/bin/python benchmarks/session_end_bench.py [--sizes 4,10000] [--runs 5] [--code DIR]

Hermetic, like scale_bench.py (repositories from generate.py): one child is spawned and started
by its SessionStart hook, then each run removes the cache (.git/refocus/cache) and times
`git refocus hook session-end` for it, cold and warm. Figures are medians, printed as ratios to
the anchor measured in the same run: the same hook run outside any repository (process start
and imports, no git work), so a loaded machine shifts both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402
from scale_bench import Runner, hermetic_env  # noqa: E402

ANCHOR = "anchor: the hook outside a repository"


def measure(size: int, runs: int, code: str, root: str) -> tuple[dict[str, list[float]], bool]:
    home = os.path.join(root, "home")
    os.makedirs(home)
    r = Runner(hermetic_env(home, code))
    src, dest = generate.generate(os.path.join(root, "repos"), size, env=r.env)
    cache = os.path.join(dest, ".git", "refocus", "cache")
    _, text = r.refocus("spawn", dest, "--reason", "bench", "--done-when", "x", "--slug", "ended", "--json", cwd=src)
    sid = json.loads(text)["child_session_id"]
    r.refocus("hook", "session-start", cwd=dest, stdin=json.dumps({"session_id": sid, "cwd": dest, "source": "startup"}))
    end = json.dumps({"session_id": sid, "cwd": dest, "reason": "exit"})
    out: dict[str, list[float]] = {}
    told = True
    for _ in range(runs):
        out.setdefault(ANCHOR, []).append(
            r.refocus("hook", "session-end", cwd=root, stdin=json.dumps({"session_id": "x", "cwd": root}))[0])
        shutil.rmtree(cache, ignore_errors=True)
        out.setdefault("session-end cold", []).append(r.refocus("hook", "session-end", cwd=dest, stdin=end)[0])
        out.setdefault("session-end warm", []).append(r.refocus("hook", "session-end", cwd=dest, stdin=end)[0])
        shutil.rmtree(cache, ignore_errors=True)
        t, said = r.refocus("hook", "session-start", cwd=dest,
                            stdin=json.dumps({"session_id": "next", "cwd": dest, "source": "startup"}))
        out.setdefault("next session-start cold", []).append(t)
        told = told and "its session ended" in said
    return out, told


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4,10000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--code", default=os.path.dirname(HERE))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="refocus-session-end-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            out, told = measure(size, args.runs, os.path.abspath(args.code), os.path.join(tmp, str(size)))
            base = statistics.median(out[ANCHOR])
            print(f"{size} refocuses (next session told the child ended: {told}):")
            for name, values in out.items():
                m = statistics.median(values)
                print(f"  {name:40} {m / base:5.2f}x anchor   ({m:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
