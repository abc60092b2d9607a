"""SessionStart: recognise the child, return results to the parent, advise.

Everything said to the model is plain statements (SPEC §7), sized by
``refocus.budget``, and nothing at all is printed when there is nothing to say.
"""

from __future__ import annotations

import os

from gitrefocus.claude import hookio
from gitrefocus.errors import RefocusError
from gitrefocus.model import lifecycle
from gitrefocus.model.brief import HANDOFF_SECTIONS
from gitrefocus.model.events import RefocusState
from gitrefocus.model.ids import brief_relpath
from gitrefocus.model.session import relaunch_command
from gitrefocus.ops import record, unfinished
from gitrefocus.store import catalog, localstate
from gitrefocus.store.config import BUDGETS
from gitrefocus.store.transcripts import find_transcript
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module

if TYPE_CHECKING:
    from gitrefocus.commands.receive import ReceivedResult

# A first start on a repository whose catalog cache is cold builds it this long at
# most (Claude Code kills the hook at 10 s); the rest is built at the next start.
COLD_BUILD_SECONDS = 3.0
# per budget: (max advisories, max chars of the child's brief summary, commit lines)
BUDGET_LIMITS = {"economy": (0, 800, 0), "light": (3, 2000, 3), "standard": (8, 5000, 5), "detailed": (20, 8000, 10)}


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def child_context(ws: Workspace, rid: str, limit: int) -> str:
    loaded = record.load_brief(ws, rid)
    if loaded is None:
        raise RefocusError(f"{rid} has no brief in {ws.workdir}.")
    doc, path = loaded
    meta = doc.meta
    lines = [
        f"git refocus: this session is the child session of refocus {rid} (status {meta['status']}).",
        f"The full brief is {ws.rel(path) if path else brief_relpath(rid)} in this repository; "
        f"it was written by the source session in {meta['source_dir']}.",
        "", "Definition of done (the result is judged against these):",
    ]
    lines += [f"{i}. {c}" for i, c in enumerate(meta["done_when"], 1)]
    if meta["out_of_scope"]:
        lines += ["", "Out of scope:"] + [f"- {c}" for c in meta["out_of_scope"]]
    if meta["relevant_files"]:
        lines += ["", "Relevant files:"] + [f"- {c}" for c in meta["relevant_files"]]
    body = []
    for title in HANDOFF_SECTIONS:
        text = doc.section(title)
        if text:
            body += ["", f"{title}:", text]
    lines += ["", _cut("\n".join(body), limit)]
    lines += [
        "",
        "This session is a leaf: work that belongs in another repository is reported as a follow-up "
        "(git refocus complete --follow-up DIR:SLUG:REASON), never spawned from here.",
        "The result is recorded with git refocus complete: --summary, --dod N for each criterion met, "
        "--artifact PATH=DESC, and --material-change FILE=SUMMARY or --no-material-changes REASON. "
        "Commits made in this session carry a Refocus-Id trailer automatically.",
    ]
    return "\n".join(lines)


def results_context(ws: Workspace, received: list[ReceivedResult]) -> str:
    from gitrefocus.model.result import Result

    lines = [f"git refocus: {len(received)} refocus(es) spawned from this repository returned (now marked received):"]
    for r in received:
        res = r.parsed or Result.from_dict({})
        lines.append(f"- {r.id} in {r.dest_dir}: {r.status}. {_cut(res.summary, 600)}")
        for f in res.follow_ups:
            lines.append(f"  Suggested follow-up (the parent decides): {f.dir} {f.slug}: {f.reason}")
        if res.material_changes:
            lines.append("  Material changes: " + "; ".join(f"{m.file}: {m.summary}" for m in res.material_changes))
        if r.dest_dir:
            lines.append(f"  Full result: {os.path.join(r.dest_dir, brief_relpath(r.id))}")
    return "\n".join(lines)


def relaunch(state: RefocusState) -> str:
    sid = str(state.child_session_id)
    dest = str(state.dest_dir)
    launched = state.launched_at or find_transcript(dest, sid)
    return relaunch_command(dest, sid, resume=bool(launched))


def advisories(ws: Workspace, cat: catalog.Catalog, session_id: str | None) -> list[str]:
    out = []
    stale_hours = ws.setting("staleReservedHours")
    quiet_hours = ws.setting("quietHours")
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        st = entry.status
        state = entry.state
        if state is None:  # a brief without an event log: doctor reports it
            continue
        incoming = entry.incoming
        if incoming and st in lifecycle.PENDING_LAUNCH and state.child_session_id != session_id:
            out.append(f"Incoming brief {entry.id} from {state.source_dir} has not been launched; "
                       f"its child session starts with: {relaunch(state)}")
        elif incoming and st == lifecycle.IN_PROGRESS:
            sid = state.child_session_id
            if session_id in state.sessions or sid == session_id:
                continue
            why = unfinished.why_unfinished(state, unfinished.quiet_hours(state), quiet_hours)
            if why:
                out.append(f"Refocus {entry.id} is in progress but its child session {sid} has not completed ({why}); "
                           f"it may have exited without git refocus complete. It continues with: {relaunch(state)}")
        age = entry.unlaunched_hours(stale_hours)
        if age is not None:
            out.append(f"Outgoing refocus {entry.id} to {state.dest_dir} is still un-launched after "
                       f"{int(age)} h: continue waiting, or abandon it.")
    return out


