"""Every write to ``refs/refocus/*`` and ``refs/notes/refocus`` goes through here.

``refs/refocus/<id>`` points at the newest event commit. Each event commit has
the previous event as its parent and a tree of::

    event.json   the event (immutable)
    state.json   the folded state after it (derived; makes listing cheap)
    brief.md     the brief document after it

Event commits are a pure function of (parent, event, snapshot): author and
committer come from the event's actor and timestamp, so two clones that merge
the same events build the same commits.

Every ref move is a compare-and-swap: the ref is locked in a libgit2
transaction, re-read under the lock, and moved only if it still points where
the writer started; otherwise the writer re-reads and retries.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass

from gitrefocus import clock, events as ev
from gitrefocus.errors import ConflictError, RefocusError
from gitrefocus.events import Event
from gitrefocus.notes import NOTES_REF

REF_PREFIX = "refs/refocus/"
MAX_ATTEMPTS = 200


def _pygit2():
    import pygit2

    return pygit2


class _Lost(Exception):
    """The ref moved under us: re-read and try again."""


@dataclass
class Tip:
    oid: object
    state: dict
    event: Event


def ref_name(refocus_id: str) -> str:
    return REF_PREFIX + refocus_id


def resolve(repo, refname: str):
    ref = repo.references.get(refname)
    return ref.target if ref is not None else None


def cas(repo, refname: str, new, old, message: str) -> None:
    """Move ``refname`` from ``old`` (None: must not exist) to ``new``, or raise _Lost."""
    pygit2 = _pygit2()
    try:
        with repo.transaction() as txn:
            txn.lock_ref(refname)
            if resolve(repo, refname) != old:
                raise _Lost()
            txn.set_target(refname, new, message=message)
    except pygit2.GitError as exc:  # the lock is held by another writer
        raise _Lost() from exc


def retrying(what: str, attempt_fn):
    """Run ``attempt_fn`` until it stops losing races, with jittered backoff."""
    delay = 0.002
    for _ in range(MAX_ATTEMPTS):
        try:
            return attempt_fn()
        except _Lost:
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 1.6, 0.1)
    raise ConflictError(f"{what}: gave up after {MAX_ATTEMPTS} attempts; other writers kept moving the ref.")


# -- reading ------------------------------------------------------------
def _blob(repo, commit, name: str) -> bytes | None:
    try:
        return repo[commit.tree[name].id].data
    except KeyError:
        return None


def read_tip(repo, refocus_id: str) -> Tip | None:
    oid = resolve(repo, ref_name(refocus_id))
    return tip_at(repo, oid) if oid is not None else None


def tip_at(repo, oid) -> Tip:
    commit = repo[oid]
    state = json.loads(_blob(repo, commit, "state.json"))
    event = Event.from_json(_blob(repo, commit, "event.json"))
    return Tip(oid=oid, state=state, event=event)


def snapshot(repo, oid) -> bytes | None:
    return _blob(repo, repo[oid], "brief.md")


def snapshot_oid(repo, oid):
    try:
        return repo[oid].tree["brief.md"].id
    except KeyError:
        return None


def is_merge_marker(commit) -> bool:
    """A sync merge marker: a second parent keeps the remote's history reachable
    (so pushes fast-forward); the tree repeats its first parent's, so it adds no event."""
    return len(commit.parent_ids) > 1


def chain(repo, tip_oid) -> list[tuple[object, Event]]:
    """(commit oid, event), oldest first, along first parents (merge markers skipped)."""
    out = []
    oid = tip_oid
    while oid is not None:
        commit = repo[oid]
        if not is_merge_marker(commit):
            out.append((oid, Event.from_json(_blob(repo, commit, "event.json"))))
        oid = commit.parent_ids[0] if commit.parent_ids else None
    out.reverse()
    return out


def iter_refs(repo, prefix: str = REF_PREFIX):
    pygit2 = _pygit2()
    for ref in repo.references.iterator(pygit2.enums.ReferenceFilter.ALL):
        name = ref.name
        if name.startswith(prefix):
            yield name[len(prefix):], ref.target


# -- writing event commits ---------------------------------------------
def _signature(event: Event):
    pygit2 = _pygit2()
    actor = event.actor or {}
    when = int(clock.parse(event.at).timestamp())
    return pygit2.Signature(actor.get("name") or "git-refocus", actor.get("email") or "git-refocus@localhost", when, 0)


