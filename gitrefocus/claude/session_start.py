"""SessionStart: recognise the child, tell the parent its results, advise.

Everything said to the model is plain statements, sized to the client's cap
(``hookio.CONTEXT_LIMIT``) and ``refocus.budget``, and nothing at all is said (or
written) where there is nothing to say or the repository never took part. The
child's context is :mod:`claude.briefing`; the parent's results, marked received
only once told, are :mod:`claude.delivery`; a cleared or forked session is the child
only on the evidence of :mod:`claude.client`.
"""

from __future__ import annotations

import functools
import itertools
import os

from gitrefocus.claude import hookio
from gitrefocus.model import lifecycle
from gitrefocus.model.agents import session_from_env
from gitrefocus.model.events import RefocusState
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.ops import places, unfinished
from gitrefocus.store import atomic, catalog, localstate
from gitrefocus.store.config import BUDGETS
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
    from typing import Any

# A first start on a repository whose catalog cache is cold builds it this long at
# most (Claude Code kills the hook at 10 s); the rest is built at the next start.
COLD_BUILD_SECONDS = 3.0
# per budget: (max advisories, max chars of the child's context, commit lines, results told at most)
BUDGET_LIMITS = {"economy": (0, 2500, 0, 2), "light": (3, 5000, 3, 3), "standard": (8, 8000, 5, 5),
                 "detailed": (20, hookio.CONTEXT_LIMIT, 10, 8)}
RESULTS_ROOM = 7000  # characters of results at most, leaving room for the advisories
CONTINUED = ("clear", "fork", "compact")  # starts that continue a session under a new id (or the same)
OPEN = lifecycle.PENDING_LAUNCH | {lifecycle.IN_PROGRESS}  # the refocuses advisories speak of


def relaunch(ws: Workspace, state: RefocusState) -> str:
    return places.relaunch(ws, state, short=False)  # the agent runs it: absolute, as spawn prints it


# An advisory is written only if it is shown: at most a handful are (refocus.budget), and a
# history with a thousand refocuses in progress has a thousand to count; their text (the
# relaunch command, the places) is what costs.
if TYPE_CHECKING:
    Advisory = Callable[[], str]


def _incoming(ws: Workspace, rid: str, state: RefocusState) -> str:
    return (f"Incoming brief {rid} from {places.shown(ws, state, SOURCE, short=False)} has not been launched; "
            f"its child session starts with: {relaunch(ws, state)}")


def _unfinished(ws: Workspace, rid: str, state: RefocusState, why: str) -> str:
    return (f"Refocus {rid} is in progress but its child session {state.child_session_id} has not completed "
            f"({why}); it may have exited without git refocus complete. It continues with: {relaunch(ws, state)}")


def _unlaunched(ws: Workspace, rid: str, state: RefocusState, age: float) -> str:
    return (f"Outgoing refocus {rid} to {places.shown(ws, state, DEST, short=False)} is still un-launched after "
            f"{int(age)} h: continue waiting, or abandon it.")


class Open:
    """The refocuses open here (reserved, brief, in progress), oldest first, loaded as they are
    asked for: a hook that shows eight advisories loads about eight entries, however many are
    open, and says how many it did not look at."""

    def __init__(self, cat: catalog.Catalog, statuses: Collection[str] = OPEN):
        self.cat = cat
        self.ids = cat.cache.ids_where(statuses=statuses)
        self.seen = 0

    def __iter__(self) -> Iterator[catalog.Entry]:
        for entry in self.cat.each(self.ids):
            self.seen = self.ids.index(entry.id, self.seen) + 1
            yield entry

    @property
    def unseen(self) -> int:
        return len(self.ids) - self.seen


def advisories(ws: Workspace, found: Iterable[catalog.Entry], session_id: str | None,
               own: str | None = None) -> Iterator[Advisory]:
    """Lines about other refocuses here (``own``: this session's child refocus, left out), each
    written when called, made as they are asked for."""
    stale_hours = ws.setting("staleReservedHours")
    quiet_hours = ws.setting("quietHours")
    for entry in found:
        st = entry.status
        state = entry.state
        if state is None:  # a brief without an event log: doctor reports it
            continue
        incoming = entry.incoming
        if incoming and st in lifecycle.PENDING_LAUNCH and state.child_session_id != session_id:
            yield functools.partial(_incoming, ws, entry.id, state)
        elif incoming and st == lifecycle.IN_PROGRESS:
            sid = state.child_session_id
            if session_id in state.sessions or sid == session_id or entry.id == own:
                continue
            why = unfinished.why_unfinished(state, unfinished.quiet_hours(state, places.local_dir(ws, state, DEST)), quiet_hours)
            if why:
                yield functools.partial(_unfinished, ws, entry.id, state, why)
        age = entry.unlaunched_hours(stale_hours)
        if age is not None:
            yield functools.partial(_unlaunched, ws, entry.id, state, age)


