"""``git refocus gc``: archive finished briefs to docs/refocus/archive/YYYY-QN/."""

from __future__ import annotations

import datetime as _dt
import os
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model.records import dataclass
from gitrefocus.ops import index_md
from gitrefocus.store import atomic, catalog, faults
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class ArchiveMove:
    id: str
    source: str  # the brief, relative to the work tree
    target: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "from": self.source, "to": self.target}


@dataclass(frozen=True)
class GcOutcome:
    archived: list[ArchiveMove]  # moved, or with --dry-run to be moved
    dry_run: bool
    days: int

    def to_json(self) -> dict[str, Any]:
        return {"archived": [m.to_json() for m in self.archived], "dry_run": self.dry_run, "days": self.days}


def quarter(ts: str) -> str:
    d = clock.parse(ts)
    return f"{d.year}-Q{(d.month - 1) // 3 + 1}"


def _move(ws: Workspace, path: str, target: str) -> None:
    """``git mv`` a tracked brief (the rename is staged, history follows it);
    rename an untracked one."""
    if ws.rel(path) in ws.repo.index:
        ws.git("mv", "--", ws.rel(path), ws.rel(target))
    else:
        faults.point(f"move {path}")
        os.replace(path, target)
        faults.wrote(f"move {path}")


def gc(*, dry_run: bool = False, days: int | None = None, cwd: str = ".") -> GcOutcome:
    ws = Workspace.open(cwd)
    days = ws.setting("archiveDays") if days is None else days
    try:
        cutoff = clock.now() - _dt.timedelta(days=days)
    except OverflowError:  # more days than the calendar holds
        raise RefocusError(f"--days {days} reaches past the start of the calendar; use a number of days "
                           f"up to {(clock.now().replace(tzinfo=None) - _dt.datetime.min).days}.") from None
    if days < 0:
        raise RefocusError(f"--days {days} is negative; give the age in days (0 or more).")
    moves = []
    checked = dry_run
    for entry in sorted(catalog.load(ws).entries.values(), key=lambda e: e.id):
        if entry.archived or not entry.path or entry.status != lifecycle.RESULT:
            continue
        done = entry.state.completed_at if entry.state else None
        if not done or clock.parse(done) >= cutoff or not entry.file_matches_ref:
            continue
        target = os.path.join(ws.archive_dir, quarter(done), os.path.basename(entry.path))
        moves.append(ArchiveMove(id=entry.id, source=ws.rel(entry.path), target=ws.rel(target)))
        if not dry_run:
            if not checked:  # before the first move: a full or read-only disk stops nothing half-way
                from gitrefocus.ops import record

                record.preflight(ws, index=True)
                checked = True
            atomic.refuse_symlinks(entry.path, "move")
            atomic.check_writable(target)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with catalog.briefs_changing(ws, entry.path, target):
                _move(ws, entry.path, target)
    if moves and not dry_run:
        index_md.refresh(ws)
    return GcOutcome(archived=moves, dry_run=dry_run, days=days)
