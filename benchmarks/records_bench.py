"""What `gitrefocus.model.records` saves over the standard library's dataclasses, per process.

    .venv/bin/python benchmarks/records_bench.py [--entries N] [--runs N]

The records module exists to keep `import dataclasses` (which loads `inspect`, with `ast`,
`dis` and `tokenize`) and the per-class `exec` of five or six generated methods out of every
listing and every hook. This measures that choice, paired and interleaved in one run so a busy
machine slows every variant alike:

* import alone: `python -c "import dataclasses"` against `import gitrefocus.model.records`
  (and `python -c pass` as the floor);
* the two hot paths end to end over N refocus entries: `git refocus list` and the
  session-start hook (stdin JSON in, as Claude Code runs it), each with the records module as
  shipped ("records") and with the standard library's dataclasses put in its place
  ("stdlib": the same program, every record class a real dataclass);
* how many record classes each hot path makes, and the time spent making them (the part that
  hand-written `__slots__` classes, which the interpreter makes like any class, could save);
* with `--before TREE` (a source tree of another commit, e.g. `git archive main | tar -x -C
  TREE`), `list` and the hook as that tree runs them, interleaved with this one's: a change's
  start-up cost before and after, in one run.

Medians in milliseconds; nothing is asserted (docs/ARCHITECTURE.md, "Records", has the reading).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import core_bench  # noqa: E402

ENV = dict(core_bench.ENV)
# as installed: byte code written once and read after (the warm-up run writes it), not every
# module compiled again in every process
ENV.pop("PYTHONDONTWRITEBYTECODE", None)

# One driver for every variant, so they differ only in what the records module is.
DRIVER = r"""
import sys, time
variant = sys.argv[1]
if variant == "stdlib":
    import dataclasses
    sys.modules["gitrefocus.model.records"] = dataclasses
elif variant == "count":
    from gitrefocus.model import records
    made, spent = [], [0.0]
    plain = records.dataclass

    def counted(cls=None, /, **kw):
        def wrap(c):
            t0 = time.perf_counter()
            out = plain(c, **kw)
            spent[0] += time.perf_counter() - t0
            made.append(c.__name__)
            return out
        return wrap if cls is None else wrap(cls)

    records.dataclass = counted
    import atexit
    atexit.register(lambda: sys.stderr.write(f"\nRECORDS {len(made)} {spent[0] * 1000:.3f}\n"))
from gitrefocus.entry import main
code = main(sys.argv[2:])
if variant == "count":
    sys.stderr.flush()
sys.exit(code)
"""


def run(argv: list[str], cwd: str, stdin: str | None = None,
        env: dict[str, str] | None = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env or ENV, input=stdin, capture_output=True, text=True)
    return time.perf_counter() - t0, proc


def cli(variant: str, args: list[str]) -> list[str]:
    return [sys.executable, "-c", DRIVER, variant, *args]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=1_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--before", metavar="TREE", help="another source tree to time list and the hook against")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="refocus-recordsbench-") as root:
        src, dest = core_bench.generate(root, args.entries)
        hook = json.dumps({"session_id": "bench-session", "cwd": dest})
        cases: dict[str, tuple[list[str], str | None, dict[str, str] | None]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], None, None),
            "import dataclasses": ([sys.executable, "-c", "import dataclasses"], None, None),
            "import gitrefocus.model.records": ([sys.executable, "-c", "import gitrefocus.model.records"], None, None),
        }
        for variant in ("records", "stdlib"):
            cases[f"list ({variant})"] = (cli(variant, ["list"]), None, None)
            cases[f"hook session-start ({variant})"] = (cli(variant, ["hook", "session-start"]), hook, None)
        if args.before:
            before = dict(ENV, PYTHONPATH=os.path.abspath(args.before))
            cases["list (before)"] = (cli("records", ["list"]), None, before)
            cases["hook session-start (before)"] = (cli("records", ["hook", "session-start"]), hook, before)
        outputs: dict[str, str] = {}
        for name, (argv, stdin, env) in cases.items():  # warm the caches; the variants must agree
            _, proc = run(argv, dest, stdin, env)
            if proc.returncode != 0:
                print(f"{name}: exit {proc.returncode}: {proc.stderr.strip()[-300:]}", file=sys.stderr)
                return 1
            outputs[name] = proc.stdout
        for what in ("list", "hook session-start"):
            for other in ("stdlib", "before") if args.before else ("stdlib",):
                same = outputs[f"{what} (records)"] == outputs[f"{what} ({other})"]
                print(f"{what}: records and {other} print {'the same' if same else 'DIFFERENT'} output")
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):  # interleaved: each round runs every case once
            for name, (argv, stdin, env) in cases.items():
                times[name].append(run(argv, dest, stdin, env)[0])
        print(f"\n{args.entries} entries, {args.runs} interleaved runs, median (min) ms")
        for name, ts in times.items():
            print(f"  {name:<40} {statistics.median(ts) * 1000:8.1f}  ({min(ts) * 1000:.1f})")
        for what in ("list", "hook session-start"):
            a, b = times[f"{what} (records)"], times[f"{what} (stdlib)"]
            paired = statistics.median(y - x for x, y in zip(a, b, strict=True)) * 1000
            print(f"  {what}: stdlib dataclasses cost {paired:+.1f} ms a process (median of paired differences)")
            if args.before:
                a, b = times[f"{what} (before)"], times[f"{what} (records)"]
                paired = statistics.median(y - x for x, y in zip(a, b, strict=True)) * 1000
                ratio = statistics.median(times[f"{what} (records)"]) / statistics.median(a)
                print(f"  {what}: this tree against --before: {paired:+.1f} ms a process (paired), "
                      f"{ratio:.3f} of its median")
        print()
        for what, argv, stdin in (("list", ["list"], None), ("hook session-start", ["hook", "session-start"], hook)):
            counts = []
            for _ in range(max(5, args.runs // 2)):
                _, proc = run(cli("count", argv), dest, stdin)
                line = [ln for ln in proc.stderr.splitlines() if ln.startswith("RECORDS ")][-1].split()
                counts.append((int(line[1]), float(line[2])))
            made = counts[0][0]
            spent = statistics.median(c[1] for c in counts)
            print(f"  {what}: makes {made} record classes, {spent:.2f} ms making them (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