def extra_advisories(ws: Workspace, budget: str, commit_lines: int) -> list[str]:
    """Diff since the last session start and stale context (health)."""
    from gitrefocus.health import resume

    try:
        return resume.session_start_lines(ws, budget=budget, max_commits=commit_lines)
    except Exception as exc:  # noqa: BLE001 - advisory only: never let it cost the session its brief
        localstate.log_error(ws.git_dir, "session-start:health", exc)
        return []


def recognise(ws: Workspace, cat: catalog.Catalog, session_id: str | None, source: object,
              agent: str = "claude", env: Mapping[str, str] = os.environ) -> tuple[catalog.Entry | None, str | None]:
    """The refocus this session is the child of, and what shows it: ``session`` (launched
    with the child's session id), ``launch`` (a Codex or Gemini CLI child's first start: its
    launch command names the refocus, docs/agents.md), ``mapped`` (a session recognised
    before, resumed) or ``client`` (a /clear, fork or compact in the client process that ran
    the child, or a client started to resume it). (None, None): no evidence, not a child."""
    def open_child(rid: str | None, child_sid: str | None = None) -> catalog.Entry | None:
        ids = [rid] if rid else []
        if child_sid:  # the refocus whose child session this is, by the index
            ids += [i for i in cat.cache.ids_where(session_id=child_sid) if i != rid]
        return next((e for e in map(cat.get, ids) if e is not None and e.incoming and e.state
                     and e.status == lifecycle.IN_PROGRESS), None)

    if session_id:
        own = next((e for e in cat.entries.values() if e.incoming and e.state
                    and e.state.child_session_id == session_id and e.status not in lifecycle.TERMINAL), None)
        if own is not None:
            return own, "session"
        mapped = open_child(localstate.refocus_for_session(ws.git_dir, session_id))
        if mapped is not None:
            return mapped, "mapped"
        launched = launched_child(cat, env, agent)
        if launched is not None:
            return launched, "launch"
    if source in CONTINUED:
        from gitrefocus.claude import client

        proc = client.find(agent=agent)
        if proc is not None:
            found = open_child(localstate.refocus_for_client(ws.git_dir, proc.key))
            resumed = proc.resumed_session()
            if found is None and resumed:
                found = open_child(localstate.refocus_for_session(ws.git_dir, resumed), resumed)
            if found is not None:
                return found, "client"
    return None, None


def launched_child(cat: catalog.Catalog, env: Mapping[str, str], agent: str) -> catalog.Entry | None:
    """The refocus a Codex or Gemini CLI session was launched for (the launch command's
    variable), when it waits here for its first start and its brief names this agent."""
    from gitrefocus.model.agents import CHILD_VARIABLE, of_state

    rid = env.get(CHILD_VARIABLE)
    if agent == "claude" or not rid:
        return None
    entry = cat.get(rid)
    if entry is None or not entry.incoming or entry.state is None or entry.status not in lifecycle.PENDING_LAUNCH:
        return None
    return entry if of_state(entry.state.extra) == agent else None


def not_the_child(cat: catalog.Catalog, source: str) -> str | None:
    """The one line a cleared or forked session gets when a child works here but nothing
    links this session to it."""
    found = Open(cat, {lifecycle.IN_PROGRESS})
    working = next((e.id for e in found if e.incoming and e.status == lifecycle.IN_PROGRESS), None)
    if working is None:
        return None
    how = "/clear" if source == "clear" else "a fork"
    more = f" (and up to {found.unseen} more)" if found.unseen else ""
    return (f"git refocus: this session began with {how} and is not the child session of refocus {working}{more}: "
            "nothing links it to the client process that ran that child.")


