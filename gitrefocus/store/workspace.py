"""A repository taking part in refocus: its work tree, git dir and settings."""

from __future__ import annotations

import os
import stat
import subprocess
from functools import cached_property, lru_cache

from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import ARCHIVE_DIR, BRIEF_DIR, REF_PREFIX, TRANSCRIPTS_DIR, brief_relpath
from gitrefocus.store import config as _config
from gitrefocus.store import git

TYPE_CHECKING = False  # no `typing` at run time: the post-tool-use hook imports this module
if TYPE_CHECKING:
    from types import EllipsisType
    from typing import Any, overload

    from pygit2 import Oid, Repository, Signature

REFOCUS_DIR = BRIEF_DIR
HOOK_MARKER = "# git-refocus-hook-version:"  # in every version of our commit-msg hook
CHAIN_MARKER = "git-refocus-chain"  # in the line a team's tracked hook runs ours with
PRIVATE_HOOK = "refocus-hooks/commit-msg"  # ours, under the common git dir, when a tracked hook chains it


def load_pygit2() -> Any:  # the module
    """pygit2, imported where a repository is first opened or written (~120 ms:
    the hooks and listings never pay it)."""
    import pygit2

    return pygit2


@lru_cache(maxsize=4096)
def resolved(path: str) -> str:
    """``os.path.realpath(path)``, once per process: a command's entries and INDEX rows
    name a handful of work trees again and again (a symlink moved meanwhile is not seen
    by this process)."""
    return os.path.realpath(path)


def is_inside(path: str, directory: str) -> bool:
    """``path`` is ``directory`` or lies below it. Both must already be absolute
    and resolved (``os.path.realpath``): this compares names, it reads nothing."""
    if directory == os.sep:
        return path.startswith(os.sep)
    directory = directory.rstrip(os.sep)
    return path == directory or path.startswith(directory + os.sep)


def relative_inside(path: str, directory: str) -> str | None:
    """``path`` relative to ``directory`` when it lies inside it, else None.

    A slice, not ``os.path.relpath`` (which normalises both paths again): the
    catalog calls this once per brief, tens of thousands of times a listing."""
    if not is_inside(path, directory):
        return None
    if path == directory.rstrip(os.sep) or path == directory:
        return "."
    return path[len(directory.rstrip(os.sep)) + 1:]


def named(path: str) -> tuple[str, str] | None:
    """(git dir, work tree) of the repository ``GIT_DIR`` / ``GIT_WORK_TREE``
    name, when they name one and it is ``path``'s (:func:`git.names`): git's
    rule (``git --git-dir=X refocus`` acts on X, as every git it runs does). None
    otherwise, and at no cost when neither is set: discovery walks up from
    ``path``, and git run for it is given neither (:func:`git.environment`)."""
    found = git.named_repository()
    if found is None or not git.names(path, found):
        return None
    return found


def find_git_dir(path: str) -> str | None:
    """The git dir of the repository containing ``path`` (no pygit2 needed)."""
    given = named(path)
    if given is not None:
        return given[0]
    probe = os.path.realpath(path)
    while True:
        dotgit = os.path.join(probe, ".git")
        if os.path.isdir(dotgit):
            return dotgit
        if os.path.isfile(dotgit):
            with open(dotgit, encoding="utf-8", errors="replace") as fh:
                line = fh.readline().strip()
            if line.startswith("gitdir:"):
                target = line[7:].strip()
                return os.path.normpath(os.path.join(probe, target))
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def open_git_dir(git_dir: str) -> Repository:
    """libgit2's repository at exactly ``git_dir``. Without NO_DOTGIT libgit2 tries
    ``git_dir/.git`` first, and a sandbox that writes its agent's git dir but protects every
    ``.git`` below a writable root (Codex CLI) mounts an empty one there (docs/agents.md)."""
    pygit2 = load_pygit2()
    flags = pygit2.enums.RepositoryOpenFlag
    repo: Repository = pygit2.Repository(git_dir, flags=flags.NO_DOTGIT | flags.NO_SEARCH)
    return repo


