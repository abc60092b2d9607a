"""``git refocus status``: what needs attention in this repository."""

from __future__ import annotations

import os
from collections.abc import Mapping

from gitrefocus.model import JSONObject, clock, lifecycle
from gitrefocus.model.place import DEST
from gitrefocus.model.records import asdict, dataclass, field, replace
from gitrefocus.model.result import Result
from gitrefocus.ops import places, unfinished
from gitrefocus.ops.index_md import Row, row
from gitrefocus.ops.reconcile import fresh_catalog
from gitrefocus.store import catalog
from gitrefocus.store.catalog import Catalog
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any


@dataclass(slots=True)
class DashboardRow:
    """A refocus on the dashboard: its row, how old it is, and (in progress) how
    quiet. (One per refocus, so not frozen, like :class:`Row`.)"""

    row: Row
    age_hours: float  # since spawn
    quiet_hours: float | None = None  # since its last event or transcript write; in progress only
    quiet: bool = False  # it may have exited unfinished (ops.unfinished): ``unfinished`` says why
    unfinished: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = self.row.to_json()
        out["age_hours"] = self.age_hours
        if self.quiet_hours is not None:
            out["quiet_hours"] = self.quiet_hours
            out["quiet"] = self.quiet
            if self.unfinished:
                out["unfinished"] = self.unfinished
        return out


@dataclass(frozen=True)
class WaitingResult:
    """An outgoing refocus whose result came back and was not received yet."""

    row: Row
    result: JSONObject | None  # as the child recorded it (see :attr:`parsed`)

    @property
    def parsed(self) -> Result | None:
        return Result.from_dict(self.result) if self.result is not None else None

    def to_json(self) -> dict[str, Any]:
        return self.row.to_json() | {"result": self.result}


@dataclass(frozen=True)
class Divergence:
    id: str
    problem: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Incoming:
    pending_launch: list[DashboardRow] = field(default_factory=list)
    in_progress: list[DashboardRow] = field(default_factory=list)
    blocked: list[DashboardRow] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"pending_launch": [r.to_json() for r in self.pending_launch],
                "in_progress": [r.to_json() for r in self.in_progress],
                "blocked": [r.to_json() for r in self.blocked]}


@dataclass(frozen=True)
class Outgoing:
    unlaunched: list[DashboardRow] = field(default_factory=list)
    results_waiting: list[WaitingResult] = field(default_factory=list)
    in_flight: list[DashboardRow] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"unlaunched": [r.to_json() for r in self.unlaunched],
                "results_waiting": [r.to_json() for r in self.results_waiting],
                "in_flight": [r.to_json() for r in self.in_flight]}


@dataclass(frozen=True)
class Active:
    """The refocus this worktree's commits are tagged with (see ``start``/``stop``)."""

    id: str
    status: str | None
    problem: str | None  # why the marker is wrong (finished, foreign, unknown); None when right
    tagging: bool = True  # our commit-msg hook runs here: commits get the Refocus-Id trailer

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class StatusOutcome:
    repo: str
    incoming: Incoming
    outgoing: Outgoing
    divergences: list[Divergence]
    notices: list[str] = field(default_factory=list)  # what reconciling hand-edited briefs said
    active: Active | None = None
    # from health, display lines; None when there is nothing to say
    stale_context: list[str] | None = None
    changes_since_last_session: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"repo": self.repo, "incoming": self.incoming.to_json(), "outgoing": self.outgoing.to_json(),
               "divergences": [d.to_json() for d in self.divergences], "notices": self.notices,
               "active": self.active.to_json() if self.active else None}
        if self.stale_context is not None:
            out["stale_context"] = self.stale_context
        if self.changes_since_last_session is not None:
            out["changes_since_last_session"] = self.changes_since_last_session
        return out


def dashboard(ws: Workspace, cat: Catalog) -> StatusOutcome:
    """The status model, without the notices and the health lines."""
    stale_hours = ws.setting("staleReservedHours")
    quiet_hours = ws.setting("quietHours")
    incoming, outgoing = Incoming(), Outgoing()
    divergences = []
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        state = entry.state
        r = row(entry, ws)
        quiet, why = None, None
        if entry.incoming and entry.status == lifecycle.IN_PROGRESS and state is not None:
            quiet = unfinished.quiet_hours(state, places.local_dir(ws, state, DEST))  # the SessionStart advisory's check, same answer
            why = unfinished.why_unfinished(state, quiet, quiet_hours)
            quiet = round(quiet, 1)
        d = DashboardRow(r, round(clock.age_hours(state.spawned_at if state else None), 1), quiet, why is not None, why)
        if entry.incoming:
            if entry.status in lifecycle.PENDING_LAUNCH:
                incoming.pending_launch.append(d)
            elif entry.status == lifecycle.IN_PROGRESS:
                incoming.in_progress.append(d)
            elif entry.status == lifecycle.BLOCKED:
                incoming.blocked.append(d)
        if entry.outgoing:  # a refocus into this repository itself shows on both sides, as one row
            if entry.unlaunched_hours(stale_hours) is not None:
                outgoing.unlaunched.append(d)
            elif entry.status in lifecycle.ACTIVE - {lifecycle.BLOCKED}:
                outgoing.in_flight.append(d)
        for problem in r.problems:
            divergences.append(Divergence(entry.id, problem))
        if state and state.conflicts:
            divergences.append(Divergence(entry.id, f"{len(state.conflicts)} event(s) conflicted after a merge and were not applied"))
    outgoing.results_waiting.extend(
        WaitingResult(row(e, ws), e.state.result if e.state else None) for e in catalog.waiting(cat))
    return StatusOutcome(repo=ws.workdir, incoming=incoming, outgoing=outgoing, divergences=divergences)


def active(ws: Workspace, cat: Catalog, env: Mapping[str, str] = os.environ) -> Active | None:
    from gitrefocus.commands.stop import marker_problem
    from gitrefocus.store import localstate

    rid = localstate.active_refocus(ws.git_dir, env)  # status loads it (see status())
    if not rid:
        return None
    entry = cat.entries.get(rid)
    return Active(rid, entry.status if entry else None, marker_problem(cat, rid), tagging=ws.tags_commits)


def status(*, cwd: str = ".") -> StatusOutcome:
    from gitrefocus.store import localstate

    ws = Workspace.open(cwd)
    marker = localstate.active_refocus(ws.git_dir, os.environ)
    # what the dashboard shows, found through the index (the finished history is not loaded)
    cat, notices = fresh_catalog(ws, lambda ws: catalog.noteworthy(ws, also=[marker] if marker else []))
    model = dashboard(ws, cat)
    from gitrefocus.health import (
        for_status,  # stale context, changes since the last session (read-only)
    )

    health = for_status(ws)
    return replace(model, notices=notices, active=active(ws, cat), stale_context=health.get("stale_context"),
                   changes_since_last_session=health.get("changes_since_last_session"))
