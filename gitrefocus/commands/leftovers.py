"""What ``doctor`` checks beyond files, refs and linkage: evidence a remote sent
that was not taken, logs whose stored state cannot be believed, and what a
command killed between two writes leaves behind.

Each check returns findings (:class:`~gitrefocus.commands.findings.Finding`);
a repair is attached only when it loses nothing.
"""

from __future__ import annotations

import functools
import os
import shlex

from gitrefocus.commands.findings import INFO, Finding
from gitrefocus.errors import RefocusError
from gitrefocus.model import events as ev
from gitrefocus.model.brief import Brief
from gitrefocus.model.events import RefocusState
from gitrefocus.model.ids import ref_name
from gitrefocus.model.note_line import NoteRecord
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.ops import linkage, record
from gitrefocus.store import atomic, eventlog, eventmerge, identity, locks, notes, refs
from gitrefocus.store.catalog import INCOMING, LOCAL, Catalog, Entry
from gitrefocus.store.workspace import Workspace, load_pygit2


# -- evidence from remotes ---------------------------------------------------------------------
def check_remote_conflicts(ws: Workspace) -> list[Finding]:
    """Logs a remote published that sync did not take as they were (kept under
    ``refs/refocus-quarantine/remotes/``): reported, the local log being the truth."""
    out = []
    for name, rid, reasons in eventmerge.quarantined_remote_logs(ws.repo):
        out.append(Finding("remote-conflict", f"a remote's log of {rid} was not taken as it is: {reasons}; the local "
                           f"log was kept. Inspect it with `git log -p {name}`; `git update-ref -d {name}` dismisses "
                           f"this report.", rid, severity=INFO))
    return out


def check_logs(ws: Workspace, cat: Catalog) -> list[Finding]:
    """Event logs whose stored states cannot be believed (a merge marker with a
    state of its own, a ``state.json`` that is not the fold of its events) or
    that hold a malformed event: rebuilt from their events, the old log kept."""
    out = []
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        if entry.corrupt or entry.tip is None or entry.state is None:
            continue  # unreadable tips are check_entries' (quarantined whole)
        oid = refs.resolve(ws.repo, ref_name(entry.id))
        if oid is None:
            continue
        try:
            why = eventmerge.log_problem(ws.repo, entry.id, oid)
        except RefocusError as exc:
            why = str(exc)
        if why:
            out.append(Finding("log-untrusted", f"{ref_name(entry.id)} cannot be believed as it is: {why}.", entry.id,
                               fix=functools.partial(eventmerge.rebuild_log, ws.repo, entry.id),
                               repair=f"rebuild it from its events (the log as it is stays under "
                                      f"{refs.QUARANTINE_PREFIX})"))
    return out


# -- audit lines ---------------------------------------------------------------------------------------
def _held_lines(ws: Workspace) -> tuple[set[tuple[str, str, frozenset[tuple[str, str]]]], set[tuple[str, str]]]:
    """What refs/notes/refocus holds: (id, event, fields) of every line, whatever
    its time, and (id, commit) of every ``linked`` line of link, a rewrite or --detect."""
    from gitrefocus.model import note_line

    lines: set[tuple[str, str, frozenset[tuple[str, str]]]] = set()
    linked: set[tuple[str, str]] = set()
    tip = refs.resolve(ws.repo, notes.NOTES_REF)
    if tip is None or notes.unreadable(ws.repo):
        return lines, linked
    for target, blob in notes.notes_in(ws.repo, tip).items():
        for rec in note_line.parse(notes.note_text(ws.repo, blob)):
            lines.add((rec.refocus_id, rec.event, frozenset(rec.fields.items())))
            if rec.event == "linked" and rec.fields.get("via") in linkage.VIAS:
                linked.add((rec.refocus_id, target))
    return lines, linked


