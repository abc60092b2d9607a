"""``git refocus loop start|list|activate|pause|resume|cancel`` (docs/delivery.md, "Loops and the client's cap").

A loop belongs to the Claude Code session that starts it (``$CLAUDE_CODE_SESSION_ID``,
set in the agent's Bash tool, or ``--session``). Started in a child session it
is tied to that child's refocus: every iteration is recorded as a ``loop``
event on the refocus, and ``complete`` ends it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model import events as ev
from gitrefocus.model import loop as lp
from gitrefocus.model.agents import session_from_env
from gitrefocus.model.loop import Loop, SessionLoops
from gitrefocus.model.records import dataclass, field, replace
from gitrefocus.store import eventlog, localstate, loops
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class LoopOutcome:
    action: str  # started, paused, resumed, cancelled, activated
    loop: Loop
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "loop": loop_json(self.loop), "warnings": self.warnings}


@dataclass(frozen=True)
class LoopList:
    repo: str
    loops: list[tuple[Loop, bool]]  # (loop, is its session's foreground loop), oldest first
    problems: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"repo": self.repo, "loops": [loop_json(loop) | {"foreground": fg} for loop, fg in self.loops],
                "problems": self.problems}


def loop_json(loop: Loop) -> dict[str, Any]:
    out = loop.to_json()
    out.pop("last_digest", None)
    return out


def _session(session: str | None, env: Mapping[str, str]) -> str:
    sid = session or session_from_env(env)
    if not sid:
        raise RefocusError("no Claude Code session here: run this from the session's Bash tool "
                           "(it sets CLAUDE_CODE_SESSION_ID) or pass --session SID.")
    return sid


def _read_prompt(prompt: str | None, prompt_file: str | None) -> str:
    if prompt is not None and prompt_file is not None:
        raise RefocusError("give --prompt or --prompt-file, not both.")
    if prompt_file is not None:
        try:
            with open(prompt_file, "rb") as fh:
                data = fh.read(lp.MAX_PROMPT * 4 + 1)
        except OSError as exc:
            raise RefocusError(f"cannot read --prompt-file {prompt_file!r}: {exc.strerror}.") from None
        try:
            prompt = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RefocusError(f"--prompt-file {prompt_file!r} is not UTF-8 text.") from None
    text = (prompt or "").strip() or lp.DEFAULT_PROMPT
    if len(text) > lp.MAX_PROMPT:
        raise RefocusError(f"the loop prompt is longer than {lp.MAX_PROMPT} characters; shorten it.")
    return text


def _tied_refocus(ws: Workspace, sid: str, env: Mapping[str, str]) -> str | None:
    """The in-progress refocus this session works on as a child, if any."""
    rid = localstate.active_refocus(ws.git_dir, env, sid, worktree=False)
    if not rid:
        return None
    try:
        tip = eventlog.read_tip(ws.repo, rid)
    except (RefocusError, ValueError, KeyError):
        return None
    return rid if tip is not None and tip.state.status == lifecycle.IN_PROGRESS else None


def record_event(ws: Workspace, loop: Loop, action: str, **data: Any) -> str | None:
    """A ``loop`` event on the loop's refocus; a warning instead when it cannot be written."""
    if not loop.refocus_id:
        return None
    from gitrefocus.ops import record

    def make(tip: eventlog.Tip | None) -> ev.Event:
        if tip is None:
            raise RefocusError(f"refocus {loop.refocus_id} has no event log here.")
        return record.new_event(ws, loop.refocus_id or "", ev.LOOP, "child", loop_id=loop.id, action=action,
                                iteration=loop.iteration, max_iterations=loop.max_iterations, **data)

    try:
        out = record.write_event(ws, loop.refocus_id, make, reconcile=False)
        record.propagate(ws, record.counterpart(ws, out.tip.state), loop.refocus_id)  # the source sees it too
    except (RefocusError, OSError) as exc:
        return f"loop {loop.id}: the {action} event was not recorded on {loop.refocus_id}: {exc}"
    return None


