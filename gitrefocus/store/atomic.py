"""Files are written to a temporary name in the same directory and renamed.

Nothing is read or written through a symlink inside a repository
(docs/ARCHITECTURE.md, "Trust boundaries"): a
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
        if probe != path and not os.path.islink(probe) and _is_repo_top(probe):
            break  # (a symlink to another repository's top is a symlink in this one)
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


class NotRegular(RefocusError):
    """A path where git refocus reads or writes a file holds something else
    (a FIFO, a directory, a socket, a device): never opened, never replaced."""


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symlink"))


def kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _not_regular(path: str, mode: int, what: str) -> NotRegular:
    return NotRegular(f"refusing to {what} {path}: it is {kind(mode)}, not a regular file; move it aside "
                      f"and run the command again.")


MAX_READ = 64 * 1024 * 1024  # briefs, context files, INDEX.md, .gitignore: far smaller; a larger one is not ours


def read_bytes(path: str, limit: int = MAX_READ) -> bytes:
    """The bytes of the regular file ``path``: refused when it is reached
    through a symlink, and opened so that a FIFO (or a device) put in its
    place cannot block the command (:class:`NotRegular`). FileNotFoundError
    when there is no such file."""
    refuse_symlinks(path, "read")
    return read_file(path, limit)


def read_file(path: str, limit: int = MAX_READ) -> bytes:
    """:func:`read_bytes` without the walk up the directories (a place the
    caller already checked): never through a symlink in the last component,
    never blocking on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except IsADirectoryError:
        raise _not_regular(path, stat.S_IFDIR, "read") from None
    except OSError as exc:
        import errno

        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
            raise _not_regular(path, stat.S_IFLNK, "read") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode, "read")
        if st.st_size > limit:
            raise RefocusError(f"refusing to read {path}: it is {st.st_size} bytes, more than {limit}.")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            if sum(len(c) for c in chunks) > limit:
                raise RefocusError(f"refusing to read {path}: it grew past {limit} bytes.")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str, limit: int = MAX_READ) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a RefocusError when it is not)."""
    try:
        return read_bytes(path, limit).decode("utf-8")
    except UnicodeDecodeError:
        raise RefocusError(f"{path} is not valid UTF-8 text; fix or move it aside.") from None


def check_writable(path: str, size: int = 0) -> None:
    """Everything a write of ``size`` bytes to ``path`` needs, checked before
    anything is written: no symlink on the way, no FIFO, directory or other
    non-file in its place, a directory that can be written (not a read-only
    file system), and room for it on the disk (docs/sync-and-repair.md,
    "Writes, reads and errors")."""
    refuse_symlinks(path)
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st.st_mode, "write")
    directory = os.path.dirname(os.path.abspath(path))
    existing = directory
    while not os.path.lexists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        mode = os.lstat(existing).st_mode
        raise NotRegular(f"refusing to write {path}: {existing} is {'a file' if stat.S_ISREG(mode) else kind(mode)}, "
                         f"not a directory.")
    if not os.access(existing, os.W_OK):
        raise WriteFailed(_reason_unwritable(existing), path)
    free = free_bytes(existing)
    if free is not None and free < size + SPACE_MARGIN:
        raise WriteFailed(f"{existing} has {free} bytes free, too few to write {size} bytes safely", path)


SPACE_MARGIN = 64 * 1024  # git objects, refs and the catalog write beside each file


def free_bytes(directory: str) -> int | None:
    try:
        st = os.statvfs(directory)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def _reason_unwritable(directory: str) -> str:
    try:
        if os.statvfs(directory).f_flag & getattr(os, "ST_RDONLY", 1):
            return f"{directory} is on a read-only file system"
    except OSError:
        pass
    return f"{directory} is not writable (permission denied)"


class WriteFailed(RefocusError):
    """A write cannot be made: the disk is full, read-only, or the place not writable."""

    def __init__(self, reason: str, path: str):
        super().__init__(f"cannot write {path}: {reason}.")
        self.reason, self.path = reason, path


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
    """Write ``data`` to a temporary file beside ``path`` and rename it into
    place: a reader sees the old file or the new one, and a killed process
    leaves one of the two. Checked first (:func:`check_writable`)."""
    check_writable(path, len(data))
    directory = os.path.dirname(path) or "."
    faults.point(f"write {path}")
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
    except (OSError, NotRegular):
        pass
    write_bytes(path, data)
    return True
