"""A writer killed at any point leaves state that `doctor --repair` completes or
rolls back, and no completed result is ever lost.

The crash points are chosen, not timed: with GIT_REFOCUS_KILL_AFTER_WRITES=N the command
SIGKILLs itself right after its Nth durable write (gitrefocus/store/faults.py), and
traced_refocus.py logs every write, so each case knows exactly where the writer died.
N runs past the last write, and the largest N must let the command finish normally:
that proves the range covers every write the command makes.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gitrefocus.store import faults
from tests.gitrepo import commit, git, refs
from tests.runner import refocus, source_env, spawn_args

pytestmark = pytest.mark.slow

TRACED = Path(__file__).with_name("traced_refocus.py")
SUMMARY = "Wrote the transport standard before the crash."
CONTEXT_FILE, MATERIAL_CHANGE = "architecture.md", "MCP servers speak SSH-stdio"
COMPLETE = ["complete", "--summary", SUMMARY, "--material-change", f"{CONTEXT_FILE}={MATERIAL_CHANGE}"]

# One more than the writes each command makes in the scenes below (complete: 10, spawn: 11);
# the last N must finish normally, see check_run.
COMPLETE_KILL_POINTS = range(1, 12)
SPAWN_KILL_POINTS = range(1, 13)


class MaterialChangeNotPromoted(AssertionError):
    """The result records a material change that never reached docs/context/."""


def kill_points(points):
    return [pytest.param(n, id=f"after-write-{n}") for n in points]


def run_traced(args, *, cwd, kill_after: int, log: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run `git refocus ARGS` set to die after its ``kill_after``th write; the process and its writes."""
    proc = subprocess.run([sys.executable, str(TRACED), str(log), *map(str, args)], cwd=str(cwd),
                          env=source_env({faults.ENV: str(kill_after)}), capture_output=True, text=True, timeout=60)
    return proc, (log.read_text().splitlines() if log.exists() else [])


def check_run(proc, writes: list[str], n: int, points: range) -> bool:
    """Check the writer died exactly after write ``n`` or, having made fewer writes, finished
    normally; the largest ``n`` must finish. Returns whether it was killed."""
    if proc.returncode == -signal.SIGKILL:
        assert len(writes) == n, f"asked to die after write {n}, died after {len(writes)}: {writes}"
        assert n != points[-1], (f"the command still made a write at N={n} ({writes[-1]}): raise the "
                                 f"range so it runs past the last write")
        return True
    assert proc.returncode == 0, f"neither killed nor successful: exit {proc.returncode}\n{proc.stderr}"
    assert len(writes) < n, f"finished normally although write {n} happened: {writes}"
    return False


def doctor_json(repo):
    r = refocus("doctor", "--json", cwd=repo, check=False)
    return r.returncode, r.json


@pytest.mark.parametrize("n", kill_points(COMPLETE_KILL_POINTS))
def test_complete_killed_after_each_write(wired, tmp_path, n):
    src, dest = wired
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    refocus("start", rid, cwd=dest)
    work = commit(dest, "the child's work")  # tagged by the hook: complete adds linkage notes to it
    proc, writes = run_traced(COMPLETE, cwd=dest, kill_after=n, log=tmp_path / "writes")
    killed = check_run(proc, writes, n, COMPLETE_KILL_POINTS)
    where = f"killed after write {n} ({writes[-1]})" if killed else "not killed"

    refocus("doctor", "--repair", cwd=dest, check=False)
    rc, model = doctor_json(dest)
    assert rc == 0, f"{where}: doctor --repair left problems in dest: {model['findings']}"
    rc, model = doctor_json(src)
    assert rc == 0, f"{where}: the source is left inconsistent: {model['findings']}"
    status = refocus("show", rid, "--json", cwd=dest).json["status"]
    assert status in ("in-progress", "result"), f"{where}: status {status}"
    assert refocus("show", rid, "--json", cwd=src).json["status"] == status, f"{where}: the source disagrees"
    assert refs(src)[f"refs/refocus/{rid}"] == refs(dest)[f"refs/refocus/{rid}"], f"{where}: event logs differ"
    if status == "in-progress":
        return
    brief = (dest / "docs/refocus" / f"{rid}.md").read_text()
    assert SUMMARY in brief and MATERIAL_CHANGE in brief, f"{where}: the result is not in the brief:\n{brief}"
    assert f"refocus {rid} linked status=result" in git(dest, "notes", "--ref=refocus", "show", work), \
        f"{where}: the work commit has no final linkage note"
    context = dest / "docs/context" / CONTEXT_FILE
    if not (context.exists() and MATERIAL_CHANGE in context.read_text()):
        raise MaterialChangeNotPromoted(f"{where}: status is result but {context} lacks {MATERIAL_CHANGE!r}")
    assert context.read_text().count(MATERIAL_CHANGE) == 1, f"{where}: the bullet was promoted twice"


@pytest.mark.parametrize("n", kill_points(SPAWN_KILL_POINTS))
def test_spawn_killed_after_each_write(wired, tmp_path, n):
    src, dest = wired
    args = [a for a in spawn_args(dest) if a != "--json"]
    proc, writes = run_traced(args, cwd=src, kill_after=n, log=tmp_path / "writes")
    killed = check_run(proc, writes, n, SPAWN_KILL_POINTS)
    where = f"killed after write {n} ({writes[-1]})" if killed else "not killed"

    for repo in (src, dest):
        refocus("doctor", "--repair", cwd=repo, check=False)
    for repo in (src, dest):
        rc, model = doctor_json(repo)
        assert rc == 0, f"{where}: doctor --repair left problems in {repo.name}: {model['findings']}"
    known = refs(src, "refs/refocus/")
    assert known == refs(dest, "refs/refocus/"), f"{where}: the two repositories know different refocuses"
    assert len(known) <= 1, known
    if not killed:
        assert len(known) == 1, "a finished spawn leaves its refocus in both repositories"
    for ref in known:  # completed by doctor, or rolled back (then nothing is left)
        rid = ref.removeprefix("refs/refocus/")
        assert (dest / "docs/refocus" / f"{rid}.md").exists(), f"{where}: the brief of {rid} is missing in dest"
        for repo in (src, dest):
            assert refocus("show", rid, "--json", cwd=repo).json["status"] == "reserved", f"{where}: {repo.name}"
