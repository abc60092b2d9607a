"""`git refocus start`."""

from __future__ import annotations

from tests.runner import refocus


def test_second_start_warns_but_continues(spawned):
    src, dest, out = spawned
    refocus("start", out["id"], "--session-id", "11111111-1111-4111-8111-111111111111", cwd=dest)
    r = refocus("start", out["id"], "--session-id", "22222222-2222-4222-8222-222222222222", cwd=dest)
    assert "already opened" in r.stderr and "11111111" in r.stderr
