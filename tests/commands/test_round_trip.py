"""spawn → start → complete → status → receive through the real CLI, on real repos; and the
transitions the status machine refuses."""

from __future__ import annotations

from tests.gitrepo import event_kinds, refs
from tests.runner import refocus


def test_round_trip_with_material_changes(spawned):
    src, dest, out = spawned
    rid = out["id"]
    started = refocus("start", rid, "--json", cwd=dest).json
    assert started["status"] == "in-progress" and started["launched_at"]
    assert (dest / ".git/refocus/active").read_text().strip() == rid
    done = refocus("complete", "--summary", "Wrote the standard.", "--dod", "1", "--dod", "Review integrated",
                   "--artifact", "MCPSTANDARD.md=the standard", "--follow-up", "../code-executor:migrate:needs migration",
                   "--material-change", "architecture.md=MCP servers speak SSH-stdio",
                   "--material-change", "interfaces.md=tools are namespaced", "--json", cwd=dest).json
    assert done["status"] == "result" and done["source_updated"]
    brief = (dest / "docs/refocus" / f"{rid}.md").read_text()
    assert "status: result" in brief and "completed_at: 20" in brief
    assert "- [x] MCPSTANDARD.md exists" in brief and "- [x] Review integrated" in brief
    assert "- architecture.md — MCP servers speak SSH-stdio" in brief
    arch = (dest / "docs/context/architecture.md").read_text()
    assert arch.startswith("# Architecture\n") and f"(refocus {rid}): MCP servers speak SSH-stdio" in arch
    assert not (dest / ".git/refocus/active").exists()
    assert event_kinds(dest, rid) == ["spawned", "started", "completed"]
    assert refs(src)[f"refs/refocus/{rid}"] == refs(dest)[f"refs/refocus/{rid}"]
    status = refocus("status", "--json", cwd=src).json
    waiting = status["outgoing"]["results_waiting"]
    assert [w["id"] for w in waiting] == [rid] and waiting[0]["result"]["summary"] == "Wrote the standard."
    got = refocus("receive", "--json", cwd=src).json
    assert got["received"][0]["id"] == rid
    assert refocus("status", "--json", cwd=src).json["outgoing"]["results_waiting"] == []
    assert event_kinds(src, rid)[-1] == "received"
    assert event_kinds(dest, rid)[-1] == "received", "receipt travels back to the dest copy"


def test_illegal_transitions_name_the_current_status(spawned):
    src, dest, out = spawned
    rid = out["id"]
    r = refocus("complete", rid, "--summary", "x", "--no-material-changes", "n/a", cwd=dest, check=False)
    assert r.returncode == 1 and "it is reserved" in r.stderr
    refocus("start", rid, cwd=dest)
    refocus("complete", rid, "--summary", "x", "--no-material-changes", "n/a", cwd=dest)
    r = refocus("start", rid, cwd=dest, check=False)
    assert r.returncode == 1 and f"{rid} is already completed (" in r.stderr
