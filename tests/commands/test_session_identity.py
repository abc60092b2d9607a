"""A session acts only for its own refocus: `complete`, `stop`, `show` and `start` by session id,
the worktree's active marker only for work with no session id (a person at a terminal)."""

from __future__ import annotations

from tests.runner import refocus

OTHER = "9f2c1a9e-0000-4222-8333-444455556666"


def child_env(out: dict) -> dict:
    return {"CLAUDE_CODE_SESSION_ID": out["child_session_id"]}


def started_by_child(spawned):
    src, dest, out = spawned
    refocus("start", out["id"], "--json", cwd=dest, env=child_env(out))
    return src, dest, out


def status_of(dest, rid) -> str:
    return refocus("show", rid, "--json", cwd=dest).json["status"]


def test_another_session_cannot_complete_the_childs_refocus(spawned):
    src, dest, out = started_by_child(spawned)
    rid, sid = out["id"], out["child_session_id"]
    args = ("complete", "--summary", "not mine", "--no-material-changes", "n/a")
    unnamed = refocus(*args, cwd=dest, env={"CLAUDE_CODE_SESSION_ID": OTHER}, check=False)
    assert unnamed.returncode == 1 and f"this session ({OTHER}) works on no refocus here" in unnamed.stderr, unnamed
    named = refocus(*args[:1], rid, *args[1:], "--json", cwd=dest, env={"CLAUDE_CODE_SESSION_ID": OTHER}, check=False)
    assert named.returncode == 3, named
    assert f"{rid} belongs to session {sid}" in named.stderr and f"git refocus start {rid} --take-over" in named.stderr
    assert named.json["kind"] == "error" and named.json["code"] == "refused"
    assert status_of(dest, rid) == "in-progress", "nothing was recorded"

    refocus("start", rid, "--take-over", cwd=dest, env={"CLAUDE_CODE_SESSION_ID": OTHER})
    done = refocus(*args, "--json", cwd=dest, env={"CLAUDE_CODE_SESSION_ID": OTHER}).json
    assert done["id"] == rid and done["status"] == "result", "taken over on purpose, it completes"


def test_the_child_completes_without_naming_its_refocus_and_a_terminal_uses_the_marker(spawned):
    src, dest, out = started_by_child(spawned)
    done = refocus("complete", "--summary", "mine", "--no-material-changes", "n/a", "--json", cwd=dest,
                   env=child_env(out)).json
    assert done["id"] == out["id"]


def test_a_person_at_a_terminal_completes_through_the_marker(started):
    src, dest, rid = started  # started without a session: the worktree marker names it
    done = refocus("complete", "--summary", "by hand", "--no-material-changes", "n/a", "--json", cwd=dest).json
    assert done["id"] == rid


def test_stop_acts_only_for_the_sessions_own_refocus(spawned):
    src, dest, out = started_by_child(spawned)
    rid = out["id"]
    refocus("start", rid, cwd=dest)  # and a person at a terminal made it the worktree's active one
    state = dest / ".git" / "refocus"
    assert refocus("stop", "--json", cwd=dest, env={"CLAUDE_CODE_SESSION_ID": OTHER}).json["id"] is None
    refused = refocus("stop", rid, cwd=dest, env={"CLAUDE_CODE_SESSION_ID": OTHER}, check=False)
    assert refused.returncode == 3 and f"belongs to session {out['child_session_id']}" in refused.stderr
    assert (state / "sessions" / out["child_session_id"]).exists() and (state / "active").exists()
    mine = refocus("stop", "--json", cwd=dest, env=child_env(out)).json
    assert mine["id"] == rid and mine["sessions_unmapped"] == 1 and not mine["cleared_active"]
    assert not (state / "sessions" / out["child_session_id"]).exists()
    assert (state / "active").exists(), "the worktree marker is the terminal's, not the session's"
    assert refocus("stop", "--json", cwd=dest).json["cleared_active"], "at the terminal, stop clears it"


def test_show_without_an_id_shows_the_sessions_own_refocus(spawned):
    src, dest, out = started_by_child(spawned)
    shown = refocus("show", "--json", cwd=dest, env=child_env(out)).json
    assert shown["id"] == out["id"] and "MCPSTANDARD.md exists" in shown["brief"]
    text = refocus("show", cwd=dest, env=child_env(out)).stdout
    assert "# Events" in text
    none = refocus("show", cwd=dest, env={"CLAUDE_CODE_SESSION_ID": OTHER}, check=False)
    assert none.returncode == 1 and "works on no refocus here; name one: git refocus show ID" in none.stderr
