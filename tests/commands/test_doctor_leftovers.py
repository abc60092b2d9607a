"""`doctor` sees and repairs every leftover a command killed between two writes can leave,
and calls the repository consistent after every ordinary command."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.gitrepo import commit, git, note, refs
from tests.runner import refocus, spawn_args

SID = "5e55a1d0-0000-4000-8000-000000000001"


def doctor(repo, *args):
    r = refocus("doctor", "--json", *args, cwd=repo, check=False)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r
    return r.json


def kinds(repo) -> list[str]:
    return [f["kind"] for f in doctor(repo)["findings"] if f["severity"] == "problem"]


@pytest.fixture
def child(wired):
    """A refocus started in dest by session SID (not the id spawn made for the child: it takes
    the refocus over on purpose), with one tagged commit of the child's work."""
    src, dest = wired
    out = refocus(*spawn_args(dest), cwd=src).json
    refocus("start", out["id"], "--session-id", SID, "--take-over", cwd=dest)
    commit(dest, "the child's work", env={**os.environ, "CLAUDE_CODE_SESSION_ID": SID})
    return src, dest, out["id"]


# -- after every ordinary command, doctor exits 0 -----------------------------------------------------
def test_doctor_is_clean_after_a_loop_started_in_a_child(child):
    src, dest, rid = child
    refocus("loop", "start", "--promise", "DONE", "--max-iterations", "3", "--session", SID, cwd=dest)
    for repo in (src, dest):
        assert kinds(repo) == [], repo


def test_doctor_is_clean_after_abandon_from_the_source(child):
    src, dest, rid = child
    refocus("abandon", rid, "--reason", "the source gave up", cwd=src)
    for repo in (src, dest):
        assert kinds(repo) == [], repo


def test_doctor_is_clean_after_complete_with_commit(child):
    src, dest, rid = child
    refocus("complete", rid, "--summary", "done", "--material-change", "architecture.md=X", "--commit", cwd=dest)
    for repo in (src, dest):
        assert kinds(repo) == [], repo


# -- note lines ---------------------------------------------------------------------------------------
def _drop_notes(repo) -> None:
    git(repo, "update-ref", "-d", "refs/notes/refocus")


def _lines(repo) -> set[str]:
    listing = git(repo, "notes", "--ref=refocus", "list").split()
    out = git(repo, "cat-file", "--batch", input="\n".join(listing[0::2]) + "\n") if listing else ""
    return {ln for ln in out.splitlines() if " refocus " in ln and ln[:4].isdigit()}


def test_missing_note_lines_are_recreated_from_the_event_log_once(child):
    src, dest, rid = child
    refocus("complete", rid, "--summary", "done", "--no-material-changes", "none", cwd=dest)
    refocus("receive", rid, cwd=src)
    refocus("link", rid, commit(dest, "made later"), cwd=dest)
    before = {repo: _lines(repo) for repo in (src, dest)}
    assert any(" spawned " in ln for ln in before[src]) and any(" received " in ln for ln in before[src])
    assert {w for ln in before[dest] for w in ("spawned", "started", "completed", "linked") if f" {w} " in ln} == \
        {"spawned", "started", "completed", "linked"}
    for repo in (src, dest):
        _drop_notes(repo)
        assert "note-missing" in kinds(repo), repo
        doctor(repo, "--repair")
        assert kinds(repo) == [], repo
        doctor(repo, "--repair")
        assert _lines(repo) >= {ln for ln in before[repo] if " linked status=result via=trailer" not in ln}, repo
        assert len(_lines(repo)) == len(before[repo]), "recreated once, not once per repair"


# -- markers of a start ---------------------------------------------------------------------------------
def test_an_active_marker_for_a_refocus_never_started_is_cleared(wired):
    src, dest = wired
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    (dest / ".git/refocus").mkdir(parents=True, exist_ok=True)
    (dest / ".git/refocus/active").write_text(rid + "\n")
    assert "active" in kinds(dest)
    doctor(dest, "--repair")
    assert not (dest / ".git/refocus/active").exists() and kinds(dest) == []


