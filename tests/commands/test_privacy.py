"""Refocus data leaves the machine only for a remote its owner agreed to: `sync` asks once per
push URL (on a terminal; `--yes` from a script) and pushes nothing without it; a plain `git push`
of refocus refs, or of a commit that adds a saved transcript, is refused by the pre-push hook
unless that URL was agreed for it. These tests run as a new user: no agreement in ~/.gitconfig."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time

import pytest

from tests.conftest import GITCONFIG
from tests.gitrepo import commit, git, git_run, refs
from tests.runner import refocus, source_env, spawn_args


@pytest.fixture(autouse=True)
def new_user(hermetic):
    """~/.gitconfig without the tests' blanket agreement."""
    (hermetic / ".gitconfig").write_text(GITCONFIG.split("[refocus]")[0])


@pytest.fixture
def clone(tmp_path, repos):
    """A spawned refocus in `dest`, whose origin is a bare remote."""
    src, dest = repos
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(dest, "remote", "add", "origin", str(remote))
    git(dest, "push", "-q", "origin", "main")
    refocus("init", cwd=dest)
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    return {"src": src, "dest": dest, "remote": remote, "rid": rid, "tmp": tmp_path}


def remote_refocus_refs(remote) -> dict:
    return {k: v for k, v in refs(remote).items() if k.startswith(("refs/refocus", "refs/notes"))}


def test_sync_without_agreement_pushes_nothing_and_says_why(clone):
    dest, remote = clone["dest"], clone["remote"]
    r = refocus("sync", "--json", cwd=dest)
    out = r.json
    assert out["agreed"] is False and out["withheld"] >= 2 and out["pushed"] == [] and not out["notes_pushed"]
    assert out["url"] == str(remote)
    assert "nothing was pushed" in r.stderr and "git refocus sync --yes" in r.stderr
    assert remote_refocus_refs(remote) == {}
    text = refocus("sync", cwd=dest).stdout
    assert "not pushed (not agreed)" in text
    assert "refocus.agreedremote" not in git(dest, "config", "--local", "--list")
    doctor = refocus("doctor", "--json", cwd=dest, check=False).json
    said = [f["message"] for f in doctor["findings"] if f["kind"] == "privacy"]
    assert said and "not agreed" in said[0] and str(remote) in said[0]


def test_yes_agrees_for_this_url_and_a_changed_url_is_asked_again(clone):
    dest, remote, tmp = clone["dest"], clone["remote"], clone["tmp"]
    out = refocus("sync", "--yes", "--json", cwd=dest).json
    assert out["agreed"] and clone["rid"] in out["pushed"] and out["notes_pushed"]
    assert git(dest, "config", "--local", "--get-all", "refocus.agreedRemote").split() == [str(remote)]
    assert f"refs/refocus/{clone['rid']}" in remote_refocus_refs(remote)
    refocus("abandon", clone["rid"], "--reason", "moved", cwd=dest)
    assert refocus("sync", "--json", cwd=dest).json["agreed"], "asked once per URL"
    # the origin moves (a fork): asked again, nothing pushed there
    fork = tmp / "fork.git"
    git(tmp, "clone", "-q", "--bare", str(remote), str(fork))
    git(dest, "remote", "set-url", "origin", str(fork))
    moved = refocus("sync", "--json", cwd=dest).json
    assert moved["agreed"] is False and moved["url"] == str(fork)
    # a second clone of the same remote through another URL is asked too
    other = tmp / "other"
    git(tmp, "clone", "-q", f"file://{remote}", str(other))
    refocus("init", cwd=other)
    assert refocus("sync", "--json", cwd=other).json["agreed"] is False


