"""Fault sweeps over every command that writes (tests/faults/scenarios.py).

crash     SIGKILL the command at each of its points, before and after every durable
          step (GIT_REFOCUS_KILL_AT=N, gitrefocus/store/faults.py).
disk      run it on a small tmpfs filled to leave 0 B ... 1 MiB free (needs root and mount).
readonly  run it with .git, .git/refocus, .git/refs or docs/ of one repository
          bind-mounted read-only (needs root and mount).
injected  make each durable step fail as a full disk would (GIT_REFOCUS_FAIL_AT=N:ENOSPC,
          and EROFS): the same checks without mounting, for machines where that is not allowed.

For each run the state is judged by :func:`tests.faults.world.snapshot`, never by git
refocus: *damaged* when it is neither the state before the command nor the state a clean
run leaves. Then `doctor` runs in every repository (a damaged state it calls consistent
is *undetected*), `doctor --repair` twice over all of them, and the state must be the one
before or the one after, with doctor clean (else *not restored*). An exit of 70 (an
internal error) counts wherever it happens.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.faults import scenarios as sc
from tests.faults.world import World, clear_tree, copy_tree, differences, snapshot
from tests.runner import Result

LEVELS = [0, 4 << 10, 16 << 10, 32 << 10, 64 << 10, 96 << 10, 128 << 10, 192 << 10, 256 << 10, 384 << 10,
          512 << 10, 1 << 20]
READONLY_TARGETS = [".git", ".git/refocus", ".git/refs", "docs"]


@dataclass
class Case:
    scenario: str
    mode: str
    where: str
    exit_code: int
    damaged: bool = False
    undetected: bool = False
    restored: bool = True
    stderr: str = ""
    detail: list[str] = field(default_factory=list)

    @property
    def internal_error(self) -> bool:
        return self.exit_code == 70


class Bench:
    """One scenario's world, its template and its reference states."""

    def __init__(self, base: Path, scenario: sc.Scenario):
        self.scenario = scenario
        self.world = World(base / "world")
        self.template = base / "template"
        self.world.reset()
        self.command = scenario.build(self.world)
        if self.template.exists():
            shutil.rmtree(self.template)
        copy_tree(self.world.root, self.template)
        self.before = snapshot(self.world, scenario.repos)
        if scenario.clean_start and any(code != 0 for code in self.doctor()):
            raise RuntimeError(f"{scenario.name}: doctor does not call the starting state consistent")
        self.restore()
        log = base / "points.log"
        log.unlink(missing_ok=True)
        clean = self.run(GIT_REFOCUS_FAULT_LOG=str(log))
        if clean.returncode != 0:
            raise RuntimeError(f"{scenario.name}: the clean run failed ({clean.returncode}): {clean.stderr}")
        self.points = [line.split("\t", 1)[1] for line in log.read_text().splitlines()] if log.exists() else []
        self.after = snapshot(self.world, scenario.repos)
        self.restore()
        again = self.run()
        if snapshot(self.world, scenario.repos) != self.after or again.returncode != 0:
            raise RuntimeError(f"{scenario.name}: two clean runs differ: "
                               f"{differences(snapshot(self.world, scenario.repos), self.after)}")

    def restore(self) -> None:
        clear_tree(self.world.root)
        copy_tree(self.template, self.world.root)

    def run(self, **env: str) -> Result:
        cmd = self.command
        return self.world.refocus(*cmd.args, cwd=self.world.root / cmd.cwd, env=self.world.env(**cmd.env, **env),
                                  stdin=cmd.stdin, check=False)

    def doctor(self, *args: str) -> list[int]:
        return [self.world.refocus("doctor", *args, cwd=self.world.root / name, check=False).returncode
                for name in self.scenario.repos if (self.world.root / name / ".git").exists()]

    def judge(self, case: Case, *, check_detection: bool = True) -> Case:
        """Judge the state the command left: damaged? detected? restored by doctor --repair?"""
        state = snapshot(self.world, self.scenario.repos)
        case.damaged = state not in (self.before, self.after)
        if case.damaged:
            case.detail = differences(state, self.after)[:6]
        if case.damaged and check_detection and all(code == 0 for code in self.doctor()):
            case.undetected = True
        for _ in range(2):
            codes = self.doctor("--repair")
        repaired = snapshot(self.world, self.scenario.repos)
        case.restored = repaired in (self.before, self.after) and all(code == 0 for code in codes)
        if not case.restored:
            near = self.after if len(differences(repaired, self.after)) <= len(differences(repaired, self.before)) \
                else self.before
            case.detail = [f"after repair: {d}" for d in differences(repaired, near)[:6]] + \
                          [f"doctor exit {codes}"]
        return case


# -- the sweeps ----------------------------------------------------------------------------------
def crash(bench: Bench) -> Iterable[Case]:
    for n in range(1, len(bench.points) + 1):
        bench.restore()
        proc = bench.run(GIT_REFOCUS_KILL_AT=str(n))
        case = Case(bench.scenario.name, "crash", f"{n}: {bench.points[n - 1]}", proc.returncode, stderr=proc.stderr)
        yield bench.judge(case)


def injected(bench: Bench, errnos: tuple[str, ...] = ("ENOSPC", "EROFS")) -> Iterable[Case]:
    for n, where in enumerate(bench.points, 1):
        if not where.startswith("before "):
            continue
        name = errnos[n % len(errnos)]
        bench.restore()
        proc = bench.run(GIT_REFOCUS_FAIL_AT=f"{n}:{name}")
        case = Case(bench.scenario.name, "injected", f"{n} {name}: {where}", proc.returncode, stderr=proc.stderr)
        yield bench.judge(case, check_detection=False)


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True)


