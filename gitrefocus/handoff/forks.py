"""The parentUuid tree of a transcript: deduplication, and forks told apart.

One small entry per record (array slots, and the record's uuid string as its key:
the decoded string itself, kept rather than a new compact key made per record),
so a long session's graph stays small.
"""

from __future__ import annotations

from array import array
from itertools import compress

from gitrefocus.model.records import dataclass

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable


@dataclass
class Rewind:
    """A real rewind: ``abandoned`` messages replaced by the branch starting at ``replacement``."""

    abandoned: list[int]
    replacement: int


class Graph:
    """The parentUuid tree, one small entry per record, for dedupe and forks."""

    NONE = -1
    NO_TIME = -1

    def __init__(self) -> None:
        self.index: dict[str, int] = {}       # uuid -> node
        self.parent = array("q")              # node id, or NONE; unresolved ones wait in `pending`
        self.pending: dict[int, str] = {}     # node -> parent uuid not seen yet
        # only compared for equality (siblings written at the same instant): a hash per node
        # keeps the graph flat in memory; NO_TIME for records without one
        self.times = array("q")
        self.message = array("q")             # index into messages, or NONE

    def __len__(self) -> int:
        return len(self.parent)

    def contains(self, uuid: str) -> bool:
        return uuid in self.index

    def add(self, uuid: str, parent: str | None, timestamp: str | None) -> int:
        node = len(self.parent)
        self.index[uuid] = node
        target = -1  # NONE
        if parent:
            target = self.index.get(parent, -1)
            if target == -1:
                self.pending[node] = parent
        self.parent.append(target)
        self.message.append(-1)
        self.times.append(-1 if timestamp is None else hash(timestamp))  # hash() is never -1 (NO_TIME)
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
    # flat structures, one byte or slot per node: a 500 MB session has ~250k nodes; the path
    # usually holds nearly all of them, so what is done per node is kept to a few array reads
    parents, message = g.parent, g.message
    on_path = _OnPath(len(g))
    flags = on_path.flags
    path_child = _PathChild(len(g))
    children = path_child.child
    msg_on_path = bytearray(message_count)
    node, below = leaf, Graph.NONE
    while node != Graph.NONE and not flags[node]:  # the leaf's ancestors, up to a cycle
        flags[node] = 1
        children[node] = below
        msg = message[node]
        if msg >= 0:
            msg_on_path[msg] = 1
        below, node = node, parents[node]
    if node != Graph.NONE:  # a cycle: the last ancestor's parent has a child on the path already;
        children[node] = max(children[node], below)  # of two, the later node is the path's
    fork: dict[int, tuple[int, int | None] | None] = {}
    groups: dict[tuple[int, int | None], list[int]] = {}
    for node in compress(range(len(g)), flags.translate(_OFF_PATH)):
        msg = message[node]
        if msg < 0:
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


_OFF_PATH = bytes.maketrans(b"\x00\x01", b"\x01\x00")  # an _OnPath's flags, inverted


class _OnPath:
    """A set of node ids as one byte per node."""

    def __init__(self, size: int) -> None:
        self.flags = bytearray(size)

    def add(self, node: int) -> None:
        self.flags[node] = 1

    def __contains__(self, node: int) -> bool:
        return 0 <= node < len(self.flags) and self.flags[node] == 1


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
