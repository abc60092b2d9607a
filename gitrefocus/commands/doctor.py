"""``git refocus doctor [--repair]``: do files, refs, notes, hooks and local state agree?

Every check yields findings; a finding carries a repair only when the repair
loses nothing (docs/sync-and-repair.md, "Order of writes, and what doctor repairs"):

- brief file missing but the ref present (this repo is the destination):
  re-create the file from the ref's snapshot;
- ref missing but the file present: rebuild the event log from the file;
- file equal to an older snapshot (a write was cut short): bring it forward;
- frontmatter status edited by hand to a legal next status: import the edit;
- the counterpart repository on this machine lacks events (or has events we
  lack): carry them over;
- finished refocus whose linked commits lack the final linkage note: add it;
- commit-msg hook or notes config missing: install / set them;
- temporary refs left by a killed process, session-map entries and the
  ``active`` id pointing at finished, unknown or foreign refocuses (ones
  this repository is not the destination of): remove them;
- a ref ``.lock`` no live writer holds: remove it;
- a result whose material changes never reached ``docs/context/`` (a
  completion cut short): promote them;
- INDEX.md that no longer matches the refocuses: regenerate it;
- a ref or notes ref that names no readable event log / notes commit: move it
  under ``refs/refocus-quarantine/`` (nothing is deleted).

What a command killed between two writes leaves beyond these (audit lines, a
saved transcript, markers, loops, stops, syncs and --commit commits cut short,
git's index.lock, logs whose stored state cannot be believed, evidence a
remote sent that sync did not take) is checked in :mod:`gitrefocus.commands.leftovers`.

Everything else (an unreadable file, an illegal status edit, events that
conflicted after a merge, a stale lock on a remote) is reported for a person to decide.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gitrefocus.commands import leftovers
from gitrefocus.commands.findings import INFO, PROBLEM, Finding
from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle, place
from gitrefocus.model import events as ev
from gitrefocus.model.brief import Brief
from gitrefocus.model.events import Event
from gitrefocus.model.ids import brief_relpath, ref_name
from gitrefocus.model.records import dataclass
from gitrefocus.model.result import MaterialChange
from gitrefocus.ops import index_md, linkage, places, promote, reconcile, record, rewrites, setup
from gitrefocus.store import (
    atomic,
    catalog,
    eventlog,
    eventmerge,
    git,
    localstate,
    locks,
    notes,
    refs,
)
from gitrefocus.store.catalog import Catalog, Entry
from gitrefocus.store.eventlog import Tip
from gitrefocus.store.notes import NOTES_REF
from gitrefocus.store.workspace import Workspace

if TYPE_CHECKING:
    from pygit2 import Oid

TMP_REF_PREFIXES = (refs.TMP_PREFIX, *refs.LEGACY_TMP_PREFIXES)
_PID_RE = re.compile(r"-(\d+)-[0-9a-f]+$")
FINISHED = linkage.FINISHED
# rebuilding a log from a file: the legal path from reserved to the file's status
_PATHS = {
    lifecycle.RESERVED: [], lifecycle.BRIEF: [lifecycle.BRIEF], lifecycle.IN_PROGRESS: [lifecycle.IN_PROGRESS],
    lifecycle.BLOCKED: [lifecycle.IN_PROGRESS, lifecycle.BLOCKED],
    lifecycle.RESULT: [lifecycle.IN_PROGRESS, lifecycle.RESULT], lifecycle.ABANDONED: [lifecycle.ABANDONED],
}


@dataclass(frozen=True)
class DoctorOutcome:
    repo: str
    repair: bool  # --repair was given
    findings: list[Finding]  # everything found, repaired or not, in the order found
    problems: int  # problems that remain
    repaired: int
    repairable: int  # remaining problems --repair can fix
    clean: bool

    def to_json(self) -> dict[str, Any]:
        return {"repo": self.repo, "repair": self.repair, "findings": [f.to_json() for f in self.findings],
                "problems": self.problems, "repaired": self.repaired, "repairable": self.repairable,
                "clean": self.clean}


# -- setup ------------------------------------------------------------------
def check_setup(ws: Workspace) -> list[Finding]:
    if not ran_init(ws):
        # a repository a spawn wrote into, never set up: spawn said so, and nothing is
        # inconsistent; doctor says it once and leaves the choice to the user
        return [Finding("setup", f"{ws.workdir} never ran `git refocus init`: its commits are not tagged with "
                        "Refocus-Id and `git log` does not show refocus notes (`git refocus init` sets it up).",
                        severity=INFO)]
    out = []
    for name in setup.HOOKS:
        try:
            step = setup.hook_step(ws, name)
            if step.needed and not _owns_hooks_dir(ws):
                # a core.hooksPath outside this repository is shared with others: never rewrite it unasked
                out.append(Finding("hook", f"{step.problem or step.what} The hooks directory {setup.hooks_dir(ws)} "
                                   f"(core.hooksPath) lies outside this repository; run `git refocus init` to "
                                   f"install the hook there deliberately."))
            elif step.needed:
                out.append(Finding("hook", step.problem or step.what, fix=step.apply, repair=step.what))
        except RefocusError as exc:
            out.append(Finding("hook", str(exc)))
    for step in setup.config_steps(ws):
        if step.needed:
            out.append(Finding("config", step.problem or step.what, fix=step.apply, repair=f"run `{step.what}`"))
    problem = setup.rewrite_mode_problem(ws)
    if problem:
        out.append(Finding("config", problem))
    linked = ws.git_dir != ws.common_dir
    try:  # the rest of what `init` (and a spawn) sets up: an `init` killed part-way is finished here
        for path, text in setup.planned(ws.workdir):
            if linked:  # a linked worktree has these files as its branch has them: init ran in another
                out.append(Finding("setup", f"{ws.rel(path)} lacks the line `git refocus init` adds (this worktree's "
                                   "branch does not have it yet; commit it where init added it).", severity=INFO))
                continue
            out.append(Finding("setup", f"{ws.rel(path)} lacks the line `git refocus init` adds.",
                               fix=functools.partial(setup.write_text, path, text), repair="add it"))
    except RefocusError as exc:
        out.append(Finding("setup", str(exc)))
    return out


def ran_init(ws: Workspace) -> bool:
    """``git refocus init`` ran here (or its steps were taken by hand): our notes
    config, or our commit-msg hook, is in place."""
    if NOTES_REF in setup.config_values(ws, "notes.displayRef"):
        return True
    try:
        return setup.is_ours(setup.read_hook(ws))
    except RefocusError:
        return True  # a hook that cannot be read: check_setup says so


def _owns_hooks_dir(ws: Workspace) -> bool:
    real = os.path.realpath(setup.hooks_dir(ws))
    return any(real == d or real.startswith(d + os.sep) for d in (ws.workdir, ws.common_dir, ws.git_dir))


# -- files and refs ----------------------------------------------------------
def _event_id(*parts: str) -> str:
    """Deterministic, so two clones rebuilding the same file agree on the events."""
    return hashlib.sha1("\0".join(parts).encode("utf-8")).hexdigest()[:32]


def rebuild_ref(ws: Workspace, rid: str, path: str) -> None:
    """Write an event log for a brief file whose ref is gone: spawned, then the
    legal path of ``edited`` events to the file's status; every snapshot is the file."""
    data = atomic.read_bytes(path)
    doc = Brief.parse(data, ws.rel(path))
    meta, digest = doc.meta, git.blob_hash(data)
    actor = {"name": "git-refocus doctor", "role": "doctor"}
    events = [Event(refocus_id=rid, kind=ev.SPAWNED, at=meta.get("spawned_at") or clock.now_iso(), actor=actor,
                    data={"meta": meta, "rebuilt_from": ws.rel(path)}, event_id=_event_id(rid, "spawned", digest))]
    prev = lifecycle.RESERVED
    for status in _PATHS.get(doc.status, []):
        at = (meta.get("launched_at") if status == lifecycle.IN_PROGRESS else meta.get("completed_at")) or clock.now_iso()
        events.append(Event(refocus_id=rid, kind=ev.EDITED, at=at, actor=actor,
                            data={"from": prev, "to": status, "reason": meta.get("reason"), "rebuilt_from": ws.rel(path)},
                            event_id=_event_id(rid, "edited", status, digest)))
        prev = status
    for i, event in enumerate(events):
        def build(tip: Tip | None, event: Event = event, first: bool = (i == 0)) -> tuple[Event, bytes]:
            if first and tip is not None:
                raise RefocusError(f"{ref_name(rid)} appeared meanwhile; nothing to rebuild.")
            return event, data
        eventlog.append(ws.repo, rid, build)


