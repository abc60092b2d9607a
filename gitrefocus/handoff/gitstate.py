"""Read-only git facts for Code-state and the stated-intent-vs-git flags.

Uses pygit2 in-process rather than the git CLI: the repository named by a
transcript's ``cwd`` is not trusted, and libgit2 never runs the commands a
repository's config can name (``core.fsmonitor``, filter drivers, external
diff), so reading it cannot execute anything. Nothing here writes.
"""

from __future__ import annotations

import datetime as dt
import os

from gitrefocus.model.records import dataclass, field

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    import pygit2
    from pygit2 import Diff, Repository

RECENT = 30            # commits listed at most (seed: git log -n 30)
CHANGES_CAP = 200      # working-tree entries kept at most
STAT_CAP = 200         # line counts are computed only for up to this many changed files
SESSION_SLACK = 120    # seconds before the session's first record that still count


@dataclass
class Commit:
    oid: str
    subject: str
    time: int
    files: list[str] = field(default_factory=list)
    in_session: bool = False

    @property
    def short(self) -> str:
        return self.oid[:10]


@dataclass
class Change:
    path: str
    state: str          # "modified" | "added" | "deleted" | "renamed" | "untracked" | "conflicted" | ...
    staged: bool
    added: int | None = None
    removed: int | None = None


@dataclass
class GitState:
    root: str | None = None
    problem: str | None = None   # why there is no git state (not a repo, unreadable, ...)
    branch: str | None = None
    head: str | None = None
    commits: list[Commit] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    changes_total: int = 0
    # pickaxe material: the diff hunks (added lines with their context; removed lines) of the
    # session's commits and of the working tree, lowercased and capped, and paths they deleted
    _pickaxe: tuple[str, str, set[str]] | None = None

    def pickaxe(self) -> tuple[str, str, set[str]]:
        """(added lines with context, removed lines, deleted paths) of the session's commits
        and the work tree; read from git on first use only (most briefs never need it)."""
        if self._pickaxe is None:
            self._pickaxe = _read_pickaxe(self)
        return self._pickaxe

    @property
    def ok(self) -> bool:
        return self.problem is None

    def touched_paths(self) -> set[str]:
        paths = {c.path for c in self.changes}
        for commit in self.commits:
            if commit.in_session:
                paths.update(commit.files)
        return paths

    def session_commits(self) -> list[Commit]:
        return [c for c in self.commits if c.in_session]

    def resolves_commit(self, ref: str) -> bool:
        oid = ref.split(":", 1)[0].lower()
        return any(c.oid.startswith(oid) for c in self.commits) or self._lookup(oid)

    def _lookup(self, oid: str) -> bool:
        if not self.root or len(oid) < 4:
            return False
        try:
            import pygit2

            repo = pygit2.Repository(self.root)
            return repo.revparse_single(oid) is not None
        except Exception:  # noqa: BLE001 - any libgit2 refusal means: not in this repository
            return False

    def has_path(self, path: str) -> bool:
        if not self.root:
            return False
        rel = relative_path(path, self.root)
        if rel is None:
            return False
        return rel in self.touched_paths() or os.path.lexists(os.path.join(self.root, rel))


