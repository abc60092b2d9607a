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
the writer started; otherwise the writer re-reads and retries. The whole
storage model: docs/ARCHITECTURE.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock
from gitrefocus.model import events as ev
from gitrefocus.model.events import Event, RefocusState
from gitrefocus.model.records import dataclass
from gitrefocus.model.text import strict_json
from gitrefocus.store import refs
from gitrefocus.store.refs import ref_name, resolve
from gitrefocus.store.workspace import load_pygit2

TYPE_CHECKING = False  # no `typing` at run time: a listing imports this module; cast only where libgit2 is
if TYPE_CHECKING:
    from pygit2 import Blob, Commit, Oid, Repository, Signature


class CorruptLog(RefocusError):
    """An event log that cannot be read: the ref names something other than an
    event commit, or an event commit lacks or garbles ``event.json``/``state.json``.
    Read commands report and skip such a refocus; writes refuse before moving anything."""


MAX_EVENT_BYTES = 4 * 1024 * 1024  # an event is a few KB; a blob beyond this is not one


def _corrupt(oid: object, why: str) -> CorruptLog:
    return CorruptLog(f"event commit {str(oid)[:12]} is unreadable: {why}; "
                      f"`git refocus doctor --repair` quarantines it.")


@dataclass(frozen=True)
class Tip:
    """The newest event commit of a refocus: its id, the state after it, the event."""

    oid: Oid
    state: RefocusState
    event: Event


# -- reading ------------------------------------------------------------
def commit_at(repo: Repository, oid: Oid | str) -> Commit:
    """The commit ``oid`` names (pygit2 types a lookup as any object; event
    logs, HEAD and the commits walked from it are commits)."""
    from typing import cast

    return cast("Commit", repo[oid])


def event_commit(repo: Repository, oid: Oid | str) -> Commit:
    """The event commit ``oid`` names, or :class:`CorruptLog` (a ref may name a blob, tag or tree)."""
    pygit2 = load_pygit2()
    try:
        obj = repo.get(oid)
    except (ValueError, pygit2.GitError) as exc:
        raise _corrupt(oid, str(exc)) from None
    if not isinstance(obj, pygit2.Commit):
        raise _corrupt(oid, f"it is a {type(obj).__name__.lower() if obj is not None else 'missing object'}, not a commit")
    from typing import cast

    return cast("Commit", obj)


def _json_blob(repo: Repository, commit: Commit, name: str) -> object:
    data = _blob(repo, commit, name)
    if data is None:
        raise _corrupt(commit.id, f"{name} is missing")
    if len(data) > MAX_EVENT_BYTES:
        raise _corrupt(commit.id, f"{name} is {len(data)} bytes")
    try:
        # strict UTF-8 (what this tool writes): a lone surrogate, as bytes or as a "\ud800"
        # escape, is text no note, file or index can record; such an event is quarantined
        return strict_json(data)
    except (ValueError, RecursionError) as exc:  # RecursionError: nesting deeper than the parser goes
        raise _corrupt(commit.id, f"{name} is not valid JSON in UTF-8 ({type(exc).__name__})") from None


def read_event(repo: Repository, commit: Commit) -> Event:
    """The event an event commit holds, or :class:`CorruptLog`."""
    try:
        return Event.from_raw(_json_blob(repo, commit, "event.json"))
    except (ValueError, TypeError) as exc:
        raise _corrupt(commit.id, f"event.json: {exc}") from None


_event = read_event


def blob(repo: Repository, commit: Commit, name: str) -> bytes | None:
    """The bytes of the file ``name`` at the top of ``commit``'s tree (None: no such blob)."""
    return _blob(repo, commit, name)


def _blob(repo: Repository, commit: Commit, name: str) -> bytes | None:
    try:
        entry = commit.tree[name]
    except KeyError:
        return None
    blob = repo.get(entry.id)
    data = getattr(blob, "data", None)  # a tree or submodule entry of that name is no blob
    return data if isinstance(data, bytes) else None


def read_tip(repo: Repository, refocus_id: str) -> Tip | None:
    oid = resolve(repo, ref_name(refocus_id))
    return tip_at(repo, oid) if oid is not None else None


def tip_at(repo: Repository, oid: Oid) -> Tip:
    """The tip at ``oid``, or :class:`CorruptLog`."""
    commit = event_commit(repo, oid)
    raw = _json_blob(repo, commit, "state.json")
    try:
        if not isinstance(raw, dict):
            raise ValueError("not an object")
        state = RefocusState.from_json(raw)
        if not isinstance(state.status, str) or not isinstance(state.id, str):
            raise ValueError("id and status must be strings")
    except (ValueError, TypeError, AttributeError, KeyError) as exc:
        raise _corrupt(oid, f"state.json: {exc}") from None
    return Tip(oid=oid, state=state, event=_event(repo, commit))


