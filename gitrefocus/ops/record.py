"""Recording an event everywhere it belongs: ref, brief file, notes, counterpart.

Order matters for crash safety (docs/ARCHITECTURE.md, "Writes: order and
crash safety"): the ref (machine truth) moves first, then the file is
rewritten from it, then notes, the counterpart repository and INDEX follow. A crash between steps leaves a file that equals an older snapshot
of its ref, which ``doctor --repair`` brings forward.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping

from gitrefocus.errors import ConflictError, RefocusError
from gitrefocus.model import clock
from gitrefocus.model import events as ev
from gitrefocus.model.agents import session_from_env
from gitrefocus.model.brief import Brief
from gitrefocus.model.events import Event, RefocusState
from gitrefocus.model.note_line import NoteRecord
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.model.records import dataclass, field
from gitrefocus.ops import places
from gitrefocus.store import atomic, catalog, eventlog, eventmerge, notes, refs
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any

    from pygit2 import Oid


@dataclass(frozen=True)
class Outcome:
    """What a write did, for the command's report and ``--commit``."""

    tip: eventlog.Tip  # the event just appended
    written: list[str] = field(default_factory=list)  # files we wrote, absolute
    warnings: list[str] = field(default_factory=list)


def actor(ws: Workspace, role: str) -> dict[str, Any]:
    import socket  # here: only writers need the host, and listings import this module

    sig = ws.signature()
    return {
        "name": sig.name, "email": sig.email, "role": role,
        "session_id": session_from_env(os.environ),
        "host": socket.gethostname(), "user": _user(),
    }


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in the environment or the password database
        return "unknown"


def new_event(ws: Workspace, refocus_id: str, kind: str, role: str, **data: Any) -> Event:
    return Event(refocus_id=refocus_id, kind=kind, at=clock.now_iso(), actor=actor(ws, role), data=data)


def apply_to_doc(doc: Brief, event: Event) -> Brief:
    """The brief after ``event``: frontmatter changes, then the Result section."""
    changes = event.data.get("meta_changes") or {}
    if changes:
        doc = doc.with_meta(**changes)
    if event.data.get("result_markdown"):
        doc = doc.with_result(event.data["result_markdown"])
    return doc


def load_brief(ws: Workspace, refocus_id: str, tip: eventlog.Tip | None = None) -> tuple[Brief, str | None] | None:
    """The brief of ``refocus_id`` and the file it came from: the file on disk,
    live or archived (it keeps the user's body edits), else the snapshot in the
    ref (path None). None when this repository has neither."""
    path = catalog.brief_file(ws, refocus_id)
    if path is not None:
        return Brief.parse(atomic.read_bytes(path), ws.rel(path)), path
    if tip is None:
        tip = eventlog.read_tip(ws.repo, refocus_id)
    data = eventlog.snapshot(ws.repo, tip.oid) if tip is not None else None
    if data is None:
        return None
    return Brief.parse(data, eventlog.snapshot_label(refocus_id)), None


def current_doc(ws: Workspace, refocus_id: str, tip: eventlog.Tip | None) -> Brief | None:
    """The document an event builds on (see :func:`load_brief`)."""
    loaded = load_brief(ws, refocus_id, tip)
    return loaded[0] if loaded else None