def _umount(path: Path) -> None:
    subprocess.run(["umount", str(path)], check=True, capture_output=True)


def can_mount() -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    with tempfile.TemporaryDirectory() as probe:
        try:
            _mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", probe)
        except (subprocess.CalledProcessError, OSError):
            return False
        _umount(Path(probe))
    return True


def _fill(directory: Path, leave: int) -> Path:
    filler = directory / ".filler"
    st = os.statvfs(directory)
    free = st.f_bavail * st.f_frsize
    with open(filler, "wb") as fh:
        todo = max(0, free - leave)
        chunk = b"\0" * (1 << 20)
        while todo > 0:
            try:
                fh.write(chunk[: min(todo, len(chunk))])
                fh.flush()
            except OSError:
                break
            todo -= min(todo, len(chunk))
    return filler


def disk(bench: Bench) -> Iterable[Case]:
    size = int(subprocess.run(["du", "-sb", str(bench.template)], capture_output=True, text=True,
                              check=True).stdout.split()[0])
    root = bench.world.root
    for level in LEVELS:
        clear_tree(root)
        _mount("-t", "tmpfs", "-o", f"size={size + (8 << 20)}", "tmpfs", str(root))
        try:
            copy_tree(bench.template, root)
            filler = _fill(root, level)
            proc = bench.run()
            filler.unlink()
            case = Case(bench.scenario.name, "disk", f"{level >> 10} KiB free", proc.returncode, stderr=proc.stderr)
            yield bench.judge(case, check_detection=False)
        finally:
            _umount(root)


def readonly(bench: Bench) -> Iterable[Case]:
    for repo in bench.scenario.repos:
        for target in READONLY_TARGETS:
            bench.restore()
            path = bench.world.root / repo / target
            if not path.is_dir():
                continue
            _mount("--bind", str(path), str(path))
            try:
                _mount("-o", "remount,bind,ro", str(path))
                proc = bench.run()
            finally:
                _umount(path)
            case = Case(bench.scenario.name, "readonly", f"{repo}/{target}", proc.returncode, stderr=proc.stderr)
            yield bench.judge(case, check_detection=False)


MODES = {"crash": crash, "injected": injected, "disk": disk, "readonly": readonly}


# -- the report -----------------------------------------------------------------------------------
def summarise(cases: list[Case], out=sys.stdout) -> dict[str, dict[str, int]]:
    totals: dict[str, dict[str, int]] = {}
    for c in cases:
        t = totals.setdefault(c.mode, {"runs": 0, "damaged": 0, "undetected": 0, "not restored": 0, "exit 70": 0})
        t["runs"] += 1
        t["damaged"] += c.damaged
        t["undetected"] += c.undetected
        t["not restored"] += not c.restored
        t["exit 70"] += c.internal_error
    for mode, t in totals.items():
        print(f"{mode:9} " + ", ".join(f"{k}: {v}" for k, v in t.items()), file=out)
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", action="append", choices=[*MODES, "all"], help="sweep(s) to run (default: all)")
    parser.add_argument("--scenario", action="append", choices=list(sc.BY_NAME), help="scenario(s) (default: all)")
    parser.add_argument("--base", default=None, help="working directory (default: a new temporary one)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every run, not only the bad ones")
    args = parser.parse_args(argv)
    modes = list(MODES) if not args.mode or "all" in args.mode else args.mode
    mounting = can_mount()
    if not mounting and ({"disk", "readonly"} & set(modes)):
        print("disk and readonly sweeps need root and mount; running the injected sweep in their place",
              file=sys.stderr)
        modes = [m for m in modes if m not in ("disk", "readonly")] + (["injected"] if "injected" not in modes else [])
    base = Path(args.base) if args.base else Path(tempfile.mkdtemp(prefix="refocus-sweep-"))
    cases: list[Case] = []
    for scenario in [sc.BY_NAME[n] for n in args.scenario] if args.scenario else sc.SCENARIOS:
        bench = Bench(base / scenario.name.replace(" ", "-").replace("(", "").replace(")", ""), scenario)
        print(f"{scenario.name}: {len(bench.points)} points", file=sys.stderr)
        for mode in modes:
            for case in MODES[mode](bench):
                cases.append(case)
                bad = case.undetected or not case.restored or case.internal_error
                if bad or args.verbose:
                    flags = [f for f, on in (("UNDETECTED", case.undetected), ("NOT RESTORED", not case.restored),
                                             ("EXIT 70", case.internal_error), ("damaged", case.damaged)) if on]
                    print(f"  {mode} {case.where} exit {case.exit_code} {' '.join(flags)}", file=sys.stderr)
                    for line in case.detail:
                        print(f"      {line}", file=sys.stderr)
                    if case.internal_error or (bad and case.stderr.strip()):
                        print(f"      stderr: {case.stderr.strip()[:300]}", file=sys.stderr)
    how = "mounted tmpfs and read-only binds" if mounting else "injected faults"
    print(f"fault sweep over {len({c.scenario for c in cases})} commands ({how}):")
    totals = summarise(cases)
    bad = sum(t["undetected"] + t["not restored"] + t["exit 70"] for t in totals.values())
    return 1 if bad else 0
