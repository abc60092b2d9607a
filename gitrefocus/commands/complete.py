"""``git refocus complete [ID]``: the child appends its Result and returns."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from gitrefocus.commands.loop import end_for_refocus as end_loops
from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model import events as ev
from gitrefocus.model import result as res
from gitrefocus.model.agents import session_from_env
from gitrefocus.model.events import Event, RefocusState
from gitrefocus.model.ids import TRANSCRIPTS_DIR
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.model.records import dataclass, replace
from gitrefocus.model.result import DodItem, Result
from gitrefocus.model.session import transcript_pointer
from gitrefocus.model.text import strict_json
from gitrefocus.ops import guards, index_md, linkage, places, promote, record
from gitrefocus.store import atomic, catalog, eventlog, interrupts, localstate, refs
from gitrefocus.store import scoped_commit as promised
from gitrefocus.store.eventlog import Tip
from gitrefocus.store.scoped_commit import scoped_commit
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class CompleteOutcome:
    id: str
    status: str
    completed_at: str | None
    result: Result
    brief_path: str | None
    source_updated: bool  # the source repository is on this machine and now has the result
    source_dir: str | None
    files_written: list[str]
    commit: str | None
    warnings: list[str]
    redactions: list[dict[str, Any]]  # what --save-transcript scrubbed: {kind, line}, never the secret
    suggested_files: list[str]
    dry_run: bool = False  # nothing was written: files_written is what would be

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "status": self.status, "completed_at": self.completed_at,
            "result": self.result.to_dict(), "brief_path": self.brief_path,
            "source_updated": self.source_updated, "source_dir": self.source_dir,
            "files_written": self.files_written, "commit": self.commit, "warnings": self.warnings,
            "redactions": self.redactions, "redacted": redaction_counts(self.redactions),
            "suggested_files": self.suggested_files, "dry_run": self.dry_run,
        }


def redaction_counts(redactions: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in redactions:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _match_criterion(done_when: list[str], spec: str) -> int:
    spec = spec.strip()
    if spec.isdigit() and 1 <= int(spec) <= len(done_when):
        return int(spec) - 1
    lowered = [c.lower() for c in done_when]
    for i, c in enumerate(lowered):
        if c == spec.lower():
            return i
    hits = [i for i, c in enumerate(lowered) if c.startswith(spec.lower())]
    if len(hits) == 1:
        return hits[0]
    raise RefocusError(
        f"--dod {spec!r} matches no single done_when criterion; use its number (1-{len(done_when)}) or its text."
    )


NOT_STATED = "not stated"  # the note of a criterion given neither with --dod nor with --dod-unmet


def definition_of_done(done_when: list[str], met: Sequence[str], unmet: Sequence[str]) -> tuple[DodItem, ...]:
    dod = [DodItem(criterion=c, met=False, note=NOT_STATED) for c in done_when]
    for spec in met:
        i = _match_criterion(done_when, spec)
        dod[i] = replace(dod[i], met=True, note=None)
    for spec in unmet:
        which, _, note = spec.partition("=")
        i = _match_criterion(done_when, which)
        dod[i] = replace(dod[i], met=False, note=f"not met: {note.strip()}" if note.strip() else "not met")
    return tuple(dod)


def _criteria(obj: object, key: str, where: str) -> list[str]:
    """A return object's ``dod`` / ``dod_unmet``: criterion numbers or texts (``N=WHY`` unmet)."""
    value = obj.get(key, []) if isinstance(obj, dict) else []
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
        raise RefocusError(f"{where}: field {key!r} must be a list of criterion numbers or texts.")
    return [str(v) for v in value]


def load_return_object(path: str) -> tuple[Result, list[str], list[str]]:
    """The Result a return object describes, and its ``dod`` and ``dod_unmet`` lists (as
    --dod and --dod-unmet take them)."""
    try:
        if path == "-":
            import sys

            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as fh:
                raw = fh.read()
    except OSError as exc:
        raise RefocusError(f"cannot read {path}: {exc.strerror}.") from None
    try:
        obj = strict_json(raw)  # a "\ud800" escape is refused here, naming the file, not at the first write
    except UnicodeDecodeError:
        raise RefocusError(f"{path}: not valid UTF-8.") from None
    except ValueError as exc:
        raise RefocusError(f"{path}: not valid JSON ({exc}).") from None
    except RecursionError:
        raise RefocusError(f"{path}: JSON nested too deeply to be a return object.") from None
    return res.from_return_object(obj, path), _criteria(obj, "dod", path), _criteria(obj, "dod_unmet", path)