# -- a saved transcript flagged but missing ---------------------------------------------------------------
def test_a_flagged_transcript_that_is_missing_is_saved_again(child, hermetic):
    from gitrefocus.model.session import encode_project_dir

    src, dest, rid = child
    project = hermetic / ".claude/projects" / encode_project_dir(str(dest.resolve()))
    project.mkdir(parents=True)
    (project / f"{SID}.jsonl").write_text(json.dumps({"type": "user", "message": {"content": "hi"}}) + "\n")
    show = refocus("show", rid, "--json", cwd=dest).json
    assert show["state"]["child_session_id"] != SID  # the child ran as session SID after the spawn's id
    os.rename(project / f"{SID}.jsonl", project / f"{show['state']['child_session_id']}.jsonl")
    refocus("complete", rid, "--summary", "done", "--no-material-changes", "none", "--save-transcript", cwd=dest)
    saved = dest / "docs/refocus/transcripts" / f"{rid}.jsonl"
    text = saved.read_text()
    saved.unlink()
    assert "transcript-missing" in kinds(dest)
    doctor(dest, "--repair")
    assert saved.read_text() == text and kinds(dest) == []


# -- git's own index.lock left by a killed commit --------------------------------------------------------
def test_a_stale_index_lock_is_found_and_removed(child):
    src, dest, rid = child
    lock = dest / ".git/index.lock"
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))
    assert "stale-index-lock" in kinds(dest)
    doctor(dest, "--repair")
    assert not lock.exists() and kinds(dest) == []
    refocus("complete", rid, "--summary", "done", "--no-material-changes", "none", "--commit", cwd=dest)


# -- a stale lock on the remote -----------------------------------------------------------------------------
def test_a_stale_lock_on_the_remote_is_reported_with_the_command_that_clears_it(tmp_path):
    from tests.gitrepo import make_repo, remote_with_clones

    remote, (a,) = remote_with_clones(tmp_path, "A")
    refocus("init", cwd=a)
    rid = refocus(*spawn_args(a), cwd=make_repo(tmp_path / "src")).json["id"]
    refocus("sync", cwd=a)
    lock = remote / "refs/refocus" / f"{rid}.lock"
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))
    refocus("link", rid, "HEAD", cwd=a)
    r = refocus("sync", cwd=a, check=False)
    assert r.returncode == 1 and str(lock) in r.stderr and f"rm {lock}" in r.stderr, r
    assert len([ln for ln in r.stderr.splitlines() if ln.strip()]) == 1, r
    found = [f for f in doctor(a)["findings"] if f["kind"] == "remote-lock"]
    assert found and f"rm {lock}" in found[0]["message"], found
    lock.unlink()
    refocus("sync", cwd=a)
    assert not [f for f in doctor(a)["findings"] if f["kind"] == "remote-lock"]


# -- refs that are not event logs -----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", ["symbolic", "blob"])
def test_a_symbolic_or_non_commit_ref_is_quarantined_by_repair(child, shape):
    src, dest, rid = child
    bad = "refs/refocus/2026-01-01-odd-abcdef"
    if shape == "symbolic":
        git(dest, "symbolic-ref", bad, f"refs/refocus/{rid}")
    else:
        git(dest, "update-ref", bad, git(dest, "hash-object", "-w", "--stdin", input="x").strip())
    assert "ref-unreadable" in kinds(dest)
    r = refocus("doctor", "--repair", cwd=dest, check=False)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r
    assert bad not in refs(dest) and f"refs/refocus/{rid}" in refs(dest)
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "in-progress"


# -- a log whose stored state cannot be believed ------------------------------------------------------------
def test_a_merge_marker_with_a_state_of_its_own_is_rebuilt(child):
    src, dest, rid = child
    tip = git(dest, "rev-parse", f"refs/refocus/{rid}").strip()
    state = json.loads(git(dest, "show", f"{tip}:state.json"))
    blob = git(dest, "hash-object", "-w", "--stdin", input=json.dumps(dict(state, status="abandoned"))).strip()
    listing = git(dest, "ls-tree", tip).replace(git(dest, "rev-parse", f"{tip}:state.json").strip(), blob)
    tree = git(dest, "mktree", input=listing).strip()
    side = git(dest, "commit-tree", git(dest, "rev-parse", f"{tip}^{{tree}}").strip(), "-p", tip, "-m", "s").strip()
    marker = git(dest, "commit-tree", tree, "-p", tip, "-p", side, "-m", "merge").strip()
    git(dest, "update-ref", f"refs/refocus/{rid}", marker)
    assert "log-untrusted" in kinds(dest)
    doctor(dest, "--repair")
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "in-progress"
    assert kinds(dest) == [] and any(r.startswith("refs/refocus-quarantine/") for r in refs(dest))
    assert note(dest) is not None