def recreate_file(ws: Workspace, rid: str, tip_oid: Oid) -> None:
    data = eventlog.snapshot(ws.repo, tip_oid)
    if data is None:
        raise RefocusError(f"{eventlog.snapshot_label(rid)} is missing; nothing to re-create the file from.")
    path = ws.brief_path(rid)
    if os.path.lexists(path):
        raise RefocusError(f"{ws.rel(path)} appeared meanwhile; left as it is.")
    atomic.write_bytes(path, data)


def _classify_file(ws: Workspace, entry: Entry, path: str) -> Finding | None:
    """A brief file that differs from its ref's snapshot."""
    rid, rel = entry.id, ws.rel(path)
    data = atomic.read_bytes(path)
    tip = eventlog.read_tip(ws.repo, rid)
    if tip is None:
        return None
    digest = git.blob_hash(data)
    if digest == str(eventlog.snapshot_oid(ws.repo, tip.oid)):
        return None
    older = {str(eventlog.snapshot_oid(ws.repo, oid)) for oid, _ in eventlog.chain(ws.repo, tip.oid)}
    fix = lambda: reconcile.reconcile_one(ws, rid, strict=True)  # noqa: E731
    if digest in older:
        return Finding("file-behind", f"{rel} equals an older snapshot of {ref_name(rid)} (a write was cut short).",
                       rid, fix=fix, repair="bring the file forward from the ref")
    try:
        status = Brief.parse(data, rel).status
    except RefocusError as exc:
        return Finding("file-unreadable", str(exc), rid)
    current = tip.state.status
    if status == current:
        return None  # body edits are the user's and are kept
    if lifecycle.is_legal(current, status):
        return Finding("status-edited", f"{rel} was edited to status {status} (the ref says {current}).", rid,
                       fix=fix, repair=f"record the edit as an event ({current} → {status})")
    return Finding("status-edited", f"{rel} says status {status} but {rid} is {current}, and {current} → {status} "
                   f"is not a legal transition; fix the frontmatter status.", rid)


