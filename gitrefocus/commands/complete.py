"""``git refocus complete [ID]``: the child appends its Result and returns."""

from __future__ import annotations

import json
import os

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model import events as ev
from gitrefocus.model import result as res
from gitrefocus.model.session import transcript_pointer
from gitrefocus.ops import index_md, linkage, promote, record
from gitrefocus.store import catalog, localstate
from gitrefocus.store.scoped_commit import scoped_commit
from gitrefocus.store.workspace import Workspace


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


def definition_of_done(done_when: list[str], met: list[str], unmet: list[str]) -> list[dict]:
    dod = [{"criterion": c, "met": False, "note": "not stated"} for c in done_when]
    for spec in met:
        dod[_match_criterion(done_when, spec)].update(met=True, note=None)
    for spec in unmet:
        which, _, note = spec.partition("=")
        dod[_match_criterion(done_when, which)].update(met=False, note=f"not met: {note.strip()}" if note.strip() else "not met")
    return dod


def load_return_object(path: str) -> dict:
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
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RefocusError(f"{path}: not valid UTF-8.") from None
    except ValueError as exc:
        raise RefocusError(f"{path}: not valid JSON ({exc}).") from None
    return res.from_return_object(obj, path)


def suggested_files(ws: Workspace, rid: str) -> list[str]:
    seen: dict[str, None] = {}
    for rec in localstate.read_jsonl(ws.git_dir, "suggested", f"{rid}.jsonl"):
        path = rec.get("path")
        if isinstance(path, str) and path:
            seen.setdefault(path, None)
    return list(seen)


def complete(
    *, refocus_id: str | None = None, status: str = "completed", summary: str | None = None,
    dod: list[str] = (), dod_unmet: list[str] = (), artifacts: list[str] = (),
    follow_ups: list[str] = (), material_changes: list[str] = (), no_material_changes: str | None = None,
    from_json: str | None = None, save_transcript: bool = False, commit: bool = False,
    cwd: str = ".", env=os.environ,
) -> dict:
    ws = Workspace.open(cwd)
    rid = refocus_id or localstate.active_refocus(ws.git_dir, env)
    if not rid:
        raise RefocusError("no active refocus in this session; name one: git refocus complete ID.")
    rid = catalog.resolve_id(ws, rid)
    if record.brief_file(ws, rid) is None:
        raise RefocusError(f"{rid} has no brief in this repository; complete it from its destination.")

    if from_json:
        kwargs = load_return_object(from_json)
        if summary:
            kwargs["summary"] = summary
    else:
        kwargs = dict(status=status, summary=summary or "", artifacts=[res.parse_artifact(a) for a in artifacts],
                      follow_ups=[res.parse_follow_up(f) for f in follow_ups], material_changes=[],
                      no_material_changes=None)
    kwargs["material_changes"] = list(kwargs.get("material_changes") or []) + [res.parse_material_change(m) for m in material_changes]
    kwargs["no_material_changes"] = no_material_changes or kwargs.get("no_material_changes")
    kwargs["follow_ups"] = list(kwargs.get("follow_ups") or [])
    prepared = None
    if save_transcript:  # locate and scrub first: a missing transcript refuses before any write
        from gitrefocus.ops import transcript
        from gitrefocus.store import eventlog

        prepared = transcript.prepare(ws, eventlog.require_tip(ws.repo, rid).state)
    warnings: list[str] = []
    now = clock.now_iso()
    written: list[str] = []
    outcome: dict = {}

    def make(tip):
        if tip is None:
            raise RefocusError(f"{rid} has no event log here; run `git refocus doctor --repair`.")
        state = tip.state
        doc = record.current_doc(ws, rid, tip)
        result = res.Result(
            **kwargs, dod=definition_of_done(doc.meta["done_when"], list(dod), list(dod_unmet)),
            child_session=transcript_pointer(state.get("dest_dir") or ws.workdir, state["child_session_id"]),
            completed_at=now,
        )
        if state["status"] in lifecycle.PENDING_LAUNCH:
            raise RefocusError(f"cannot complete {rid}: it is {state['status']} and was never started (run `git refocus start {rid}` first).")
        lifecycle.require_transition(rid, state["status"], result.lifecycle_status)
        outcome["result"] = result
        suggested = [f for f in suggested_files(ws, rid) if f not in doc.meta["relevant_files"]]
        outcome["suggested"] = [f for f in suggested if f not in {a["path"] for a in result.artifacts}]
        changes = {"status": result.lifecycle_status, "completed_at": now}
        if prepared is not None:
            changes["transcript_saved"] = True
        if suggested:
            changes["suggested_files"] = sorted(set(doc.meta["suggested_files"]) | set(suggested))
        return record.new_event(
            ws, rid, ev.COMPLETED, "child", status=result.lifecycle_status, result=result.to_dict(),
            meta_changes=changes, result_markdown=result.render(),
        )

    out = record.write_event(ws, rid, make)
    result = outcome["result"]
    written += out.written
    if result.status == "completed":
        unmet = [d["criterion"] for d in result.dod if not d["met"]]
        if unmet:
            warnings.append(f"completed with {len(unmet)} done_when criteria not marked met (--dod N): " + "; ".join(unmet))
    try:
        written += promote.promote(ws, rid, result.material_changes, now[:10])
    except (RefocusError, OSError) as exc:
        warnings.append(f"material changes were recorded but not promoted: {exc}")
    problem = promote.run_context_save(ws, rid)
    if problem:
        warnings.append(problem + " (the result is recorded)")
    if prepared is not None:
        from gitrefocus.ops import transcript

        written += transcript.write(ws, rid, prepared)
        outcome["redactions"] = prepared.redactions
    localstate.clear_active(ws.git_dir, rid)
    localstate.unmap_sessions(ws.git_dir, rid)
    state = out.tip.state
    record.note(ws, ws.head_oid(), rid, "completed", role="dest", status=state["status"])
    warnings += linkage.on_finish(ws, rid, state["status"])
    other = record.counterpart(ws, state)
    record.propagate(ws, other, rid)
    index_md.refresh(ws, other)
    commit_oid = scoped_commit(ws, written, f"refocus({rid}): {state['status']}") if commit else None
    return {
        "id": rid, "status": state["status"], "completed_at": state["completed_at"],
        "result": result.to_dict(), "brief_path": record.brief_file(ws, rid),
        "source_updated": other is not None, "source_dir": state.get("source_dir"),
        "files_written": written, "commit": commit_oid, "warnings": warnings,
        "redactions": outcome.get("redactions", []),
        "suggested_files": outcome.get("suggested", []),
    }