def extra_advisories(ws: Workspace, budget: str, commit_lines: int) -> list[str]:
    """Diff since the last session start and stale context (health)."""
    from gitrefocus.health import resume

    try:
        return resume.session_start_lines(ws, budget=budget, max_commits=commit_lines)
    except Exception as exc:  # advisory only: never let it cost the session its brief
        localstate.log_error(ws.git_dir, "session-start:health", exc)
        return []


def previous_session(payload: dict) -> str | None:
    """The session a ``clear`` or ``fork`` start continues. The client gives the new session a
    new id and names no predecessor, so take the newest other transcript of this project
    directory: the one that was just cleared (or, usually, forked from)."""
    path = payload.get("transcript_path")
    if payload.get("source") not in ("clear", "fork") or not isinstance(path, str) or not path:
        return None
    folder, own = os.path.split(path)
    try:
        with os.scandir(folder) as it:
            others = [(e.stat().st_mtime, e.name) for e in it
                      if e.name.endswith(".jsonl") and e.name != own and e.is_file(follow_symlinks=False)]
    except OSError:
        return None
    return max(others)[1].removesuffix(".jsonl") if others else None


def hook_catalog(ws: Workspace, session_id: str | None) -> catalog.Catalog:
    """Only the entries the hook can speak of, looked up in the catalog's index:
    this session's child, open briefs (advisories) and results not received yet."""
    return catalog.select(ws, statuses=lifecycle.PENDING_LAUNCH | {lifecycle.IN_PROGRESS},
                          unreceived=lifecycle.RETURNED, session_id=session_id, budget=COLD_BUILD_SECONDS)


def handle(payload: dict, env=os.environ) -> str | None:
    """Return the hook's stdout (JSON) or None for silence."""
    cwd = payload.get("cwd") or os.getcwd()
    ws = Workspace.try_open(cwd)
    if ws is None:
        return None
    session_id = payload.get("session_id") or env.get("CLAUDE_CODE_SESSION_ID")
    budget = ws.setting("budget")
    budget = budget if budget in BUDGETS else "standard"
    max_adv, brief_limit, commit_lines = BUDGET_LIMITS[budget]
    cat = hook_catalog(ws, session_id)
    parts: list[str] = []

    child = next((e for e in cat.entries.values()
                  if session_id and e.state and e.state.child_session_id == session_id and e.incoming), None)
    previous = previous_session(payload) if child is None else None
    if previous:  # a child's /clear or fork continues the child, under a new session id
        rid = localstate.refocus_for_session(ws.git_dir, previous)
        child = next((e for e in cat.entries.values() if e.incoming and e.state and e.status == lifecycle.IN_PROGRESS
                      and (e.id == rid or e.state.child_session_id == previous)), None)
    if child is not None and child.status not in lifecycle.TERMINAL and record.brief_file(ws, child.id):
        if not previous and (child.status in lifecycle.PENDING_LAUNCH
                             or session_id not in (child.state.sessions if child.state else ())):
            from gitrefocus.commands.start import start

            start(refocus_id=child.id, session_id=session_id, cwd=ws.workdir, env=env)
        else:
            localstate.map_session(ws.git_dir, session_id, child.id)
            localstate.set_active(ws.git_dir, child.id)
        hookio.append_env({"SESSION_REFOCUS_ROLE": "child", "SESSION_REFOCUS_ID": child.id})
        parts.append(child_context(ws, child.id, brief_limit))
        cat.entries.update(catalog.load(ws, only=child.id).entries)  # only this entry changed

    from gitrefocus.commands.receive import destinations, receive_one, waiting

    back = waiting(cat)
    if back:
        received = [receive_one(ws, e.id, session_id) for e in back]
        parts.append(results_context(ws, received))
        from gitrefocus.ops import index_md

        index_md.refresh(ws, *destinations(ws, received))

    if max_adv:
        lines = advisories(ws, cat, session_id) + extra_advisories(ws, budget, commit_lines)
        if lines:
            shown = lines[:max_adv]
            more = f"\n({len(lines) - len(shown)} more: git refocus status)" if len(lines) > len(shown) else ""
            parts.append("git refocus notes for this repository:\n" + "\n".join(f"- {ln}" for ln in shown) + more)
    if not parts:
        return None
    return hookio.session_start_output("\n\n".join(parts))
