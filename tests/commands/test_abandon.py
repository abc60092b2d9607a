"""`git refocus abandon`."""

from __future__ import annotations

from tests.runner import refocus


def test_blocked_then_abandon(spawned):
    src, dest, out = spawned
    rid = out["id"]
    refocus("start", rid, cwd=dest)
    r = refocus("complete", "--status", "blocked", "--summary", "needs auth service first",
                "--follow-up", "../auth:token-api:needs a token endpoint", "--no-material-changes", "blocked", "--json", cwd=dest).json
    assert r["status"] == "blocked"
    a = refocus("abandon", rid, "--reason", "re-spawning after auth lands", "--json", cwd=src).json
    assert a["status"] == "abandoned"
    brief = (dest / "docs/refocus" / f"{rid}.md").read_text()
    assert "status: abandoned" in brief and "reason: re-spawning after auth lands" in brief
    again = refocus("abandon", rid, "--reason", "x", cwd=src, check=False)
    assert again.returncode == 1 and f"{rid} is already abandoned (" in again.stderr and "nothing to do" in again.stderr
