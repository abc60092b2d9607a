"""Merging event logs from other clones into the live refs.

:func:`import_events` takes the union of two event logs (a deterministic,
symmetric interleave, :func:`gitrefocus.model.events.merge`) and rebuilds our
log from the first difference. :func:`merge_ref` does what ``sync`` needs: the
rebuilt log does not contain the remote's tip, so when the remote had events
we lacked, a *merge marker* is put on top: a commit with the merged log as
first parent, the remote's tip as second parent and the first parent's tree.
:func:`eventlog.chain` follows first parents and skips markers, so the marker
adds no event; it only makes the push a fast-forward. When both sides already
hold the same events (two markers over the same log), the remote's commit is
adopted instead, so clones converge on one commit rather than stacking markers.
"""

from __future__ import annotations

from gitrefocus.errors import RefocusError
from gitrefocus.model import events as ev
from gitrefocus.model.events import Event
from gitrefocus.model.ids import ref_name
from gitrefocus.model.records import dataclass, field
from gitrefocus.store import eventlog, refs
from gitrefocus.store.refs import ADOPTED, AHEAD, CREATED, FAST_FORWARD, MERGED, SAME

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module

if TYPE_CHECKING:
    from pygit2 import Oid, Repository


def import_events(repo: Repository, refocus_id: str, theirs: list[tuple[Event, bytes | None]]) -> eventlog.Tip | None:
    """Merge another clone's events (with their snapshots) into our ref.

    Fast-forwards when ours is a prefix of theirs, rebuilds deterministically
    from the first difference otherwise. Returns the new tip, or None when
    nothing changed.
    """
    refname = refs.ref_name(refocus_id)
    their_events = [e for e, _ in theirs]
    their_briefs = {e.event_id: b for e, b in theirs}

    def attempt() -> eventlog.Tip | None:
        tip_oid = refs.resolve(repo, refname)
        ours = eventlog.chain(repo, tip_oid) if tip_oid is not None else []
        our_events = [e for _, e in ours]
        merged = ev.merge(our_events, their_events)
        if [e.event_id for e in merged] == [e.event_id for e in our_events]:
            return None
        n = 0
        while n < len(ours) and merged[n].event_id == our_events[n].event_id:
            n += 1
        # build on the commit our first differing event sat on (it may be a merge marker)
        if n == len(ours):
            base = tip_oid
        else:
            first = eventlog.commit_at(repo, ours[n][0])
            base = first.parent_ids[0] if first.parent_ids else None
        parent = eventlog.tip_at(repo, base) if base is not None else None
        our_oids = {e.event_id: oid for oid, e in ours}
        for event in merged[n:]:
            brief = their_briefs.get(event.event_id)
            if brief is None and event.event_id in our_oids:
                brief = eventlog.snapshot(repo, our_oids[event.event_id])
            if event.kind not in ev.DOC_KINDS:
                brief = None
            parent = eventlog.build_commit(repo, parent, event, brief)
        assert parent is not None  # merged[n:] is not empty: it differs from ours
        refs.cas(repo, refname, parent.oid, tip_oid, "refocus: merge events")
        return parent

    return refs.retrying(f"merging into {refname}", attempt)


def export_events(repo: Repository, tip_oid: Oid) -> list[tuple[Event, bytes | None]]:
    return [(e, eventlog.snapshot(repo, oid)) for oid, e in eventlog.chain(repo, tip_oid)]


@dataclass
class RefMerge:
    kind: str
    new_events: list[Event] = field(default_factory=list)  # events this repo did not have

    @property
    def changed_locally(self) -> bool:
        return self.kind in (CREATED, FAST_FORWARD, MERGED, ADOPTED)


def _event_ids(repo: Repository, oid: Oid | None) -> list[str]:
    return [e.event_id for _, e in eventlog.chain(repo, oid)] if oid is not None else []


def _marker(repo: Repository, refocus_id: str, first: Oid, second: Oid) -> Oid:
    base = eventlog.commit_at(repo, first)
    message = f"refocus({refocus_id}): merge\n\nMerged: {second}\n"
    return repo.create_commit(None, base.author, base.committer, message, base.tree_id, [first, second])


def check_remote_tip(repo: Repository, refocus_id: str, oid: Oid) -> None:
    """Refuse a remote ref that is not an event log of this refocus."""
    try:
        tip = eventlog.tip_at(repo, oid)
    except (KeyError, ValueError, TypeError, RefocusError) as exc:
        raise RefocusError(f"the remote's {ref_name(refocus_id)} is not a refocus event log ({exc}).") from None
    if tip.event.refocus_id != refocus_id:
        raise RefocusError(f"the remote's {ref_name(refocus_id)} holds events of {tip.event.refocus_id}.")


def merge_ref(repo: Repository, refocus_id: str, theirs: Oid, *, want_events: bool = True) -> RefMerge:
    """Bring ``refs/refocus/<id>`` up to date with the remote's ``theirs``."""
    refname = refs.ref_name(refocus_id)
    before = refs.resolve(repo, refname)
    if before == theirs:
        return RefMerge(SAME)
    check_remote_tip(repo, refocus_id, theirs)
    trusted = eventlog.states_match_events(repo, theirs)

    def attempt() -> str:
        ours = refs.resolve(repo, refname)
        if ours == theirs:
            return SAME
        if not trusted:  # never adopt their commits: fold their events into ours
            if ours is not None and repo.descendant_of(ours, theirs):
                return AHEAD
            import_events(repo, refocus_id, export_events(repo, theirs))
            merged = refs.resolve(repo, refname)
            assert merged is not None
            refs.cas(repo, refname, _marker(repo, refocus_id, merged, theirs), merged,
                     "refocus: sync (rebuilt from the remote's events)")
            return MERGED if ours is not None else CREATED
        if ours is None:
            refs.cas(repo, refname, theirs, None, "refocus: sync (new)")
            return CREATED
        if repo.descendant_of(ours, theirs):
            return AHEAD
        if repo.descendant_of(theirs, ours):
            refs.cas(repo, refname, theirs, ours, "refocus: sync (fast-forward)")
            return FAST_FORWARD
        import_events(repo, refocus_id, export_events(repo, theirs))
        merged = refs.resolve(repo, refname)
        assert merged is not None  # it was ours, and refs are never deleted
        if _event_ids(repo, merged) == _event_ids(repo, theirs):
            refs.cas(repo, refname, theirs, merged, "refocus: sync (same events as the remote)")
            return ADOPTED
        refs.cas(repo, refname, _marker(repo, refocus_id, merged, theirs), merged, "refocus: sync (merge)")
        return MERGED

    kind = refs.retrying(f"merging the remote's {refname}", attempt)
    out = RefMerge(kind)
    if want_events and out.changed_locally:
        known = set(_event_ids(repo, before))
        out.new_events = [e for _, e in eventlog.chain(repo, refs.resolve(repo, refname)) if e.event_id not in known]
    return out
