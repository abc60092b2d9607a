"""INDEX.md: the generated, gitignored overview of a repository's refocuses.

Built from one plain model (:func:`model`) that ``list --json`` also prints,
so the file, the terminal and scripts never disagree.
"""

from __future__ import annotations

import datetime as _dt
import os

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model.events import RefocusState
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.model.records import dataclass
from gitrefocus.model.text import one_line
from gitrefocus.ops import places
from gitrefocus.store import atomic
from gitrefocus.store import catalog as _catalog
from gitrefocus.store.catalog import INCOMING, Catalog, Entry
from gitrefocus.store.workspace import Workspace, relative_inside

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any


@dataclass(slots=True)
class Row:
    """One refocus as list, status and INDEX.md show it. (Not frozen: status
    builds one per refocus, and a frozen dataclass costs four times as much to
    build; nothing changes a row once made.)"""

    id: str
    status: str
    direction: str
    counterpart: str | None  # the other repository's directory
    spawned_at: str | None
    launched_at: str | None
    completed_at: str | None
    received_at: str | None
    child_session_id: str | None
    parent_refocus_id: str | None
    assigned_to: str | None
    file: str | None  # the brief, relative to the work tree when inside it
    archived: bool
    has_ref: bool
    problems: list[str]

    @property
    def date(self) -> str:
        return self.id[:10]

    @property
    def slug(self) -> str:
        return self.id[11:-7]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "date": self.date, "slug": self.slug, "status": self.status,
            "direction": self.direction, "counterpart": self.counterpart,
            "spawned_at": self.spawned_at, "launched_at": self.launched_at,
            "completed_at": self.completed_at, "received_at": self.received_at,
            "child_session_id": self.child_session_id, "parent_refocus_id": self.parent_refocus_id,
            "assigned_to": self.assigned_to, "file": self.file, "archived": self.archived,
            "has_ref": self.has_ref, "problems": list(self.problems),
        }


def row(entry: Entry, ws: Workspace) -> Row:
    s = entry.state
    counterpart = _counterpart(ws, s, entry.direction) if s else None
    workdir = ws.workdir
    return Row(
        id=entry.id, status=entry.status, direction=entry.direction, counterpart=counterpart,
        spawned_at=s.spawned_at if s else None,
        launched_at=s.launched_at if s else None,
        completed_at=s.completed_at if s else None,
        received_at=s.received_at if s else None,
        child_session_id=s.child_session_id if s else None,
        parent_refocus_id=s.parent_refocus_id if s else None,
        assigned_to=s.assigned_to if s else None,
        file=(relative_inside(entry.path, workdir) or entry.path) if entry.path else None,
        archived=entry.archived,
        has_ref=s is not None,
        problems=list(entry.problems) + ([entry.file_error] if entry.file_error else []),
    )


def _counterpart(ws: Workspace, state: RefocusState, direction: str) -> str | None:
    """The other side's directory on this machine, else its repository's name
    and directory (``mcp/services``) with "(not on this machine)"."""
    side = SOURCE if direction == INCOMING else DEST
    found = places.local_dir(ws, state, side)
    if found is not None:
        return found
    place = state.where(side)
    return f"{place.label()} (not on this machine)" if place is not None else None


@dataclass(frozen=True)
class IndexModel:
    """What INDEX.md and ``list`` show: rows newest first, and what is left out."""

    active: list[Row]
    recent: list[Row]
    archived_count: int
    older_count: int
    recent_days: int
    catalog: Catalog | None = None  # the entries the rows came from (the spawn tree reads their states)
    more_active: int = 0  # rows of each section not loaded (overview_model with a limit)
    more_recent: int = 0


def _cutoff(ws: Workspace) -> tuple[int, _dt.datetime]:
    recent_days = ws.setting("recentDays")
    return recent_days, clock.now() - _dt.timedelta(days=recent_days)


def model(catalog: Catalog) -> IndexModel:
    """The model of every entry in ``catalog``."""
    return _model(catalog, *_cutoff(catalog.ws))


def overview_model(ws: Workspace, limit: int | None = None) -> IndexModel:
    """The same model read through the catalog's index: only the entries that
    can be active or recent are loaded (with a ``limit``, the newest ``limit``
    of each section), the others are counted by name."""
    recent_days, cutoff = _cutoff(ws)
    seen = _catalog.overview(ws, cutoff, limit)
    return _model(seen.catalog, recent_days, cutoff, archived=seen.archived, older=seen.others,
                  more_active=seen.more_active, more_recent=seen.more_recent)


def _model(catalog: Catalog, recent_days: int, cutoff: _dt.datetime, *, archived: int = 0,
           older: int = 0, more_active: int = 0, more_recent: int = 0) -> IndexModel:
    active: list[Row] = []
    recent: list[Row] = []
    for entry in sorted(catalog.entries.values(), key=lambda e: e.id, reverse=True):
        if entry.archived:
            archived += 1
            continue
        if entry.status in lifecycle.ACTIVE:
            active.append(row(entry, catalog.ws))
            continue
        finished = (entry.state.completed_at or entry.state.last_event_at) if entry.state else None
        if finished and clock.parse(finished) >= cutoff:
            recent.append(row(entry, catalog.ws))
        else:
            older += 1
    return IndexModel(active=active, recent=recent, archived_count=archived, older_count=older,
                      recent_days=recent_days, catalog=catalog, more_active=more_active, more_recent=more_recent)


def _where(r: Row) -> str:
    return places.route(r.direction, r.counterpart, lambda path: f"`{one_line(path)}`")  # a remote's event named it


