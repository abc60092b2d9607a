"""`git refocus demo`: the whole round trip in throwaway repositories."""

from __future__ import annotations

from tests.runner import refocus


def test_demo_round_trip_runs(tmp_path):
    r = refocus("demo", "--json", cwd=tmp_path)
    assert r.json["events"] == ["spawned", "started", "completed", "received"]
