"""Ref lookups once the refs are packed (`git gc` packs them on its own): the commands that
look up one ref per entry they show, at 4 and 10k refocuses, quiet and with one core kept busy.

    .venv/bin/python benchmarks/packed_refs_bench.py [--sizes 4,10000] [--runs 7] [--code DIR]

The repositories come from benchmarks/generate.py, whose refs are all in packed-refs. With
``refocus.recentDays`` set past the whole generated history, INDEX.md's overview shows every
finished entry: ``git refocus list`` looks up one ref per entry, and so did ``git refocus
index`` and the child's first session-start hook (which refreshes INDEX.md) until INDEX.md
listed only the newest rows of each section; the case where reading the whole packed-refs
file per lookup was quadratic. --code runs another checkout (e.g. ``git archive main
gitrefocus githooks hooks | tar -x -C /tmp/old``) in the same run, each command alternating between the two.
Printed: medians, and each size's ratio to the same command at the smallest size in the same
run (the target for these commands: <= 1.5x). Measured, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402
from scale_bench import Runner, hermetic_env  # noqa: E402

CASES = ("list", "index", "hook first start", "hook idle")


def measure(size: int, runs: int, codes: dict[str, str], root: str) -> dict[tuple[str, str], list[float]]:
    home = os.path.join(root, "home")
    os.makedirs(home, exist_ok=True)
    runners = {label: Runner(hermetic_env(home, code)) for label, code in codes.items()}
    first = next(iter(runners.values()))
    src, dest = generate.generate(os.path.join(root, "repos"), size, env=first.env)
    for repo in (src, dest):
        subprocess.run(["git", "-C", repo, "config", "refocus.recentDays", "36500"], check=True, env=first.env)
    out: dict[tuple[str, str], list[float]] = {}
    for r in runners.values():  # each code's cache built once, as any earlier command would
        r.refocus("index", cwd=dest)
    for i in range(runs):
        for label, r in runners.items():
            out.setdefault((label, "list"), []).append(r.refocus("list", cwd=dest)[0])
            out.setdefault((label, "index"), []).append(r.refocus("index", cwd=dest)[0])
            _, text = r.refocus("spawn", dest, "--reason", "bench", "--done-when", "x", "--json",
                                "--slug", f"{label}-{i}", cwd=src)
            sid = json.loads(text)["child_session_id"]
            out.setdefault((label, "hook first start"), []).append(r.refocus("hook", "session-start", cwd=dest, stdin=json.dumps(
                {"session_id": sid, "cwd": dest, "source": "startup"}))[0])
            out.setdefault((label, "hook idle"), []).append(r.refocus("hook", "session-start", cwd=dest, stdin=json.dumps(
                {"session_id": f"idle-{label}-{i}", "cwd": dest, "source": "startup"}))[0])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4,10000")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--code", help="another gitrefocus checkout, measured beside this one")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    codes = {"this": os.path.dirname(HERE)}
    if args.code:
        codes["other"] = os.path.realpath(args.code)
    for code in codes.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(code, "gitrefocus")], check=True)
    for busy in (False, True):
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
        try:
            results = {}
            for n in sizes:
                with tempfile.TemporaryDirectory(prefix=f"refocus-packed-{n}-") as root:
                    results[n] = measure(n, args.runs, codes, root)
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()
        print(f"\n{'one core kept busy' if busy else 'quiet'}: medians of {args.runs} runs, seconds "
              f"(ratio to {sizes[0]} entries)")
        print("| code | entries | " + " | ".join(CASES) + " |")
        print("|---|---|" + "---|" * len(CASES))
        for label, code in codes.items():
            for n in sizes:
                cells = []
                for case in CASES:
                    m = statistics.median(results[n][(label, case)])
                    base = statistics.median(results[sizes[0]][(label, case)])
                    cells.append(f"{m:.3f} ({m / base:.2f}x)")
                print(f"| {label} ({code}) | {n} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
