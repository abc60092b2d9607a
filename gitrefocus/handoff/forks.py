"""The parentUuid tree of a transcript: deduplication, and forks told apart.

One small entry per record (an array slot and a 16-byte key for a canonical
UUID), so a long session's graph stays small.
"""

from __future__ import annotations

from array import array

from gitrefocus.model.records import dataclass

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable, Iterator


@dataclass
class Rewind:
    """A real rewind: ``abandoned`` messages replaced by the branch starting at ``replacement``."""

    abandoned: list[int]
    replacement: int


def key(uuid: str) -> bytes | str:
    """A compact dict key: 16 bytes for a canonical UUID, the string otherwise."""
    if len(uuid) == 36 and uuid[8] == "-":
        try:
            return bytes.fromhex(uuid.replace("-", ""))
        except ValueError:
            pass
    return uuid


_HASH_MASK = (1 << 62) - 1  # non-negative, so it never equals NO_TIME


class Graph:
    """The parentUuid tree, one small entry per record, for dedupe and forks."""

    NONE = -1
    NO_TIME = -1

    def __init__(self) -> None:
        self.index: dict[bytes | str | None, int] = {}  # key(uuid) -> node
        self.parent = array("q")              # node id, or NONE; unresolved ones wait in `pending`
        self.pending: dict[int, bytes | str | None] = {}  # node -> parent key not seen yet
        # only compared for equality (siblings written at the same instant): a hash per node
        # keeps the graph flat in memory; NO_TIME for records without one
        self.times = array("q")
        self.message = array("q")             # index into messages, or NONE
        self._last: tuple[str | None, bytes | str | None] = (None, None)      # (uuid, key) of the last node: most parents

    def __len__(self) -> int:
        return len(self.parent)

    def contains(self, uuid: str) -> bool:
        return key(uuid) in self.index

    def add(self, uuid: str, parent: str | None, timestamp: str | None, ukey: bytes | str | None = None) -> int:
        """Add a node; ``ukey`` is ``key(uuid)`` when the caller has it already."""
        node = len(self.parent)
        if ukey is None:
            ukey = key(uuid)
        self.index[ukey] = node
        target = self.NONE
        if parent:
            last_uuid, last_key = self._last
            pkey = last_key if parent == last_uuid else key(parent)
            target = self.index.get(pkey, self.NONE)
            if target == self.NONE:
                self.pending[node] = pkey
        self.parent.append(target)
        self.message.append(self.NONE)
        self.times.append(self.NO_TIME if timestamp is None else hash(timestamp) & _HASH_MASK)
        self._last = (uuid, ukey)
        return node

    def resolve(self) -> None:
        for node, pkey in self.pending.items():
            self.parent[node] = self.index.get(pkey, self.NONE)
        self.pending.clear()

    def parent_of(self, node: int) -> int | None:
        p = self.parent[node]
        return None if p == self.NONE else p

    def timestamp_of(self, node: int) -> int | None:
        """A stand-in for the record's timestamp: equal for equal timestamps."""
        t = self.times[node]
        return None if t == self.NO_TIME else t

    def ancestors(self, node: int | None) -> Iterator[int]:
        seen = set()
        while node is not None and node not in seen:
            seen.add(node)
            yield node
            node = self.parent_of(node)