def write_event(ws: Workspace, refocus_id: str, make_event: Callable[[eventlog.Tip | None], Event], *,
                write_file: bool | None = None, reconcile: bool = True, settle: bool = False) -> Outcome:
    """Append an event built by ``make_event(tip) -> Event`` and rewrite the file.

    ``make_event`` runs against the tip actually being extended (again after a
    lost race) and raises RefocusError to refuse. ``settle`` (a terminal event:
    one of several racing ones wins): before anything else is written, the
    event is exchanged with the counterpart repository on this machine, and if
    another terminal event won there, :class:`LostRace` names it and nothing
    more is written (the event stays in the log, a conflict that changed nothing).
    """
    warnings: list[str] = []
    docs: dict[str, Brief] = {}
    path = catalog.brief_file(ws, refocus_id)
    preflight(ws, *([path] if path is not None and write_file is not False else []))
    if reconcile:  # a hand edit of the file is recorded before anything builds on it
        from gitrefocus.ops.reconcile import reconcile_one

        warnings += reconcile_one(ws, refocus_id, strict=True)

    def build(tip: eventlog.Tip | None) -> tuple[Event, bytes | None]:
        event = make_event(tip)
        if event.kind not in ev.DOC_KINDS:
            return event, None
        doc = current_doc(ws, refocus_id, tip)
        if doc is None:
            raise RefocusError(f"{refocus_id} has no brief document to update.")
        new_doc = apply_to_doc(doc, event)
        docs["new"] = new_doc
        return event, new_doc.render().encode("utf-8")

    tip = eventlog.append(ws.repo, refocus_id, build)
    if settle:
        settled = _settle(ws, refocus_id, tip)
        if settled.oid != tip.oid and "new" in docs:  # the exchange brought events: build on the file as it is now
            doc = current_doc(ws, refocus_id, settled)
            docs["new"] = apply_to_doc(doc, tip.event) if doc is not None else docs["new"]
        tip = eventlog.Tip(oid=settled.oid, state=settled.state, event=tip.event)
    written = []
    path = catalog.brief_file(ws, refocus_id) or path
    if write_file is None:
        write_file = path is not None
    if write_file and "new" in docs and tip.state.status == docs["new"].status:
        path = path or ws.brief_path(refocus_id)
        with catalog.briefs_changing(ws, path):
            atomic.write_text(path, docs["new"].render())
        written.append(path)
    return Outcome(tip=tip, written=written, warnings=warnings)


REPO_MARGIN = 256 * 1024  # objects, refs, notes and the catalog's cache of one command


def preflight(ws: Workspace, *files: str, index: bool = False) -> None:
    """Refuse, before the first durable write, what would stop a write part-way
    (docs/sync-and-repair.md, "Writes, reads and errors"): a corrupt notes ref; a git directory, local state or INDEX.md
    that cannot be written (read-only, full, or not a regular file); any of
    ``files`` that is a symlink, a FIFO, a directory, or cannot be written.
    ``index``: git will rewrite its index too (``git mv``, ``--commit``)."""
    notes.require_readable(ws.repo)
    extra = 0
    if index:
        try:
            extra = os.path.getsize(os.path.join(ws.git_dir, "index"))
        except OSError:
            pass
    atomic.check_writable(os.path.join(ws.common_dir, "objects", ".refocus-probe"), REPO_MARGIN + extra)
    atomic.check_writable(os.path.join(ws.common_dir, "refs", "refocus", ".refocus-probe"))
    atomic.check_writable(os.path.join(ws.git_dir, "refocus", ".refocus-probe"))
    if os.path.isdir(ws.refocus_dir):
        atomic.check_writable(os.path.join(ws.refocus_dir, "INDEX.md"))
    for path in files:
        atomic.check_writable(path)


class LostRace(ConflictError):
    """Another terminal event of the refocus won; this one changed nothing."""


def _settle(ws: Workspace, refocus_id: str, tip: eventlog.Tip) -> eventlog.Tip:
    """Exchange the log with the counterpart on this machine both ways, then
    check that ``tip.event`` is the one that took effect (:class:`LostRace`)."""
    other = counterpart(ws, tip.state)
    if other is not None:
        propagate(ws, other, refocus_id)
        propagate(other, ws, refocus_id)
    now = eventlog.require_tip(ws.repo, refocus_id)
    if any(c.event_id == tip.event.event_id for c in now.state.conflicts):
        raise LostRace(lost_to(ws, refocus_id, now, tip.event.kind, logged=True))
    return now


