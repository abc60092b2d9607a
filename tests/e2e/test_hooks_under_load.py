"""Hooks under load: the real-client scenario "spawn, the child runs and
exits unfinished, the next session in the destination is told" repeated while every core
is kept busy. Slow: run it with `scripts/test -m slow tests/e2e/test_hooks_under_load.py`.

What must hold in every run: the child's first SessionStart moves it to in-progress, and the
next session learns the child exited unfinished (through SessionEnd or the lazy check).
"""

from __future__ import annotations

import multiprocessing
import os

import pytest

from tests.e2e.test_refocus_claude import (
    test_child_exiting_without_complete_is_reported_next_time as scenario,
)

pytestmark = [pytest.mark.claude, pytest.mark.slow]
RUNS = 6


def _burn() -> None:
    while True:
        pass


@pytest.fixture
def cpu_load():
    """One busy process per core (plus one) for the duration of the test."""
    procs = [multiprocessing.Process(target=_burn, daemon=True) for _ in range((os.cpu_count() or 1) + 1)]
    for p in procs:
        p.start()
    yield
    for p in procs:
        p.terminate()
        p.join()


@pytest.mark.parametrize("run", range(RUNS))
def test_child_started_and_unfinished_exit_reported_under_load(wired, refocus_path, run_claude, mock_api,
                                                                cpu_load, run):
    scenario(wired, refocus_path, run_claude, mock_api)