def render(catalog: Catalog) -> str:
    return render_model(catalog.ws, model(catalog))


INDEX_ROWS = 50  # rows per section of INDEX.md: a refresh loads these, `list` shows the rest


def _shown(rows: list[Row], more: int) -> tuple[list[Row], list[str]]:
    """The first INDEX_ROWS of a section's ``rows``, and the line pointing to the others
    (those past them and ``more`` not loaded)."""
    more += max(len(rows) - INDEX_ROWS, 0)
    return rows[:INDEX_ROWS], ["", f"({more} more not shown; `git refocus list` shows them.)"] if more else []


def render_model(ws: Workspace, m: IndexModel) -> str:
    lines = [
        f"# Refocus index — {one_line(ws.name)}",
        "",
        "(auto-generated by `git refocus`; see docs/refocus/*.md for canonical state — do not edit)",
        "",
        "## Active (status ∈ {reserved, brief, in-progress, blocked})",
        "",
    ]
    active, more_active = _shown(m.active, m.more_active)
    recent, more_recent = _shown(m.recent, m.more_recent)
    if active:
        lines += ["| Date | Slug | Direction | Status | Counterpart |", "|---|---|---|---|---|"]
        lines += [f"| {r.date} | {r.slug} | {r.direction} | {one_line(r.status)} | {_where(r)} |" for r in active]
    else:
        lines.append("(none)")
    lines += [*more_active, "", f"## Recent (finished, last {m.recent_days} days)", ""]
    if recent:
        lines += ["| Date | Slug | Direction | Status | Completed | Counterpart | File |", "|---|---|---|---|---|---|---|"]
        for r in recent:
            link = f"[open]({r.id}.md)" if r.file else "—"
            done = (r.completed_at or "")[:10]
            lines.append(f"| {r.date} | {r.slug} | {r.direction} | {one_line(r.status)} | {one_line(done)} | {_where(r)} "
                         f"| {link} |")
    else:
        lines.append("(none)")
    lines += more_recent
    lines += [
        "",
        "## Archived",
        "",
        f"{m.archived_count} archived under `docs/refocus/archive/YYYY-QN/`; "
        f"{m.older_count} older finished entries not shown. "
        "`git refocus list --all` shows everything.",
        "",
    ]
    if m.catalog is not None:
        lines += spawn_tree_section(m.catalog, m)
    return "\n".join(lines)


def spawn_tree_section(catalog: Catalog, m: IndexModel) -> list[str]:
    """The "Spawn tree" section: the listed refocuses (newest first, at most
    MAX_MERMAID_NODES) as a mermaid flowchart, when more than one is listed."""
    from gitrefocus.ops import spawn_tree

    shown = [r.id for r in m.active[:INDEX_ROWS] + m.recent[:INDEX_ROWS]]
    if len(shown) < 2:
        return []
    newest = set(sorted(shown, reverse=True)[:spawn_tree.MAX_MERMAID_NODES])
    forest = spawn_tree.build([catalog], only=newest)
    more = len(shown) - len(newest)
    note = [f"({more} more not drawn; `git refocus tree` shows them all.)", ""] if more else []
    return ["## Spawn tree", "", *spawn_tree.mermaid(forest), "", *note]


def write(catalog: Catalog) -> str:
    _write(catalog.ws, render(catalog))
    return _path(catalog.ws)


def write_model(ws: Workspace, m: IndexModel) -> str:
    _write(ws, render_model(ws, m))
    return _path(ws)


def _path(ws: Workspace) -> str:
    return os.path.join(ws.refocus_dir, "INDEX.md")


def _write(ws: Workspace, text: str, moves: str | None = None, last: bool = True) -> bool:
    """Write INDEX.md unless it already says ``text`` (nothing visible changed).
    Given ``moves`` (:func:`store.catalog.ref_moves` when ``text`` was
    rendered) and not the ``last`` try: not when a ref moved since (False)."""
    path = _path(ws)
    with _catalog.briefs_changing(ws, path):
        if not last and _catalog.ref_moves(ws) != moves:
            return False
        atomic.write_text_if_changed(path, text)
    return True


def expected(ws: Workspace) -> bool:
    """Whether this repository keeps an INDEX.md: it has docs/refocus/, or it took
    part in a spawn or ran ``init`` (its .gitignore lists INDEX.md)."""
    if os.path.isdir(ws.refocus_dir):
        return True
    from gitrefocus.ops import setup
    from gitrefocus.store import refs

    try:
        return setup.gitignore_change(ws.workdir) is None and bool(refs.tips(ws.git_dir))
    except RefocusError:
        return False


RENDERS = 5  # how many times a refresh renders INDEX.md while other writers keep moving refs


def refresh(*workspaces: Workspace | None) -> None:
    """Regenerate INDEX.md in each repository (once per repository) from the
    catalog's index: what a command touched, not every brief."""
    seen = set()
    for ws in workspaces:
        if ws is None or ws.common_dir in seen:
            continue
        seen.add(ws.common_dir)
        _write_current(ws)


def _write_current(ws: Workspace) -> None:
    """:func:`_write` of INDEX.md as the refs are when it is written. The render
    is made outside the cache's write lock; when another writer moved a ref
    meanwhile (its own refresh may be written already), it is made again, so
    the last write is never an older render than the refs it follows."""
    for attempt in range(1, RENDERS + 1):
        before = _catalog.ref_moves(ws)
        if _write(ws, render_model(ws, overview_model(ws, INDEX_ROWS)), before, last=attempt == RENDERS):
            return
