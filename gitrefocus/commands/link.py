"""``git refocus link ID REV-RANGE...``: link commits made without the hook.

History is never rewritten: each commit gets a ``linked`` note line, and the
refocus's event log records a ``linked`` event listing them.
"""

from __future__ import annotations

import os
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model import events as ev
from gitrefocus.model.records import dataclass
from gitrefocus.ops import linkage, record, rewrites
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
    if dry_run:
        return LinkOutcome(id=rid, status=None, linked=new, already_linked=[oid for oid in oids if oid not in new],
                           warnings=[], dry_run=True)
    status, warnings = record_links(ws, rid, new, via="link") if new else (None, [])
    return LinkOutcome(id=rid, status=status, linked=new, already_linked=[oid for oid in oids if oid not in new],
                       warnings=warnings)


def record_links(ws: Workspace, rid: str, new: list[str], *, via: str,
                 replaces: dict[str, list[str]] | None = None) -> tuple[str | None, list[str]]:
    """Link commits ``new`` to ``rid``: one ``linked`` event, a note line on each commit
    (``replaces``: {commit: the gone commits whose change it carries}). Returns the
    status after the link and the warnings. A refocus whose event log is not here
    gets the note lines only, and a warning."""
    replaces = replaces or {}
    if eventlog.read_tip(ws.repo, rid) is None:
        for oid in new:
            record.note(ws, oid, rid, linkage.LINKED, **linkage.link_fields(None, via, replaces.get(oid)))
        return None, [f"{rid} is not known here (its event log is missing; `git refocus sync` brings it): "
                      f"its {len(new)} commit(s) got note lines only."]
    data: dict[str, Any] = {"commits": new, "via": via}
    if replaces:
        data["replaces"] = {oid: replaces[oid] for oid in new if oid in replaces}
    out = record.write_event(ws, rid, lambda tip: record.new_event(ws, rid, ev.LINKED, "user", **data))
    status = out.tip.state.status
    for oid in new:
        record.note(ws, oid, rid, linkage.LINKED, at=out.tip.event.at,
                    **linkage.link_fields(status, via, replaces.get(oid)))
    # a completion that landed meanwhile may have scanned before these notes existed
    final = eventlog.require_tip(ws.repo, rid).state.status
    if final != status and final in linkage.FINISHED:
        linkage.record_final(ws, rid, final, [c for c in linkage.linked(ws, rid) if c.oid in new])
    record.propagate(ws, record.counterpart(ws, out.tip.state), rid)
    return status, list(out.warnings)


@dataclass(frozen=True)
class DetectOutcome:
    matches: list[rewrites.Match]
    gone: int  # gone commits that carried refocus work
    unmatched: list[str]  # of those, the ones no commit of the range carries
    dry_run: bool
    warnings: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"matches": [m.to_json() for m in self.matches], "gone": self.gone,
                "unmatched": self.unmatched, "dry_run": self.dry_run, "warnings": self.warnings}


def detect(*, revs: list[str], from_rev: str | None = None, dry_run: bool = False, cwd: str = ".") -> DetectOutcome:
    """``link --detect``: link the commits of ``revs`` (default: HEAD's recent history)
    whose change is that of linked commits gone from every branch."""
    ws = Workspace.open(cwd)
    rewrites.check_revs(ws, revs)  # a clear error for a bad RANGE, before anything is read
    if from_rev is not None:
        proc = ws.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{from_rev}^{{commit}}", check=False)
        if proc.returncode != 0:
            raise RefocusError(f"unknown revision {from_rev!r} (--from names the merged branch's head).")
    found = rewrites.detect(ws, revs or None, from_rev)
    matches = found.matches
    rewritten = rewrites.rewritten(ws)
    unmatched = [i.oid for i in found.unmatched() if i.oid not in rewritten]
    warnings: list[str] = []
    if not dry_run:
        by_id: dict[str, list[rewrites.Match]] = {}
        for m in matches:
            for rid in m.ids:
                by_id.setdefault(rid, []).append(m)
        for rid, theirs in by_id.items():
            _, warned = record_links(ws, rid, [m.commit for m in theirs], via="detect",
                                     replaces={m.commit: list(m.replaces) for m in theirs})
            warnings += warned
    return DetectOutcome(matches, sum(1 for i in found.gone.values() if i.ids), unmatched, dry_run, warnings)


def post_rewrite(*, kind: str, pairs_text: str, cwd: str = ".") -> int:
    """The post-rewrite hook: keep refocus linkage from each rewritten commit on its
    replacement. Returns how many commits got a link; never raises (a hook must not
    disturb the rebase it follows)."""
    from gitrefocus.model import clock
    from gitrefocus.store import localstate

    ws = Workspace.try_open(cwd)
    if ws is None or not os.path.isdir(localstate.state_dir(ws.git_dir)):
        return 0  # a repository that never ran init
    try:
        carry, kept = rewrites.to_carry(ws, rewrites.read_pairs(pairs_text))
        rewrites.remember(ws, kind, clock.now_iso(), kept)
        by_id: dict[str, list[rewrites.Carry]] = {}
        for c in carry:
            for rid in c.ids:
                by_id.setdefault(rid, []).append(c)
        for rid, found in by_id.items():
            record_links(ws, rid, [c.new for c in found], via="rewrite", replaces={c.new: [c.old] for c in found})
        return len({c.new for c in carry})
    except Exception as exc:  # noqa: BLE001 - logged; the rewrite itself is done
        localstate.log_error(ws.git_dir, "post-rewrite", exc)
        return 0