def _roles(ws: Workspace, entry: Entry) -> list[str]:
    """The sides of the refocus this repository surely plays: it holds the commit
    that side stood on at spawn, or it is the directory named. (A clone that holds
    neither is listed by a guess, and its audit lines are not asked for.)"""
    state = entry.state
    if state is None:
        return []
    repos = state.extra.get("repos")
    me = identity.read(ws)
    roles = []
    for role in (SOURCE, DEST):
        place = state.where(role)
        if place is not None and place.portable:  # by identity: every copy of the repository plays its side
            if place.repo_id == me:
                roles.append(role)
            continue
        oid = repos.get(role) if isinstance(repos, dict) else None
        if (isinstance(oid, str) and ws.holds(oid)) or (place is not None and _inside(place.dir, ws.workdir)):
            roles.append(role)
    if len(roles) == 2 and entry.direction != LOCAL:  # two clones on one commit: the catalog's call
        roles = [DEST if entry.direction == INCOMING else SOURCE]
    return roles


def _inside(path: str, top: str) -> bool:
    real = os.path.realpath(path)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def check_note_lines(ws: Workspace, cat: Catalog) -> list[Finding]:
    """Audit lines an applied event should have left here (:func:`record.audit_line`,
    the ``linked`` lines of ``link``) that refs/notes/refocus lacks: a command killed
    between its event and its note. Re-created from the event log, dated as the
    event, so a repair adds each line once."""
    head = ws.head_oid()
    if head is None:
        return []  # nothing to attach a note to (the command that ran skipped it too)
    held, linked = _held_lines(ws)
    out = []
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        oid = refs.resolve(ws.repo, ref_name(entry.id)) if entry.state is not None and not entry.corrupt else None
        if oid is None:
            continue
        try:
            events = [e for _, e in eventlog.chain(ws.repo, oid)]
        except RefocusError:
            continue
        missing: list[tuple[str | None, NoteRecord]] = []
        roles = _roles(ws, entry)
        state = None
        for event in events:
            state, applied = ev.apply(state, event)
            if not applied:
                continue
            for role in roles:
                line = record.audit_line(state, event, role)
                if line is None:
                    continue
                rec = record.note_line(entry.id, line[0], event.at, line[1])
                if (rec.refocus_id, rec.event, frozenset(rec.fields.items())) not in held:
                    missing.append((None, rec))
            via = event.data.get("via")
            if event.kind == ev.LINKED and via in linkage.VIAS:
                replaces = event.data.get("replaces")
                for commit in event.data.get("commits") or []:
                    if isinstance(commit, str) and (entry.id, commit) not in linked and linkage.is_commit(ws, commit):
                        gone = replaces.get(commit) if isinstance(replaces, dict) else None
                        gone = [o for o in gone if isinstance(o, str)] if isinstance(gone, list) else None
                        missing.append((commit, record.note_line(
                            entry.id, "linked", event.at, linkage.link_fields(state.status, str(via), gone))))
        if missing:
            names = ", ".join(dict.fromkeys(rec.event for _, rec in missing))
            out.append(Finding("note-missing", f"{len(missing)} audit line(s) of {entry.id} are missing from "
                               f"{notes.NOTES_REF} ({names}); the events are recorded.", entry.id,
                               fix=functools.partial(_add_lines, ws, missing), repair="re-create them from the event log"))
    return out


def _add_lines(ws: Workspace, missing: list[tuple[str | None, NoteRecord]]) -> None:
    """Add the lines still missing (an earlier repair, a notes merge, may have brought some)."""
    head = ws.head_oid()
    held, linked = _held_lines(ws)
    for commit, rec in missing:
        if commit is not None and (rec.refocus_id, commit) in linked:
            continue
        if commit is None and (rec.refocus_id, rec.event, frozenset(rec.fields.items())) in held:
            continue
        target = commit or head
        if target is not None:
            notes.add_note(ws.repo, target, rec.format())