def own_refocus(ws: Workspace, env: Mapping[str, str], command: str) -> str:
    """The refocus this session works on (with no session id: the worktree's active one)."""
    rid = localstate.active_refocus(ws.git_dir, env)
    if rid:
        return rid
    session = session_from_env(env)
    if session:
        raise RefocusError(f"this session ({session}) works on no refocus here; name one: git refocus {command} ID.")
    raise RefocusError(f"no active refocus here; name one: git refocus {command} ID.")


def suggested_files(ws: Workspace, rid: str) -> list[str]:
    seen: dict[str, None] = {}
    for rec in localstate.read_jsonl(ws.git_dir, "suggested", f"{rid}.jsonl"):
        path = rec.get("path")
        if isinstance(path, str) and path:
            seen.setdefault(path, None)
    return list(seen)


def _is_destination(ws: Workspace, rid: str) -> bool:
    """This repository is the refocus's destination by identity (any clone or worktree of it)."""
    entry = catalog.load(ws, only=rid).entries.get(rid)
    return entry is not None and entry.incoming


def complete(
    *, refocus_id: str | None = None, status: str = "completed", summary: str | None = None,
    dod: Sequence[str] = (), dod_unmet: Sequence[str] = (), artifacts: Sequence[str] = (),
    follow_ups: Sequence[str] = (), material_changes: Sequence[str] = (), no_material_changes: str | None = None,
    from_json: str | None = None, save_transcript: bool = False, commit: bool = False, dry_run: bool = False,
    cwd: str = ".", env: Mapping[str, str] = os.environ,
) -> CompleteOutcome:
    ws = Workspace.open(cwd)
    if refocus_id is not None and not refocus_id.strip():
        raise RefocusError("the refocus id is empty; name one (see `git refocus list`) or leave it out for the active one.")
    rid = catalog.resolve_id(ws, refocus_id or own_refocus(ws, env, "complete"))
    if catalog.brief_file(ws, rid) is None and not _is_destination(ws, rid):
        raise RefocusError(f"{rid} has no brief in this repository; complete it from its destination.")
    tip = eventlog.read_tip(ws.repo, rid)
    if tip is not None:
        guards.require_owner(ws, tip.state, session_from_env(env), env, "complete")

    if from_json:
        draft, json_met, json_unmet = load_return_object(from_json)
        dod, dod_unmet = [*json_met, *dod], [*json_unmet, *dod_unmet]
        if summary:
            draft = replace(draft, summary=summary)
    else:
        draft = Result(status=status, summary=summary or "", artifacts=tuple(res.parse_artifact(a) for a in artifacts),
                       follow_ups=tuple(res.parse_follow_up(f) for f in follow_ups))
    draft = replace(
        draft, material_changes=draft.material_changes + tuple(res.parse_material_change(m) for m in material_changes),
        no_material_changes=no_material_changes or draft.no_material_changes,
    )
    prepared = None
    if save_transcript:  # locate and scrub first: a missing transcript refuses before any write
        from gitrefocus.handoff.scrub import scrub_jsonl
        from gitrefocus.ops import transcript

        prepared = transcript.prepare(ws, eventlog.require_tip(ws.repo, rid).state, scrub_jsonl)
    now = clock.now_iso()
    made: list[tuple[Result, list[str]]] = []  # (result, suggested files) of the build that won

    def make(tip: Tip | None) -> Event:
        if tip is None:
            raise RefocusError(f"{rid} has no event log here; run `git refocus doctor --repair`.")
        state = tip.state
        doc = record.current_doc(ws, rid, tip)
        if doc is None:
            raise RefocusError(f"{rid} has no brief document to update.")
        result = replace(
            draft, dod=definition_of_done(doc.meta["done_when"], dod, dod_unmet),
            child_session=_child_session(ws, state),
            completed_at=now,
        ).checked()
        if state.status == lifecycle.ABANDONED:  # the other terminal event won: a lost race, not a mistake
            raise record.LostRace(record.lost_to(ws, rid, tip, ev.COMPLETED))
        if state.status in lifecycle.PENDING_LAUNCH:
            raise RefocusError(f"cannot complete {rid}: it is {state.status} and was never started (run `git refocus start {rid}` first).")
        lifecycle.require_transition(rid, state.status, result.lifecycle_status, state.completed_at or state.last_event_at)
        suggested = [f for f in suggested_files(ws, rid) if f not in doc.meta["relevant_files"]]
        made[:] = [(result, [f for f in suggested if f not in {a.path for a in result.artifacts}])]
        changes: dict[str, Any] = {"status": result.lifecycle_status, "completed_at": now}
        if prepared is not None:
            changes["transcript_saved"] = True
        if suggested:
            changes["suggested_files"] = sorted(set(doc.meta["suggested_files"]) | set(suggested))
        return record.new_event(
            ws, rid, ev.COMPLETED, "child", status=result.lifecycle_status, result=result.to_dict(),
            meta_changes=changes, result_markdown=result.render(),
        )

    _preflight(ws, rid, draft, save_transcript, commit)
    if dry_run:  # every check the event would meet, the result it would record, and nothing written
        make(eventlog.read_tip(ws.repo, rid))
        result, suggested = made[0]
        return CompleteOutcome(
            id=rid, status=result.lifecycle_status, completed_at=None, result=result,
            brief_path=catalog.brief_file(ws, rid), source_updated=False, source_dir=None,
            files_written=_will_write(ws, rid, draft, save_transcript), commit=None, warnings=[],
            redactions=[], suggested_files=suggested, dry_run=True)
    linked = _link_untagged(ws, rid)
    if commit:  # before the first write: a completion killed before its commit is committed by doctor
        promised.promise(ws, rid, _will_write(ws, rid, draft, save_transcript),
                         f"refocus({rid}): {draft.lifecycle_status}")
    with interrupts.deferred(f"{rid} was completed in full"):
        before = refs.resolve(ws.repo, refs.ref_name(rid))
        try:
            # write_file: a destination clone without the file (started on another machine) gets it
            out = record.write_event(ws, rid, make, settle=True, write_file=True)  # side effects only once this event won
        except BaseException:
            if commit and refs.resolve(ws.repo, refs.ref_name(rid)) == before:
                promised.kept(ws, rid)  # refused before its event: nothing to commit
            raise
        try:
            done = without_lfs(_finish(ws, rid, out, made[0], prepared, now, commit))
            return replace(done, warnings=linked + done.warnings) if linked else done
        except (OSError, RefocusError, refs.GitError()) as exc:
            raise RefocusError(f"{rid} is recorded as {out.tip.state.status}, but could not write {atomic.what_failed(exc)}. "
                               f"Run `git refocus doctor --repair` in {ws.workdir} to complete it.") from None