def become_child(ws: Workspace, entry: catalog.Entry, session_id: str | None, how: str, env: Mapping[str, str],
                 agent: str = "claude") -> None:
    """Make this session the child's: its first start records ``started``; a resume, a
    /clear or a fork only maps the new session id (and this client process) to it."""
    from gitrefocus.claude import client

    state = entry.state
    if how in ("session", "launch") and state is not None and (entry.status in lifecycle.PENDING_LAUNCH
                                                               or session_id not in state.sessions):
        from gitrefocus.commands.start import start

        start(refocus_id=entry.id, session_id=session_id, cwd=ws.workdir, env=env, agent=agent)
    elif session_id:
        localstate.map_session(ws.git_dir, session_id, entry.id)
    proc = client.find(agent=agent)
    if proc is not None:
        localstate.map_client(ws.git_dir, proc.key, entry.id)
    hookio.append_env({"SESSION_REFOCUS_ROLE": "child", "SESSION_REFOCUS_ID": entry.id})


def hook_catalog(ws: Workspace, session_id: str | None) -> catalog.Catalog:
    """Only the entries the hook can speak of, looked up in the catalog's index: this
    session's child and results not received yet. Other entries are loaded when asked
    for (:meth:`catalog.Catalog.get`, :class:`Open`)."""
    return catalog.select(ws, unreceived=lifecycle.RETURNED, session_id=session_id, budget=COLD_BUILD_SECONDS)


def handle(payload: dict[str, Any], env: Mapping[str, str] = os.environ, agent: str = "claude") -> hookio.Reply | None:
    """The hook's stdout (JSON) and what to record once it is written; None for silence."""
    cwd = payload.get("cwd") or os.getcwd()
    ws = Workspace.try_open(cwd)
    if ws is None or not ws.takes_part:
        return None
    session_id = payload.get("session_id") or session_from_env(env)
    source = payload.get("source")
    budget = ws.setting("budget")
    budget = budget if budget in BUDGETS else "standard"
    max_adv, child_limit, commit_lines, max_results = BUDGET_LIMITS[budget]
    cat = hook_catalog(ws, session_id)
    parts: list[str] = []
    delivery = None

    child, how = recognise(ws, cat, session_id, source, agent, env)
    if child is not None and how is not None and catalog.brief_file(ws, child.id) is None:
        atomic.refuse_symlinks(ws.brief_path(child.id), "read")  # a symlinked docs/refocus: one line, logged
    if child is not None and how is not None and catalog.brief_file(ws, child.id):
        from gitrefocus.claude import briefing

        become_child(ws, child, session_id, how, env, agent)
        parts.append(briefing.child_context(ws, child.id, min(child_limit, hookio.CONTEXT_LIMIT),
                                            tagging=ws.tags_commits))
        cat.entries.update(catalog.load(ws, only=child.id).entries)  # only this entry changed
    else:
        line = not_the_child(cat, source) if source in ("clear", "fork") else None
        if line:
            parts.append(line)
        from gitrefocus.claude import delivery as told

        room = min(RESULTS_ROOM, hookio.CONTEXT_LIMIT - _size(parts))
        delivery = told.plan(ws, cat, cwd=cwd, session_id=session_id, most=max_results, room=room)
        if delivery is not None:
            parts.append(delivery.text)

    if max_adv:
        found = Open(cat)
        notes = _fit_advisories(advisories(ws, found, session_id, child.id if child else None),
                                extra_advisories(ws, budget, commit_lines), max_adv,
                                hookio.CONTEXT_LIMIT - _size(parts) - 2, lambda: found.unseen)
        if notes:
            parts.append(notes)
    if not parts:
        return None
    text = hookio.session_start_output("\n\n".join(parts))
    return hookio.Reply(text, (lambda: delivery.mark(text)) if delivery is not None and delivery.shown else None)


def _size(parts: list[str]) -> int:
    return sum(len(p) + 2 for p in parts)


def _fit_advisories(found: Iterator[Advisory], extra: list[str], most: int, room: int,
                    unseen: Callable[[], int]) -> str | None:
    """The advisories that fit, whole (only those are written), and a count of the rest: of the
    refocuses ``found`` (made as asked for: at most ``most`` are) then the ``extra`` lines. The
    open refocuses never looked at (``unseen``) are counted as "up to" that many more."""
    head = "git refocus notes for this repository:"
    lines = list(itertools.islice(found, most))
    unlooked = unseen()
    lines += [functools.partial(str, line) for line in extra]
    kept: list[str] = []
    used = len(head) + 40  # and the count line
    for advisory in lines[:most]:
        line = advisory()
        if used + 3 + len(line) > room:
            break
        kept.append(f"- {line}")
        used += 3 + len(line)
    if not kept:
        return None
    rest = len(lines) - len(kept) + unlooked
    more = f"\n({'up to ' if unlooked else ''}{rest} more: git refocus status)" if rest else ""
    return head + "\n" + "\n".join(kept) + more
