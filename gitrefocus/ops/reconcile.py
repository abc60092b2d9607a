"""Bringing a hand-edited brief file and its ref back into agreement: body edits
are kept, a legal status edit becomes an ``edited`` event, any other is reported.

- file equal to the ref's snapshot: nothing to do;
- file equal to an *older* snapshot (a write was cut short): restored from the ref;
- frontmatter status changed by hand to a legal next status: recorded as an
  ``edited`` event (the file, with all its edits, becomes the snapshot);
- any other status edit: reported, nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable

from gitrefocus.errors import RefocusError
from gitrefocus.model import events as ev
from gitrefocus.model import lifecycle
from gitrefocus.model.brief import Brief
from gitrefocus.model.events import Event
from gitrefocus.model.ids import ref_name
from gitrefocus.ops import record
from gitrefocus.store import atomic, catalog, eventlog, git
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from gitrefocus.store.catalog import Catalog


def reconcile_one(ws: Workspace, rid: str, *, strict: bool) -> list[str]:
    """Return notices; with ``strict`` an illegal or unreadable edit raises."""
    path = catalog.brief_file(ws, rid)
    tip = eventlog.read_tip(ws.repo, rid)
    if path is None or tip is None:
        return []
    data = atomic.read_bytes(path)  # never blocks on a FIFO put in the brief's place
    digest = git.blob_hash(data)
    if digest == str(eventlog.snapshot_oid(ws.repo, tip.oid)):
        return []
    rel = ws.rel(path)
    older = {str(eventlog.snapshot_oid(ws.repo, oid)) for oid, _ in eventlog.chain(ws.repo, tip.oid)}
    if digest in older:
        snap = eventlog.snapshot(ws.repo, tip.oid)
        if snap is not None:
            with catalog.briefs_changing(ws, path):
                atomic.write_bytes(path, snap)
            return [f"{rel} was behind {ref_name(rid)}; restored it from the ref."]
    try:
        doc = Brief.parse(data, rel)
    except RefocusError:
        if strict:
            raise
        return []
    current, edited = tip.state.status, doc.status
    if edited == current:
        return []
    if not lifecycle.is_legal(current, edited):
        message = (f"{rel} says status {edited} but {rid} is {current}, and {current} → {edited} "
                   f"is not a legal transition; fix the frontmatter status.")
        if strict:
            raise RefocusError(message)
        return [message]

    def make(t: eventlog.Tip | None) -> Event:
        if t is None or t.state.status != current:
            raise RefocusError(f"{rid} changed while importing the edit of {rel}; run the command again.")
        return record.new_event(ws, rid, ev.EDITED, "user", **{"from": current, "to": edited, "reason": doc.meta.get("reason")})

    out = record.write_event(ws, rid, make, reconcile=False)
    record.note(ws, ws.head_oid(), rid, "edited", at=out.tip.event.at, status=edited, was=current)
    return [f"imported the hand edit of {rel}: {current} → {edited}."]


def reconcile_all(ws: Workspace, cat: Catalog) -> list[str]:
    notices = []
    since = catalog.watched_since()
    for entry in cat.entries.values():
        if entry.path and entry.state and not entry.file_matches_ref and not entry.file_error and entry.watched(since):
            try:
                notices += reconcile_one(ws, entry.id, strict=False)
            except RefocusError as exc:
                notices.append(str(exc))
    return notices


def fresh_catalog(ws: Workspace, load: Callable[[Workspace], catalog.Catalog] = catalog.load
                  ) -> tuple[catalog.Catalog, list[str]]:
    """The catalog (every entry, or those ``load`` picks) after hand-edited
    briefs among them were reconciled, and what reconciling said."""
    cat = load(ws)
    notices = reconcile_all(ws, cat)
    if notices:
        cat = load(ws)
    return cat, notices


def settle(ws: Workspace) -> list[str]:
    """Reconcile every brief file that may differ from its ref, found by a stat
    each (:meth:`catalog.Catalog.unsettled`), without loading the others;
    return what reconciling said. (A cold cache leaves every brief unsettled:
    they are loaded a chunk at a time, never all at once.)"""
    first = catalog.Catalog(ws)
    ids = sorted(first.unsettled())  # the rows made fresh first
    notices: list[str] = []
    for at in range(0, len(ids), catalog.CHUNK):
        cat = first if at == 0 else catalog.Catalog(ws)
        notices += reconcile_all(ws, cat.load_ids(ids[at:at + catalog.CHUNK]))
        first.entries.clear()
    return notices
