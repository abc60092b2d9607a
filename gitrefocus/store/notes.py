"""The audit trail in ``refs/notes/refocus``: append a line, read, merge a remote's.

The line format is :mod:`gitrefocus.model.note_line`. A note is added by
building the notes commit with no ref at all (:func:`_note_commit`) and moving
the shared ref by compare-and-swap (:func:`refs.cas`). pygit2's ``create_note``
would move a ref itself, with force, so it needed a scratch ref, and creating
any ref makes libgit2 read all of ``packed-refs`` first (0.07 s at 100k refs).
"""

from __future__ import annotations

from gitrefocus.errors import RefocusError
from gitrefocus.store import refs
from gitrefocus.store.refs import AHEAD, CREATED, FAST_FORWARD, MERGED, SAME
from gitrefocus.store.workspace import load_pygit2

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any

    from pygit2 import Oid, Repository

    from gitrefocus.store.workspace import Workspace

NOTES_REF = "refs/notes/refocus"


def unreadable(repo: Repository, notes_ref: str = NOTES_REF) -> str | None:
    """Why ``notes_ref`` cannot hold notes (it names a blob, tree or tag), or None."""
    oid = refs.resolve(repo, notes_ref)
    if oid is None:
        return None
    obj = repo.get(oid)
    if isinstance(obj, load_pygit2().Commit):
        return None
    kind = type(obj).__name__.lower() if obj is not None else "missing object"
    return f"{notes_ref} points at a {kind}, not a notes commit"


def require_readable(repo: Repository, notes_ref: str = NOTES_REF) -> None:
    """Refuse, before anything is written, when the notes ref is corrupt."""
    why = unreadable(repo, notes_ref)
    if why:
        raise RefocusError(f"{why}; nothing was changed. Run `git refocus doctor --repair` to quarantine it.")


def add_note(repo: Repository, target_oid: Oid | str, line: str, notes_ref: str = NOTES_REF) -> bool:
    """Append ``line`` to the note on ``target_oid`` (once) with compare-and-swap.

    libgit2 builds the notes commit (fan-out and all) on a private scratch
    ref; the shared notes ref is then moved from the commit we started from.
    """

    require_readable(repo, notes_ref)

    def attempt() -> bool:
        old = refs.resolve(repo, notes_ref)
        lines = read_note(repo, target_oid, notes_ref).splitlines() if old is not None else []
        if line in lines:
            return False
        message = "\n".join(lines + [line]) + "\n"
        refs.cas(repo, notes_ref, _note_commit(repo, old, str(target_oid), message), old, "refocus: note")
        return True

    return refs.retrying(f"updating {notes_ref}", attempt)


NOTES_COMMIT_MESSAGE = "Notes added by 'git refocus'\n"


def _note_commit(repo: Repository, parent: Oid | None, target: str, message: str) -> Oid:
    """A notes commit on ``parent`` whose note on ``target`` (hex) is ``message``,
    laid out as libgit2's ``git_note_create`` lays it out: in the existing fan-out
    directory for ``target`` when there is one, else at the top, replacing the old note."""
    pygit2 = load_pygit2()
    blob = repo.create_blob(message.encode("utf-8"))
    tree = repo[parent].peel(pygit2.Tree) if parent is not None else None
    root = _with_note(repo, tree, target, blob)
    sig = pygit2.Signature("git-refocus", "git-refocus@localhost")
    return repo.create_commit(None, sig, sig, NOTES_COMMIT_MESSAGE, root, [parent] if parent is not None else [])


def _with_note(repo: Repository, tree: Any, rest: str, blob: Oid) -> Oid:
    """``tree`` (None: empty) with the note ``blob`` on the object whose hex,
    below this level, is ``rest``."""
    modes = load_pygit2().enums.FileMode
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    fanout = tree[rest[:2]] if tree is not None and len(rest) > 2 and rest[:2] in tree else None
    if fanout is not None and fanout.filemode == modes.TREE:
        builder.insert(rest[:2], _with_note(repo, repo[fanout.id], rest[2:], blob), modes.TREE)
    else:
        builder.insert(rest, blob, modes.BLOB)
    return builder.write()


def read_note(repo: Repository, target_oid: Oid | str, notes_ref: str = NOTES_REF) -> str:
    try:
        return str(repo.lookup_note(str(target_oid), notes_ref).message)
    except KeyError:
        return ""
    except load_pygit2().GitError:  # a corrupt notes ref: reported by doctor, read as no note
        return ""


