"""``git refocus abandon ID --reason R``: stop a refocus, keep its record."""

from __future__ import annotations

from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model import events as ev
from gitrefocus.model import lifecycle
from gitrefocus.model.events import Event
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.model.records import dataclass
from gitrefocus.ops import index_md, linkage, record
from gitrefocus.store import catalog, eventlog, localstate, refs
from gitrefocus.store import scoped_commit as promised
from gitrefocus.store.eventlog import Tip
from gitrefocus.store.scoped_commit import scoped_commit
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class AbandonOutcome:
    id: str
    status: str
    reason: str
    files_written: list[str]
    commit: str | None
    warnings: list[str]
    dry_run: bool = False  # nothing was written: files_written is what would be

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "reason": self.reason, "dry_run": self.dry_run,
                "files_written": self.files_written, "commit": self.commit, "warnings": self.warnings}


def abandon(*, refocus_id: str, reason: str, commit: bool = False, dry_run: bool = False,
            cwd: str = ".") -> AbandonOutcome:
    if not reason or not reason.strip():
        raise RefocusError("abandon needs --reason: say why, for whoever reads this later.")
    ws = Workspace.open(cwd)
    rid = catalog.resolve_id(ws, refocus_id)

    def make(tip: Tip | None) -> Event:
        if tip is None:
            raise RefocusError(f"{rid} has no event log here; run `git refocus doctor --repair`.")
        if tip.state.status == lifecycle.RESULT:  # the other terminal event won: a lost race, not a mistake
            raise record.LostRace(record.lost_to(ws, rid, tip, ev.ABANDONED))
        lifecycle.require_transition(rid, tip.state.status, lifecycle.ABANDONED,
                                     tip.state.completed_at or tip.state.last_event_at)
        return record.new_event(ws, rid, ev.ABANDONED, "user", reason=reason.strip(),
                                meta_changes={"status": lifecycle.ABANDONED, "reason": reason.strip()})

    brief = catalog.brief_file(ws, rid)
    if dry_run:  # every check the event would meet, and nothing written
        tip = eventlog.read_tip(ws.repo, rid)
        make(tip)
        assert tip is not None
        other = record.counterpart(ws, tip.state)
        there = catalog.brief_file(other, rid) if other is not None else None
        return AbandonOutcome(id=rid, status=lifecycle.ABANDONED, reason=reason.strip(),
                              files_written=[p for p in (brief, there) if p], commit=None, warnings=[], dry_run=True)
    if commit and brief:  # before the first write: an abandon killed before its commit is committed by doctor
        promised.promise(ws, rid, [brief], f"refocus({rid}): abandoned")
    before = refs.resolve(ws.repo, refs.ref_name(rid))
    try:
        out = record.write_event(ws, rid, make, settle=True)  # side effects only once this event won
    except BaseException:
        if commit and brief and refs.resolve(ws.repo, refs.ref_name(rid)) == before:
            promised.kept(ws, rid)  # refused before its event: nothing to commit
        raise
    state = out.tip.state
    localstate.clear_active(ws.git_dir, rid)
    localstate.unmap_sessions(ws.git_dir, rid)
    record.note_event(ws, out.tip, DEST if catalog.brief_file(ws, rid) else SOURCE)
    warnings = out.warnings + linkage.on_finish(ws, rid, "abandoned")
    other = record.counterpart(ws, state)
    other_written = record.propagate(ws, other, rid)
    if other is not None:  # the other side's audit line, and it stops tagging commits with the refocus
        record.note_event(other, out.tip, DEST if catalog.brief_file(other, rid) else SOURCE)
        localstate.clear_active(other.git_dir, rid)
        localstate.unmap_sessions(other.git_dir, rid)
    index_md.refresh(ws, other)
    commit_oid = scoped_commit(ws, out.written, f"refocus({rid}): abandoned", refocus_id=rid) if commit else None
    if commit and brief:
        promised.kept(ws, rid)
    if commit_oid:  # the commit carries the trailer: a linked commit of a finished refocus gets its final note
        warnings += linkage.on_finish(ws, rid, "abandoned")
    return AbandonOutcome(id=rid, status=state.status, reason=reason.strip(), files_written=out.written + other_written,
                     commit=commit_oid, warnings=warnings)
