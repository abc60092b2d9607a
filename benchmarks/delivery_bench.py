"""The parent's SessionStart hook with a backlog of results waiting to be received.

    .venv/bin/python benchmarks/delivery_bench.py [--waiting 5,150,400] [--runs 3] [--cold] [--code DIR]

Each size gets its own pair of repositories (benchmarks/generate.py, the
waiting results being the newest finished entries, plus one blocked result),
and each run starts from a pristine copy of the source repository, so every
run finds the whole backlog: the full process, `git refocus hook session-start`
with the client's JSON on stdin, as Claude Code runs it. The pristine copy has
its catalog cache built (a repository in daily use); --cold leaves it out.
Printed per size: the median time, its ratio to the smallest backlog, how many
results the context named and how many `received` events the run recorded
(they must be equal), and the size of the context. Target: the hook's cost
follows what it shows, not the backlog (every size within 1.5x of the
smallest, which already fills a session's share); the client kills a hook at
10 s. --code DIR measures another checkout (e.g. the code before a change).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402

ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="b@example.com",
           GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="b@example.com")
for name in ("CLAUDE_CODE_SESSION_ID", "SESSION_REFOCUS_ROLE", "SESSION_REFOCUS_ID", "CLAUDE_PROJECT_DIR",
             "CLAUDE_ENV_FILE", "GIT_DIR", "GIT_WORK_TREE"):
    ENV.pop(name, None)


def tips_ending(repo: str, kind: str) -> list[str]:
    """The ids of the refocus logs in ``repo`` whose newest event is ``kind``."""
    out = subprocess.run(["git", "-C", repo, "for-each-ref", "--format=%(refname:lstrip=2) %(contents:subject)",
                          "refs/refocus/"], env=ENV, capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.endswith(f": {kind}")]


def received_count(repo: str) -> int:
    return len(tips_ending(repo, "received"))


def run_hook(src: str, code: str) -> tuple[float, str]:
    payload = {"session_id": str(uuid.uuid4()), "cwd": src, "source": "startup", "hook_event_name": "SessionStart"}
    env = dict(ENV, PYTHONPATH=code)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "gitrefocus", "hook", "session-start"], cwd=src, env=env,
                          input=json.dumps(payload), capture_output=True, text=True, check=True, timeout=120)
    return time.perf_counter() - t0, done.stdout


def measure(root: str, waiting: int, runs: int, code: str, cold: bool) -> dict:
    base = os.path.join(root, f"w{waiting}")
    os.makedirs(base)
    src, _dest = generate.generate(base, waiting + len(generate.ACTIVE), env=ENV, waiting=waiting)
    if not cold:  # the catalog cache a repository in use has (listing writes nothing else)
        subprocess.run([sys.executable, "-m", "gitrefocus", "list", "--json"], cwd=src, env=dict(ENV, PYTHONPATH=code),
                       capture_output=True, check=True)
    pristine = src + ".pristine"
    shutil.copytree(src, pristine, symlinks=True)
    before = received_count(src)
    returned = tips_ending(src, "completed")  # the backlog (blocked ones included)
    times, named, marked, chars = [], 0, 0, 0
    for _ in range(runs):
        shutil.rmtree(src)
        shutil.copytree(pristine, src, symlinks=True)
        seconds, out = run_hook(src, code)
        times.append(seconds)
        context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""
        named = sum(rid in context for rid in returned)
        marked = received_count(src) - before
        chars = len(context)
    return {"waiting": waiting, "median": statistics.median(times), "named": named, "marked": marked, "chars": chars}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--waiting", default="5,150,400", help="comma-separated backlog sizes")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="no catalog cache in the source repository")
    ap.add_argument("--code", default=os.path.dirname(HERE), help="the checkout whose gitrefocus runs")
    args = ap.parse_args()
    sizes = [int(s) for s in args.waiting.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="refocus-delivery-") as root:
        for size in sizes:
            rows.append(measure(root, size, args.runs, os.path.abspath(args.code), args.cold))
    floor = rows[0]["median"]
    print(f"code: {os.path.abspath(args.code)}; runs: {args.runs}; catalog cache: {'cold' if args.cold else 'warm'}")
    print(f"{'waiting':>8} {'median':>8} {'ratio':>6} {'named':>6} {'marked':>7} {'chars':>6}")
    for r in rows:
        print(f"{r['waiting']:>8} {r['median'] * 1000:>6.0f}ms {r['median'] / floor:>5.2f}x {r['named']:>6} "
              f"{r['marked']:>7} {r['chars']:>6}")
    worst = max(r["median"] / floor for r in rows)
    exact = all(r["named"] == r["marked"] for r in rows)
    print(f"target: every size within 1.5x of {sizes[0]} waiting -> {'MET' if worst <= 1.5 else 'NOT MET'} "
          f"(worst {worst:.2f}x); marked only what it named -> {'MET' if exact else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