def test_a_terminal_is_asked_once(clone):
    dest, remote = clone["dest"], clone["remote"]
    said, rc = run_on_terminal(["sync"], dest, answer="y\n")
    assert rc == 0 and f"to origin ({remote})?" in said, said
    assert git(dest, "config", "--local", "--get-all", "refocus.agreedRemote").split() == [str(remote)]
    assert f"refs/refocus/{clone['rid']}" in remote_refocus_refs(remote)
    said, rc = run_on_terminal(["sync"], dest, answer="")
    assert rc == 0 and "[y/N]" not in said and "synced with origin" in said, said


def test_a_terminal_that_says_no_pushes_nothing(clone):
    said, rc = run_on_terminal(["sync"], clone["dest"], answer="n\n")
    assert rc == 0 and "nothing was pushed" in said
    assert remote_refocus_refs(clone["remote"]) == {}


def run_on_terminal(args, cwd, answer: str) -> tuple[str, int]:
    """Run `git refocus ARGS` with stdin and stderr on a pseudo-terminal; type ``answer``."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "gitrefocus", *args], cwd=cwd, env=source_env(None),
                            stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    out, typed = b"", False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
            if not typed and b"[y/N]" in out:
                os.write(leader, answer.encode())
                typed = True
        elif proc.poll() is not None:
            break
    os.close(leader)
    return out.decode("utf-8", "replace"), proc.wait(30)


def test_a_plain_push_of_refocus_refs_is_refused_until_agreed(clone):
    dest, remote, rid = clone["dest"], clone["remote"], clone["rid"]
    r = git_run(dest, "push", "origin", "refs/refocus/*:refs/refocus/*", "refs/notes/refocus")
    assert r.returncode != 0 and "git-refocus: refusing to push refs/" in r.stderr
    assert "git refocus sync origin --yes" in r.stderr
    assert remote_refocus_refs(remote) == {}
    git(dest, "config", "--add", "refocus.agreedRemote", str(remote))
    git(dest, "push", "-q", "origin", "refs/refocus/*:refs/refocus/*")
    assert f"refs/refocus/{rid}" in remote_refocus_refs(remote)


def test_a_saved_transcript_never_reaches_a_remote_not_agreed_for_transcripts(clone, hermetic):
    from gitrefocus.model.session import encode_project_dir

    dest, remote, rid = clone["dest"], clone["remote"], clone["rid"]
    git(dest, "config", "--add", "refocus.agreedRemote", str(remote))  # refocus data: yes; transcripts: not yet
    child = refocus("show", rid, "--json", cwd=dest).json["state"]["child_session_id"]
    project = hermetic / ".claude/projects" / encode_project_dir(str(dest.resolve()))
    project.mkdir(parents=True)
    (project / f"{child}.jsonl").write_text(json.dumps({"type": "user", "message": {"content": "private words"}}) + "\n")
    refocus("start", rid, cwd=dest)
    refocus("complete", rid, "--summary", "done", "--dod", "1", "--dod", "2", "--no-material-changes", "n/a",
            "--save-transcript", "--commit", cwd=dest)
    saved = f"docs/refocus/transcripts/{rid}.jsonl"
    assert "private words" in git(dest, "show", f"HEAD:{saved}"), "complete committed the saved transcript"
    commit(dest, "more work on top")
    r = git_run(dest, "push", "origin", "main")
    assert r.returncode != 0 and f"saved session transcript {saved}" in r.stderr \
        and "refocus.agreedTranscripts" in r.stderr, r.stderr
    assert "private words" not in git(remote, "log", "--all", "-p", check=False)
    # a new branch (the remote has nothing of it) is checked against everything the remote lacks
    r = git_run(dest, "push", "origin", "main:refs/heads/elsewhere")
    assert r.returncode != 0 and "refusing" in r.stderr
    doctor = refocus("doctor", "--json", cwd=dest, check=False).json
    assert any("1 saved transcript(s)" in f["message"] and "none yet" in f["message"]
               for f in doctor["findings"] if f["kind"] == "privacy")
    git(dest, "config", "--add", "refocus.agreedTranscripts", str(remote))
    git(dest, "push", "-q", "origin", "main")
    assert "private words" in git(remote, "show", f"main:{saved}")

