"""Ref names and the one way a ref moves: a compare-and-swap, retried.

Every ref git refocus writes lives under one of three namespaces:

    refs/refocus/<id>               the event log of one refocus
    refs/notes/refocus              the audit trail (:mod:`gitrefocus.store.notes`)
    refs/refocus-remotes/<remote>/  what ``sync`` last fetched (tracking refs)
    refs/notes/refocus-tmp/         short-lived scratch refs of one process

Scratch refs sit under ``refs/notes/`` because ``git notes merge`` refuses to
merge into a ref outside it, and every scratch ref builds a notes commit. A ref moves only through :func:`cas`: the ref is locked in
a libgit2 transaction, re-read under the lock, and moved only if it still
points where the writer started; otherwise the writer re-reads and retries.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

from gitrefocus.errors import ConflictError, RefocusError
from gitrefocus.model.ids import (
    REF_PREFIX as REF_PREFIX,  # re-exported: store callers name refs from here
)
from gitrefocus.model.ids import ref_name as ref_name
from gitrefocus.store import faults, locks
from gitrefocus.store.workspace import common_dir, load_pygit2

TYPE_CHECKING = False  # no `typing` at run time: a listing imports this module; cast only where libgit2 is
if TYPE_CHECKING:
    from typing import TypeVar

    from pygit2 import Oid, Repository

    T = TypeVar("T")

TRACKING_PREFIX = "refs/refocus-remotes/"
QUARANTINE_PREFIX = "refs/refocus-quarantine/"  # corrupt refs moved aside by doctor --repair
TMP_PREFIX = "refs/notes/refocus-tmp/"
# where scratch refs lived before there was one namespace; doctor still cleans them up
LEGACY_TMP_PREFIXES = ("refs/refocus-tmp/", "refs/notes/refocus-tmp-")
MAX_ATTEMPTS = 200
FAILURES_BEFORE_GIVING_UP = 5  # writes that failed with no other writer's lock in the way

# How a ref compared with, or was brought up to date with, a remote's copy.
SAME, AHEAD, CREATED, FAST_FORWARD, MERGED, ADOPTED = (
    "same", "ahead", "created", "fast-forward", "merged", "adopted")


def GitError() -> type[Exception]:  # named as a class: it returns one, looked up lazily
    """pygit2's GitError, for ``except`` clauses that must not import pygit2 at load time."""
    from typing import cast

    return cast("type[Exception]", load_pygit2().GitError)


class _Lost(Exception):
    """The ref moved under us: re-read and try again. ``failure`` is set when the
    write failed with no lock in the way (a permission, a missing directory...),
    which retrying a few times will not fix."""

    def __init__(self, failure: str | None = None):
        super().__init__(failure)
        self.failure = failure


def temp_ref(purpose: str) -> str:
    """A scratch ref name no other process will pick (see :func:`scratch`)."""
    return f"{TMP_PREFIX}{purpose}-{os.getpid()}-{os.urandom(4).hex()}"


def resolve(repo: Repository, refname: str) -> Oid | None:
    """Where ``refname`` points (refocus never writes symbolic refs), or None."""
    from typing import cast

    ref = repo.references.get(refname)
    return cast("Oid", ref.target) if ref is not None else None


def cas(repo: Repository, refname: str, new: Oid, old: Oid | None, message: str) -> None:
    """Move ``refname`` from ``old`` (None: must not exist) to ``new``, or raise _Lost.

    A refocus ref's row in the catalog cache moves with it, under the cache's
    write lock (:mod:`gitrefocus.store.catalog_cache`)."""
    faults.point(f"ref {refname}")
    if not refname.startswith(REF_PREFIX):
        _move(repo, refname, new, old, message)
    else:
        from gitrefocus.store import catalog_cache

        git_dir = os.path.realpath(repo.path)
        with catalog_cache.writing(git_dir) as cache:
            before = catalog_cache.refs_stamp(git_dir)[0] if cache is not None else None
            _move(repo, refname, new, old, message)
            if cache is not None:
                catalog_cache.moved(cache, repo, refname[len(REF_PREFIX):], new, before)
    faults.wrote(refname)


def _move(repo: Repository, refname: str, new: Oid, old: Oid | None, message: str) -> None:
    pygit2 = load_pygit2()
    try:
        with repo.transaction() as txn:
            txn.lock_ref(refname)
            if resolve(repo, refname) != old:
                raise _Lost()
            txn.set_target(refname, new, message=message)
    except pygit2.GitError as exc:  # the lock is held by another writer, or was left by a dead one
        lock = locks.ref_lock_path(common_dir(repo.path), refname)
        stale = locks.stale_ref_lock_error(common_dir(repo.path), refname)
        if stale is not None:
            raise stale from None
        contended = os.path.lexists(lock) or "lock" in str(exc).lower()  # another writer, or one just gone
        raise _Lost(None if contended else f"could not write {refname}: {exc}") from exc


