"""Merging event logs from other clones into the live refs.

A log fetched from a remote is evidence, not truth. :func:`read_log` reads it
without trusting anything but its events: a merge marker's tree and every
``state.json`` are checked against what an honest clone builds, a malformed
event is set aside (quarantined), and an event dated before the one it follows
in that log, or in the future, is refused. :func:`merge_ref` then compares the
remote's events with the ones this repository holds: history once seen is
append-only, so a remote log that drops an event held here (one this
repository holds and the remote had, or a log that claims to build on ours
without it), changes one, or brings a second ``spawned`` event is a rewrite:
nothing of it is imported, the local log is kept, and the remote's tip is
recorded under ``refs/refocus-quarantine/remotes/`` with the reasons.

Otherwise the union of the two logs is taken (a deterministic, symmetric
interleave, :func:`gitrefocus.model.events.merge`) and our log is rebuilt from
the first difference (:func:`import_events`). The rebuilt log does not contain
the remote's tip, so a *merge marker* is put on top: a commit with the merged
log as first parent, the remote's tip as second parent and the first parent's
tree. :func:`eventlog.chain` follows first parents and skips markers, so the
marker adds no event; it only makes the push a fast-forward, which also puts
this repository's events back on a remote that had lost them. A remote commit
is adopted as it is (fast-forward, or the same events under another marker,
so clones converge on one commit) only when every commit of it is exactly what
an honest clone builds from its events.
"""

from __future__ import annotations

import json

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock
from gitrefocus.model import events as ev
from gitrefocus.model.events import Event
from gitrefocus.model.ids import ref_name
from gitrefocus.model.records import dataclass, field
from gitrefocus.store import eventlog, refs
from gitrefocus.store.refs import ADOPTED, AHEAD, CREATED, FAST_FORWARD, MERGED, SAME
from gitrefocus.store.workspace import load_pygit2

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pygit2 import Commit, Oid, Repository

MAX_LOG = 100_000  # commits along a log's first parents; a longer one is not a refocus's history
FUTURE_SLACK_HOURS = 24  # an event dated further ahead than this is refused (clocks differ, not by days)
SKEW_SECONDS = 600  # how far an event may be dated before the one it follows: two clones' clocks, not a forgery
QUARANTINE_REMOTES = refs.QUARANTINE_PREFIX + "remotes/"


@dataclass(frozen=True)
class Rejected:
    """Something a remote log says that is not taken: why, and the event it concerns."""

    reason: str
    event_id: str | None = None
    rewrite: bool = False  # the log rewrites history held here: nothing of it is imported

    def to_json(self) -> dict[str, str | None]:
        return {"reason": self.reason, "event_id": self.event_id}


@dataclass
class RemoteLog:
    """A log read as evidence (:func:`read_log`)."""

    events: list[tuple[Event, bytes | None]] = field(default_factory=list)  # well-formed, in order
    rejected: list[Rejected] = field(default_factory=list)
    exact: bool = True  # every commit is what an honest clone builds: its states may be believed
    state: ev.RefocusState | None = None  # the fold of ``events``

    @property
    def ids(self) -> list[str]:
        return [e.event_id for e, _ in self.events]


def _first_parents(repo: Repository, tip: Oid) -> list[Commit]:
    out: list[Commit] = []
    oid: Oid | None = tip
    while oid is not None:
        if len(out) >= MAX_LOG:
            raise RefocusError(f"more than {MAX_LOG} commits; not a refocus event log")
        commit = eventlog.event_commit(repo, oid)
        out.append(commit)
        oid = commit.parent_ids[0] if commit.parent_ids else None
    out.reverse()
    return out


