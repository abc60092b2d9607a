"""The fault sweeps (tests/faults/sweep.py) in the suite: a representative subset, a few
seconds per case. The whole sweeps (every kill point of every command that writes, a full
and a read-only disk) take most of an hour: `scripts/fault-sweep` runs them and prints
the counts.

Here: a crash right after a completion's event is recorded (the brief, the promotion,
the notes, the source's copy and INDEX.md all still to come), before its note, right
after a start set its marker and before its event, between a sync's fetch and its
merge, between the source's abandonment and the destination's copy; an injected full
disk and read-only disk at the first write and after the event. Each must leave a state
doctor does not call consistent while damaged, and that doctor --repair restores, with
no internal error.
"""
from __future__ import annotations

import pytest

from tests.faults import scenarios as sc
from tests.faults import sweep


@pytest.fixture(scope="module")
def benches(tmp_path_factory):
    made: dict[str, sweep.Bench] = {}

    def bench(name: str) -> sweep.Bench:
        if name not in made:
            made[name] = sweep.Bench(tmp_path_factory.mktemp(name.replace(" ", "-")), sc.BY_NAME[name])
        return made[name]

    return bench


def _point(bench: sweep.Bench, where: str, nth: int = 1) -> int:
    """The number of the ``nth`` kill point whose description starts with ``where``."""
    found = [n for n, p in enumerate(bench.points, 1) if p.startswith(where)]
    assert len(found) >= nth, (where, bench.points)
    return found[nth - 1]


def _crash(bench: sweep.Bench, n: int) -> sweep.Case:
    bench.restore()
    proc = bench.run(GIT_REFOCUS_KILL_AT=str(n))
    assert proc.returncode == -9, (n, bench.points[n - 1], proc.stderr)
    return bench.judge(sweep.Case(bench.scenario.name, "crash", bench.points[n - 1], proc.returncode))


def _fail(bench: sweep.Bench, n: int, errno: str) -> sweep.Case:
    bench.restore()
    proc = bench.run(GIT_REFOCUS_FAIL_AT=f"{n}:{errno}")
    case = bench.judge(sweep.Case(bench.scenario.name, "injected", bench.points[n - 1], proc.returncode,
                                  stderr=proc.stderr), check_detection=False)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    return case


def _ok(case: sweep.Case) -> None:
    assert not case.undetected, f"doctor called a damaged state consistent: {case.where} {case.detail}"
    assert case.restored, f"doctor --repair did not restore: {case.where} {case.detail}"
    assert not case.internal_error, case.stderr


@pytest.mark.parametrize("scenario,where,nth", [
    ("complete", "after refs/refocus/", 1),      # the event, nothing after it
    ("complete", "before ref refs/notes/refocus", 1),
    ("start", "after ", 2),                      # the marker set, the event not yet
    ("sync", "after git fetch", 1),              # fetched, nothing merged
    ("abandon (source)", "after refs/refocus/", 2),  # the source's event, the destination's copy still to come
])
def test_a_command_killed_at_a_chosen_point_is_detected_and_repaired(benches, scenario, where, nth):
    bench = benches(scenario)
    _ok(_crash(bench, _point(bench, where, nth)))


@pytest.mark.parametrize("errno", ["ENOSPC", "EROFS"])
@pytest.mark.parametrize("where,nth", [("before write", 1), ("before ref refs/notes/refocus", 1)])
def test_a_full_or_read_only_disk_is_one_line_and_repaired(benches, errno, where, nth):
    bench = benches("complete")
    case = _fail(bench, _point(bench, where, nth), errno)
    assert ("nothing was changed" in case.stderr) != ("doctor --repair" in case.stderr), case.stderr
    _ok(case)