def merge_notes(ws: Workspace, theirs_ref: str) -> str:
    """Union the remote's notes (at ``theirs_ref``) into ``refs/notes/refocus``.

    Every line is self-contained and timestamped, so the merge is the union of
    the lines on each object, sorted (what ``git notes merge -s cat_sort_uniq``
    makes). Never a fast-forward over lines held here: the remote's commit is
    taken as it is only when it holds every line this repository holds;
    otherwise a merge commit (both tips as parents, so the push is a
    fast-forward) carries the union. The shared ref moves by compare-and-swap.
    """
    theirs_tip = ws.ref_target(theirs_ref)
    if theirs_tip is None or theirs_tip == ws.ref_target(NOTES_REF):
        return SAME  # nothing fetched, or what we have: a no-op sync loads no libgit2
    repo = ws.repo
    theirs = refs.resolve(repo, theirs_ref)
    if theirs is None:
        return SAME
    why = unreadable(repo, theirs_ref)
    if why:
        raise RefocusError(f"the remote's notes are unusable: {why}.")
    their_notes = notes_in(repo, theirs)

    def attempt() -> str:
        ours = refs.resolve(repo, NOTES_REF)
        if ours == theirs:
            return SAME
        if ours is not None and repo.descendant_of(ours, theirs):
            return AHEAD
        our_notes = notes_in(repo, ours) if ours is not None else {}
        theirs_has_all, to_write = True, {}
        for target in our_notes.keys() | their_notes.keys():
            mine, yours = our_notes.get(target), their_notes.get(target)
            if mine == yours:
                continue
            held, sent = _lines(repo, mine), _lines(repo, yours)
            theirs_has_all = theirs_has_all and held <= sent
            if not sent <= held:
                to_write[target] = held | sent
        if theirs_has_all and (ours is None or repo.descendant_of(theirs, ours)):
            refs.cas(repo, NOTES_REF, theirs, ours, "refocus: sync notes (fast-forward)")
            return CREATED if ours is None else FAST_FORWARD
        assert ours is not None  # with no notes here, the remote's hold every line
        pygit2 = load_pygit2()
        tree = repo[ours].peel(pygit2.Tree)
        root = tree.id
        for target, lines in sorted(to_write.items()):
            blob = repo.create_blob(("\n".join(sorted(lines)) + "\n").encode("utf-8"))
            root = _with_note(repo, repo[root], target, blob)
        sig = pygit2.Signature("git-refocus", "git-refocus@localhost")
        merged = repo.create_commit(None, sig, sig, "Notes merged by 'git refocus sync'\n", root, [ours, theirs])
        refs.cas(repo, NOTES_REF, merged, ours, "refocus: sync notes (union)")
        return MERGED

    return refs.retrying(f"merging the remote's notes into {NOTES_REF}", attempt)


MAX_NOTE_BYTES = 1 << 20  # a note of refocus lines is a few KB; a larger one is read no further


def note_text(repo: Repository, blob: Oid | None) -> str:
    """The text of a note blob (at most :data:`MAX_NOTE_BYTES`; "" for none, or one that is no blob)."""
    data = getattr(repo.get(blob), "data", b"") if blob is not None else b""
    return data[:MAX_NOTE_BYTES].decode("utf-8", "replace") if isinstance(data, bytes) else ""


def _lines(repo: Repository, blob: Oid | None) -> frozenset[str]:
    """The non-empty lines of a note blob."""
    return frozenset(line for line in note_text(repo, blob).splitlines() if line.strip())


def notes_in(repo: Repository, commit: Oid) -> dict[str, Oid]:
    """{annotated object (hex): note blob} of the notes commit ``commit``,
    whatever its fan-out (``ab/cdef...`` directories or flat names)."""
    pygit2 = load_pygit2()
    out: dict[str, Oid] = {}

    def walk(tree: Any, prefix: str) -> None:
        for entry in tree:
            name = prefix + entry.name
            if entry.filemode == pygit2.enums.FileMode.TREE and len(entry.name) == 2 and len(name) < 40:
                walk(repo[entry.id], name)
            elif entry.type_str == "blob" and len(name) in (40, 64) and not name.strip("0123456789abcdef"):
                out[name] = entry.id

    walk(repo[commit].peel(pygit2.Tree), "")
    return out
