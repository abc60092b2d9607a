"""``git refocus status``: what needs attention in this repository."""

from __future__ import annotations

from gitrefocus.commands.receive import waiting
from gitrefocus.model import clock, lifecycle
from gitrefocus.ops.index_md import row
from gitrefocus.ops.reconcile import fresh_catalog
from gitrefocus.store.workspace import Workspace


def dashboard(ws: Workspace, cat) -> dict:
    """The status model (also what the SessionStart hook draws from)."""
    stale_hours = ws.setting("staleReservedHours")
    quiet_hours = ws.setting("quietHours")
    incoming = {"pending_launch": [], "in_progress": [], "blocked": []}
    outgoing = {"unlaunched": [], "results_waiting": [], "in_flight": []}
    divergences = []
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        r = row(entry, ws.workdir)
        r["age_hours"] = round(clock.age_hours(entry.get("spawned_at")), 1)
        if entry.incoming:
            if entry.status in lifecycle.PENDING_LAUNCH:
                incoming["pending_launch"].append(r)
            elif entry.status == lifecycle.IN_PROGRESS:
                r["quiet_hours"] = round(clock.age_hours(entry.get("last_event_at")), 1)
                r["quiet"] = bool(quiet_hours) and r["quiet_hours"] > quiet_hours
                incoming["in_progress"].append(r)
            elif entry.status == lifecycle.BLOCKED:
                incoming["blocked"].append(r)
        if entry.outgoing:
            if entry.unlaunched_hours(stale_hours) is not None:
                outgoing["unlaunched"].append(r)
            elif entry.status in lifecycle.ACTIVE - {lifecycle.BLOCKED}:
                outgoing["in_flight"].append(r)
        for problem in r["problems"]:
            divergences.append({"id": entry.id, "problem": problem})
        if entry.state and entry.state.get("conflicts"):
            divergences.append({"id": entry.id, "problem": f"{len(entry.state['conflicts'])} event(s) conflicted after a merge and were not applied"})
    outgoing["results_waiting"] = [row(e, ws.workdir) | {"result": e.get("result")} for e in waiting(cat)]
    return {"repo": ws.workdir, "incoming": incoming, "outgoing": outgoing, "divergences": divergences}


def status(*, cwd: str = ".") -> dict:
    ws = Workspace.open(cwd)
    cat, notices = fresh_catalog(ws)
    model = dashboard(ws, cat)
    model["notices"] = notices
    from gitrefocus.health import (
        for_status,  # stale context, changes since the last session (read-only)
    )

    model.update(for_status(ws))
    return model