def relative_path(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` (accepting absolute paths inside it), or None."""
    if os.path.isabs(path):
        try:
            rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
        except ValueError:
            return None
    else:
        rel = os.path.normpath(path)
    if rel == "." or rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")


def _parse_time(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def snapshot(candidates: list[str | None], session_start: str | None = None) -> GitState:
    """The git state of the first candidate directory that is in a work tree."""
    tried = []
    for path in candidates:
        if not path or path in tried:
            continue
        tried.append(path)
        if not os.path.isdir(path):
            continue
        state = _snapshot(path, _parse_time(session_start))
        if state.ok or state.problem != "not a git work tree":
            return state
    where = ", ".join(tried) or "no directory"
    return GitState(problem=f"no git work tree found (looked at {where})")


def _snapshot(path: str, since: float | None) -> GitState:
    try:
        import pygit2

        found = pygit2.discover_repository(path)
        if found is None:
            return GitState(problem="not a git work tree")
        repo = pygit2.Repository(found)
    except Exception as exc:  # noqa: BLE001 - libgit2 refuses (ownership, corruption, ...)
        return GitState(problem=f"cannot open the repository at {path}: {exc}")
    if repo.is_bare or repo.workdir is None:
        return GitState(problem="not a git work tree")
    state = GitState(root=os.path.realpath(repo.workdir))
    try:
        _read_head(repo, state, since)
        _read_changes(repo, state)
    except Exception as exc:  # noqa: BLE001 - reported in the state, never raised
        state.problem = f"reading {state.root} failed: {type(exc).__name__}: {exc}"
    return state


def _read_head(repo: Repository, state: GitState, since: float | None) -> None:
    import pygit2

    if repo.head_is_unborn:
        state.branch = _unborn_branch(repo)
        return
    state.head = str(repo.head.target)
    state.branch = None if repo.head_is_detached else repo.head.shorthand
    walker = repo.walk(repo.head.target, pygit2.enums.SortMode.TIME)
    for n, commit in enumerate(walker):
        if n >= RECENT:
            break
        item = Commit(str(commit.id), commit.message.split("\n", 1)[0].strip(), commit.commit_time)
        item.in_session = since is not None and commit.commit_time >= since - SESSION_SLACK
        if item.in_session:
            item.files = _commit_files(repo, commit)
        state.commits.append(item)


def _unborn_branch(repo: Repository) -> str | None:
    try:
        target = repo.references["HEAD"].target
        return target.rsplit("/", 1)[-1] if isinstance(target, str) else None
    except Exception:  # noqa: BLE001 - no readable HEAD: no branch name
        return None


PICKAXE_CAP = 4 << 20   # characters of added (and of removed) lines kept for intent checks


def _commit_files(repo: Repository, commit: pygit2.Commit) -> list[str]:
    if commit.parents:
        diff = repo.diff(commit.parents[0], commit)
    else:
        diff = commit.tree.diff_to_tree(swap=True)
    return sorted({d.new_file.path for d in diff.deltas} | {d.old_file.path for d in diff.deltas})[:200]


def _read_pickaxe(state: GitState) -> tuple[str, str, set[str]]:
    import pygit2

    added: list[str] = []
    removed: list[str] = []
    deleted: set[str] = set()
    if not state.root:
        return "", "", deleted
    try:
        repo = pygit2.Repository(state.root)
        diffs = []
        for item in state.session_commits():
            commit = repo.get(item.oid)
            if not isinstance(commit, pygit2.Commit):
                continue
            diffs.append(repo.diff(commit.parents[0], commit) if commit.parents
                         else commit.tree.diff_to_tree(swap=True))
        if state.head:
            diffs += [repo.diff("HEAD", cached=True), repo.diff()]
        room = [PICKAXE_CAP, PICKAXE_CAP]
        for diff in diffs:
            _collect_lines(diff, added, removed, deleted, room)
    except Exception:  # noqa: BLE001 - a repository that cannot be diffed
        pass  # a repository that cannot be diffed: the checks fall back to paths and subjects
    return "".join(added).lower(), "".join(removed).lower(), deleted


def _collect_lines(diff: Diff, added: list[str], removed: list[str], deleted: set[str], room: list[int]) -> None:
    """Keep the added (with context) and removed lines of ``diff``, and its deleted paths."""
    import pygit2

    for patch in diff:
        if patch is None:
            continue
        if patch.delta.status == pygit2.enums.DeltaStatus.DELETED:
            deleted.add(patch.delta.old_file.path)
        if patch.delta.is_binary or (room[0] <= 0 and room[1] <= 0):
            continue
        for hunk in patch.hunks:
            if room[0] > 0:  # "@@ -3,2 +3,4 @@ def parse_config(text):" names the function changed
                added.append(hunk.header)
                room[0] -= len(hunk.header)
            for line in hunk.lines:
                if line.origin in ("+", " ") and room[0] > 0:  # added, and the context around it
                    added.append(line.content)
                    room[0] -= len(line.content)
                elif line.origin == "-" and room[1] > 0:
                    removed.append(line.content)
                    room[1] -= len(line.content)


_STATES = (
    ("CONFLICTED", "conflicted", False), ("INDEX_NEW", "added", True), ("INDEX_DELETED", "deleted", True),
    ("INDEX_RENAMED", "renamed", True), ("INDEX_MODIFIED", "modified", True),
    ("INDEX_TYPECHANGE", "type changed", True), ("WT_NEW", "untracked", False),
    ("WT_DELETED", "deleted", False), ("WT_RENAMED", "renamed", False), ("WT_MODIFIED", "modified", False),
    ("WT_TYPECHANGE", "type changed", False),
)


def _read_changes(repo: Repository, state: GitState) -> None:
    import pygit2

    flags = pygit2.enums.FileStatus
    status = repo.status(untracked_files="normal", ignored=False)
    state.changes_total = len(status)
    for path in sorted(status)[:CHANGES_CAP]:
        value = status[path]
        staged = bool(value & (flags.INDEX_NEW | flags.INDEX_MODIFIED | flags.INDEX_DELETED
                               | flags.INDEX_RENAMED | flags.INDEX_TYPECHANGE))
        name = "changed"
        for flag, label, _ in _STATES:
            if value & getattr(flags, flag):
                name = label
                break
        state.changes.append(Change(path, name, staged))
    if state.changes and len(status) <= STAT_CAP and state.head:
        counts: dict[str, list[int]] = {}
        for diff in (repo.diff("HEAD", cached=True), repo.diff()):
            for patch in diff:
                if patch is None or patch.delta.is_binary:
                    continue
                _, added, removed = patch.line_stats
                entry = counts.setdefault(patch.delta.new_file.path, [0, 0])
                entry[0] += added
                entry[1] += removed
        for change in state.changes:
            if change.path in counts:
                change.added, change.removed = counts[change.path]
