"""The spawn tree: parent → children chains of refocuses across repositories.

Edges come from ``parent_refocus_id`` (in the folded state, so free to read);
siblings named in a brief's ``related_refocus_ids`` are shown as related, not
as children. A refocus known to several repositories is one node, taken from
its freshest copy. ``git refocus tree`` renders it as text, rich or JSON;
INDEX.md carries it as a mermaid block (:func:`mermaid`).
"""

from __future__ import annotations

import os
import re

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock
from gitrefocus.model.events import RefocusState
from gitrefocus.model.ids import RefocusId
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.model.records import dataclass, field
from gitrefocus.ops import places
from gitrefocus.store import atomic
from gitrefocus.store.catalog import Catalog, Entry

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any

MAX_MERMAID_NODES = 60  # INDEX.md: beyond this a picture stops helping (and GitHub caps diagram size)


@dataclass
class Node:
    id: str
    status: str
    spawned_at: str | None
    source_dir: str | None
    dest_dir: str | None
    repo: str  # where it was read from
    direction: str  # relative to that repository: incoming, outgoing, local
    parent_id: str | None
    related: list[str] = field(default_factory=list)
    children: list["Node"] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return self.id[11:-7]

    @property
    def age(self) -> str:
        if not self.spawned_at:
            return "?"
        hours = clock.age_hours(self.spawned_at)
        if hours < 1:
            return f"{max(0, int(hours * 60))}m"
        return f"{int(hours)}h" if hours < 48 else f"{int(hours // 24)}d"

    source_name: str = "?"  # how each side is named: its repository (and directory), or a directory's name
    dest_name: str = "?"

    @property
    def route(self) -> str:
        """``source → dest`` by name."""
        return f"{self.source_name} → {self.dest_name}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "slug": self.slug, "status": self.status, "spawned_at": self.spawned_at,
                "age": self.age, "source_dir": self.source_dir, "dest_dir": self.dest_dir, "repo": self.repo,
                "direction": self.direction, "parent_refocus_id": self.parent_id, "related_refocus_ids": self.related,
                "children": [c.to_json() for c in self.children]}


def _side_name(state: RefocusState | None, side: str) -> str:
    """A side's name for display: its repository's name and directory as stored,
    or (written before) the name of the directory."""
    place = state.where(side) if state is not None else None
    if place is None:
        return "?"
    name = place.label() if place.portable else _name(place.dir)
    return "".join(ch if ch.isprintable() else "?" for ch in name)


def _name(path: str | None) -> str:
    """A directory's name for display; control characters (a path from a remote's event) become ``?``."""
    name = os.path.basename(path.rstrip(os.sep)) if path else "?"
    return "".join(ch if ch.isprintable() else "?" for ch in name)


@dataclass(frozen=True)
class Forest:
    roots: list[Node]  # oldest first; children oldest first
    nodes: dict[str, Node]
    focus: str | None = None

    def related_pairs(self) -> list[tuple[str, str]]:
        """Each sibling link once, between nodes that are both in the forest."""
        pairs = {tuple(sorted((n.id, r))) for n in self.nodes.values() for r in n.related if r in self.nodes and r != n.id}
        return sorted((a, b) for a, b in pairs)

    def to_json(self) -> dict[str, Any]:
        return {"focus": self.focus, "roots": [r.to_json() for r in self.roots],
                "related": [list(p) for p in self.related_pairs()]}


def _related_ids(cat: Catalog, entry: Entry) -> list[str]:
    """``related_refocus_ids`` from the brief (the file, else the ref's snapshot); [] if unreadable."""
    from gitrefocus.model import frontmatter

    data: bytes | None = None
    try:
        if entry.path and not entry.file_error:
            data = atomic.read_bytes(entry.path)  # refuses a symlink anywhere on the path
        elif entry.snapshot:
            data = getattr(cat.ws.repo[entry.snapshot], "data", None)
        if not data or re.search(rb"^related_refocus_ids: *\[\] *$", data[:8192], re.M):
            return []  # the usual case, without a YAML parse (INDEX.md runs this on every write)
        yaml_text, _ = frontmatter.split(data.decode("utf-8", "replace"), entry.id)
        value = frontmatter.load(yaml_text, entry.id).get("related_refocus_ids")
    except (OSError, RefocusError, KeyError, ValueError, AttributeError):
        return []
    return [v for v in value if isinstance(v, str) and RefocusId.is_valid(v)] if isinstance(value, list) else []