def _ref_missing(ws: Workspace, rid: str, path: str) -> Finding:
    """Take the log from the counterpart repository when it has one; rebuild it from the file otherwise."""
    message = f"{ws.rel(path)} has no event log ({ref_name(rid)} is missing)."
    try:
        meta = Brief.parse(atomic.read_bytes(path), ws.rel(path)).meta
        other = record.counterpart_in(ws, [places.directory(ws, place.of(meta, meta, side), rid)
                                           for side in (place.SOURCE, place.DEST)])
    except RefocusError:
        other = None
    if other is not None and refs.resolve(other.repo, refs.ref_name(rid)) is not None:
        return Finding("ref-missing", message, rid, fix=lambda: record.propagate(other, ws, rid),
                       repair=f"copy the event log from {other.workdir}")
    fetched = [(name, oid) for name, oid in refs.iter_refs(ws.repo, refs.TRACKING_PREFIX)
               if name.endswith(f"/refocus/{rid}")]
    if fetched:  # what sync last fetched: the real history, not a reconstruction
        name, oid = fetched[0]
        return Finding("ref-missing", message, rid, fix=functools.partial(eventmerge.merge_ref, ws.repo, rid, oid),
                       repair=f"take the event log sync fetched ({refs.TRACKING_PREFIX}{name})")
    return Finding("ref-missing", message, rid, fix=lambda: rebuild_ref(ws, rid, path),
                   repair="rebuild the event log from the file")


