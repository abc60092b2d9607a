"""Files are written to a temporary name in the same directory and renamed.

Nothing is read or written through a symlink inside a repository (SPEC §13): a
symlinked ``CLAUDE.md``, ``.gitignore``, ``docs/refocus`` or
``docs/refocus/transcripts`` could point anywhere, and following it would copy
or overwrite a file the repository does not own. :func:`refuse_symlinks` checks
the path and every directory between it and the top of its repository.
"""

from __future__ import annotations

import os
import stat

from gitrefocus.errors import RefocusError
from gitrefocus.store import faults


class SymlinkRefused(RefocusError):
    """A path inside a repository is, or passes through, a symlink."""


def _is_repo_top(directory: str) -> bool:
    """A work tree's top (holds ``.git``) or a git dir itself (holds HEAD and objects)."""
    return os.path.lexists(os.path.join(directory, ".git")) or (
        os.path.isfile(os.path.join(directory, "HEAD")) and os.path.isdir(os.path.join(directory, "objects")))


def refuse_symlinks(path: str, what: str = "write") -> None:
    """Raise :class:`SymlinkRefused` when ``path`` or a directory between it and the
    top of its repository is a symlink. Outside any repository only ``path`` itself
    is checked (the user chose that place)."""
    path = os.path.abspath(path)
    below_top = []  # path and its ancestors, up to (not including) the repository's top
    probe = path
    while True:
        if probe != path and _is_repo_top(probe):
            break
        below_top.append(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            below_top = [path]  # no repository above: only the file itself
            break
        probe = parent
    for candidate in below_top:
        try:
            mode = os.lstat(candidate).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue
        if stat.S_ISLNK(mode):
            target = os.readlink(candidate)
            raise SymlinkRefused(
                f"refusing to {what} {path}: {candidate} is a symlink (to {target}); "
                f"git refocus never follows symlinks inside a repository. Replace it with a regular "
                f"{'file' if candidate == path else 'directory'}.")


def what_failed(exc: BaseException) -> str:
    """What a failed write could not write, in one phrase for an error line."""
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename} ({exc.strerror or exc})"
    return str(exc).rstrip(".")


def read_bytes(path: str) -> bytes:
    """The bytes of ``path``, refused when it is reached through a symlink."""
    refuse_symlinks(path, "read")
    with open(path, "rb") as fh:
        return fh.read()


# the flags tempfile.mkstemp opens with: a file that did not exist, never through a symlink
# (and, as every descriptor Python opens, not inherited by the processes it starts)
_NEW_FILE = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def _new_beside(directory: str) -> tuple[int, str]:
    """A new file in ``directory``, open, and its path: what ``tempfile.mkstemp``
    makes, without importing tempfile (5 ms with shutil and random), which every
    session start would pay for the one small file it writes."""
    for _ in range(100):
        tmp = os.path.join(directory, f".tmp-{os.urandom(6).hex()}")
        try:
            return os.open(tmp, _NEW_FILE, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


def write_bytes(path: str, data: bytes) -> None:
    refuse_symlinks(path)
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    fd, tmp = _new_beside(directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        faults.wrote(path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_text(path: str, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_text_if_changed(path: str, text: str) -> bool:
    """Write ``text`` unless ``path`` already holds it, so that nothing visible
    changing leaves the file (its mtime, git's index) alone; True when it wrote."""
    data = text.encode("utf-8")
    try:
        if read_bytes(path) == data:
            return False
    except OSError:
        pass
    write_bytes(path, data)
    return True
