"""Progress on a terminal, fetch and push alike; never into a pipe or under --json."""

from __future__ import annotations

from tests.cli.tty import on_tty
from tests.gitrepo import git
from tests.runner import refocus, spawn_args


def _with_remote(tmp_path, repos):
    src, dest = repos
    remote = tmp_path / "dest.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(dest, "remote", "add", "origin", str(remote))
    refocus(*spawn_args(dest), cwd=src)
    return dest


def test_sync_on_a_terminal_says_it_is_pushing(tmp_path, repos):
    dest = _with_remote(tmp_path, repos)
    code, out = on_tty("sync", cwd=dest, env={"NO_COLOR": "1"})
    assert code == 0, out
    # the event log, the notes and the repository's identity (refs/refocus-meta/identity)
    assert "fetching refocus refs" in out and "pushing 3 ref(s) to origin" in out, out
    assert "pushed 3 refs." in out, "the summary counts what the progress line counted"


def test_sync_spinner_shows_push_on_a_colour_terminal(tmp_path, repos):
    dest = _with_remote(tmp_path, repos)
    code, out = on_tty("sync", cwd=dest)
    assert code == 0, out
    assert "pushing 3 ref(s) to origin" in out, "the spinner's text follows the push"
    assert "synced with origin" in out


def test_no_progress_into_a_pipe_or_under_json(tmp_path, repos):
    dest = _with_remote(tmp_path, repos)
    r = refocus("sync", cwd=dest)
    assert "pushing" not in r.stderr and "fetching" not in r.stderr
    code, out = on_tty("sync", "--json", cwd=dest)
    assert code == 0 and "fetching" not in out and "pushing" not in out, out


def test_doctor_shows_a_status_on_a_terminal_only(tmp_path, repos):
    src, _ = repos
    code, out = on_tty("doctor", cwd=src, env={"NO_COLOR": "1"})
    assert "checking files, refs, notes" in out
    assert "checking" not in refocus("doctor", cwd=src, check=False).stderr