def start(*, promise: str, max_iterations: int, prompt: str | None = None, prompt_file: str | None = None,
          session: str | None = None, cwd: str = ".", env: Mapping[str, str] = os.environ) -> LoopOutcome:
    ws = Workspace.open(cwd)
    sid = _session(session, env)
    promise = lp.squash(promise or "")
    if not promise or len(promise) > lp.MAX_PROMISE:
        raise RefocusError(f"--promise must be 1 to {lp.MAX_PROMISE} characters of text.")
    if not 1 <= max_iterations <= lp.MAX_ITERATIONS:
        raise RefocusError(f"--max-iterations must be from 1 to {lp.MAX_ITERATIONS}.")
    text = _read_prompt(prompt, prompt_file)
    now = clock.now_iso()
    new = Loop(id=uuid.uuid4().hex[:8], session_id=sid, status=lp.ACTIVE, iteration=0,
               max_iterations=max_iterations, promise=promise, prompt=text, created_at=now, updated_at=now,
               refocus_id=_tied_refocus(ws, sid, env))

    def add(current: SessionLoops | None) -> SessionLoops:
        state = current or SessionLoops(session_id=sid, foreground=None)
        if len([x for x in state.loops if x.status not in lp.FINISHED]) >= lp.MAX_LOOPS:
            raise RefocusError(f"session {sid} already has {lp.MAX_LOOPS} unfinished loops; cancel some first.")
        state = SessionLoops(sid, state.foreground, tuple(x for x in state.loops if x.status not in lp.FINISHED)
                             + tuple(x for x in state.loops if x.status in lp.FINISHED)[-(lp.MAX_LOOPS // 2):])
        return replace(_pause_foreground(state, now).put(new), foreground=new.id)

    loops.update(ws.git_dir, sid, add)
    problem = record_event(ws, new, "started", promise=promise)
    return LoopOutcome("started", new, [w for w in (problem, beyond_the_client(max_iterations, env)) if w])


def beyond_the_client(max_iterations: int, env: Mapping[str, str]) -> str | None:
    """A warning when the client would end the turn before the loop's last iteration."""
    cap = lp.block_cap(env.get("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"))
    most = lp.iterations_per_turn(cap)
    if most is None or max_iterations <= most:
        return None
    return (f"--max-iterations {max_iterations} is more than one turn holds: Claude Code ends a turn after {cap} "
            f"blocked stops in a row (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP), so the loop pauses after {most} iterations; "
            "`git refocus loop resume` continues it in a later turn.")


def _pause_foreground(state: SessionLoops, now: str) -> SessionLoops:
    """Only one loop runs per session: the one in the foreground before is paused."""
    current = state.current
    if current is not None and current.status == lp.ACTIVE:
        state = state.put(replace(current, status=lp.PAUSED, updated_at=now))
    return state


def list_(*, cwd: str = ".") -> LoopList:
    ws = Workspace.open(cwd)
    states, problems = loops.all_sessions(ws.git_dir)
    rows = [(x, x.id == s.foreground) for s in states for x in s.loops]
    rows.sort(key=lambda r: (r[0].created_at, r[0].id))
    return LoopList(repo=ws.workdir, loops=rows, problems=problems)


def _find(ws: Workspace, loop_id: str | None, session: str | None, env: Mapping[str, str]) -> tuple[SessionLoops, Loop]:
    """The named loop (full id or unique prefix, any session), else this session's foreground loop."""
    if loop_id:
        matches = [(s, x) for s in loops.all_sessions(ws.git_dir)[0] for x in s.loops if x.id.startswith(loop_id)]
        if session:
            matches = [m for m in matches if m[0].session_id == session]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise RefocusError(f"no loop {loop_id!r} here (see `git refocus loop list`).")
        raise RefocusError(f"loop id {loop_id!r} is ambiguous; give more of it.")
    sid = _session(session, env)
    state = loops.read(ws.git_dir, sid)
    current = state.current if state else None
    if state is None or current is None:
        raise RefocusError(f"session {sid} has no foreground loop; name one (see `git refocus loop list`).")
    return state, current


def change(action: str, *, loop_id: str | None = None, session: str | None = None, cwd: str = ".",
           env: Mapping[str, str] = os.environ) -> LoopOutcome:
    """pause, resume, cancel or activate a loop."""
    ws = Workspace.open(cwd)
    found, loop = _find(ws, loop_id, session, env)
    now = clock.now_iso()
    past = {"pause": "paused", "cancel": "cancelled", "resume": "resumed", "activate": "activated"}.get(action)
    if past is None:
        raise ValueError(action)
    changed: list[Loop] = []

    def apply(state: SessionLoops | None) -> SessionLoops:  # against the loops as they are now
        current = next((x for x in state.loops if x.id == loop.id), None) if state is not None else None
        if state is None or current is None:
            raise RefocusError(f"loop {loop.id} vanished meanwhile (see `git refocus loop list`).")
        new, state = _changed(action, state, current, now)
        changed[:] = [new]
        return state

    loops.update(ws.git_dir, found.session_id, apply)
    problem = record_event(ws, changed[0], past)
    return LoopOutcome(past, changed[0], [problem] if problem else [])


def _changed(action: str, state: SessionLoops, loop: Loop, now: str) -> tuple[Loop, SessionLoops]:
    """``loop`` after ``action``, and its session's loops with it."""
    if loop.status in lp.FINISHED:
        raise RefocusError(f"loop {loop.id} is {loop.status}; start a new one with `git refocus loop start`.")
    if action == "pause":
        if loop.status != lp.ACTIVE:
            raise RefocusError(f"loop {loop.id} is {loop.status}, not active.")
        new = replace(loop, status=lp.PAUSED, updated_at=now)
    elif action == "cancel":
        new = replace(loop, status=lp.CANCELLED, ended=lp.BY_CANCEL, updated_at=now)
    else:  # resume, activate
        if action == "resume" and loop.status != lp.PAUSED:
            raise RefocusError(f"loop {loop.id} is {loop.status}, not paused.")
        if loop.id != state.foreground:
            state = _pause_foreground(state, now)
        new = replace(loop, status=lp.ACTIVE, ended=None, last_digest=None, blocks=0, updated_at=now)
    state = state.put(new)
    if new.status == lp.ACTIVE:
        state = replace(state, foreground=new.id)
    elif new.status == lp.CANCELLED and state.foreground == new.id:
        state = replace(state, foreground=None)
    return new, state


def end_for_refocus(git_dir: str, refocus_id: str, status: str) -> list[str]:
    """End every unfinished loop tied to ``refocus_id`` (it completed or was abandoned); their ids."""
    ended: list[str] = []
    now = clock.now_iso()

    def end(current: SessionLoops | None) -> SessionLoops | None:
        hit = [x for x in current.loops if x.refocus_id == refocus_id and x.status not in lp.FINISHED] if current else []
        if current is None or not hit:
            return None
        state = current
        for x in hit:
            state = state.put(replace(x, status=lp.DONE, ended=f"refocus {status}", updated_at=now))
        ended.extend(x.id for x in hit)
        return replace(state, foreground=None) if state.foreground in {x.id for x in hit} else state

    for state in loops.all_sessions(git_dir)[0]:
        if any(x.refocus_id == refocus_id and x.status not in lp.FINISHED for x in state.loops):
            try:
                loops.update(git_dir, state.session_id, end)
            except (RefocusError, OSError):
                continue  # the Stop hook ends it lazily when it next sees the refocus finished
    return ended