def _written_here(ws: Workspace, entry: Entry) -> bool:
    """Spawn wrote the brief of ``entry`` into this work tree, on this machine: it
    recorded the refocus's counterpart in this work tree's local state (a refocus
    from before portable places: its destination is this directory). Elsewhere (a
    clone that synced) the file arrives with the commit that adds it."""
    dest = entry.state.where(place.DEST) if entry.state is not None else None
    if dest is not None and not dest.portable:
        return True
    return places.recorded_counterpart(ws, entry.id) is not None


def _worktrees(ws: Workspace) -> list[str]:
    """The other work trees of this repository (``git worktree add``)."""
    proc = ws.git("worktree", "list", "--porcelain", "-z", check=False)
    paths = [f[len("worktree "):] for f in proc.stdout.split("\0") if f.startswith("worktree ")]
    return [p for p in paths if os.path.realpath(p) != ws.workdir]


def _in_another_worktree(ws: Workspace, rid: str, worktrees: list[str] | None) -> str | None:
    """The other work tree of this repository that holds the brief file of ``rid``."""
    for path in worktrees or ():
        if os.path.isfile(os.path.join(path, brief_relpath(rid))):
            return path
    return None


def check_entries(ws: Workspace, cat: Catalog) -> list[Finding]:
    out = []
    worktrees = _worktrees(ws) if ws.git_dir != ws.common_dir or os.path.isdir(
        os.path.join(ws.common_dir, "worktrees")) else None
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        rid = entry.id
        tip = refs.resolve(ws.repo, ref_name(rid)) if not entry.corrupt and entry.tip is not None else None
        if tip is not None:
            # listings read only state.json; doctor reads the whole tip event as a writer would
            try:
                eventlog.tip_at(ws.repo, tip)
            except RefocusError as exc:
                entry.problems.append(f"{ref_name(rid)} is unreadable: {exc}")
                entry.corrupt = True
        if entry.corrupt:
            out += [Finding("ref-unreadable", p, rid, fix=functools.partial(leftovers.quarantine_ref, ws, ref_name(rid)),
                            repair=f"move it to {refs.QUARANTINE_PREFIX}{ref_name(rid).removeprefix('refs/')} "
                                   f"(nothing is deleted)") for p in entry.problems[:1]]
            out += [Finding("ref-unreadable", p, rid) for p in entry.problems[1:]]
        else:
            out += [Finding("ref-unreadable", p, rid) for p in entry.problems]
        if entry.file_error:
            out.append(Finding("file-unreadable", entry.file_error, rid))
            continue
        if entry.state is None and entry.path and not entry.problems:
            out.append(_ref_missing(ws, rid, entry.path))
        elif entry.state is not None and entry.path is None and entry.incoming:
            oid = refs.resolve(ws.repo, refs.ref_name(rid))
            elsewhere = _in_another_worktree(ws, rid, worktrees)
            if elsewhere is not None:
                out.append(Finding("file-elsewhere", f"{brief_relpath(rid)} is in the worktree {elsewhere}, not in this "
                                   "one (it reaches this one with the branch that commits it).", rid, severity=INFO))
            elif oid is not None and eventlog.snapshot(ws.repo, oid) is not None and _written_here(ws, entry):
                out.append(Finding("file-missing", f"{brief_relpath(rid)} is missing but {ref_name(rid)} holds it.", rid,
                                   fix=functools.partial(recreate_file, ws, rid, oid),
                                   repair="re-create the file from the ref's snapshot"))
            elif oid is not None and eventlog.snapshot(ws.repo, oid) is not None:
                out.append(Finding("file-missing", f"{brief_relpath(rid)} is not in this work tree: spawn wrote it in "
                                   "another clone, and it arrives with the commit that adds it "
                                   f"(`git refocus show {rid}` reads it from the event log).", rid, severity=INFO,
                                   fix=functools.partial(recreate_file, ws, rid, oid),
                                   repair="write it here from the ref's snapshot"))
        elif entry.state is not None and entry.path and not entry.file_matches_ref:
            finding = _classify_file(ws, entry, entry.path)
            if finding:
                out.append(finding)
        if entry.state and entry.state.conflicts:
            n = len(entry.state.conflicts)
            out.append(Finding("event-conflicts", f"{n} event(s) of {rid} conflicted after a merge and were not applied "
                               f"(`git refocus show {rid}` lists them).", rid, severity=INFO))
    return out


