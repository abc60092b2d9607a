"""ops/reconcile.py: a hand edit of a brief's status is imported as an event when it is a legal
transition, and reported (never imported) when it is not."""

from __future__ import annotations

from tests.gitrepo import event_kinds
from tests.runner import refocus


def test_hand_edited_status_is_imported_as_event(spawned):
    src, dest, out = spawned
    rid = out["id"]
    path = dest / "docs/refocus" / f"{rid}.md"
    text = path.read_text().replace("status: reserved", "status: abandoned").replace("reason: null", "reason: wrong dest")
    path.write_text(text + "\nA note the user added.\n")
    listed = refocus("list", "--json", cwd=dest).json
    assert listed["entries"][0]["status"] == "abandoned"
    assert event_kinds(dest, rid)[-1] == "edited"
    assert "A note the user added." in path.read_text()


def test_illegal_hand_edit_is_reported_not_imported(spawned):
    src, dest, out = spawned
    rid = out["id"]
    path = dest / "docs/refocus" / f"{rid}.md"
    path.write_text(path.read_text().replace("status: reserved", "status: result"))
    r = refocus("status", "--json", cwd=dest)
    assert "not a legal transition" in r.stderr
    assert event_kinds(dest, rid) == ["spawned"]
    r = refocus("start", rid, cwd=dest, check=False)
    assert r.returncode == 1 and "not a legal transition" in r.stderr