def common_dir(git_dir: str) -> str:
    """The git dir that the work trees of ``git_dir``'s repository share (refs/,
    packed-refs, objects/, hooks/): the one its ``commondir`` file names (a
    linked worktree's git dir), resolved; else ``git_dir`` itself."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            return os.path.realpath(os.path.join(git_dir, fh.read().strip()))
    except (OSError, UnicodeDecodeError):
        return git_dir


def _valid_git_dir(path: str) -> bool:
    """``path`` holds a repository as libgit2 checks one: HEAD, and objects/ and
    refs/ or a ``commondir`` (a linked worktree's git dir)."""
    j = os.path.join
    return os.path.isfile(j(path, "HEAD")) and (
        (os.path.isdir(j(path, "objects")) and os.path.isdir(j(path, "refs"))) or os.path.isfile(j(path, "commondir")))


def _plain_config(git_dir: str) -> bool:
    """The repository's own config files set nothing that moves or removes its
    work tree (``core.bare``, ``core.worktree``) and include no other file that could."""
    names = [os.path.join(git_dir, "config"), os.path.join(git_dir, "config.worktree")]
    try:
        with open(os.path.join(git_dir, "commondir"), "rb") as fh:
            names.append(os.path.join(git_dir, fh.read().strip().decode("utf-8", "surrogateescape"), "config"))
    except FileNotFoundError:
        pass
    for name in names:
        try:
            with open(name, "rb") as fh:
                text = fh.read().lower()
        except FileNotFoundError:
            continue
        if b"include" in text or b"worktree" in text.replace(b"worktreeconfig", b""):
            return False
        for line in text.splitlines():
            key, eq, value = line.partition(b"=")
            if key.strip() == b"bare" and (not eq or value.split(b"#")[0].split(b";")[0].strip()
                                            not in (b"false", b"no", b"off", b"0")):
                return False
    return True


def discover(path: str) -> tuple[str, str] | None:
    """(git dir, work tree), both resolved, of the ordinary repository
    containing ``path``, found without libgit2 the way libgit2 finds it (each
    parent's ``.git`` then the parent itself, never across a file system); None
    for anything else for libgit2 to decide: a bare repository, one owned by
    another user (``safe.directory``), a ``.git`` that is no repository,
    a config that moves the work tree. ``GIT_DIR`` / ``GIT_WORK_TREE`` decide
    for the paths in the repository they name (:func:`named`)."""
    given = named(path)
    if given is not None:
        return given
    probe = os.path.realpath(path)
    try:
        device = os.stat(probe).st_dev
    except OSError:
        return None
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    while True:
        dotgit = os.path.join(probe, ".git")
        try:
            st = os.stat(dotgit)
        except OSError:
            st = None
        if st is not None:
            if st.st_dev != device:
                return None
            if stat.S_ISREG(st.st_mode):
                try:
                    with open(dotgit, "rb") as fh:
                        line = fh.readline().decode("utf-8", "surrogateescape").strip()
                except OSError:
                    return None
                if not line.startswith("gitdir:"):
                    return None
                git_dir = os.path.realpath(os.path.join(probe, line[7:].strip()))
            elif stat.S_ISDIR(st.st_mode):
                git_dir = os.path.realpath(dotgit)
            else:
                return None
            if not _valid_git_dir(git_dir) or not _plain_config(git_dir):
                return None
            if uid is not None and any(os.stat(p).st_uid != uid for p in (probe, git_dir)):
                return None
            return git_dir, probe
        if _valid_git_dir(probe):  # a bare repository
            return None
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        try:
            if os.stat(parent).st_dev != device:
                return None
        except OSError:
            return None
        probe = parent


# packed-refs files read in this process: path -> ((inode, mtime, size), snapshot). A ref
# store rewrites packed-refs by renaming a new file over it, so a changed file changes the key.
_PACKED_FILES: dict[str, tuple[tuple[int, int, int], _PackedRefs]] = {}
_PACKED_KEEP = 8  # files kept at once (a global listing visits many repositories)


class _PackedRefs:
    """One packed-refs file as read: its lines of ``<id> <refname>``, each
    followed by the ``^<id>`` lines peeling it. Looked up by bisection when the
    header says the file is ``sorted`` (git writes it so), as git and libgit2
    do; else through a dict built on the first lookup."""

    def __init__(self, data: bytes):
        self.data = data
        self.start = 0
        if data.startswith(b"#"):  # "# pack-refs with: <traits> "
            end = data.find(b"\n")
            header = data[:end] if end >= 0 else data
            self.sorted = b"sorted" in header.partition(b":")[2].split()
            self.start = end + 1 if end >= 0 else len(data)
        else:
            self.sorted = False
        self.end = data.rfind(b"\n") + 1  # an unterminated last line is not read
        self._names: dict[bytes, bytes] | None = None

    def get(self, refname: str) -> str | None | EllipsisType:
        """``refname``'s 40-hex id, None when it is not there, ``...`` when
        it is there in a form this does not read (another hash's length)."""
        name = refname.encode()
        oid = self._bisect(name) if self.sorted else self._dict().get(name)
        if oid is None:
            return None
        return oid.decode() if _hex(oid) else ...

    def _dict(self) -> dict[bytes, bytes]:
        if self._names is None:
            names: dict[bytes, bytes] = {}
            for line in self.data[self.start:self.end].split(b"\n"):
                oid, space, name = line.partition(b" ")
                if space and not line.startswith((b"^", b"#")):
                    names.setdefault(name, oid)  # the first line naming it, as a scan finds
            self._names = names
        return self._names

    def _bisect(self, name: bytes) -> bytes | None:
        data, lo, hi = self.data, self.start, self.end  # lo and hi: at the start of a record
        while lo < hi:
            mid = (lo + hi) // 2
            start = data.rfind(b"\n", lo, mid) + 1 or lo  # the line holding mid
            while data.startswith(b"^", start) and start > lo:  # a peeled line: back to its ref
                start = data.rfind(b"\n", lo, start - 1) + 1 or lo
            stop = data.index(b"\n", mid) + 1
            while data.startswith(b"^", stop) and stop < hi:  # the record ends after its peeled lines
                stop = data.index(b"\n", stop) + 1
            line = data[start:data.index(b"\n", start)]
            oid, space, found = line.partition(b" ")
            if not space or line.startswith(b"^"):  # no ref on this line (a damaged file): skip it
                lo = stop
            elif name < found:
                hi = start
            elif name > found:
                lo = stop
            else:
                return oid
        return None


def _packed(path: str, refname: str) -> str | None | EllipsisType:
    """``refname``'s target in the packed-refs file ``path`` (a line
    ``<40 hex> <refname>``), None when it is not there, ``...`` when it is
    there in a form this does not read (another hash's length). The file is
    read once per process while it stays the same file (inode, mtime, size)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    known = _PACKED_FILES.get(path)
    if known is None or known[0] != (st.st_ino, st.st_mtime_ns, st.st_size):
        try:
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())  # the key of the file read, not of the one stat()ed
                data = fh.read()
        except FileNotFoundError:
            return None
        if len(_PACKED_FILES) >= _PACKED_KEEP:
            _PACKED_FILES.clear()  # no walk over a dict another thread may be changing
        known = _PACKED_FILES[path] = ((st.st_ino, st.st_mtime_ns, st.st_size), _PackedRefs(data))
    return known[1].get(refname)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            pipe.close()
    proc.wait()


def _hex(oid: bytes) -> bool:
    return len(oid) == 40 and not oid.strip(b"0123456789abcdef")


class Workspace:
    """One git work tree. Construct with :meth:`open`. libgit2 is loaded only when
    a command first needs :attr:`repo`: finding the repository, its settings
    and a ref's target are read without it."""

    def __init__(self, repo: Repository | None, workdir: str, git_dir: str | None = None):
        self._repo = repo
        self._objects: subprocess.Popen[bytes] | None = None  # a git cat-file answering holds()
        self.workdir = workdir
        if git_dir is None:
            assert repo is not None, "a Workspace names its git dir or its repository"
            git_dir = os.path.realpath(repo.path)
        self._git_dir = git_dir

    @property
    def repo(self) -> Repository:
        if self._repo is None:
            self._repo = open_git_dir(self._git_dir)
        return self._repo

    @property
    def repo_loaded(self) -> bool:
        """libgit2 has this repository open already (a read through it costs no loading)."""
        return self._repo is not None

    @classmethod
    def open(cls, path: str = ".", *, what: str = "this directory") -> "Workspace":
        if not os.path.exists(path):
            raise RefocusError(f"{what} {path!r} does not exist.")
        if not os.path.isdir(path):
            raise RefocusError(f"{what} {path!r} is not a directory.")
        found = discover(path)
        if found is not None:
            return cls(None, found[1], found[0])
        pygit2 = load_pygit2()
        try:
            gitdir = pygit2.discover_repository(os.path.realpath(path))
        except pygit2.GitError:
            gitdir = None
        if gitdir is None:
            shown = os.path.realpath(path) if path in (".", "") else path
            raise RefocusError(f"{what} {shown!r} is not inside a git repository"
                               + (" (run `git init` there, or cd into one)." if what == "this directory" else "."))
        repo: Repository = open_git_dir(gitdir)
        if repo.is_bare or repo.workdir is None:
            raise RefocusError(f"{what} {path!r} is in a bare repository; refocus needs a work tree.")
        return cls(repo, os.path.realpath(repo.workdir))

    @classmethod
    def try_open(cls, path: str | None) -> "Workspace | None":
        if not path:
            return None
        try:
            return cls.open(path)
        except RefocusError:
            return None

    # -- places ---------------------------------------------------------
    @property
    def name(self) -> str:
        return os.path.basename(self.workdir)

    @property
    def git_dir(self) -> str:
        return self._git_dir

    @cached_property
    def common_dir(self) -> str:
        return common_dir(self.git_dir)

    @property
    def refocus_dir(self) -> str:
        return os.path.join(self.workdir, REFOCUS_DIR)

    def brief_path(self, refocus_id: str) -> str:
        return os.path.join(self.workdir, brief_relpath(refocus_id))

    @property
    def archive_dir(self) -> str:
        return os.path.join(self.workdir, ARCHIVE_DIR)

    @property
    def transcripts_dir(self) -> str:
        return os.path.join(self.workdir, TRANSCRIPTS_DIR)

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.workdir)

    def same_repo(self, other: "Workspace") -> bool:
        return self.common_dir == other.common_dir

    # -- settings -------------------------------------------------------
    if TYPE_CHECKING:
        @overload
        def setting(self, key: _config.IntKey) -> int: ...
        @overload
        def setting(self, key: _config.StrKey) -> str: ...
    def setting(self, key: _config.IntKey | _config.StrKey) -> int | str:
        return _config.get(self._config, key)

    def settings(self, key: str) -> list[str]:
        return _config.get_multi(self._config, key)

    @cached_property
    def _config(self) -> _config.Values:
        return _config.read(self.git_dir)

    @cached_property
    def takes_part(self) -> bool:
        """This repository ran `git refocus init` (its notes config names refocus's notes)
        or holds a refocus (spawn wrote its event log here). Hooks installed for every
        repository (``~/.claude``, the plugin) say and write nothing anywhere else."""
        if "refs/notes/refocus" in (self._config.get("notes.displayref") or ()):
            return True
        if not self._files_refs:
            return bool(self.git("for-each-ref", "--count=1", "--format=x", REF_PREFIX, check=False).stdout.strip())
        try:
            with os.scandir(os.path.join(self.common_dir, REF_PREFIX)) as it:
                if any(True for _ in it):
                    return True
        except (FileNotFoundError, NotADirectoryError):
            pass
        try:
            with open(os.path.join(self.common_dir, "packed-refs"), "rb") as fh:
                return b" " + REF_PREFIX.encode() in fh.read()
        except FileNotFoundError:
            return False

    @cached_property
    def tags_commits(self) -> bool:
        """git runs our commit-msg hook here (any version: each one adds Refocus-Id), read
        without starting git: ``core.hooksPath``, else the common dir's hooks/."""
        found = self._config.get("core.hookspath")
        hooks = found[-1] if found else None
        directory = (os.path.join(self.workdir, os.path.expanduser(hooks)) if hooks
                     else os.path.join(self.common_dir, "hooks"))
        path = os.path.join(directory, "commit-msg")
        data = _head(path)
        if data is not None and CHAIN_MARKER.encode() in data and os.access(path, os.X_OK):
            path = os.path.join(self.common_dir, PRIVATE_HOOK)  # the team's hook runs ours from here
            data = _head(path)
        return data is not None and HOOK_MARKER.encode() in data and os.access(path, os.X_OK)

    @cached_property
    def _files_refs(self) -> bool:
        """Refs are loose files and packed-refs, which :meth:`ref_target` reads (not reftable)."""
        return not os.path.isdir(os.path.join(self.common_dir, "reftable"))

    def ref_target(self, refname: str) -> str | None:
        """Where ``refname`` points, hex, or None: the loose ref file, else
        packed-refs, as git reads them; libgit2 for any other ref store."""
        common = self.common_dir
        plain = refname.startswith("refs/") and ".." not in refname and "//" not in refname
        if plain and self._files_refs:
            try:
                with open(os.path.join(common, refname), "rb") as fh:
                    text = fh.read()
            except (FileNotFoundError, NotADirectoryError):
                text = None
            except OSError:  # a directory, no permission...: libgit2's to judge
                text = b"ref:"
            packed = _packed(os.path.join(common, "packed-refs"), refname) if text is None else ...
            if packed is not ...:
                return packed
            if text and _hex(text.strip()):
                return text.strip().decode()
            if text is not None and not text.startswith(b"ref:") and len(text.strip()) != 64:
                return None  # a broken ref: git ignores it (libgit2 would raise)
        from gitrefocus.store import refs

        target = refs.resolve(self.repo, refname)
        return str(target) if target is not None else None

    # -- git ------------------------------------------------------------
    def head_oid(self) -> Oid | None:
        try:
            target = self.repo.head.target
        except Exception:  # noqa: BLE001 - unborn branch
            return None
        return None if isinstance(target, str) else target  # HEAD is resolved: a commit id

    def holds(self, oid: str) -> bool:
        """The object ``oid`` (40 hex) is in this repository: libgit2 when it is
        loaded, else one ``git cat-file --batch-check`` kept for every question."""
        oid = oid.lower()
        if not _hex(oid.encode("ascii", "replace")):
            return False
        if self._repo is not None:
            return oid in self._repo
        if self._objects is None:
            import weakref

            self._objects = git.popen(self.git_dir, "--git-dir=.", "cat-file", "--batch-check=%(objecttype)",
                                      stdin=True, stderr=False)
            weakref.finalize(self, _stop, self._objects)
        proc = self._objects
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(oid.encode() + b"\n")
            proc.stdin.flush()
            answer = proc.stdout.readline()
        except OSError:
            answer = b""
        if not answer:  # git stopped: libgit2 answers from here on
            return oid in self.repo
        return not answer.rstrip().endswith(b" missing")

    def head_hex(self) -> str | None:
        """HEAD's commit, hex (None: an unborn branch), read as git reads it:
        :meth:`head_oid` without libgit2."""
        if self._files_refs:
            try:
                with open(os.path.join(self.git_dir, "HEAD"), "rb") as fh:
                    text = fh.read().strip()
            except OSError:
                text = b""
            if text.startswith(b"ref:"):
                return self.ref_target(text[4:].strip().decode("utf-8", "surrogateescape"))
            if _hex(text):
                return text.decode()
        oid = self.head_oid()
        return str(oid) if oid is not None else None

    def git(self, *args: str, check: bool = True, input: str | None = None,
            what: str | None = None) -> subprocess.CompletedProcess[str]:
        """``git -C <workdir> args`` through the one wrapper (:func:`git.run`)."""
        return git.run(self.workdir, *args, check=check, input=input, what=what)

    def signature(self) -> Signature:
        pygit2 = load_pygit2()
        try:
            return self.repo.default_signature
        except Exception:  # noqa: BLE001 - no user.name / user.email configured
            fallback: Signature = pygit2.Signature("git-refocus", "git-refocus@localhost")
            return fallback


def _head(path: str) -> bytes | None:
    """The first 64 KiB of a hook, or None when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return fh.read(64 * 1024)
    except OSError:
        return None
