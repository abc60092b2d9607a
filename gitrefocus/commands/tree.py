"""``git refocus tree [ID]``: the spawn tree, parent → children, across repositories.

Without ``--global`` it reads this repository and, one hop out, each
counterpart repository its refocuses name (when it is on this machine and
passes the same checks as a registry entry), so a chain that continues in
another repository is still drawn. With ``--global`` it reads the registry.
"""

from __future__ import annotations

from typing import Any

from gitrefocus.model.records import dataclass, field
from gitrefocus.ops import across, places, spawn_tree
from gitrefocus.ops.spawn_tree import Forest
from gitrefocus.store import catalog
from gitrefocus.store.catalog import Catalog, match_ids
from gitrefocus.store.workspace import Workspace

MAX_COUNTERPARTS = 200


@dataclass(frozen=True)
class TreeOutcome:
    forest: Forest
    repositories: list[str]
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return self.forest.to_json() | {"repositories": self.repositories, "warnings": self.warnings}


def _with_counterparts(ws: Workspace) -> list[Catalog]:
    here = catalog.load(ws)
    cats, seen = [here], {ws.common_dir}
    dirs = sorted({d for e in here.entries.values() if e.state for d in places.counterpart_dirs(ws, e.state)})
    for path in dirs[:MAX_COUNTERPARTS]:
        problem = across.check(path)
        other = Workspace.try_open(path) if problem is None else None
        if other is None or other.common_dir in seen:
            continue
        seen.add(other.common_dir)
        cats.append(catalog.load(other))
    return cats


def tree(*, refocus_id: str | None = None, global_: bool = False, prune: bool = False, cwd: str = ".") -> TreeOutcome:
    if global_:
        found = across.open_all(prune=prune)
        cats, warnings = found.repos, found.warnings
    else:
        cats, warnings = _with_counterparts(Workspace.open(cwd)), []
    forest = spawn_tree.build(cats)
    if refocus_id:
        from gitrefocus.errors import RefocusError

        matches = match_ids(forest.nodes.keys(), refocus_id)
        if len(matches) != 1:
            raise RefocusError(f"unknown refocus id {refocus_id!r} (see `git refocus list`)." if not matches else
                               f"ambiguous refocus id {refocus_id!r}: matches {', '.join(matches[:5])}.")
        forest = spawn_tree.focus(forest, matches[0])
    return TreeOutcome(forest=forest, repositories=[c.ws.workdir for c in cats], warnings=warnings)