UNTAGGED_LIMIT = 500  # commits looked at, newest first, for a child whose commits carry no trailer


def _link_untagged(ws: Workspace, rid: str) -> list[str]:
    """A Gemini CLI child's commits carry no Refocus-Id (Gemini runs the model's git commands
    with hooks disabled: docs/agents.md): link those made on this branch since the child
    started (after the commit its ``started`` event names), which name no refocus, before it
    completes; what was done, as a warning."""
    from gitrefocus.commands.link import record_links
    from gitrefocus.model import agents

    tip = eventlog.read_tip(ws.repo, rid)
    if tip is None or agents.of_state(tip.state.extra) != agents.GEMINI:
        return []
    start = next((e.data.get("head") for _, e in eventlog.chain(ws.repo, tip.oid) if e.kind == ev.STARTED), None)
    revs = [f"{start}..HEAD"] if isinstance(start, str) else ["HEAD", f"--max-count={UNTAGGED_LIMIT}"]
    log = ws.git("log", "--format=%H%x00%B%x1e", *revs, check=False)
    if log.returncode != 0:
        return []
    found = []
    for record_text in log.stdout.split("\x1e"):
        oid, _, message = record_text.strip("\n").partition("\x00")
        if oid and not linkage.message_ids(message) and not linkage.note_links(ws, oid, rid):
            found.append(oid)
    if not found:
        return []
    record_links(ws, rid, found, via="complete")
    return [f"linked {len(found)} commit(s) made here since the child started to {rid} (a Gemini CLI child's "
            "commits carry no Refocus-Id: it runs git without hooks); `git refocus link` corrects this by hand."]


def without_lfs(outcome: CompleteOutcome) -> CompleteOutcome:
    """A saved transcript is marked for Git LFS in .gitattributes; say so where git-lfs is
    missing, as git will then store it as an ordinary file."""
    import shutil

    saved = os.sep + TRANSCRIPTS_DIR.replace("/", os.sep) + os.sep
    if not any(saved in p for p in outcome.files_written) or shutil.which("git-lfs"):
        return outcome
    return replace(outcome, warnings=outcome.warnings + [
        "git-lfs is not installed: the saved transcript is committed as an ordinary file, not through Git LFS "
        "(install git-lfs before committing it to store it there)."])


