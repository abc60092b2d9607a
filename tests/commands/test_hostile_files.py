"""What sits where git refocus reads or writes a file: a FIFO, a directory, a symlink.
Every command refuses in one line before its first durable write, never hangs, never
exits 70, and the event is not recorded."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.gitrepo import refs
from tests.runner import refocus, source_env, spawn_args

COMPLETE = ["complete", "--summary", "done", "--material-change", "architecture.md=a change"]


def run(args, cwd, timeout=30) -> subprocess.CompletedProcess:
    """`git refocus ARGS`, failing the test if it blocks (a FIFO opened for reading waits for a writer)."""
    try:
        return subprocess.run([sys.executable, "-m", "gitrefocus", *args], cwd=str(cwd), env=source_env(),
                              capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"git refocus {' '.join(args)} hung")


def refused_in_one_line(r) -> None:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, r


def replace_with(path, kind: str, tmp_path) -> None:
    if path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        outside = tmp_path / "outside.md"
        outside.write_text("not this repository's\n")
        path.symlink_to(outside)


@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink"])
def test_a_brief_that_is_not_a_regular_file_refuses_complete_before_its_event(started, tmp_path, kind):
    src, dest, rid = started
    before = refs(dest)
    replace_with(dest / "docs/refocus" / f"{rid}.md", kind, tmp_path)
    r = run([*COMPLETE, rid], dest)
    refused_in_one_line(r)
    assert refs(dest) == before, "nothing was recorded"
    assert refocus("show", rid, "--json", cwd=src).json["status"] == "in-progress"


@pytest.mark.parametrize("target", ["docs/context/architecture.md", "docs/refocus/INDEX.md"])
@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_context_file_or_index_that_is_not_a_regular_file_refuses_complete(started, tmp_path, target, kind):
    src, dest, rid = started
    before = refs(dest)
    replace_with(dest / target, kind, tmp_path)
    r = run([*COMPLETE, rid], dest)
    refused_in_one_line(r)
    assert refs(dest) == before, "nothing was recorded"


@pytest.mark.parametrize("name", [".gitignore", "CLAUDE.md"])
def test_a_fifo_in_place_of_a_set_up_file_refuses_spawn(repos, tmp_path, name):
    src, dest = repos
    replace_with(dest / name, "fifo", tmp_path)
    r = run(spawn_args(dest)[:-1], src)
    refused_in_one_line(r)
    assert refs(dest, "refs/refocus/") == {} and refs(src, "refs/refocus/") == {}


@pytest.mark.parametrize("what", ["active", "sessions"])
def test_a_fifo_in_local_state_never_hangs_a_command(started, tmp_path, what):
    src, dest, rid = started
    path = dest / ".git/refocus" / what
    if what == "sessions":
        path = path / "11111111-2222-4333-8444-555555555555"
    replace_with(path, "fifo", tmp_path)
    for args in (["status"], ["list"], ["doctor"], ["stop"], [*COMPLETE, rid]):
        r = run(args, dest)
        assert r.returncode != 70 and "Traceback" not in r.stderr, (args, r)


def test_a_fifo_brief_never_hangs_a_read_command(started, tmp_path):
    src, dest, rid = started
    replace_with(dest / "docs/refocus" / f"{rid}.md", "fifo", tmp_path)
    for args in (["list"], ["status"], ["show", rid], ["doctor"], ["pickup", rid], ["index"]):
        r = run(args, dest)
        assert r.returncode != 70 and "Traceback" not in r.stderr, (args, r)


def test_a_fifo_brief_never_hangs_the_session_start_hook(spawned, tmp_path):
    src, dest, out = spawned
    replace_with(dest / "docs/refocus" / f"{out['id']}.md", "fifo", tmp_path)
    payload = f'{{"session_id": "{out["child_session_id"]}", "cwd": "{dest}", "source": "startup"}}'
    try:
        r = subprocess.run([sys.executable, "-m", "gitrefocus", "hook", "session-start"], input=payload,
                           cwd=str(dest), env=source_env(), capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("the session-start hook hung on a FIFO")
    assert r.returncode == 0, r