def check_counterparts(ws: Workspace, cat: Catalog, seen: dict[str, Workspace] | None = None) -> list[Finding]:
    """Events the counterpart repository on this machine lacks, or has and we lack;
    ``seen`` collects the counterparts met (their INDEX.md is checked too)."""
    out: list[Finding] = []
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        if not entry.state:
            continue
        try:
            out += _check_counterpart(ws, entry, seen if seen is not None else {})
        except RefocusError as exc:
            out.append(Finding("counterpart", f"{entry.id}: {exc}", entry.id))
    return out


def _check_counterpart(ws: Workspace, entry: Entry, seen: dict[str, Workspace]) -> list[Finding]:
    out: list[Finding] = []
    other = record.counterpart(ws, entry.state) if entry.state is not None else None
    if other is None:
        return out
    seen.setdefault(other.workdir, other)
    theirs = refs.resolve(other.repo, refs.ref_name(entry.id))
    if str(theirs) == entry.tip:
        return out
    ours = {e.event_id for _, e in eventlog.chain(ws.repo, refs.resolve(ws.repo, refs.ref_name(entry.id)))}
    their_ids = {e.event_id for _, e in eventlog.chain(other.repo, theirs)} if theirs is not None else set()
    if ours - their_ids:
        out.append(Finding("counterpart-behind", f"{other.workdir} lacks {len(ours - their_ids)} event(s) of {entry.id}.",
                           entry.id, fix=functools.partial(_carry, ws, other, entry.id),
                           repair=f"carry the events to {other.workdir}", touches=other.workdir))
    if their_ids - ours:
        out.append(Finding("behind-counterpart", f"{other.workdir} has {len(their_ids - ours)} event(s) of {entry.id} "
                           f"this repository lacks.", entry.id,
                           fix=functools.partial(_carry, other, ws, entry.id),
                           repair=f"carry the events over from {other.workdir}"))
    return out


def _carry(from_ws: Workspace, to_ws: Workspace, rid: str) -> None:
    """Carry the events of ``rid`` over, and the audit lines they leave there."""
    record.propagate(from_ws, to_ws, rid)
    for finding in leftovers.check_note_lines(to_ws, catalog.load(to_ws, only=rid)):
        if finding.fix is not None:
            finding.fix()


# -- notes -------------------------------------------------------------------
def check_notes(ws: Workspace, cat: Catalog) -> list[Finding]:
    out: list[Finding] = []
    oid = refs.resolve(ws.repo, NOTES_REF)
    if oid is not None:
        why = notes.unreadable(ws.repo)
        if why:
            return [Finding("notes", f"{why}; notes cannot be read.", fix=functools.partial(refs.quarantine, ws.repo, NOTES_REF),
                            repair=f"move it under {refs.QUARANTINE_PREFIX} (nothing is deleted)")]
    finished = {e.id: e.status for e in cat.entries.values() if e.state and e.status in FINISHED}
    if not finished:
        return out
    by_id = linkage.all_linked(ws)
    for rid, status in sorted(finished.items()):
        missing = linkage.missing_final(ws, rid, status, by_id.get(rid, []))
        if missing:
            out.append(Finding("linkage-missing", f"{len(missing)} commit(s) linked to {rid} lack the note naming its "
                               f"final status {status}.", rid,
                               fix=functools.partial(linkage.record_final, ws, rid, status, missing),
                               repair="add the linkage notes"))
    return out