def read_log(repo: Repository, refocus_id: str, tip: Oid, *, now: str | None = None,
             ordered: bool = True) -> RemoteLog:
    """The events of the log at ``tip`` as evidence: what is well-formed and in
    order, what is rejected and why, and whether its stored states may be believed.
    A tip that is no commit at all is a :class:`RefocusError`. ``ordered=False``
    (a log of this repository, written before events were kept in time order)
    takes events as they come."""
    import datetime as _dt

    latest = clock.iso(clock.parse(now or clock.now_iso()) + _dt.timedelta(hours=FUTURE_SLACK_HOURS))
    if not ordered:
        latest = "9999"
    out = RemoteLog()
    state = None
    prev_at = ""
    parent_snapshot: bytes | None = None
    for commit in _first_parents(repo, tip):
        if eventlog.is_merge_marker(commit):
            first = eventlog.commit_at(repo, commit.parent_ids[0])
            if commit.tree_id != first.tree_id:
                out.exact = False
                out.rejected.append(Rejected(f"a merge marker {str(commit.id)[:12]} carries a state of its own"))
            continue
        try:
            event = eventlog.read_event(repo, commit)
        except RefocusError as exc:
            out.exact = False
            out.rejected.append(Rejected(f"a malformed event was quarantined ({_why(exc)})"))
            continue
        if event.refocus_id != refocus_id:
            out.exact = False
            out.rejected.append(Rejected(f"an event of {event.refocus_id[:80]} was quarantined", event.event_id))
            continue
        if event.kind == ev.SPAWNED and state is not None:
            out.exact = False
            out.rejected.append(Rejected(f"it brings a second spawned event {event.event_id} ({event.at})",
                                         event.event_id))
            continue
        if ordered and event.at < prev_at and _seconds_between(event.at, prev_at) > SKEW_SECONDS:
            out.exact = False
            out.rejected.append(Rejected(f"event {event.event_id} ({event.kind}, {event.at}) claims to precede "
                                         f"the event it follows ({prev_at})", event.event_id))
            continue
        if event.at > latest:
            out.exact = False
            out.rejected.append(Rejected(f"event {event.event_id} ({event.kind}) is dated in the future ({event.at})",
                                         event.event_id))
            continue
        prev_at = max(prev_at, event.at)
        state, applied = ev.apply(state, event)
        snapshot = eventlog.blob(repo, commit, eventlog.SNAPSHOT)
        if out.exact and not _as_built(repo, commit, state, applied, event.kind, snapshot, parent_snapshot):
            out.exact = False
        parent_snapshot = snapshot
        out.events.append((event, snapshot))
    out.state = state
    return out


def _seconds_between(earlier: str, later: str) -> float:
    return (clock.parse(later) - clock.parse(earlier)).total_seconds()


def _why(exc: Exception) -> str:
    text = str(exc)
    return text.split(": ", 1)[1].split("; `git refocus", 1)[0] if ": " in text else text


def _as_built(repo: Repository, commit: Commit, state: ev.RefocusState, applied: bool, kind: str,
              snapshot: bytes | None, parent_snapshot: bytes | None) -> bool:
    """Whether ``commit`` holds what :func:`eventlog.build_commit` makes of its
    event: nothing but the three files, the fold as its state (compared as JSON
    values: a clone's formatting is not evidence of anything), and a new brief
    only for an applied event that rewrites it."""
    names = {entry.name for entry in commit.tree}
    if names - {"event.json", "state.json", eventlog.SNAPSHOT} or len(commit.parent_ids) > 1:
        return False
    stored = eventlog.blob(repo, commit, "state.json")
    try:
        if stored is None or json.loads(stored) != state.to_json():
            return False
    except (ValueError, RecursionError):
        return False
    if (kind not in ev.DOC_KINDS or not applied) and snapshot != parent_snapshot:
        return False
    return True


