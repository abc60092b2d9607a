"""``git refocus link ID REV-RANGE...``: link commits made without the hook.

History is never rewritten: each commit gets a ``linked`` note line, and the
refocus's event log records a ``linked`` event listing them.
"""

from __future__ import annotations

from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model import events as ev
from gitrefocus.model.records import dataclass
from gitrefocus.ops import linkage, record
from gitrefocus.store import catalog, eventlog
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class LinkOutcome:
    id: str
    status: str | None  # after the link; None when nothing new was linked
    linked: list[str]
    already_linked: list[str]
    warnings: list[str]
    dry_run: bool = False  # nothing was written: linked is what would be

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "linked": self.linked, "dry_run": self.dry_run,
                "already_linked": self.already_linked, "warnings": self.warnings}


def link(*, refocus_id: str, revs: list[str], dry_run: bool = False, cwd: str = ".") -> LinkOutcome:
    if not revs:
        raise RefocusError("name the commits to link: a revision or a range such as main..HEAD.")
    ws = Workspace.open(cwd)
    rid = catalog.resolve_id(ws, refocus_id)
    eventlog.require_tip(ws.repo, rid)
    oids = linkage.resolve_revs(ws, revs)
    new = [oid for oid in oids if not linkage.note_links(ws, oid, rid)]
    warnings: list[str] = []
    status = None
    if dry_run:
        return LinkOutcome(id=rid, status=None, linked=new, already_linked=[oid for oid in oids if oid not in new],
                           warnings=[], dry_run=True)
    if new:
        out = record.write_event(
            ws, rid, lambda tip: record.new_event(ws, rid, ev.LINKED, "user", commits=new, via="link"),
        )
        warnings += out.warnings
        status = out.tip.state.status
        for oid in new:
            record.note(ws, oid, rid, linkage.LINKED, at=out.tip.event.at, status=status, via="link")
        # a completion that landed meanwhile may have scanned before these notes existed
        final = eventlog.require_tip(ws.repo, rid).state.status
        if final != status and final in linkage.FINISHED:
            linkage.record_final(ws, rid, final, [c for c in linkage.linked(ws, rid) if c.oid in new])
        record.propagate(ws, record.counterpart(ws, out.tip.state), rid)
    return LinkOutcome(id=rid, status=status, linked=new, already_linked=[oid for oid in oids if oid not in new],
                       warnings=warnings)