def lost_to(ws: Workspace, refocus_id: str, tip: eventlog.Tip, kind: str, *, logged: bool = False) -> str:
    """One sentence naming the terminal event that won over this command's
    ``kind`` of event (``logged``: that event is in the log, as a conflict)."""
    from gitrefocus.model import lifecycle

    winner = eventlog.terminal_event(ws.repo, tip.oid)
    won = {lifecycle.RESULT: "completion", lifecycle.ABANDONED: "abandonment"}.get(tip.state.status, "status change")
    when = f" at {winner.at[:16].replace('T', ' ')}" if winner is not None else ""
    why = f" ({tip.state.reason})" if tip.state.status == lifecycle.ABANDONED and tip.state.reason else ""
    lost = {ev.COMPLETED: "completion", ev.ABANDONED: "abandonment"}.get(kind, kind)
    kept = " (it is kept in the event log as a conflict)" if logged else ""
    return (f"{refocus_id} was {lifecycle.in_words(tip.state.status)}{when}{why} first: that {won} won, and this "
            f"{lost} changed nothing{kept}.")


def propagate(from_ws: Workspace, to_ws: Workspace | None, refocus_id: str) -> list[str]:
    """Carry the events of ``from_ws`` into ``to_ws`` (a repo on this machine).

    Returns the files rewritten in ``to_ws``. Brief files there are updated by
    applying each new event's changes to the file on disk, so edits made there
    are kept.
    """
    if to_ws is None or to_ws.same_repo(from_ws):
        return []
    tip_oid = refs.resolve(from_ws.repo, refs.ref_name(refocus_id))
    if tip_oid is None:
        return []
    before = refs.resolve(to_ws.repo, refs.ref_name(refocus_id))
    known = {e.event_id for _, e in eventlog.chain(to_ws.repo, before)} if before else set()
    theirs = eventmerge.export_events(from_ws.repo, tip_oid)
    tip = eventmerge.import_events(to_ws.repo, refocus_id, theirs)
    if tip is None:
        return []
    return materialize(to_ws, refocus_id, [e for e, _ in theirs if e.event_id not in known])


def materialize(ws: Workspace, refocus_id: str, new_events: list[Event]) -> list[str]:
    """Bring this repo's brief file (if it has one) up to date with new events."""
    path = catalog.brief_file(ws, refocus_id)
    if path is None:
        return []
    try:
        doc = Brief.parse(atomic.read_bytes(path), ws.rel(path))
    except (RefocusError, OSError):
        return []  # doctor reports files it cannot read; never overwrite them blindly
    tip = eventlog.read_tip(ws.repo, refocus_id)
    not_applied = {c.event_id for c in tip.state.conflicts} if tip is not None else set()
    new = doc
    for event in new_events:  # an event kept in the log as a conflict changes no file
        if event.kind in ev.DOC_KINDS and event.kind != ev.SPAWNED and event.event_id not in not_applied:
            new = apply_to_doc(new, event)
    if tip is not None and new.status != tip.state.status:
        new = new.with_meta(status=tip.state.status)
    if new.render() == doc.render():
        return []
    with catalog.briefs_changing(ws, path):
        atomic.write_text(path, new.render())
    return [path]


def note(ws: Workspace, oid: Oid | str | None, refocus_id: str, event: str, *, at: str | None = None,
         **fields: object) -> None:
    """Attach an audit line to commit ``oid`` (skipped on an unborn branch),
    dated ``at`` (the event's time, so that doctor re-creates the very line)."""
    if oid is None:
        return
    notes.add_note(ws.repo, oid, note_line(refocus_id, event, at or clock.now_iso(), fields).format())


def note_line(refocus_id: str, event: str, at: str, fields: Mapping[str, object]) -> NoteRecord:
    clean = {k: str(v) for k, v in fields.items() if v not in (None, "")}
    return NoteRecord(at=at, refocus_id=refocus_id, event=event, fields=clean)