def _will_write(ws: Workspace, rid: str, draft: Result, save_transcript: bool) -> list[str]:
    """The files a completion writes (what ``--commit`` commits)."""
    paths = [catalog.brief_file(ws, rid) or ws.brief_path(rid)]
    paths += [promote.context_path(ws, change.file) for change in draft.material_changes]
    if save_transcript:
        paths += [os.path.join(ws.transcripts_dir, f"{rid}.jsonl"), os.path.join(ws.workdir, ".gitattributes")]
    return paths


def _preflight(ws: Workspace, rid: str, draft: Result, save_transcript: bool, commit: bool) -> None:
    """Refuse, before the first write, what would stop complete halfway:
    every file it writes must be a regular file (or none yet) it can write."""
    record.preflight(ws, index=commit)
    for path in _will_write(ws, rid, draft, save_transcript):
        atomic.check_writable(path)
    promote.missing(ws, rid, draft.material_changes)  # reads each context file: readable UTF-8, or refused


def _finish(ws: Workspace, rid: str, out: record.Outcome, made: tuple[Result, list[str]], prepared: Any,
            now: str, commit: bool) -> CompleteOutcome:
    """What complete does after its event is recorded: promotion, transcript, notes,
    linkage, the source's copy, INDEX, the commit."""
    result, suggested = made
    warnings: list[str] = []
    written: list[str] = []
    written += out.written
    if result.status == "completed":
        unstated = [d.criterion for d in result.dod if not d.met and d.note == NOT_STATED]
        if unstated:
            warnings.append(f"completed with {len(unstated)} done_when criteria marked neither met (--dod N) "
                            "nor unmet (--dod-unmet N=WHY): " + "; ".join(unstated))
    # checked before the event (_preflight): a failure here is the disk's, and doctor --repair promotes
    written += promote.promote(ws, rid, result.material_changes, now[:10])
    problem = promote.run_context_save(ws, rid)
    if problem:
        warnings.append(problem + " (the result is recorded)")
    if prepared is not None:
        from gitrefocus.ops import transcript

        written += transcript.write(ws, rid, prepared)
    localstate.clear_active(ws.git_dir, rid)
    localstate.unmap_sessions(ws.git_dir, rid)
    end_loops(ws.git_dir, rid, out.tip.state.status)  # a loop tied to the child ends with it
    state = out.tip.state
    record.note_event(ws, out.tip, DEST)
    warnings += linkage.on_finish(ws, rid, state.status)
    other = record.counterpart(ws, state)
    record.propagate(ws, other, rid)
    index_md.refresh(ws, other)
    commit_oid = scoped_commit(ws, written, f"refocus({rid}): {state.status}", refocus_id=rid) if commit else None
    if commit:
        promised.kept(ws, rid)
    if commit_oid:  # the commit carries the trailer: a linked commit of a finished refocus gets its final note
        warnings += linkage.on_finish(ws, rid, state.status)
    return CompleteOutcome(
        id=rid, status=state.status, completed_at=state.completed_at, result=result,
        brief_path=catalog.brief_file(ws, rid), source_updated=other is not None or _source_is_here(ws, state),
        source_dir=places.shown(ws, state, SOURCE),
        files_written=written, commit=commit_oid, warnings=warnings,
        redactions=prepared.redactions if prepared is not None else [],
        suggested_files=suggested,
    )


def _source_is_here(ws: Workspace, state: RefocusState) -> bool:
    """The source works in this repository too (a spawn into one of its subdirectories
    or worktrees): the result is waiting there already, as it is recorded here."""
    source = places.local_dir(ws, state, SOURCE)
    found = Workspace.try_open(source) if source else None
    return found is not None and found.same_repo(ws)


def _child_session(ws: Workspace, state: RefocusState) -> str:
    """How the result names the child's session: its id (the transcript is under
    ~/.claude/projects/ of whichever machine ran it), or for a refocus written
    before portable places, the transcript's path on this machine."""
    from gitrefocus.ops.transcript import child_sessions

    dest = state.where(DEST)
    if dest is not None and dest.portable:
        ids = child_sessions(state)
        return str(ids[0] if ids else state.child_session_id)
    return transcript_pointer(state.dest_dir or ws.workdir, str(state.child_session_id))