# -- a saved transcript --------------------------------------------------------------------------------
def check_transcripts(ws: Workspace, cat: Catalog) -> list[Finding]:
    """A brief that says ``transcript_saved: true`` whose transcript file is missing
    (a completion killed after its event): saved again from the child's transcript,
    scrubbed, when it is still on this machine. A saved transcript whose
    ``.gitattributes`` LFS line is missing gets the line."""
    from gitrefocus.ops import transcript

    out = []
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        if not entry.incoming or entry.path is None or entry.state is None or entry.file_error:
            continue
        try:
            meta = Brief.parse(atomic.read_bytes(entry.path), ws.rel(entry.path)).meta
        except RefocusError:
            continue  # reported as an unreadable file
        if meta.get("transcript_saved") is not True:
            continue
        saved = os.path.join(ws.transcripts_dir, f"{entry.id}.jsonl")
        if not os.path.lexists(saved):
            state = entry.state
            source = transcript.find_source(ws, state)
            if source is None:
                out.append(Finding("transcript-missing", f"{ws.rel(saved)} is missing although {entry.id} says "
                                   f"transcript_saved: true, and the child's transcript is no longer on this machine.",
                                   entry.id))
            else:
                out.append(Finding("transcript-missing", f"{ws.rel(saved)} is missing although {entry.id} says "
                                   f"transcript_saved: true.", entry.id,
                                   fix=functools.partial(_save_transcript, ws, entry.id, state),
                                   repair=f"save it again, scrubbed, from {source}"))
        elif not transcript.attributes_ok(ws):
            out.append(Finding("transcript-attributes", f".gitattributes lacks the LFS line for saved transcripts "
                               f"({transcript.LFS_LINE}).", entry.id,
                               fix=functools.partial(transcript.ensure_attributes, ws), repair="add the line"))
    return out


def _save_transcript(ws: Workspace, rid: str, state: RefocusState) -> None:
    from gitrefocus.handoff.scrub import scrub_transcript
    from gitrefocus.ops import transcript

    transcript.write(ws, rid, transcript.prepare(ws, state, scrub_transcript))


# -- git's own locks --------------------------------------------------------------------------------------
INDEX_LOCK_STALE_AFTER = 600.0  # seconds, where no process table tells who runs git


def check_index_lock(ws: Workspace) -> list[Finding]:
    """``.git/index.lock`` that no git process holds (a ``complete --commit`` killed
    with its git): every later commit fails on it."""
    path = os.path.join(ws.git_dir, "index.lock")
    if not os.path.lexists(path):
        return []
    if _git_running_in(ws):
        return [Finding("index-lock", f"{path} is held by a git process running in {ws.workdir}.", severity=INFO)]
    return [Finding("stale-index-lock", f"{path} was left by a git process that did not finish; git refuses every "
                     f"commit until it is removed.", fix=functools.partial(_remove_index_lock, ws, path),
                     repair="remove it (no git process is running in this repository)")]


def _git_running_in(ws: Workspace) -> bool:
    """Whether a git process works in this repository (its working directory or an
    open file inside it); without a process table, whether the lock is younger
    than :data:`INDEX_LOCK_STALE_AFTER`."""
    path = os.path.join(ws.git_dir, "index.lock")
    if not os.path.isdir("/proc/self/fd"):
        return (locks.age(path) or 0) < INDEX_LOCK_STALE_AFTER
    if (locks.age(path) or 0) < 1.0:
        return True  # just made: a git that started a moment ago
    places = (ws.workdir, ws.git_dir, ws.common_dir)
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read()
            comm, ppid = stat[stat.index(b"(") + 1:stat.rindex(b")")], int(stat[stat.rindex(b")") + 2:].split()[1])
            if not comm.startswith(b"git") or ppid == os.getpid():  # our own readers are no committer
                continue
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if any(cwd == p or cwd.startswith(p + os.sep) for p in places):
            return True
    held = locks._holders()
    return held is not None and path in held


def _remove_index_lock(ws: Workspace, path: str) -> None:
    if os.path.lexists(path) and not _git_running_in(ws):
        os.unlink(path)


# -- locks on a remote ----------------------------------------------------------------------------------------
def check_remote_locks(ws: Workspace) -> list[Finding]:
    """Stale ref locks in a remote on this machine (a path or file:// URL): every
    push of that ref fails until they go. Not ours to remove: reported with the
    command that removes them."""
    from gitrefocus.store import remote as remote_

    out = []
    for name in remote_.names(ws):
        for path in remote_.stale_locks(ws, name):
            out.append(Finding("remote-lock", f"the remote {name} is locked by {path}, left by a push that did not "
                               f"finish; every sync fails on it until it is removed: rm {shlex.quote(path)}"))
    return out


