"""Run every benchmark, one after another, and print each one's figures.

    .venv/bin/python benchmarks/run.py            # all, at the sizes their targets name
    .venv/bin/python benchmarks/run.py core hook  # only some (name = <name>_bench.py)

Each benchmark generates its own data and measures its ratios side by side in
one run; targets are printed as MET / NOT MET, never asserted in tests.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str]) -> int:
    scripts = sorted(glob.glob(os.path.join(HERE, "*_bench.py")))
    names = {os.path.basename(s)[: -len("_bench.py")]: s for s in scripts}
    chosen = argv or list(names)
    unknown = [n for n in chosen if n not in names]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; have: {', '.join(names)}", file=sys.stderr)
        return 2
    failed = 0
    for name in chosen:
        print(f"\n=== {name} ({os.path.relpath(names[name])}) ===", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call([sys.executable, names[name]])
        print(f"--- {name}: exit {rc}, {time.perf_counter() - t0:.0f} s", flush=True)
        failed += rc != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