def check_rewrites(ws: Workspace) -> list[Finding]:
    """Linked commits a rewrite left behind (docs/rewrites-and-privacy.md): a commit on HEAD that carries
    their change and is not linked yet is linked by the repair; one with no replacement found
    is told, with what to run when it was merged elsewhere."""
    from gitrefocus.commands.link import record_links

    matches, gone = rewrites.lost(ws)
    out: list[Finding] = []
    by_id: dict[str, list[rewrites.Match]] = {}
    for m in matches:
        for rid in m.ids:
            by_id.setdefault(rid, []).append(m)
    for rid, found in sorted(by_id.items()):
        olds = sorted({o[:12] for m in found for o in m.replaces})
        out.append(Finding(
            "linked-rewritten", f"{len(olds)} linked commit(s) of {rid} are gone from every branch "
            f"({', '.join(olds[:5])}{', ...' if len(olds) > 5 else ''}); {len(found)} commit(s) on HEAD carry "
            f"their change and are not linked: {', '.join(m.commit[:12] for m in found[:5])}.", rid,
            fix=functools.partial(record_links, ws, rid, [m.commit for m in found], via="detect",
                                  replaces={m.commit: list(m.replaces) for m in found}),
            repair="link them (as `git refocus link --detect` does)"))
    by_gone: dict[str, list[str]] = {}
    for info in gone:
        for rid in info.ids:
            by_gone.setdefault(rid, []).append(info.oid[:12])
    for rid, olds in sorted(by_gone.items()):
        out.append(Finding(
            "linked-gone", f"{len(olds)} linked commit(s) of {rid} are gone from every branch and no commit "
            f"here carries their change ({', '.join(olds[:5])}{', ...' if len(olds) > 5 else ''}); if the branch "
            f"was merged elsewhere: `git refocus link --detect --from <its head> <range>`.", rid, severity=INFO))
    return out


def check_privacy(ws: Workspace) -> list[Finding]:
    """What would leave this machine, and where (information, never a problem)."""
    from gitrefocus.commands.sync import choose_remote
    from gitrefocus.store import remote as remote_

    out = []
    try:
        name = choose_remote(ws, None)
    except RefocusError:
        name = None
    if name is not None:
        url = remote_.push_url(ws, name)
        said = ("agreed: `git refocus sync` pushes refocus refs and notes there" if remote_.agreed(ws, url)
                else "not agreed: `git refocus sync` pushes nothing there until you agree (`git refocus sync --yes`)")
        out.append(Finding("privacy", f"refocus data would go to {name} ({url}): {said}.", severity=INFO))
    try:
        saved = sorted(f for f in os.listdir(ws.transcripts_dir) if f.endswith(".jsonl"))
    except OSError:
        saved = []
    if saved:
        agreed = ws.git("config", "--get-all", "refocus.agreedTranscripts", check=False).stdout.split()
        out.append(Finding("privacy", f"{len(saved)} saved transcript(s) in {ws.rel(ws.transcripts_dir)}; a push "
                           f"carries one only to a remote agreed in refocus.agreedTranscripts "
                           f"({', '.join(agreed) if agreed else 'none yet'}).", severity=INFO))
    return out


# -- local state ---------------------------------------------------------------
def _delete_ref(ws: Workspace, name: str) -> None:
    refs.delete(ws.repo, name)