# -- refs that are no event logs ------------------------------------------------------------------------------
def quarantine_ref(ws: Workspace, refname: str) -> str:
    """Move a ref that names no event log out of ``refs/refocus/``: a symbolic ref
    is deleted (it holds only the name it points to, given in the finding), any
    other is kept under ``refs/refocus-quarantine/``."""
    ref = ws.repo.references.get(refname)
    if ref is None:
        return refname
    if ref.type == load_pygit2().enums.ReferenceType.SYMBOLIC:
        refs.delete(ws.repo, refname)
        return f"(deleted; it pointed to {ref.target})"
    return refs.quarantine(ws.repo, refname)


# -- a --commit cut short -------------------------------------------------------------------------------------
def check_commit_promises(ws: Workspace) -> list[Finding]:
    """A ``--commit`` its command promised (store/scoped_commit.py) and did not make:
    the command was killed. Made now of whichever promised files changed."""
    from gitrefocus.store import scoped_commit

    out = []
    for record_ in scoped_commit.promises(ws):
        pid = record_.get("pid")
        if isinstance(pid, int) and pid != os.getpid() and alive(pid):
            continue  # its command is still running
        rid = record_.get("refocus_id")
        out.append(Finding("commit-pending", f"the `--commit` of {rid} was cut short before its commit "
                           f"({record_.get('message')!r}).", rid if isinstance(rid, str) else None,
                           fix=functools.partial(scoped_commit.keep, ws, record_),
                           repair="commit the files it wrote (or forget it when it wrote none)"))
    return out


def alive(pid: int) -> bool:
    """A process ``pid`` runs on this machine (one another user owns counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# -- loops and stops cut short ---------------------------------------------------------------------------------
def check_loops(ws: Workspace, cat: Catalog) -> list[Finding]:
    """A loop tied to a refocus in progress whose ``started`` loop event is not in
    the refocus's log (``loop start`` killed between the loop file and the event)."""
    from gitrefocus.commands.loop import record_event
    from gitrefocus.model import lifecycle
    from gitrefocus.store import loops

    out = []
    logged: dict[str, set[str]] = {}
    for state in loops.all_sessions(ws.git_dir)[0]:
        for loop in state.loops:
            entry = cat.entries.get(loop.refocus_id or "")
            if entry is None or entry.status != lifecycle.IN_PROGRESS or entry.corrupt:
                continue
            if entry.id not in logged:
                try:
                    oid = refs.resolve(ws.repo, ref_name(entry.id))
                    logged[entry.id] = {str(e.data.get("loop_id")) for _, e in eventlog.chain(ws.repo, oid)
                                        if e.kind == ev.LOOP and e.data.get("action") == "started"}
                except RefocusError:
                    logged[entry.id] = set()
            if loop.id not in logged[entry.id]:
                out.append(Finding("loop-event-missing", f"loop {loop.id} of session {loop.session_id} is tied to "
                                   f"{entry.id}, whose log lacks its started event.", entry.id,
                                   fix=functools.partial(record_event, ws, loop, "started", promise=loop.promise),
                                   repair="record the event"))
    return out


def check_stops(ws: Workspace) -> list[Finding]:
    """A ``stop`` killed part-way (store: ``$GIT_DIR/refocus/stopping/<id>``): some markers
    still name the refocus it stopped. Finished by removing them."""
    from gitrefocus.commands.stop import STOPPING, finish_stop
    from gitrefocus.store import localstate

    try:
        names = sorted(os.listdir(localstate._checked(ws.git_dir, STOPPING)))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [Finding("stop-unfinished", f"`git refocus stop` of {rid} was cut short; markers may still tag commits "
                    f"with it.", rid, fix=functools.partial(finish_stop, ws, rid), repair="finish it")
            for rid in names if not rid.startswith(".")]


# -- a sync cut short ----------------------------------------------------------------------------------------
def check_fetched(ws: Workspace) -> list[Finding]:
    """What a sync fetched and did not merge (killed between its fetch and its merge)."""
    from gitrefocus.commands import sync

    return [Finding("sync-unfinished", f"the last sync with {remote} fetched {len(names)} ref(s) it did not merge "
                    f"({', '.join(names[:3])}).", fix=functools.partial(sync.finish_merge, ws, remote),
                    repair=f"merge them (what `git refocus sync {remote}` does after its fetch)")
            for remote, names in sorted(sync.unmerged(ws).items())]
