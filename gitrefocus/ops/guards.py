"""The lifecycle guards: children cannot fork; chains stay shallow and acyclic; a
session acts only for the refocus that belongs to it."""

from __future__ import annotations

import os
from collections.abc import Mapping

from gitrefocus.errors import GuardRefused, RefocusError
from gitrefocus.model import lifecycle
from gitrefocus.model.agents import CHILD_VARIABLE, session_from_env
from gitrefocus.model.events import RefocusState
from gitrefocus.model.place import SOURCE, Place
from gitrefocus.store import catalog, eventlog, localstate
from gitrefocus.store.workspace import Workspace

CHILD_CANNOT_FORK = (
    "Architectural violation: Child sessions cannot fork. Surface this work in "
    "Result.suggested_follow_ups (`git refocus complete --follow-up DIR:SLUG:REASON`) "
    "and return to the parent with `git refocus complete`."
)


def child_refocus_of_session(ws: Workspace, session_id: str | None) -> str | None:
    """The non-terminal refocus whose child session is ``session_id``, if any."""
    if not session_id:
        return None
    mapped = localstate.refocus_for_session(ws.git_dir, session_id)
    if mapped:
        tip = eventlog.read_tip(ws.repo, mapped)
        if tip is None or tip.state.status not in lifecycle.TERMINAL:
            return mapped
    for entry in catalog.select(ws, session_id=session_id).entries.values():
        if entry.state and entry.state.child_session_id == session_id and entry.status not in lifecycle.TERMINAL:
            return entry.id
    return None


def refuse_child_fork(ws: Workspace, env: Mapping[str, str] = os.environ) -> None:
    """Children are leaves (docs/ARCHITECTURE.md, "Lifecycle and guards"): by env var,
    or by session id, so the guard holds when the environment file was lost."""
    if env.get("SESSION_REFOCUS_ROLE") == "child":
        raise GuardRefused(CHILD_CANNOT_FORK + " (SESSION_REFOCUS_ROLE=child)")
    launched_for = env.get(CHILD_VARIABLE)
    if launched_for:  # a Codex or Gemini CLI child: its launch command says which refocus it works on
        raise GuardRefused(CHILD_CANNOT_FORK + f" ({CHILD_VARIABLE}={launched_for})")
    rid = child_refocus_of_session(ws, session_from_env(env))
    if rid:
        raise GuardRefused(CHILD_CANNOT_FORK + f" (this session is the child of {rid})")


TAKE_OVER = "git refocus start {id} --take-over"


def owners(ws: Workspace, state: RefocusState) -> list[str]:
    """The sessions a refocus belongs to, oldest first: its child session, every session
    that opened it (``start``), and the sessions this machine maps to it (the child's
    session after a /clear or fork the SessionStart hook recognised)."""
    found = [state.child_session_id, *state.sessions, *localstate.sessions_of(ws.git_dir, state.id)]
    return list(dict.fromkeys(s for s in found if s))


def owned_by(ws: Workspace, state: RefocusState, session_id: str | None, env: Mapping[str, str]) -> bool:
    """No session id (a person at a terminal), or the session is one of the refocus's own
    (or the SessionStart hook exported its id into this session's shell, or the command that
    launched this Codex or Gemini CLI session named it)."""
    if not session_id or env.get("SESSION_REFOCUS_ID") == state.id or env.get(CHILD_VARIABLE) == state.id:
        return True
    # owners() without listing every mapped session: this one's mapping is one file
    return (session_id in (state.child_session_id, *state.sessions)
            or localstate.refocus_for_session(ws.git_dir, session_id) == state.id)


def require_owner(ws: Workspace, state: RefocusState, session_id: str | None, env: Mapping[str, str],
                  action: str) -> None:
    """Refuse (exit 3) to ``action`` another session's refocus from this one, naming the
    session that owns it and the deliberate way to take it over."""
    if owned_by(ws, state, session_id, env):
        return
    owner = owners(ws, state)[-1]
    raise GuardRefused(
        f"{state.id} belongs to session {owner}, not to this session ({session_id}); {action} it from that "
        f"session, or take it over here on purpose: {TAKE_OVER.format(id=state.id)}"
    )


def parent_chain(states: Mapping[str, RefocusState], parent_id: str | None) -> list[RefocusState]:
    """The ancestors of a new refocus, nearest first. Refuses a cycle of ids."""
    chain, seen = [], set()
    current = parent_id
    while current:
        if current in seen:
            raise GuardRefused(f"refusing to spawn: the parent chain loops back to {current}.")
        seen.add(current)
        state = states.get(current)
        if state is None:
            break
        chain.append(state)
        current = state.parent_refocus_id
    return chain


def check_chain(ancestors: list[RefocusState], dest_dir: str, max_depth: int,
                dest: Place | None = None) -> list[str]:
    """Refuse work that would bounce back into a directory already the source of
    a refocus on the chain (``dest``: that directory as stored, when its repository
    has an identity); warn when the chain is deeper than ``max_depth``."""
    real_dest = os.path.realpath(dest_dir)
    for state in ancestors:
        src = state.where(SOURCE)
        if src is None:
            continue
        same = (src.repo_id == dest.repo_id and src.dir == dest.dir if src.portable and dest is not None
                else not src.portable and os.path.realpath(src.dir) == real_dest)
        if same:
            raise GuardRefused(
                f"refusing to spawn: {dest_dir} is already the source of {state.id} on this "
                "chain (a cycle); finish or abandon that work instead."
            )
    warnings = []
    depth = len(ancestors) + 1
    if max_depth and depth > max_depth:
        warnings.append(
            f"this refocus chain is {depth} deep (refocus.maxChainDepth is {max_depth}); "
            "a deep chain is usually a design smell."
        )
    return warnings


def require_dest(dest: str) -> None:
    if "\n" in dest or "\r" in dest:
        raise RefocusError(f"destination {dest!r} contains a newline.")
    if not os.path.exists(dest):
        raise RefocusError(f"destination {dest!r} does not exist; refocus only works with existing projects.")
    if not os.path.isdir(dest):
        raise RefocusError(f"destination {dest!r} is not a directory.")
