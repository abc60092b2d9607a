"""Kill-point sweep of `sync` (spawn and complete: tests/store/test_killed_writers.py), and a
fuzz test over corrupted briefs, event commits and notes.

Sync: a clone B syncs a spawned-and-completed refocus from a remote and is SIGKILLed after
its Nth durable write, for every N; `doctor --repair` and a second sync must leave B agreeing
with A: refs, brief file, INDEX.md and notes.
"""

from __future__ import annotations

import json
import random
import time

import pytest

from tests.gitrepo import git, make_repo, refs, remote_with_clones
from tests.runner import refocus, spawn_args
from tests.store import (
    test_killed_writers as sweeps,  # not imported by name: pytest would collect them twice
)
from tests.store.test_killed_writers import check_run, run_traced

SYNC_KILL_POINTS = range(1, 10)  # one more than the writes the sync below makes (see check_run)


@pytest.fixture
def pair(tmp_path):
    _remote, (a, b) = remote_with_clones(tmp_path, "A", "B")
    for clone in (a, b):
        refocus("init", cwd=clone)
    rid = refocus(*spawn_args(a), cwd=make_repo(tmp_path / "src")).json["id"]
    refocus("start", rid, cwd=a)
    refocus("complete", rid, "--summary", "s", "--no-material-changes", "none", cwd=a)
    git(a, "add", f"docs/refocus/{rid}.md")
    git(a, "commit", "-q", "-m", "brief")
    git(a, "push", "-q", "origin", "main")
    refocus("sync", cwd=a)
    git(b, "pull", "-q", "origin", "main")
    return a, b, rid


@pytest.mark.slow
@pytest.mark.parametrize("n", SYNC_KILL_POINTS)
def test_sync_killed_after_each_write(pair, tmp_path, n):
    a, b, rid = pair
    proc, writes = run_traced(["sync"], cwd=b, kill_after=n, log=tmp_path / "writes")
    killed = check_run(proc, writes, n, SYNC_KILL_POINTS)
    where = f"killed after write {n} ({writes[-1]})" if killed else "not killed"
    refocus("doctor", "--repair", cwd=b, check=False)
    refocus("sync", cwd=b)
    model = refocus("doctor", "--json", cwd=b, check=False).json
    assert model["clean"], f"{where}: {model['findings']}"
    assert refs(a)[f"refs/refocus/{rid}"] == refs(b)[f"refs/refocus/{rid}"], where
    assert refocus("show", rid, "--json", cwd=b).json["status"] == "result", where
    assert "status: result" in (b / "docs/refocus" / f"{rid}.md").read_text(), where
    assert rid in (b / "docs/refocus/INDEX.md").read_text(), where
    assert refs(a).get("refs/notes/refocus") == refs(b).get("refs/notes/refocus"), where


def test_sync_killed_mid_way_is_repaired(pair, tmp_path):
    """The CI-sized subset of the sweep above (it runs unmarked)."""
    a, b, rid = pair
    proc, writes = run_traced(["sync"], cwd=b, kill_after=2, log=tmp_path / "writes")
    check_run(proc, writes, 2, SYNC_KILL_POINTS)
    refocus("doctor", "--repair", cwd=b, check=False)
    refocus("sync", cwd=b)
    assert refocus("doctor", "--json", cwd=b, check=False).json["clean"]
    assert refs(a)[f"refs/refocus/{rid}"] == refs(b)[f"refs/refocus/{rid}"]


# The CI-sized subset of the spawn and complete sweeps (tests/store/test_killed_writers.py, slow):
# complete killed right after its event (the promotion once lost for good), spawn killed between
# the two repositories.
def test_complete_killed_before_its_promotion_is_repaired(wired, tmp_path):
    sweeps.test_complete_killed_after_each_write(wired, tmp_path, 1)


def test_spawn_killed_between_the_two_repositories_is_repaired(wired, tmp_path):
    sweeps.test_spawn_killed_after_each_write(wired, tmp_path, 3)


# -- fuzz ------------------------------------------------------------------------------------------
FUZZ_CASES = 24
CI_FUZZ_CASES = 6  # covers every mutation on every target once; the rest run with the slow tests


def _mutations(rng: random.Random, text: str) -> str:
    choice = rng.randrange(6)
    if choice == 0:  # truncate
        return text[: rng.randrange(len(text))]
    if choice == 1:  # flip bytes
        chars = list(text)
        for _ in range(rng.randrange(1, 20)):
            chars[rng.randrange(len(chars))] = chr(rng.randrange(0, 0x250))
        return "".join(chars)
    if choice == 2:  # nest
        return text.replace("done_when:", "done_when: " + "[" * 60 + "]" * 60 + "\nx:", 1)
    if choice == 3:  # alias
        return text.replace("slug:", "slug: &s x\nalso: *s\nslug2:", 1)
    if choice == 4:  # wrong types
        return text.replace("done_when:", "done_when: {a: 1}\nold_done_when:", 1)
    return text + "\x00\x1b[2J" * rng.randrange(1, 50)


@pytest.mark.parametrize("seed", [pytest.param(n, marks=[pytest.mark.slow] if n >= CI_FUZZ_CASES else [])
                                  for n in range(FUZZ_CASES)])
def test_fuzzed_inputs_never_crash_hang_or_change_anything(started, seed):
    """Corrupt the brief, an event commit or the notes ref at random: every command exits
    without an internal error (70), within a bound, and a refused write moves no ref."""
    src, dest, rid = started
    rng = random.Random(seed)
    target = seed % 3
    if target == 0:
        path = dest / "docs/refocus" / f"{rid}.md"
        path.write_text(_mutations(rng, path.read_text()))
    elif target == 1:
        tip = git(dest, "rev-parse", f"refs/refocus/{rid}").strip()
        event = git(dest, "show", f"{tip}:event.json")
        blob = git(dest, "hash-object", "-w", "--stdin", input=_mutations(rng, event)).strip()
        state = git(dest, "rev-parse", f"{tip}:state.json").strip()
        tree = git(dest, "mktree", input=f"100644 blob {blob}\tevent.json\n100644 blob {state}\tstate.json\n").strip()
        git(dest, "update-ref", f"refs/refocus/{rid}", git(dest, "commit-tree", tree, "-p", tip, "-m", "x").strip())
    else:
        blob = git(dest, "hash-object", "-w", "--stdin", input=json.dumps({"n": seed})).strip()
        git(dest, "update-ref", "refs/notes/refocus", blob)
    before = refs(dest)
    for args in (["list"], ["status"], ["show", rid], ["doctor"],
                 ["complete", rid, "--summary", "s", "--no-material-changes", "n"]):
        t0 = time.monotonic()
        r = refocus(*args, cwd=dest, check=False)
        assert time.monotonic() - t0 < 60, f"{args} hung"
        assert r.returncode != 70 and "Traceback" not in r.stderr, (args, r)
        if args[0] == "complete" and r.returncode != 0:
            assert refs(dest) == before, "a refused complete moved a ref"
    refocus("doctor", "--repair", cwd=dest, check=False)
    for args in (["list"], ["status"], ["doctor"]):
        assert refocus(*args, cwd=dest, check=False).returncode != 70
