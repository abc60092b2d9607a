"""`git refocus start`."""

from __future__ import annotations

from tests.runner import refocus


def test_a_second_session_takes_over_only_on_purpose_and_is_warned(spawned):
    src, dest, out = spawned
    sid, other = out["child_session_id"], "22222222-2222-4222-8222-222222222222"
    refocus("start", out["id"], "--session-id", sid, cwd=dest)
    refused = refocus("start", out["id"], "--session-id", other, cwd=dest, check=False)
    assert refused.returncode == 3, refused
    assert f"belongs to session {sid}" in refused.stderr and f"git refocus start {out['id']} --take-over" in refused.stderr
    r = refocus("start", out["id"], "--session-id", other, "--take-over", "--json", cwd=dest)
    assert "already opened" in r.stderr and sid[:8] in r.stderr
    assert r.json["took_over_from"] == sid
    kinds = [e["kind"] for e in refocus("show", out["id"], "--json", cwd=dest).json["events"]]
    assert kinds == ["spawned", "started", "started"]


def test_start_in_a_session_maps_the_session_and_leaves_the_worktree_marker_alone(spawned):
    src, dest, out = spawned
    sid = out["child_session_id"]
    refocus("start", "--json", cwd=dest, env={"CLAUDE_CODE_SESSION_ID": sid})
    state = dest / ".git" / "refocus"
    assert (state / "sessions" / sid).read_text().strip() == out["id"]
    assert not (state / "active").exists(), "the worktree marker serves work with no session id"


def test_a_session_that_is_no_child_does_not_pick_the_waiting_brief(spawned):
    src, dest, out = spawned
    r = refocus("start", cwd=dest, env={"CLAUDE_CODE_SESSION_ID": "33333333-3333-4333-8333-333333333333"}, check=False)
    assert r.returncode == 3 and "is not the child session of any refocus here" in r.stderr, r
    assert refocus("start", "--json", cwd=dest).json["id"] == out["id"], "at a terminal the only waiting brief starts"
