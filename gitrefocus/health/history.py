"""The git history questions health asks, answered fast and exactly.

"How many commits are on HEAD since FILE last changed?" is defined as what the
git CLI answers::

    C=$(git log -1 --format=%H -- FILE); git rev-list --count C..HEAD

Asking that per file costs two history walks per file. Instead two git
processes run side by side, each stopped as soon as it has said enough:
``git log -- DIR`` names, walking from HEAD, the first commit that changed
each file under DIR, and ``git rev-list --parents HEAD`` lists the commits in
order. While history is a run of single-parent commits, a commit's line
number in that list is exactly ``rev-list --count C..HEAD``, and the first
commit on the run that changed a file is exactly ``git log -1 -- FILE``. A
merge ends that reasoning (history simplification is per path there), so a
file whose last change lies beyond the first merge is asked the definition
itself, a few files at a time.

libgit2 has no commit-graph and a Python loop over 100k pygit2 commits is
slower than git's own walk, so the long walks are git subprocesses and only
short, bounded walks (commits since a launch) use pygit2.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence

from gitrefocus.errors import RefocusError
from gitrefocus.model.records import dataclass, field
from gitrefocus.store import git

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from subprocess import Popen
    from typing import IO, Any

    from pygit2 import Commit, Oid

    from gitrefocus.model.note_line import NoteRecord
    from gitrefocus.store.workspace import Workspace

# Pin what user configuration could change about the output we parse.
PINNED_CONFIG = (
    "-c", "log.follow=false", "-c", "log.showSignature=false", "-c", "log.showRoot=true",
    "-c", "core.quotePath=false",
)
FALLBACK_WORKERS = 4
_TRAILER_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*?)\s*$")


def _popen(ws: Workspace, *args: str) -> tuple[Popen[bytes], IO[bytes], IO[bytes]]:
    """git reading ``args``, with its stdout and stderr (both piped)."""
    proc = git.popen(ws.workdir, *args, config=PINNED_CONFIG)
    assert proc.stdout is not None and proc.stderr is not None  # both piped by git.popen
    return proc, proc.stdout, proc.stderr


def _literal(path: str) -> str:
    return ":(literal)" + path


@dataclass
class Walk:
    """What one walk learned."""

    found: dict[str, tuple[str, int]] = field(default_factory=dict)  # path -> (commit, commits on HEAD since)
    seen: int = 0  # length of the single-parent run from HEAD that was examined
    stop: str = "end"  # found | merge | limit | end
    last_parents: str = ""  # parent ids of the last commit of that run (space separated)


_MERGE_LINE = re.compile(rb"^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+", re.M)


class _Chain:
    """``git rev-list --parents`` read on a thread: where each commit sits on the
    single-parent run that starts at HEAD, and where that run ends (a merge).

    Reading stops early once every commit asked for by :meth:`want` has been
    seen, or a merge has (nothing after it can be counted by position).
    """

    def __init__(self, ws: Workspace, *, head: str, exclude: str | None, limit: int | None) -> None:
        args = ["rev-list", "--parents"] + ([f"--max-count={limit}"] if limit is not None else []) + [head]
        if exclude:
            args.append("^" + exclude)
        self.proc, self.out, self.err = _popen(ws, *args)
        self.data = bytearray()
        self.merge_at: int | None = None  # offset of the first merge line
        self.eof = False
        self.killed = False
        self._pending: set[bytes] | None = None  # asked for, not seen yet
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        fd = self.out.fileno()
        while True:
            chunk = os.read(fd, 1 << 16)
            with self._lock:
                if not chunk:
                    self.eof = True
                    return
                since = max(0, len(self.data) - 256)  # a line may straddle chunks
                self.data += chunk
                m = _MERGE_LINE.search(self.data, since)
                if m:
                    self.merge_at = m.start()
                    return
                if self._pending is not None:
                    self._pending = {t for t in self._pending if self._line_start(t, since) is None}
                    if not self._pending:
                        return

    def _line_start(self, target: bytes, since: int = 0) -> int | None:
        if since == 0 and self.data.startswith(target):
            return 0
        at = self.data.find(b"\n" + target, max(0, since - 1))
        return None if at < 0 else at + 1

    def want(self, commits: set[str]) -> None:
        """Stop reading once all of ``commits`` are placed."""
        with self._lock:
            self._pending = {t for t in (c.encode("ascii") for c in commits) if self._line_start(t) is None}
            done = not self._pending
        if done:
            self.abort()

    def abort(self) -> None:
        """Stop git: whatever it has not printed yet is not needed."""
        if self.proc.poll() is None:
            self.killed = True
            self.proc.kill()

    def finish(self) -> None:
        self._thread.join()
        self.abort()
        self.out.close()
        err = self.err.read().decode("utf-8", "replace")
        self.err.close()
        if self.proc.wait() != 0 and not self.killed:
            raise RefocusError(f"git rev-list failed: {git.last_line(err)}.")

    def position(self, commit: str) -> int | None:
        """Commits before ``commit`` on the single-parent run from HEAD (None: not on it)."""
        start = self._line_start(commit.encode("ascii"))
        if start is None or (self.merge_at is not None and start >= self.merge_at):
            return None
        return self.data.count(b"\n", 0, start)

    def run(self) -> list[list[str]]:
        """The single-parent run as [commit, parents...] rows (after :meth:`finish`)."""
        end = self.merge_at if self.merge_at is not None else len(self.data)
        return [line.decode("ascii").split(" ") for line in bytes(self.data[:end]).splitlines()]


def _dir_changes(ws: Workspace, *, head: str, directory: str, paths: set[str], exclude: list[str | None],
                 stop_when_found: bool) -> dict[str, str]:
    """{path: first commit (walking from head) that changed it}, from ``git log -- DIR``."""
    args = ["log", "--format=%x01%H", "-z", "--name-only", "--no-renames", "--no-color", head]
    args += ["^" + e for e in exclude if e]
    args += ["--", _literal(directory)]
    proc, out, err = _popen(ws, *args)
    found: dict[str, str] = {}
    remaining = set(paths)
    commit, buf, early = "", b"", False
    fd = out.fileno()
    try:
        while not early:
            chunk = os.read(fd, 1 << 16)
            tokens = (buf + chunk).split(b"\0")
            buf = tokens.pop() if chunk else b""
            for tok in tokens:
                if tok[:1] == b"\x01":
                    if stop_when_found and not remaining:
                        early = True
                        break
                    commit = tok[1:].decode("ascii")
                elif tok:
                    name = tok.lstrip(b"\n").decode("utf-8", "surrogateescape")
                    if name in remaining:
                        found[name] = commit
                        remaining.discard(name)
            if not chunk:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
        out.close()
        message = err.read().decode("utf-8", "replace")
        err.close()
        code = proc.wait()
    if code != 0 and not early:
        raise RefocusError(f"git log failed: {git.last_line(message)}.")
    return found


def walk_last_changes(ws: Workspace, *, head: str, paths: set[str], directory: str, exclude: str | None = None,
                      limit: int | None = None, stop_when_found: bool = True) -> Walk:
    """Where each path last changed on the single-parent run of history from ``head``.

    Two git processes: ``git log -- DIR`` names the first commit that changed
    each path, ``git rev-list --parents`` places it on the run. Unbounded, they
    run side by side and both stop early. With ``limit`` or ``exclude`` the
    run is listed first (bounded) and the log walks only that run.
    Paths that changed nowhere on the run are left out of ``found``.
    """
    walk = Walk()
    if limit is None and exclude is None:
        chain = _Chain(ws, head=head, exclude=None, limit=None)
        try:
            firsts = _dir_changes(ws, head=head, directory=directory, paths=paths, exclude=[],
                                  stop_when_found=stop_when_found)
        except BaseException:
            chain.abort()
            raise
        chain.want(set(firsts.values()))
        chain.finish()
        for path, commit in firsts.items():
            pos = chain.position(commit)
            if pos is not None:
                walk.found[path] = (commit, pos)
        walk.seen = chain.data.count(b"\n", 0, chain.merge_at) if chain.merge_at is not None else 0
        if len(walk.found) == len(paths):
            walk.stop = "found"
        elif chain.merge_at is not None:
            walk.stop = "merge"
        return walk
    chain = _Chain(ws, head=head, exclude=exclude, limit=limit)
    chain.finish()
    rows = chain.run()
    walk.seen = len(rows)
    walk.last_parents = " ".join(rows[-1][1:]) if rows else ""
    boundary: str | None
    if chain.merge_at is not None:
        walk.stop, boundary = "merge", chain.data[chain.merge_at:].split(b" ", 1)[0].decode("ascii")
    elif limit is not None and len(rows) >= limit:
        walk.stop, boundary = "limit", (rows[-1][1] if len(rows[-1]) > 1 else None)
    else:
        boundary = None
    index = {row[0]: i for i, row in enumerate(rows)}
    firsts = _dir_changes(ws, head=head, directory=directory, paths=paths, exclude=[boundary, exclude],
                          stop_when_found=stop_when_found)
    for path, commit in firsts.items():
        if commit in index:
            walk.found[path] = (commit, index[commit])
    if len(walk.found) == len(paths):
        walk.stop = "found"
    return walk


def _run(ws: Workspace, *args: str) -> str:
    return git.output(ws.workdir, *args, config=PINNED_CONFIG)


def exact_last_change(ws: Workspace, *, head: str, path: str,
                      bound: str | None = None) -> tuple[str | None, int | None]:
    """The definition: ``git log -1 -- PATH`` then ``git rev-list --count C..HEAD``.

    With ``bound`` the log does not look below that commit: (None, None) then
    means "not changed since the bound". History simplification is the same
    within the range, so a commit found there is the unbounded answer too.
    """
    commit = _run(ws, "log", "-1", "--format=%H", head, *(["^" + bound] if bound else []), "--", _literal(path))
    if not commit:
        return None, None
    return commit, int(_run(ws, "rev-list", "--count", head, "^" + commit))


def exact_last_changes(ws: Workspace, *, head: str, paths: list[str],
                       bound: str | None = None) -> dict[str, tuple[str | None, int | None]]:
    if not paths:
        return {}
    # concurrent.futures (and logging with it) only for these walks, not on every status
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(FALLBACK_WORKERS, len(paths))) as pool:
        answers = pool.map(lambda p: exact_last_change(ws, head=head, path=p, bound=bound), paths)
        return dict(zip(paths, answers, strict=True))


def first_parent_bound(ws: Workspace, *, head: str, steps: int) -> tuple[str | None, int]:
    """``head~steps`` and how many commits ``head ^head~steps`` holds (None: history is shorter)."""
    proc = git.run(ws.workdir, "rev-parse", "--verify", "-q", f"{head}~{steps}^{{commit}}",
                   config=PINNED_CONFIG, check=False)
    bound = proc.stdout.strip() if proc.returncode == 0 else None
    if bound is None:
        return None, 0
    return bound, int(_run(ws, "rev-list", "--count", head, "^" + bound))


# -- trailers ------------------------------------------------------------
def trailers(message: str) -> list[tuple[str, str]]:
    """(key, value) pairs of the trailer block: the last paragraph, if it is not the subject."""
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", message.strip("\n")) if p.strip()]
    if len(paragraphs) < 2:
        return []
    out = []
    for line in paragraphs[-1].splitlines():
        if line.startswith("#"):
            continue
        m = _TRAILER_RE.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def refocus_ids_in(message: str) -> list[str]:
    return [v.strip().lower() for k, v in trailers(message) if k.lower() == "refocus-id" and v.strip()]


# -- short walks with pygit2 ----------------------------------------------
@dataclass
class CommitInfo:
    oid: str
    subject: str
    refocus_ids: list[str]
    parents: int

    def oneline(self) -> str:
        return f"{self.oid[:7]} {self.subject}"


def info(commit: Commit) -> CommitInfo:
    message = commit.message or ""
    return CommitInfo(oid=str(commit.id), subject=message.split("\n", 1)[0].strip(),
                      refocus_ids=refocus_ids_in(message), parents=len(commit.parent_ids))


def note_records(ws: Workspace, oid: Oid | str) -> list[NoteRecord]:
    """Parsed refocus note records on one commit (none when there is no note)."""
    from gitrefocus.model import note_line
    from gitrefocus.store import notes

    text = notes.read_note(ws.repo, oid)
    return [r for r in (note_line.parse_line(ln) for ln in text.splitlines()) if r is not None]


def has_notes(ws: Workspace) -> bool:
    from gitrefocus.store.notes import NOTES_REF

    return ws.repo.references.get(NOTES_REF) is not None


@dataclass
class Since:
    commits: list[CommitInfo]
    basis: str  # "commit": stopped at the noted commit; "time": at the first older commit; "all": history ran out
    anchor: str | None
    truncated: bool


def commits_since_event(ws: Workspace, *, head: Oid | str, refocus_id: str, event: str, at_epoch: int, limit: int,
                        also: Sequence[str] = ()) -> Since:
    """Commits on ``head`` (and the heads ``also`` names: other worktrees) after the
    HEAD a refocus event was noted on.

    The event's note (``refocus <id> <event>``) sits on the commit that was
    HEAD when it happened; walking newest first, that commit is the first one
    at or before the event time. When history was rewritten and that commit
    is gone from HEAD, the first commit not newer than the event ends the walk.
    """
    import pygit2

    walker = ws.repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
    for other in also:
        walker.push(pygit2.Oid(hex=other))
    noted = has_notes(ws)
    out: list[CommitInfo] = []
    for commit in walker:
        when = commit.commit_time
        if when <= at_epoch and noted and any(
                r.refocus_id == refocus_id and r.event == event for r in note_records(ws, commit.id)):
            return Since(out, "commit", str(commit.id), False)
        if when <= at_epoch:  # the same second is far likelier the HEAD at launch than work after it
            return Since(out, "time", str(commit.id), False)
        if len(out) >= limit:
            return Since(out, "time", None, True)
        out.append(info(commit))
    return Since(out, "all", None, False)


def commits_in_range(ws: Workspace, *, head: Oid | str, exclude: str | None,
                     limit: int) -> tuple[list[CommitInfo], bool]:
    """Commits reachable from ``head`` but not from ``exclude`` (newest first), capped."""
    import pygit2

    walker = ws.repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
    if exclude is not None:
        walker.hide(exclude)
    out: list[CommitInfo] = []
    for commit in walker:
        if len(out) >= limit:
            return out, True
        out.append(info(commit))
    return out, False


def linked_to(ws: Workspace, commit: CommitInfo, refocus_id: str, noted: bool) -> dict[str, Any]:
    by_trailer = refocus_id in commit.refocus_ids
    by_note = noted and any(r.refocus_id == refocus_id and r.event == "linked" for r in note_records(ws, commit.oid))
    return {"trailer": by_trailer, "note": by_note}


def commits_after(ws: Workspace, *, head: Oid | str, at_epoch: int, limit: int) -> tuple[list[CommitInfo], bool]:
    """Commits on ``head`` committed after ``at_epoch`` (newest first), capped."""
    import pygit2

    out: list[CommitInfo] = []
    for commit in ws.repo.walk(head, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME):
        if commit.commit_time <= at_epoch:
            break
        if len(out) >= limit:
            return out, True
        out.append(info(commit))
    return out, False


def worktree_heads(ws: Workspace) -> list[str]:
    """The HEAD commits of this repository's other work trees (``git worktree add``):
    a child may commit in any of them."""
    if ws.git_dir == ws.common_dir and not os.path.isdir(os.path.join(ws.common_dir, "worktrees")):
        return []
    out = _run(ws, "worktree", "list", "--porcelain")
    heads, here = [], ws.head_hex()
    for block in out.split("\n\n"):
        lines = dict(line.split(" ", 1) for line in block.splitlines() if " " in line)
        oid = lines.get("HEAD")
        if oid and oid != here and len(oid) in (40, 64) and not oid.strip("0123456789abcdef") and oid not in heads:
            heads.append(oid)
    return heads