def check_local(ws: Workspace, cat: Catalog) -> list[Finding]:
    out = []
    for ref in ws.repo.references:
        if ref.startswith(TMP_REF_PREFIXES):
            m = _PID_RE.search(ref)
            if m and leftovers.alive(int(m.group(1))):
                continue
            out.append(Finding("tmp-ref", f"{ref} was left by an interrupted write.", fix=functools.partial(_delete_ref, ws, ref),
                               repair="delete the temporary ref"))

    from gitrefocus.commands.stop import marker_problem

    def dangling(rid: str | None) -> str | None:
        return marker_problem(cat, rid)

    try:
        sessions_dir = os.path.join(localstate.state_dir(ws.git_dir), "sessions")
        names = sorted(os.listdir(sessions_dir)) if os.path.isdir(sessions_dir) else []
        for sid in names:
            why = dangling(localstate.refocus_for_session(ws.git_dir, sid))
            if why:
                out.append(Finding("session-map", f"session map entry {sid} {why}.",
                                   fix=functools.partial(localstate.remove, ws.git_dir, "sessions", sid),
                                   repair="remove the entry"))
        if localstate.read(ws.git_dir, "active") is not None:
            why = dangling(localstate.active_id(ws.git_dir))
            if why:
                out.append(Finding("active", f"the active refocus of this worktree {why}; commits would be tagged with it.",
                                   fix=lambda: localstate.remove(ws.git_dir, "active"), repair="clear the active id"))
        errors = localstate.read_jsonl(ws.git_dir, "errors.jsonl")
    except RefocusError as exc:
        out.append(Finding("local-state", str(exc)))
        errors = []
    if errors:
        out.append(Finding("errors", f"{len(errors)} hook error(s) logged in {os.path.join(localstate.state_dir(ws.git_dir), 'errors.jsonl')} "
                           f"(last: {errors[-1].get('error')}).", severity=INFO))
    return out


def check_locks(ws: Workspace) -> list[Finding]:
    out = []
    for path, abandoned in locks.ref_locks(ws.common_dir):
        if abandoned:
            out.append(Finding("stale-lock", f"{path} was left by a writer that did not finish; every write of "
                               f"that ref fails until it is removed.", fix=functools.partial(_remove_lock, ws, path),
                               repair="remove the lock file"))
        else:
            out.append(Finding("lock", f"{path} is held by a running writer.", severity=INFO))
    return out


def _remove_lock(ws: Workspace, path: str) -> None:
    if (path, True) not in locks.ref_locks(ws.common_dir):
        return  # gone, or a live writer took it meanwhile
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def check_promotions(ws: Workspace, cat: Catalog) -> list[Finding]:
    """Material changes of a finished result that never reached docs/context/
    (a completion killed between its event and the promotion): promote them now."""
    out = []
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        state = entry.state
        if state is None or not entry.incoming or state.completed_at is None or not isinstance(state.result, dict):
            continue
        raw = state.result.get("material_changes") or []
        try:
            changes = [MaterialChange.from_dict(m) for m in raw if isinstance(m, dict)]
            todo = promote.missing(ws, entry.id, changes)
        except (RefocusError, OSError, TypeError, ValueError) as exc:
            out.append(Finding("promotion", f"the material changes of {entry.id} cannot be checked: {exc}", entry.id))
            continue
        if todo:
            files = ", ".join(sorted({c.file for c in todo}))
            out.append(Finding("promotion-missing", f"{len(todo)} material change(s) of {entry.id} are not in "
                               f"{ws.setting('contextDir')}/ ({files}).", entry.id,
                               fix=functools.partial(promote.promote, ws, entry.id, todo, state.completed_at[:10]),
                               repair="promote them"))
    return out


def check_index(ws: Workspace, cat: Catalog, here: Workspace | None = None) -> list[Finding]:
    """INDEX.md left behind by a write that was cut short (``ws`` may be a
    counterpart of ``here``, the repository doctor runs in)."""
    if not cat.entries or not index_md.expected(ws):
        return []
    path = os.path.join(ws.refocus_dir, "INDEX.md")
    name = ws.rel(path) if here is None or here.same_repo(ws) else path
    try:
        current = atomic.read_bytes(path).decode("utf-8")
    except FileNotFoundError:
        current = None
    except (OSError, UnicodeDecodeError, RefocusError) as exc:
        return [Finding("index", f"{name} cannot be read: {exc}")]
    if current == index_md.render(cat):
        return []
    what = "is missing" if current is None else "is out of date"
    # a linked worktree no writing command ran in has none yet: nothing was cut short there
    severity = INFO if current is None and ws.git_dir != ws.common_dir else PROBLEM
    return [Finding("index-stale", f"{name} {what}.", fix=functools.partial(index_md.refresh, ws),
                    repair="regenerate it", severity=severity)]