def linearize(g: Graph, leaf: int | None, message_count: int, is_user_turn: Callable[[int], bool],
              stats: Counter[str]) -> tuple[list[bool], list[Rewind]]:
    """Which messages stay in the spine, and the real rewinds found.

    Off the leaf's path, a branch is a recording artifact (siblings written at the
    same instant, parallel tool calls, tool results) and stays, linearized in file
    order; it is a real rewind only when both the abandoned branch and the path's
    replacement begin with a prompt the user typed. Then the abandoned messages go
    and a marker takes their place. Messages not connected to the leaf are kept.
    ``is_user_turn(message_index)`` says whether a message is a typed prompt.
    """
    keep: list[bool] = [True] * message_count
    rewinds: list[Rewind] = []
    if leaf is None:
        return keep, rewinds
    # flat structures, one byte or slot per node: a 500 MB session has ~250k nodes
    on_path = _OnPath(len(g))
    for node in g.ancestors(leaf):
        on_path.add(node)
    path_child = _PathChild(len(g))
    msg_on_path = bytearray(message_count)
    for node in on_path.nodes():
        parent = g.parent_of(node)
        if parent is not None and parent in on_path:
            path_child[parent] = node
        if g.message[node] >= 0:
            msg_on_path[g.message[node]] = 1
    fork: dict[int, tuple[int, int | None] | None] = {}
    groups: dict[tuple[int, int | None], list[int]] = {}
    for node, msg in enumerate(g.message):
        if msg < 0 or node in on_path:
            continue
        if msg_on_path[msg]:
            continue  # another line of the same merged message is on the path
        result = _fork_of(g, node, on_path, fork)
        if result is None:
            continue  # not connected to the leaf's history: keep, cannot judge
        groups.setdefault(result, []).append(msg)
    for (fork_node, branch), msgs in groups.items():
        child = path_child.get(fork_node)
        replacement = _first_message_from(g, child, path_child)
        if replacement is None or not _is_rewind(g, branch, child, is_user_turn(min(msgs)), replacement, is_user_turn):
            stats["forks_linearized"] += 1
            continue
        abandoned = sorted(set(msgs))
        stats["rewinds"] += 1
        stats["rewound_messages"] += len(abandoned)
        for m in abandoned:
            keep[m] = False
        rewinds.append(Rewind(abandoned, replacement))
    return keep, rewinds


class _OnPath:
    """A set of node ids as one byte per node."""

    def __init__(self, size: int) -> None:
        self.flags = bytearray(size)

    def add(self, node: int) -> None:
        self.flags[node] = 1

    def __contains__(self, node: int) -> bool:
        return 0 <= node < len(self.flags) and self.flags[node] == 1

    def nodes(self) -> Iterator[int]:
        return (i for i, f in enumerate(self.flags) if f)


class _PathChild:
    """node -> its child on the leaf's path, as one array slot per node."""

    def __init__(self, size: int) -> None:
        self.child = array("q", [Graph.NONE]) * size

    def __setitem__(self, node: int, child: int) -> None:
        self.child[node] = child

    def get(self, node: int | None, default: int | None = None) -> int | None:
        if node is None or not 0 <= node < len(self.child):
            return default
        c = self.child[node]
        return default if c == Graph.NONE else c


def _fork_of(g: Graph, node: int, on_path: _OnPath, memo: dict[int, tuple[int, int | None] | None]) -> tuple[int, int | None] | None:
    """(fork node on the path, the child below it on this branch), or None."""
    trail = []
    current: int | None = node
    below: int | None = None
    result: tuple[int, int | None] | None = None
    steps = 0
    while True:
        steps += 1
        if current is None or steps > len(g) + 1:
            result = None
            break
        if current in on_path:
            result = (current, below)
            break
        if current in memo:
            result = memo[current]
            break
        trail.append(current)
        below, current = current, g.parent_of(current)
    for t in trail:
        memo[t] = result
    return result


def _first_message_from(g: Graph, node: int | None, path_child: _PathChild) -> int | None:
    """The first message at or below ``node`` along the leaf's path."""
    steps = 0
    while node is not None and steps <= len(g):
        steps += 1
        if g.message[node] >= 0:
            return g.message[node]
        node = path_child.get(node)
    return None


def _is_rewind(g: Graph, branch: int | None, child: int | None, branch_starts_with_prompt: bool, replacement: int | None,
               is_user_turn: Callable[[int], bool]) -> bool:
    if branch is None or child is None or replacement is None:  # branch: never None (see _fork_of)
        return False
    if g.timestamp_of(branch) is not None and g.timestamp_of(branch) == g.timestamp_of(child):
        return False  # recording artifact: siblings written at the same instant
    return branch_starts_with_prompt and is_user_turn(replacement)