def build(catalogs: list[Catalog], *, only: set[str] | None = None, related: bool = True) -> Forest:
    """Every refocus of ``catalogs`` (or those in ``only``) as a forest."""
    best: dict[str, tuple[tuple[int, int], Catalog, Entry]] = {}
    for cat in catalogs:
        for entry in cat.entries.values():
            if only is not None and entry.id not in only:
                continue
            rank = (entry.state.events if entry.state else 0, 1 if entry.incoming else 0)
            if entry.id not in best or rank > best[entry.id][0]:
                best[entry.id] = (rank, cat, entry)
    nodes: dict[str, Node] = {}
    for rid, (_, cat, entry) in best.items():
        s = entry.state
        nodes[rid] = Node(id=rid, status=entry.status, spawned_at=s.spawned_at if s else None,
                          source_dir=places.local_dir(cat.ws, s, SOURCE, by_id=False) if s else None,
                          dest_dir=places.local_dir(cat.ws, s, DEST, by_id=False) if s else None,
                          repo=cat.ws.workdir, direction=entry.direction,
                          parent_id=s.parent_refocus_id if s else None,
                          related=_related_ids(cat, entry) if related else [],
                          source_name=_side_name(s, SOURCE), dest_name=_side_name(s, DEST))
    roots = []
    for node in sorted(nodes.values(), key=lambda n: (n.spawned_at or "", n.id)):
        parent = nodes.get(node.parent_id or "")
        if parent is not None and not _is_ancestor(nodes, node.id, parent.id):
            parent.children.append(node)
        else:
            roots.append(node)  # no parent here, or a cycle (refused at spawn, possible after a hand edit)
    return Forest(roots=roots, nodes=nodes)


def _is_ancestor(nodes: dict[str, Node], candidate: str, of: str) -> bool:
    """``candidate`` is ``of`` or one of its ancestors (guards against parent cycles)."""
    seen = set()
    current: str | None = of
    while current and current not in seen:
        if current == candidate:
            return True
        seen.add(current)
        node = nodes.get(current)
        current = node.parent_id if node else None
    return False


def focus(forest: Forest, rid: str) -> Forest:
    """The tree that holds ``rid``: from its root ancestor down."""
    node = forest.nodes[rid]
    seen = {rid}
    while node.parent_id in forest.nodes and node.parent_id not in seen:
        seen.add(node.parent_id)
        parent = forest.nodes[node.parent_id]
        if node not in parent.children:
            break
        node = parent
    members: dict[str, Node] = {}

    def collect(n: Node) -> None:
        members[n.id] = n
        for c in n.children:
            collect(c)

    collect(node)
    return Forest(roots=[node], nodes=members, focus=rid)


_UNSAFE = re.compile(r"[\"'`<>\[\]{}()|#&;\\]")


def _label(text: str) -> str:
    """Text safe inside a mermaid ``["…"]`` label: no quotes, brackets, entities or
    markup from names; letters of any script are kept (``café``, ``日本``)."""
    return _UNSAFE.sub("_", "".join(ch if ch.isprintable() else "_" for ch in text))[:60]


def mermaid(forest: Forest, *, limit: int = MAX_MERMAID_NODES) -> list[str]:
    """A ```mermaid flowchart of the forest (newest ``limit`` nodes), as markdown lines."""
    ordered = sorted(forest.nodes.values(), key=lambda n: (n.spawned_at or "", n.id), reverse=True)[:limit]
    ids = {n.id: f"n{i}" for i, n in enumerate(sorted(ordered, key=lambda n: (n.spawned_at or "", n.id)))}
    lines = ["```mermaid", "flowchart TD"]
    for n in sorted(ordered, key=lambda n: int(ids[n.id][1:])):
        text = (f"{_label(n.slug)} · {n.id[-6:]}<br/>{_label(n.status)} · "
                f"{_label(n.source_name)} → {_label(n.dest_name)}")
        lines.append(f'  {ids[n.id]}["{text}"]')
    for n in ordered:
        for c in n.children:
            if c.id in ids:
                lines.append(f"  {ids[n.id]} --> {ids[c.id]}")
    for a, b in forest.related_pairs():
        if a in ids and b in ids:
            lines.append(f"  {ids[a]} -. related .- {ids[b]}")
    lines.append("```")
    return lines