def audit_line(state: RefocusState, event: Event, role: str) -> tuple[str, dict[str, object]] | None:
    """The audit line an applied ``event`` leaves in the notes of the repository
    that plays ``role`` in the refocus (``state``: the state after the event),
    or None: one definition for the commands that write the lines and for
    doctor, which re-creates the missing ones from the event log."""
    kind, data = event.kind, event.data
    if kind == ev.SPAWNED:
        # where the other side is, as stored: notes are shared history, no path of this machine
        other = {"dest": places.label(state, DEST)} if role == SOURCE else {"source": places.label(state, SOURCE)}
        agents = {k.replace("_", "-"): v for k, v in (event.data.get("meta") or {}).items()
                  if k in ("source_agent", "child_agent") and isinstance(v, str)}  # absent: Claude Code
        return "spawned", {"role": role, "status": "reserved", **other, **agents}
    if kind == ev.ABANDONED:
        return "abandoned", {"role": role, "status": "abandoned", "reason": data.get("reason")}
    if kind == ev.RECEIVED:
        return ("received", {"role": SOURCE, "status": state.status}) if role == SOURCE else None
    if role != DEST:
        return None
    if kind == ev.STARTED:
        agent = {"agent": data["agent"]} if isinstance(data.get("agent"), str) else {}  # absent: Claude Code
        return "started", {"role": DEST, "status": state.status, "session": data.get("session_id"), **agent}
    if kind == ev.COMPLETED:
        return "completed", {"role": DEST, "status": state.status}
    if kind == ev.EDITED and "to" in data and not data.get("rebuilt_from") and data.get("to") != data.get("from"):
        return "edited", {"status": data.get("to"), "was": data.get("from")}
    if kind == ev.SESSION_ENDED:
        return "session-ended", {"role": DEST, "status": "in-progress", "session": data.get("session_id")}
    return None


def note_event(ws: Workspace, tip: eventlog.Tip, role: str, oid: Oid | str | None = None) -> None:
    """Attach the audit line of ``tip.event`` (:func:`audit_line`) to ``oid`` (default: HEAD)."""
    line = audit_line(tip.state, tip.event, role)
    if line is not None:
        note(ws, oid if oid is not None else ws.head_oid(), tip.event.refocus_id, line[0], at=tip.event.at, **line[1])


COUNTERPARTS = places.COUNTERPARTS  # local state: refocus id -> the other repository spawn wrote to


def remember_counterpart(ws: Workspace, refocus_id: str, other: Workspace) -> None:
    """Record, in this machine's local state, that ``other`` takes part in ``refocus_id``."""
    from gitrefocus.store import localstate

    localstate.write(ws.git_dir, COUNTERPARTS, refocus_id, text=other.workdir + "\n")


def knows(ws: Workspace, refocus_id: str) -> bool:
    """``ws`` already holds ``refocus_id`` (its ref or its brief file)."""
    return refs.resolve(ws.repo, refs.ref_name(refocus_id)) is not None or catalog.brief_file(ws, refocus_id) is not None


def counterpart(ws: Workspace, state: RefocusState,
                opened: dict[tuple[str | None, ...], Workspace | None] | None = None) -> Workspace | None:
    """The other repository of a refocus, when it is reachable on this machine and
    this machine already knows it takes part: it holds the refocus, or spawn here
    recorded it. Places named by events are evidence, not truth (docs/ARCHITECTURE.md): a
    crafted log fetched by ``sync`` must not make us write into an unrelated repository."""
    key = (state.source_dir, state.dest_dir, state.extra.get("source_repo_id"), state.extra.get("dest_repo_id"))
    if opened is None:
        other = counterpart_in(ws, places.counterpart_dirs(ws, state))
    else:  # many refocuses share a handful of repositories: open each once
        if key not in opened:
            opened[key] = counterpart_in(ws, places.counterpart_dirs(ws, state))
        other = opened[key]
    if other is None or knows(other, state.id):
        return other
    recorded = places.recorded_counterpart(ws, state.id)
    return other if recorded and recorded == other.workdir else None


def counterpart_in(ws: Workspace, dirs: Iterable[str | None]) -> Workspace | None:
    """The first of ``dirs`` that is a repository on this machine other than ``ws``."""
    for path in dirs:
        other = Workspace.try_open(path)
        if other is not None and not other.same_repo(ws):
            return other
    return None