def import_events(repo: Repository, refocus_id: str, theirs: list[tuple[Event, bytes | None]]) -> eventlog.Tip | None:
    """Merge another log's events (with their snapshots) into our ref.

    Fast-forwards when ours is a prefix of theirs, rebuilds deterministically
    from the first difference otherwise. Returns the new tip, or None when
    nothing changed. An event held here keeps the snapshot held here.
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
            if event.event_id in our_oids:
                brief = eventlog.snapshot(repo, our_oids[event.event_id])
            else:
                brief = their_briefs.get(event.event_id)
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
    rejected: list[Rejected] = field(default_factory=list)  # what the remote's log says that was not taken
    conflicts: list[ev.Conflict] = field(default_factory=list)  # new events kept in the log but not applied

    @property
    def changed_locally(self) -> bool:
        return self.kind in (CREATED, FAST_FORWARD, MERGED, ADOPTED)


def _event_ids(repo: Repository, oid: Oid | None) -> list[str]:
    return [e.event_id for _, e in eventlog.chain(repo, oid)] if oid is not None else []


def _marker(repo: Repository, refocus_id: str, first: Oid, second: Oid) -> Oid:
    base = eventlog.commit_at(repo, first)
    message = f"refocus({refocus_id}): merge\n\nMerged: {second}\n"
    return repo.create_commit(None, base.author, base.committer, message, base.tree_id, [first, second])


def _seen_ids(repo: Repository, refocus_id: str, oid: Oid | None) -> set[str]:
    """The event ids a log we saw before holds (nothing when it cannot be read)."""
    if oid is None:
        return set()
    try:
        return set(read_log(repo, refocus_id, oid).ids)
    except RefocusError:
        return set()


def rebuilt(event: Event) -> bool:
    """An event ``doctor`` made up from a brief file whose log was missing: a
    reconstruction, which yields to the real history when it arrives."""
    return bool(event.data.get("rebuilt_from"))


def _yield_rebuilt(repo: Repository, refocus_id: str, ours: Oid, theirs: RemoteLog) -> None:
    """Replace our log, begun by a reconstruction (:func:`rebuilt`), with the
    remote's real one and every event of ours that was no reconstruction."""
    refname = refs.ref_name(refocus_id)
    kept = [(e, eventlog.snapshot(repo, oid)) for oid, e in eventlog.chain(repo, ours) if not rebuilt(e)]
    merged = ev.merge([e for e, _ in theirs.events], [e for e, _ in kept])
    briefs = {e.event_id: b for e, b in [*kept, *theirs.events]}
    tip = None
    for event in merged:
        tip = eventlog.build_commit(repo, tip, event, briefs.get(event.event_id) if event.kind in ev.DOC_KINDS else None)
    assert tip is not None
    refs.cas(repo, refname, tip.oid, ours, "refocus: sync (the real log replaces one rebuilt from a file)")


def judge(repo: Repository, refocus_id: str, ours: list[Event], theirs: RemoteLog, *, descends: bool,
          seen: set[str]) -> list[Rejected]:
    """What in the remote's log rewrites history held here: an event held here
    that it changes, drops (it held it before, or it claims to build on ours),
    or a second ``spawned`` event."""
    out = list(theirs.rejected)
    held = {e.event_id: e for e in ours}
    for event, _ in theirs.events:
        mine = held.get(event.event_id)
        if mine is not None and mine.canonical() != event.canonical():
            out.append(Rejected(f"it changes event {event.event_id} ({event.kind}) held here", event.event_id,
                                rewrite=True))
    spawned = next((e for e in ours if e.kind == ev.SPAWNED), None)
    for event, _ in theirs.events:
        if event.kind == ev.SPAWNED and spawned is not None and event.event_id != spawned.event_id:
            out.append(Rejected(f"it brings a second spawned event {event.event_id} ({event.at})", event.event_id,
                                rewrite=True))
    their_ids = set(theirs.ids)
    should_hold = [e for e in ours if e.event_id in seen or descends]
    dropped = [e for e in should_hold if e.event_id not in their_ids]
    if dropped:
        kinds = ", ".join(f"{e.kind} {e.event_id}" for e in dropped[:5])
        out.append(Rejected(f"it drops {len(dropped)} event(s) held here ({kinds})", dropped[0].event_id, rewrite=True))
    return out


