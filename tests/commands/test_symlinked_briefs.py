"""A symlinked ``docs/refocus`` holds no brief for git refocus: every reader of a brief
(show, start, complete, abandon, the session-start hook) finds it through one place,
which refuses the symlink, and none of them reads or writes through it, whether the
link leads to a plain directory or to another repository's top."""

from __future__ import annotations

import json

import pytest

from tests.gitrepo import make_repo
from tests.runner import refocus

SECRET = "TEXT ONLY THE LINK'S TARGET HOLDS"


@pytest.fixture(params=["directory", "repository"])
def linked(request, spawned, tmp_path):
    """(dest, id, child session id, the link's target): dest's docs/refocus moved out and
    replaced by a symlink to it; the target is a plain directory or another repository's top."""
    src, dest, out = spawned
    target = make_repo(tmp_path / "other") if request.param == "repository" else tmp_path / "other"
    target.mkdir(exist_ok=True)
    briefs = dest / "docs" / "refocus"
    for path in briefs.iterdir():
        path.rename(target / path.name)
    briefs.rmdir()
    briefs.symlink_to(target)
    brief = target / f"{out['id']}.md"
    brief.write_text(brief.read_text() + f"\n{SECRET}\n")
    return dest, out["id"], out["child_session_id"], target


def listing(directory) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in directory.iterdir() if p.is_file()}


def test_show_says_the_link_is_refused_and_never_reads_through_it(linked):
    dest, rid, _, _ = linked
    shown = refocus("show", rid, "--json", cwd=dest).json
    assert shown["path"] is None
    assert SECRET not in (shown["brief"] or "")
    assert any("symlink" in p for p in shown["problems"]), shown["problems"]
    text = refocus("show", rid, cwd=dest, check=False)
    assert SECRET not in text.stdout + text.stderr and "symlink" in text.stderr


@pytest.mark.parametrize("args", [["start"], ["complete", "--summary", "Done.", "--no-material-changes", "none"],
                                  ["abandon", "--reason", "Not needed."]])
def test_start_complete_and_abandon_refuse_and_write_nothing_through_it(linked, args):
    dest, rid, _, target = linked
    before = listing(target)
    if args[0] != "start":
        refocus("start", rid, cwd=dest, check=False)
    result = refocus(args[0], rid, *args[1:], cwd=dest, check=False)
    assert result.returncode == 1 and "symlink" in result.stderr, result
    assert SECRET not in result.stdout + result.stderr
    assert listing(target) == before, "something was written through the symlinked docs/refocus"


def test_the_session_start_hook_refuses_and_briefs_nothing_through_it(linked):
    dest, rid, session, target = linked
    before = listing(target)
    payload = {"session_id": session, "cwd": str(dest), "source": "startup", "hook_event_name": "SessionStart"}
    result = refocus("hook", "session-start", cwd=dest, input=json.dumps(payload), check=False)
    assert result.returncode == 0, result  # a hook never fails the session
    assert SECRET not in result.stdout and "symlink" in result.stderr, result
    assert f"child session of refocus {rid}" not in result.stdout
    assert listing(target) == before
    assert not (dest / ".git/refocus/sessions" / session).exists(), "the session became the child through the link"