def retrying(what: str, attempt_fn: Callable[[], T]) -> T:
    """Run ``attempt_fn`` until it stops losing races, with jittered backoff."""
    delay = 0.002
    failures = 0
    for _ in range(MAX_ATTEMPTS):
        try:
            return attempt_fn()
        except _Lost as lost:
            failures = failures + 1 if lost.failure else 0
            if lost.failure and failures >= FAILURES_BEFORE_GIVING_UP:
                raise RefocusError(f"{lost.failure.rstrip('.')}.") from None
            import random  # here: only a lost race waits, and readers import this module

            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 1.6, 0.1)
    raise ConflictError(f"{what}: gave up after {MAX_ATTEMPTS} attempts; other writers kept moving the ref.")


def iter_refs(repo: Repository, prefix: str = REF_PREFIX) -> Iterator[tuple[str, Oid]]:
    """(name below ``prefix``, target) for every ref under ``prefix``."""
    from typing import cast

    pygit2 = load_pygit2()
    for ref in repo.references.iterator(pygit2.enums.ReferenceFilter.ALL):
        name = ref.name
        if name.startswith(prefix):
            yield name[len(prefix):], cast("Oid", ref.target)


def tips(git_dir: str, prefix: str = REF_PREFIX) -> dict[str, str]:
    """{name below ``prefix``: target} of every ref under ``prefix``, as one
    ``git for-each-ref`` lists them (no libgit2 to load): the object id, or for
    a symbolic ref the name it points to, as :func:`iter_refs` gives it. A
    ref git cannot read is left out, as git leaves it out."""
    return tips_started(git_dir, prefix)()


def tips_started(git_dir: str, prefix: str = REF_PREFIX) -> Callable[[], dict[str, str]]:
    """:func:`tips`, its git started now and its answer read when the callable
    returned is called: the refs are listed while the caller does something
    else (git writes up to a widened pipe's worth ahead)."""
    from gitrefocus.store import git

    proc = git.popen(git_dir, "--git-dir=.", "for-each-ref", "--format=%(objectname) %(symref) %(refname)", prefix,
                     stderr=False)
    assert proc.stdout is not None
    git.widen_pipe(proc.stdout.fileno())

    def answer() -> dict[str, str]:
        out, _ = proc.communicate()
        if proc.returncode != 0:
            raise RefocusError(f"git for-each-ref failed in {git_dir} (exit {proc.returncode}).")
        return _parse_tips(out, prefix)

    return answer


def _parse_tips(out: bytes, prefix: str) -> dict[str, str]:
    found = {}
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        oid, symref, name = line.split(" ", 2)
        if name.startswith(prefix):
            found[name[len(prefix):]] = symref or oid
    return found


def delete(repo: Repository, refname: str) -> bool:
    """Delete ``refname`` if it exists (scratch and quarantined refs only)."""
    ref = repo.references.get(refname)
    if ref is None:
        return False
    faults.point(f"delete {refname}")
    if not refname.startswith(REF_PREFIX):
        ref.delete()
        faults.wrote(f"delete {refname}")
        return True
    from gitrefocus.store import catalog_cache

    git_dir = os.path.realpath(repo.path)
    with catalog_cache.writing(git_dir) as cache:
        before = catalog_cache.refs_stamp(git_dir)[0] if cache is not None else None
        ref.delete()
        if cache is not None:
            catalog_cache.moved(cache, repo, refname[len(REF_PREFIX):], None, before)
    faults.wrote(f"delete {refname}")
    return True


def quarantine(repo: Repository, refname: str) -> str:
    """Move a corrupt ``refname`` under ``refs/refocus-quarantine/`` (nothing is
    deleted: the object stays reachable there for a person to inspect). Returns the new name."""
    oid = resolve(repo, refname)
    if oid is None:
        raise ConflictError(f"{refname} vanished meanwhile; nothing to quarantine.")
    base = QUARANTINE_PREFIX + refname.removeprefix("refs/")
    name, n = base, 1
    while repo.references.get(name) is not None:
        n += 1
        name = f"{base}-{n}"
    cas(repo, name, oid, None, f"refocus: quarantine {refname}")
    ref = repo.references.get(refname)
    if ref is not None and ref.target == oid:
        ref.delete()
    return name


class scratch:
    """A private scratch ref under ``refs/notes/refocus-tmp/`` that is deleted on exit.

    ``with scratch(repo, "notes", start=oid) as name:`` lets libgit2 or the git
    CLI build commits on a ref of its own before the shared ref is moved by
    :func:`cas`.
    """

    def __init__(self, repo: Repository, purpose: str, start: Oid | None = None):
        self.repo, self.name, self.start = repo, temp_ref(purpose), start

    def __enter__(self) -> str:
        if self.start is not None:
            self.repo.references.create(self.name, self.start, force=True)
        return self.name

    def __exit__(self, *exc: object) -> None:
        delete(self.repo, self.name)