def state_at(repo: Repository, oid: Oid | str) -> tuple[RefocusState, Oid | None]:
    """The state after event commit ``oid`` and the blob id of its brief
    snapshot: all a listing keeps, so ``event.json`` and the brief are not read."""
    tree = commit_at(repo, oid).tree
    try:
        entry = tree["state.json"]
    except KeyError:
        raise KeyError(f"state.json is missing from event commit {oid}") from None
    from typing import cast

    try:  # text only: a lone surrogate fails whatever writes the state out (a listing, INDEX.md)
        raw = strict_json(cast("Blob", repo[entry.id]).data)
    except ValueError as exc:
        raise ValueError(f"its state.json is not JSON in UTF-8 ({exc})") from None
    if not isinstance(raw, dict):
        raise ValueError("its state.json is not an object")
    state = RefocusState.from_json(raw)
    try:
        snap: Oid | None = tree[SNAPSHOT].id
    except KeyError:
        snap = None
    return state, snap


SNAPSHOT = "brief.md"  # the brief document in an event commit's tree


def snapshot_label(refocus_id: str) -> str:
    """How error messages name a ref's snapshot: ``refs/refocus/<id>:brief.md``."""
    return f"{ref_name(refocus_id)}:{SNAPSHOT}"


def snapshot(repo: Repository, oid: Oid | str) -> bytes | None:
    return _blob(repo, event_commit(repo, oid), SNAPSHOT)


def snapshot_oid(repo: Repository, oid: Oid) -> Oid | None:
    try:
        return commit_at(repo, oid).tree[SNAPSHOT].id
    except KeyError:
        return None


def is_merge_marker(commit: Commit) -> bool:
    """A sync merge marker: a second parent keeps the remote's history reachable
    (so pushes fast-forward); the tree repeats its first parent's, so it adds no event."""
    return len(commit.parent_ids) > 1


def chain(repo: Repository, tip_oid: Oid | None) -> list[tuple[Oid, Event]]:
    """(commit oid, event), oldest first, along first parents (merge markers skipped)."""
    out = []
    oid = tip_oid
    while oid is not None:
        commit = event_commit(repo, oid)
        if not is_merge_marker(commit):
            out.append((oid, _event(repo, commit)))
        oid = commit.parent_ids[0] if commit.parent_ids else None
    out.reverse()
    return out


def terminal_event(repo: Repository, tip_oid: Oid) -> Event | None:
    """The event that made the refocus terminal (result or abandoned), or None."""
    from gitrefocus.model import lifecycle

    state = None
    for _, event in chain(repo, tip_oid):
        before = state.status if state is not None else None
        state, applied = ev.apply(state, event)
        if applied and state.status in lifecycle.TERMINAL and before not in lifecycle.TERMINAL:
            return event
    return None


# -- writing event commits ---------------------------------------------
def _signature(event: Event) -> Signature:
    from typing import cast

    pygit2 = load_pygit2()
    actor = event.actor or {}
    when = int(clock.parse(event.at).timestamp())
    return cast("Signature", pygit2.Signature(actor.get("name") or "git-refocus",
                                              actor.get("email") or "git-refocus@localhost", when, 0))


def state_json(state: RefocusState) -> bytes:
    """``state.json`` exactly as every clone writes it."""
    return json.dumps(state.to_json(), sort_keys=True, indent=1).encode("utf-8")


def build_commit(repo: Repository, parent: Tip | None, event: Event, brief: bytes | None) -> Tip:
    """Write (but do not point any ref at) the commit for ``event`` on ``parent``."""
    state, applied = ev.apply(parent.state if parent else None, event)
    if brief is None or not applied:
        brief = snapshot(repo, parent.oid) if parent else None
    tb = repo.TreeBuilder()
    pygit2 = load_pygit2()
    tb.insert("event.json", repo.create_blob(event.to_json().encode("utf-8")), pygit2.enums.FileMode.BLOB)
    tb.insert("state.json", repo.create_blob(state_json(state)), pygit2.enums.FileMode.BLOB)
    if brief is not None:
        tb.insert(SNAPSHOT, repo.create_blob(brief), pygit2.enums.FileMode.BLOB)
    sig = _signature(event)
    message = f"refocus({event.refocus_id}): {event.kind}\n\nEvent-Id: {event.event_id}\n"
    oid = repo.create_commit(None, sig, sig, message, tb.write(), [parent.oid] if parent else [])
    return Tip(oid=oid, state=state, event=event)


# ``build(tip)`` for :func:`append`: the event to add on ``tip`` and the brief after it.
Build = Callable[[Tip | None], tuple[Event, bytes | None]]


def append(repo: Repository, refocus_id: str, build: Build) -> Tip:
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
        refs.cas(repo, refname, new.oid, tip.oid if tip else None, f"refocus: {event.kind}")
        return new

    return refs.retrying(f"updating {refname}", attempt)


def require_tip(repo: Repository, refocus_id: str) -> Tip:
    tip = read_tip(repo, refocus_id)
    if tip is None:
        raise RefocusError(f"unknown refocus id {refocus_id!r}.")
    return tip