def build_commit(repo, parent: Tip | None, event: Event, brief: bytes | None) -> Tip:
    """Write (but do not point any ref at) the commit for ``event`` on ``parent``."""
    state, applied = ev.apply(parent.state if parent else None, event)
    if brief is None or not applied:
        brief = snapshot(repo, parent.oid) if parent else None
    tb = repo.TreeBuilder()
    pygit2 = _pygit2()
    tb.insert("event.json", repo.create_blob(event.to_json().encode("utf-8")), pygit2.enums.FileMode.BLOB)
    tb.insert("state.json", repo.create_blob(json.dumps(state, sort_keys=True, indent=1).encode("utf-8")), pygit2.enums.FileMode.BLOB)
    if brief is not None:
        tb.insert("brief.md", repo.create_blob(brief), pygit2.enums.FileMode.BLOB)
    sig = _signature(event)
    message = f"refocus({event.refocus_id}): {event.kind}\n\nEvent-Id: {event.event_id}\n"
    oid = repo.create_commit(None, sig, sig, message, tb.write(), [parent.oid] if parent else [])
    return Tip(oid=oid, state=state, event=event)


def append(repo, refocus_id: str, build) -> Tip:
    """Append one event with compare-and-swap.

    ``build(tip)`` gets the current tip (None if the ref does not exist) and
    returns ``(event, brief_bytes_or_None)``; it may raise RefocusError to
    refuse (e.g. the status moved on). It is called again after a lost race, so
    the decision is always made against the state actually being extended.
    """
    refname = ref_name(refocus_id)

    def attempt() -> Tip:
        tip = read_tip(repo, refocus_id)
        event, brief = build(tip)
        new = build_commit(repo, tip, event, brief)
        cas(repo, refname, new.oid, tip.oid if tip else None, f"refocus: {event.kind}")
        return new

    return retrying(f"updating {refname}", attempt)


def import_events(repo, refocus_id: str, theirs: list[tuple[Event, bytes | None]]) -> Tip | None:
    """Merge another clone's events (with their snapshots) into our ref.

    Fast-forwards when ours is a prefix of theirs, rebuilds deterministically
    from the first difference otherwise. Returns the new tip, or None when
    nothing changed.
    """
    refname = ref_name(refocus_id)
    their_events = [e for e, _ in theirs]
    their_briefs = {e.event_id: b for e, b in theirs}

    def attempt():
        tip_oid = resolve(repo, refname)
        ours = chain(repo, tip_oid) if tip_oid is not None else []
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
            base = repo[ours[n][0]].parent_ids[0] if repo[ours[n][0]].parent_ids else None
        parent = tip_at(repo, base) if base is not None else None
        our_oids = {e.event_id: oid for oid, e in ours}
        for event in merged[n:]:
            brief = their_briefs.get(event.event_id)
            if brief is None and event.event_id in our_oids:
                brief = snapshot(repo, our_oids[event.event_id])
            if event.kind not in ev.DOC_KINDS:
                brief = None
            parent = build_commit(repo, parent, event, brief)
        cas(repo, refname, parent.oid, tip_oid, "refocus: merge events")
        return parent

    return retrying(f"merging into {refname}", attempt)


def export_events(repo, tip_oid) -> list[tuple[Event, bytes | None]]:
    return [(e, snapshot(repo, oid)) for oid, e in chain(repo, tip_oid)]


# -- notes ---------------------------------------------------------------
def add_note(repo, target_oid, line: str, notes_ref: str = NOTES_REF) -> bool:
    """Append ``line`` to the note on ``target_oid`` (once) with compare-and-swap.

    libgit2 builds the notes commit (fan-out and all) on a private temporary
    ref; the shared notes ref is then moved from the commit we started from.
    """
    tmp = f"refs/refocus-tmp/notes-{os.getpid()}-{random.getrandbits(32):08x}"

    def attempt() -> bool:
        old = resolve(repo, notes_ref)
        existing = ""
        if old is not None:
            try:
                existing = repo.lookup_note(str(target_oid), notes_ref).message
            except KeyError:
                existing = ""
        lines = existing.splitlines()
        if line in lines:
            return False
        message = "\n".join(lines + [line]) + "\n"
        try:
            if old is not None:
                repo.references.create(tmp, old, force=True)
            sig = _pygit2().Signature("git-refocus", "git-refocus@localhost")
            repo.create_note(message, sig, sig, str(target_oid), tmp, True)
            new = resolve(repo, tmp)
        finally:
            ref = repo.references.get(tmp)
            if ref is not None:
                ref.delete()
        cas(repo, notes_ref, new, old, "refocus: note")
        return True

    return retrying(f"updating {notes_ref}", attempt)


def read_note(repo, target_oid, notes_ref: str = NOTES_REF) -> str:
    try:
        return repo.lookup_note(str(target_oid), notes_ref).message
    except KeyError:
        return ""


def require_tip(repo, refocus_id: str) -> Tip:
    tip = read_tip(repo, refocus_id)
    if tip is None:
        raise RefocusError(f"unknown refocus id {refocus_id!r}.")
    return tip