def merge_ref(repo: Repository, refocus_id: str, theirs: Oid, *, seen: Sequence[Oid] = (),
              want_events: bool = True) -> RefMerge:
    """Bring ``refs/refocus/<id>`` up to date with the remote's ``theirs``;
    ``seen``: tips the remote's ref had when this repository last saw it (fetched or pushed)."""
    refname = refs.ref_name(refocus_id)
    before = refs.resolve(repo, refname)
    if before == theirs:
        return RefMerge(SAME)
    seen_ids = set().union(*(_seen_ids(repo, refocus_id, oid) for oid in seen if oid != theirs))
    if before is not None and repo.descendant_of(before, theirs):
        # judged and merged before, or behind us; behind what it showed us before is a rewind
        if not seen_ids:
            return RefMerge(AHEAD)
        ours = [e for _, e in eventlog.chain(repo, before)]
        return RefMerge(AHEAD, rejected=judge(repo, refocus_id, ours, read_log(repo, refocus_id, theirs),
                                              descends=False, seen=seen_ids))
    try:
        log = read_log(repo, refocus_id, theirs)
    except RefocusError as exc:
        raise RefocusError(f"the remote's {ref_name(refocus_id)} is not a refocus event log ({exc})") from None
    if not log.events:
        why = "; ".join(r.reason for r in log.rejected[:3]) or "it holds no event"
        raise RefocusError(f"the remote's {ref_name(refocus_id)} is not a refocus event log ({why})")
    rejected: list[Rejected] = []

    def attempt() -> str:
        ours = refs.resolve(repo, refname)
        if ours == theirs:
            return SAME
        if ours is not None and repo.descendant_of(ours, theirs):
            return AHEAD
        our_events = [e for _, e in eventlog.chain(repo, ours)] if ours is not None else []
        if ours is not None and our_events and rebuilt(our_events[0]) and log.events \
                and log.events[0][0].kind == ev.SPAWNED and not rebuilt(log.events[0][0]):
            _yield_rebuilt(repo, refocus_id, ours, log)
            raise refs._Lost()  # merge again onto the real log
        descends = ours is not None and repo.descendant_of(theirs, ours)
        rejected[:] = judge(repo, refocus_id, our_events, log, descends=descends, seen=seen_ids)
        rewrite = any(r.rewrite for r in rejected)
        if not rejected and log.exact:
            if ours is None:
                refs.cas(repo, refname, theirs, None, "refocus: sync (new)")
                return CREATED
            if descends:
                refs.cas(repo, refname, theirs, ours, "refocus: sync (fast-forward)")
                return FAST_FORWARD
        if ours is None and log.events[0][0].kind != ev.SPAWNED:
            raise RefocusError(f"the remote's {refname} does not start with a spawned event")
        taken = [] if rewrite else [(e, b) for e, b in log.events
                                    if not any(r.event_id == e.event_id for r in rejected)]
        if taken:
            import_events(repo, refocus_id, taken)
        merged = refs.resolve(repo, refname)
        assert merged is not None or ours is None
        if merged is None:
            raise RefocusError(f"the remote's {refname} holds no event that could be taken")
        if not rejected and log.exact and _event_ids(repo, merged) == log.ids:
            refs.cas(repo, refname, theirs, merged, "refocus: sync (same events as the remote)")
            return ADOPTED
        if not repo.descendant_of(merged, theirs):
            refs.cas(repo, refname, _marker(repo, refocus_id, merged, theirs), merged,
                     "refocus: sync (merge)" if log.exact else "refocus: sync (rebuilt from the remote's events)")
        return MERGED if ours is not None else CREATED

    kind = refs.retrying(f"merging the remote's {refname}", attempt)
    out = RefMerge(kind, rejected=list(rejected))
    if out.changed_locally:
        known = set(_event_ids(repo, before))
        if kind in (CREATED, FAST_FORWARD, ADOPTED) and refs.resolve(repo, refname) == theirs:
            events, state = [e for e, _ in log.events], log.state  # theirs, as read: no second reading
        else:
            tip = eventlog.read_tip(repo, refocus_id)
            events = [e for _, e in eventlog.chain(repo, tip.oid)] if tip is not None else []
            state = tip.state if tip is not None else None
        new = [e for e in events if e.event_id not in known]
        if want_events:
            out.new_events = new
        if state is not None:
            new_ids = {e.event_id for e in new}
            out.conflicts = [c for c in state.conflicts if c.event_id in new_ids]
    return out


