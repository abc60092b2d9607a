"""Where each side of a refocus is on this machine.

Briefs and event logs store each side as a :class:`~gitrefocus.model.place.Place`:
the repository's identity and the directory relative to its root. Here that is
turned into a directory of this machine when something is shown or opened:

1. the repository asking, when it is that repository (any of its work trees:
   the one asking is the one meant);
2. the counterpart spawn recorded on this machine for the refocus (local state);
3. a repository of the user's registry (``init`` and ``spawn`` add to it) that
   holds that identity.

None when it is on none of them: a teammate's repository that is not cloned
here. People are then told its name and directory (:meth:`Place.label`).
Places written before identities (an absolute path) are taken as written.

See docs/paths-and-identity.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from gitrefocus.model.events import RefocusState
from gitrefocus.model.place import DEST, SOURCE, Place
from gitrefocus.store import identity, localstate, registry
from gitrefocus.store.workspace import Workspace, is_inside, resolved

COUNTERPARTS = "counterparts"  # local state: refocus id -> the other repository spawn wrote to
_known: dict[str, str | None] = {}  # identity -> a registered work tree holding it (this process)
_scanned: set[str] = set()  # registered work trees whose identity was read


def other(side: str) -> str:
    return DEST if side == SOURCE else SOURCE


def registered(repo_id: str) -> str | None:
    """A registered repository on this machine whose identity is ``repo_id``."""
    if repo_id in _known:
        return _known[repo_id]
    for path in registry.entries():
        if path in _scanned:
            continue
        _scanned.add(path)
        ws = Workspace.try_open(path)
        found = identity.read(ws) if ws is not None and ws.workdir == os.path.realpath(path) else None
        if found is not None:
            _known.setdefault(found, ws.workdir if ws is not None else None)
        if found == repo_id:
            return _known[repo_id]
    _known[repo_id] = None
    return None


def recorded_counterpart(ws: Workspace, refocus_id: str) -> str | None:
    """The work tree spawn recorded here as the other repository of ``refocus_id``."""
    try:
        text = (localstate.read(ws.git_dir, COUNTERPARTS, refocus_id) or "").strip()
    except Exception:  # noqa: BLE001 - unreadable local state: nothing recorded
        return None
    return os.path.realpath(text) if text else None


def repository_root(ws: Workspace, repo_id: str, refocus_id: str | None = None) -> str | None:
    """The work tree on this machine of the repository ``repo_id`` names
    (``refocus_id``: also the counterpart spawn recorded for it)."""
    if identity.read(ws) == repo_id:
        return ws.workdir
    found = _known.get(repo_id)
    if found is not None:
        return found
    if refocus_id is not None:
        path = recorded_counterpart(ws, refocus_id)
        other = Workspace.try_open(path) if path else None
        if other is not None and identity.read(other) == repo_id:
            _known[repo_id] = other.workdir  # refocuses share a handful of repositories
            return other.workdir
    return registered(repo_id)


def inside(root: str, directory: str) -> str | None:
    """``directory`` (relative, as stored) below ``root``, resolved; None when a
    symlink on the way leads out of ``root``. A root is resolved once per process
    (INDEX.md's rows name a handful of repositories a hundred times)."""
    real_root = resolved(root)
    if directory in ("", "."):
        return real_root
    path = os.path.realpath(os.path.join(root, directory))
    return path if is_inside(path, real_root) else None


def local_dir(ws: Workspace, state: RefocusState, side: str, *, by_id: bool = True) -> str | None:
    """The directory ``side`` works in on this machine, or None. ``by_id``: also
    look at the counterpart spawn recorded for this refocus (a file read)."""
    return directory(ws, state.where(side), state.id if by_id else None)


def directory(ws: Workspace, place: Place | None, refocus_id: str | None = None) -> str | None:
    """``place`` on this machine (``refocus_id``: also look at the counterpart
    spawn recorded for it), or None."""
    if place is None:
        return None
    if not place.portable:
        return place.dir
    assert place.repo_id is not None
    root = repository_root(ws, place.repo_id, refocus_id)
    return inside(root, place.dir) if root is not None else None


def shown_place(ws: Workspace, place: Place | None, refocus_id: str | None = None, *, short: bool = True) -> str:
    """:func:`shown` for a place read from a brief (``short``: ``~/…``; else the
    absolute path, as the agent is told paths)."""
    found = directory(ws, place, refocus_id)
    if found is not None:
        return home(found) if short else found
    return f"{place.label()} (not on this machine)" if place is not None else "(unknown)"


def home(path: str) -> str:
    """``path`` with the home directory written ``~`` (as INDEX.md and ``list --global`` show it)."""
    base = os.path.expanduser("~").rstrip(os.sep)
    return "~" + path[len(base):] if base and is_inside(path, base) and path != base else path


def route(direction: str, counterpart: str | None, shown: Callable[[str], str] = str) -> str:
    """Where a refocus goes as a listing shows it: "from ~/a" for an incoming
    one, "to ~/b" for an outgoing one (the counterpart's directory, through
    :func:`home`, then ``shown``); "" when the counterpart is unknown."""
    if not counterpart:
        return ""
    return ("from " if direction == "incoming" else "to ") + shown(home(counterpart))


def shown(ws: Workspace, state: RefocusState, side: str, *, by_id: bool = True, short: bool = True) -> str:
    """``side`` as a person is told it: the directory here (``~/…``), else the
    repository's name and directory, "not on this machine"."""
    return shown_place(ws, state.where(side), state.id if by_id else None, short=short)


def label(state: RefocusState, side: str) -> str:
    """``side`` as stored, for text that enters shared history (notes, results)."""
    place = state.where(side)
    return place.label() if place is not None else ""


def counterpart_dirs(ws: Workspace, state: RefocusState) -> list[str]:
    """The directories of this machine where the refocus's sides work (the
    source's, then the destination's), for finding the other repository."""
    return [d for d in (local_dir(ws, state, SOURCE), local_dir(ws, state, DEST)) if d]


def place_of(ws: Workspace, directory: str) -> Place:
    """How a directory of ``ws`` (absolute, resolved) is stored: portable."""
    from gitrefocus.model.place import NAME_MAX, relative_dir

    name = "".join(ch if ch.isprintable() else "?" for ch in identity.repository_name(ws))[:NAME_MAX]
    return Place(relative_dir(directory, ws.workdir), identity.ensure(ws), name or None)


def relaunch(ws: Workspace, state: RefocusState, *, short: bool = True) -> str:
    """The command that starts (or resumes) the child session of ``state`` on this
    machine (``short``: the home directory written ``~``); where the destination
    is not here, the command and the repository it runs in."""
    from gitrefocus.model import agents
    from gitrefocus.store.transcripts import find_transcript

    agent = agents.of_state(state.extra)
    sid = str(agents.child_session(state))
    dest = local_dir(ws, state, DEST)
    launched = bool(state.launched_at) or (agent == agents.CLAUDE and dest is not None
                                           and find_transcript(dest, sid) is not None)
    if dest is None:
        if agent != agents.CLAUDE:
            return f"git refocus show {state.id} (the child runs in {agent}, in {label(state, DEST)}, not on this machine)"
        return (f"claude {'--resume' if launched else '--session-id'} {sid} "
                f"(in {label(state, DEST)}, not on this machine)")
    writable = child_writable(Workspace.try_open(dest), Workspace.try_open(local_dir(ws, state, SOURCE) or dest)) \
        if agent == agents.CODEX else []  # only a Codex child's sandbox needs them (opening costs)
    return agents.relaunch_command(agent, dest, sid, refocus_id=state.id, writable=writable, resume=launched,
                                   home=os.path.expanduser("~") if short else None)


def child_writable(dest: Workspace | None, source: Workspace | None) -> list[str]:
    """What a sandboxed child (Codex) must be able to write outside its working directory: the
    git dirs of both repositories (commits, the event log, notes, local state) and their
    docs/refocus (the brief and INDEX.md)."""
    out: list[str] = []
    for ws in (dest, source):
        if ws is not None:
            out += [ws.common_dir, ws.refocus_dir]
    return list(dict.fromkeys(out))
