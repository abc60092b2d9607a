"""``list --global``, ``status --global`` and ``index --global``: every registered repository.

The registry (store/registry.py) lists the repositories that ran ``init`` or
took part in a spawn; each is checked (ops/across.py) before it is read, and
read-only: hand edits are not reconciled from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitrefocus.model.records import dataclass
from gitrefocus.ops import across, global_index
from gitrefocus.ops.global_index import GlobalModel, GlobalRow

if TYPE_CHECKING:
    from gitrefocus.commands.status import StatusOutcome


@dataclass(frozen=True)
class GlobalListOutcome:
    entries: list[GlobalRow]  # newest first
    across: across.Across

    def to_json(self) -> dict[str, Any]:
        return {"global": True, "entries": [g.to_json() for g in self.entries]} | self.across.to_json()


def list_global(*, all: bool = False, prune: bool = False) -> GlobalListOutcome:
    found = across.open_all(prune=prune)
    m = global_index.model(found, rows_for_all=all)
    rows = m.active + m.recent
    if all:
        rows = sorted(rows + m.rest, key=lambda g: g.row.id, reverse=True)
    return GlobalListOutcome(entries=rows, across=found)


@dataclass(frozen=True)
class GlobalStatusOutcome:
    repos: list["StatusOutcome"]
    across: across.Across

    def to_json(self) -> dict[str, Any]:
        return {"global": True, "repos": [s.to_json() for s in self.repos]} | self.across.to_json()


def status_global(*, prune: bool = False) -> GlobalStatusOutcome:
    from gitrefocus.commands.status import dashboard

    found = across.open_all(prune=prune)
    return GlobalStatusOutcome(repos=[dashboard(cat.ws, cat) for cat in found.repos], across=found)


@dataclass(frozen=True)
class GlobalIndexOutcome:
    path: str
    changed: bool
    model: GlobalModel
    across: across.Across

    def to_json(self) -> dict[str, Any]:
        return ({"global": True, "path": self.path, "changed": self.changed, "active": len(self.model.active),
                 "recent": len(self.model.recent), "archived": self.model.archived_count} | self.across.to_json())


def index_global(*, output: str | None = None, prune: bool = False, cwd: str = ".") -> GlobalIndexOutcome:
    found = across.open_all(prune=prune)
    m = global_index.model(found)
    path = global_index.output_path(cwd, output)
    changed = global_index.write(global_index.render(m, found), path)
    return GlobalIndexOutcome(path=path, changed=changed, model=m, across=found)