def log_problem(repo: Repository, refocus_id: str, tip: Oid) -> str | None:
    """Why this repository's log at ``tip`` cannot be believed as it is, or None:
    a malformed event in it, a merge marker with a state of its own, a stored
    state that is not the fold of its events (what listings read is ``state.json``)."""
    log = read_log(repo, refocus_id, tip, ordered=False)
    if log.rejected:
        return "; ".join(r.reason for r in log.rejected)
    if not log.events:
        return "it holds no event"
    state = None
    for event, _ in log.events:
        state, _ = ev.apply(state, event)
    assert state is not None
    if eventlog.tip_at(repo, tip).state.to_json() != state.to_json():
        return "its state.json is not what its events give"
    return None


def rebuild_log(repo: Repository, refocus_id: str) -> str:
    """Rebuild ``refs/refocus/<id>`` from its well-formed events (each with its
    snapshot), after keeping the log as it was under ``refs/refocus-quarantine/``
    (nothing is deleted). Returns the quarantine ref."""
    refname = refs.ref_name(refocus_id)
    old = refs.resolve(repo, refname)
    if old is None:
        raise RefocusError(f"{refname} vanished meanwhile; nothing to rebuild.")
    log = read_log(repo, refocus_id, old, ordered=False)
    if not log.events or log.events[0][0].kind != ev.SPAWNED:
        raise RefocusError(f"{refname} has no readable spawned event to rebuild from; quarantine it instead.")
    tip = None
    for event, snapshot in log.events:
        tip = eventlog.build_commit(repo, tip, event, snapshot if event.kind in ev.DOC_KINDS else None)
    assert tip is not None
    base = refs.QUARANTINE_PREFIX + refname.removeprefix("refs/")
    name, n = base, 1
    while repo.references.get(name) is not None:
        n += 1
        name = f"{base}-{n}"
    refs.cas(repo, name, old, None, f"refocus: keep {refname} as it was before a rebuild")
    try:
        refs.cas(repo, refname, tip.oid, old, "refocus: rebuild from events")
    except refs._Lost:
        raise RefocusError(f"{refname} moved while it was rebuilt; run `git refocus doctor --repair` again.") from None
    return name


def quarantine_remote(repo: Repository, remote: str, refocus_id: str, theirs: Oid, rejected: list[Rejected]) -> str:
    """Keep the remote's rejected log under ``refs/refocus-quarantine/remotes/<remote>/<id>``:
    a commit whose message gives the reasons, on top of the remote's tip, so
    ``git log`` there shows why and what. Returns the ref's name."""
    pygit2 = load_pygit2()
    name = f"{QUARANTINE_REMOTES}{remote}/{refocus_id}"
    reasons = "\n".join(f"- {r.reason}" for r in rejected)
    message = (f"refocus({refocus_id}): rejected from {remote}\n\nThe remote's log was not taken as it is:\n"
               f"{reasons}\n\nRejected: {theirs}\n")
    sig = pygit2.Signature("git-refocus", "git-refocus@localhost")
    empty = repo.TreeBuilder().write()

    def attempt() -> None:
        old = refs.resolve(repo, name)
        oid = repo.create_commit(None, sig, sig, message, empty, [theirs])
        refs.cas(repo, name, oid, old, "refocus: quarantine a remote's log")

    refs.retrying(f"recording {name}", attempt)
    return name


def quarantined_remote_logs(repo: Repository) -> list[tuple[str, str, str]]:
    """(quarantine ref, refocus id, reasons) for every remote log :func:`quarantine_remote` kept."""
    out = []
    for name, oid in refs.iter_refs(repo, QUARANTINE_REMOTES):
        try:
            commit = eventlog.commit_at(repo, oid)
            lines = [ln[2:] for ln in str(commit.message).splitlines() if ln.startswith("- ")]
        except (KeyError, ValueError, TypeError, AttributeError):
            lines = ["(unreadable)"]
        out.append((QUARANTINE_REMOTES + name, name.rsplit("/", 1)[-1], "; ".join(lines)))
    return out