def collect(ws: Workspace) -> list[Finding]:
    cat = catalog.load(ws)
    others: dict[str, Workspace] = {}
    findings = check_setup(ws) + check_locks(ws) + check_entries(ws, cat) + leftovers.check_logs(ws, cat)
    findings += check_counterparts(ws, cat, others)
    findings += check_promotions(ws, cat) + check_notes(ws, cat) + check_local(ws, cat) + check_privacy(ws)
    findings += leftovers.check_transcripts(ws, cat) + leftovers.check_index_lock(ws)
    findings += leftovers.check_loops(ws, cat) + leftovers.check_stops(ws) + leftovers.check_fetched(ws)
    findings += leftovers.check_remote_locks(ws) + leftovers.check_remote_conflicts(ws)
    if not any(f.kind == "notes" for f in findings):
        findings += leftovers.check_note_lines(ws, cat)
    if not any(f.kind in ("notes", "note-missing") for f in findings):  # a lost line is re-created first
        findings += check_rewrites(ws)
    if not any(f.repairable for f in findings):  # any repair regenerates INDEX.md anyway
        findings += check_index(ws, cat)
        for other in others.values():  # a write cut short between the two repositories
            try:
                findings += check_index(other, catalog.load(other), ws)
            except (RefocusError, OSError):
                pass
    if not any(f.repairable for f in findings):  # last: the commit takes the files as the repairs leave them
        findings += leftovers.check_commit_promises(ws)
    return findings


def _key(f: Finding) -> tuple[str, str | None, str]:
    return (f.kind, f.id, f.message)


def _refresh_indexes(ws: Workspace, done: list[tuple[Finding, Callable[[], object]]]) -> None:
    """Regenerate INDEX.md here and in every counterpart a repair carried events to."""
    others = {f.touches for f, _ in done if f.repair_error is None and f.touches}
    targets = [w for w in [ws, *(Workspace.try_open(d) for d in sorted(others))]
               if w is not None and index_md.expected(w)]
    try:
        index_md.refresh(*targets)
    except (RefocusError, OSError):
        pass  # reported by the next pass's check_index


def doctor(*, repair: bool = False, cwd: str = ".", passes: int = 3) -> DoctorOutcome:
    """Check; with ``repair``, fix and check again (a repair can reveal the next
    step, e.g. a rebuilt ref that the counterpart lacks), at most ``passes`` times."""
    ws = Workspace.open(cwd)
    findings = collect(ws)
    report = list(findings)
    attempted: list[Finding] = []
    for _ in range(passes if repair else 0):
        todo = [(f, f.fix) for f in findings if f.fix is not None]
        if not todo:
            break
        for f, fix in todo:
            try:
                fix()
            except (RefocusError, OSError, refs._Lost) as exc:
                f.repair_error = str(exc) or type(exc).__name__
            attempted.append(f)
        _refresh_indexes(ws, todo)
        findings = collect(ws)
        known = {_key(f) for f in report}
        report += [f for f in findings if _key(f) not in known]
    remaining = {_key(f) for f in findings}
    for f in attempted:
        f.repaired = f.repair_error is None and _key(f) not in remaining
    problems = [f for f in findings if f.severity == PROBLEM]
    return DoctorOutcome(
        repo=ws.workdir, repair=repair, findings=report, problems=len(problems),
        repaired=sum(1 for f in report if f.repaired), repairable=sum(1 for f in problems if f.repairable),
        clean=not problems,
    )
