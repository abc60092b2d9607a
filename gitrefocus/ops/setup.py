"""What makes a repository take part: the commit-msg hook, notes config, remote
refspecs, and the first-use files (the .gitignore entry and the CLAUDE.md link line).

``init`` applies these, ``doctor`` checks them; both work from one plan, a
list of :class:`Step`, so a dry run, a report and a repair describe the same
changes. Each step says how to undo it.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable
from importlib import resources
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import INDEX_FILE
from gitrefocus.model.records import dataclass, field
from gitrefocus.store import atomic
from gitrefocus.store import remote as remote_
from gitrefocus.store.notes import NOTES_REF
from gitrefocus.store.workspace import CHAIN_MARKER, HOOK_MARKER, PRIVATE_HOOK

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from gitrefocus.store.workspace import Workspace

HOOK_NAME = "commit-msg"
CHAINED_NAME = "commit-msg.pre-refocus"
REWRITE_HOOK = "post-rewrite"
PUSH_HOOK = "pre-push"
HOOKS = (HOOK_NAME, REWRITE_HOOK, PUSH_HOOK)
CHAINED = ".pre-refocus"  # a hook that was there before init keeps running under this suffix
# what each hook's absence costs, as doctor says it
_MISSING = {HOOK_NAME: "commits are not tagged with Refocus-Id",
            REWRITE_HOOK: "an amend or rebase that drops a Refocus-Id trailer loses the commit's link",
            PUSH_HOOK: "a plain git push may send refocus refs or saved transcripts to a remote nobody agreed to"}
REWRITE_MODE = "cat_sort_uniq"  # note lines are self-contained and timestamped
LOSSY_REWRITE_MODES = ("overwrite", "ignore")


@dataclass
class Step:
    """One change a repository needs (or already has, when ``needed`` is false)."""

    kind: str  # hook | config | remote
    what: str  # one line, for people
    needed: bool
    undo: str | None = None
    apply: Callable[[], object] | None = field(default=None, repr=False)  # does the change
    problem: str | None = None  # how doctor reports the need

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "what": self.what, "changed": self.needed, "undo": self.undo}


def hook_source(name: str = HOOK_NAME) -> bytes:
    """A hook shipped with the package (gitrefocus/data/commit-msg, .../post-rewrite, .../pre-push)."""
    return resources.files("gitrefocus").joinpath("data", name).read_bytes()


def is_ours(data: bytes | None) -> bool:
    return data is not None and HOOK_MARKER.encode() in data


def hook_version(data: bytes) -> int:
    for line in data.decode("utf-8", "replace").splitlines():
        if line.startswith(HOOK_MARKER):
            try:
                return int(line[len(HOOK_MARKER):].strip())
            except ValueError:
                return 0
    return 0


def hooks_dir(ws: Workspace) -> str:
    """The directory git runs hooks from (honours core.hooksPath and worktrees)."""
    out = ws.git("rev-parse", "--git-path", "hooks").stdout.strip()
    return os.path.normpath(os.path.join(ws.workdir, out))


def read_file(path: str) -> bytes | None:
    """A hook's or a shipped file's bytes, or None when there is none."""
    return _read(path)


def _read(path: str) -> bytes | None:
    try:
        return atomic.read_file(path)  # a FIFO in a hook's or a file's place never blocks
    except (FileNotFoundError, NotADirectoryError):
        return None


def _executable(path: str) -> bool:
    try:
        return bool(os.stat(path).st_mode & stat.S_IXUSR)
    except OSError:
        return False


def _write_hook(path: str, data: bytes) -> None:
    atomic.write_bytes(path, data)
    os.chmod(path, 0o755)


def chain_line() -> str:
    """The line a team's committed commit-msg hook adds to run ours (installed by each
    clone's `git refocus init` outside the work tree); a clone without it commits as before."""
    return (f'h="$(git rev-parse --git-common-dir)/{PRIVATE_HOOK}"; '
            f'if [ -x "$h" ]; then "$h" "$1" || exit $?; fi  # {CHAIN_MARKER}')


def tracked_dir(ws: Workspace, directory: str) -> str | None:
    """``directory`` relative to the work tree, when files in it are tracked (a team's
    committed hooks, core.hooksPath pointing into the repository)."""
    real, top = os.path.realpath(directory), os.path.realpath(ws.workdir)
    if not real.startswith(top + os.sep):
        return None
    rel = os.path.relpath(real, top)
    listed = ws.git("ls-files", "-z", "--", rel, check=False).stdout
    return rel if listed.strip("\0") else None


def _chained_step(ws: Workspace, hook: str, rel: str) -> Step:
    """The team's tracked hook runs ours through the chain line: ours lives in the common
    git directory, never in the tracked directory."""
    private = os.path.join(ws.common_dir, PRIVATE_HOOK)
    ours = hook_source()
    if _read(private) == ours and _executable(private):
        return Step("hook", f"commit-msg hook installed ({private}, run by {rel}/commit-msg)", False)

    def create() -> None:
        os.makedirs(os.path.dirname(private), exist_ok=True)
        _write_hook(private, ours)
    return Step("hook", f"install the commit-msg hook that {rel}/commit-msg runs ({private})", True,
                f"rm {_q(private)}", create,
                f"{rel}/commit-msg runs git-refocus's hook, but {private} is missing or outdated.")


def hook_steps(ws: Workspace) -> list[Step]:
    """The git hooks init installs: commit-msg (the trailer), post-rewrite (linkage across
    rewrites) and pre-push (nothing of refocus leaves for a remote nobody agreed to)."""
    return [hook_step(ws, name) for name in HOOKS]


def hook_step(ws: Workspace, name: str = HOOK_NAME) -> Step:
    directory = hooks_dir(ws)
    rel = tracked_dir(ws, directory)
    if rel is not None and name != HOOK_NAME:
        # the team's committed hooks: never rewritten, never added to (the commit-msg chain
        # line below is the one way in; these two are left to the team)
        return Step("hook", f"{name} hook not installed: core.hooksPath is {rel}, tracked in this repository "
                    f"(without it, {_MISSING[name]})", False)
    if rel is not None:
        current = _read(os.path.join(directory, HOOK_NAME))
        if current is not None and CHAIN_MARKER.encode() in current:
            return _chained_step(ws, os.path.join(directory, HOOK_NAME), rel)
        if current is not None and is_ours(current):
            return Step("hook", f"commit-msg hook committed in {rel}/ (git-refocus's)", False)
        raise RefocusError(
            f"core.hooksPath is {rel}, tracked in this repository: git refocus does not edit the team's hooks. "
            f"To chain instead, add this line to {rel}/commit-msg (creating it if need be), commit it, "
            f"and run `git refocus init` again: {chain_line()}")
    hook = os.path.join(directory, name)
    chained_name = name + CHAINED
    chained = os.path.join(directory, chained_name)
    ours = hook_source(name)
    current = _read(hook)
    lost = _MISSING[name]
    if current == ours and _executable(hook):
        return Step("hook", f"{name} hook already installed ({hook})", False)
    if current is not None and is_ours(current):
        if hook_version(current) > hook_version(ours) and _executable(hook):
            return Step("hook", f"a newer git-refocus {name} hook is installed ({hook})", False)

        def update() -> None:
            _write_hook(hook, ours)
        return Step("hook", f"update the {name} hook ({hook})", True, None, update,
                    f"the {name} hook {hook} is an older version or not executable.")
    if current is None:
        if os.path.lexists(hook):
            raise RefocusError(f"{hook} exists but cannot be read; move it away and run `git refocus init` again.")

        def create() -> None:
            os.makedirs(directory, exist_ok=True)
            _write_hook(hook, ours)
        return Step("hook", f"install the {name} hook ({hook})", True, f"rm {_q(hook)}", create,
                    f"no {name} hook in {directory}: {lost}.")
    # a foreign hook: keep it, run it first
    if os.path.lexists(chained):
        raise RefocusError(
            f"{hook} is not git-refocus's hook and {chained_name} is taken; "
            f"merge the two by hand, then run `git refocus init` again."
        )

    def chain() -> None:
        os.rename(hook, chained)
        _write_hook(hook, ours)
    return Step(
        "hook", f"install the {name} hook ({hook}); the existing hook is kept as {chained_name} and runs first",
        True, f"mv {_q(chained)} {_q(hook)}", chain,
        f"{hook} is another {name} hook: {lost}.",
    )


def file_step(path: str, data: bytes, shown: str) -> Step:
    """``path`` should hold ``data`` (a file shipped with the package). A file that differs is
    the user's (or an edited copy): it is kept and reported, never overwritten."""
    current = _read(path)
    if current == data:
        return Step("file", f"{shown} is installed", False)
    if current is None:
        if os.path.lexists(path):
            raise RefocusError(f"{path} exists but cannot be read; move it away and run `git refocus init` again.")

        def create() -> None:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            atomic.write_bytes(path, data)
        return Step("file", f"install {shown}", True, f"rm {_q(path)}", create, f"{shown} is missing.")
    return Step("file", f"{shown} differs from the version shipped with git-refocus; kept as it is", False,
                problem=f"{shown} differs from the shipped version; remove it and run `git refocus init` "
                        "again to get the current one.")


def read_hook(ws: Workspace) -> bytes | None:
    """The commit-msg hook git runs here, or None."""
    return _read(os.path.join(hooks_dir(ws), HOOK_NAME))


def config_values(ws: Workspace, key: str) -> list[str]:
    return _config_values(ws, key)


def _config_values(ws: Workspace, key: str) -> list[str]:
    proc = ws.git("config", "--get-all", key, check=False)
    return proc.stdout.splitlines() if proc.returncode == 0 else []


def config_steps(ws: Workspace) -> list[Step]:
    steps = []
    for key in ("notes.displayRef", "notes.rewriteRef"):
        if NOTES_REF in _config_values(ws, key):
            steps.append(Step("config", f"{key} includes {NOTES_REF}", False))
        else:
            steps.append(Step(
                "config", f"git config --add {key} {NOTES_REF}", True,
                f"git config --fixed-value --unset {key} {NOTES_REF}",
                functools.partial(ws.git, "config", "--local", "--add", key, NOTES_REF),
                f"{key} does not include {NOTES_REF}" + (
                    ": `git log` does not show refocus notes." if key == "notes.displayRef"
                    else ": amend and rebase drop refocus notes."),
            ))
    mode = _config_values(ws, "notes.rewriteMode")
    if not mode:
        steps.append(Step(
            "config", f"git config notes.rewriteMode {REWRITE_MODE}", True, "git config --unset notes.rewriteMode",
            lambda: ws.git("config", "--local", "notes.rewriteMode", REWRITE_MODE),
            f"notes.rewriteMode is not set (git's default concatenates; {REWRITE_MODE} keeps note lines sorted and unique).",
        ))
    else:
        steps.append(Step("config", f"notes.rewriteMode is {mode[-1]}", False))
    return steps


def rewrite_mode_problem(ws: Workspace) -> str | None:
    mode = _config_values(ws, "notes.rewriteMode")
    if mode and mode[-1] in LOSSY_REWRITE_MODES:
        return (f"notes.rewriteMode is {mode[-1]}: rewriting a commit that already has refocus notes drops lines; "
                f"`git config notes.rewriteMode {REWRITE_MODE}` keeps them all.")
    return None


def remote_steps(ws: Workspace, remote: str) -> list[Step]:
    if remote not in remote_.names(ws):
        raise RefocusError(f"no remote named {remote!r}; add it with `git remote add {remote} URL` first.")
    have = _config_values(ws, f"remote.{remote}.fetch")
    steps = []
    for spec in remote_.tracking_refspecs(remote):
        key = f"remote.{remote}.fetch"
        if spec in have:
            steps.append(Step("remote", f"{key} includes {spec}", False))
        else:
            steps.append(Step(
                "remote", f"git config --add {key} '{spec}'", True, f"git config --fixed-value --unset {key} '{spec}'",
                functools.partial(ws.git, "config", "--local", "--add", key, spec),
            ))
    return steps


def _q(path: str) -> str:
    import shlex

    return shlex.quote(path)


# -- first use: .gitignore and CLAUDE.md (idempotent) ------------------------
INDEX_REL = INDEX_FILE


def read_text(path: str) -> str | None:
    """A bootstrap file's text (.gitignore, CLAUDE.md), or None when there is none.

    Bytes that are not UTF-8 (a CLAUDE.md in Latin-1) are kept as they are, with
    ``surrogateescape``: the file is the user's, and init or a spawn adds one line to it,
    so what it held goes back byte for byte through :func:`write_text`."""
    return _read_text(path)


def _read_text(path: str) -> str | None:
    atomic.refuse_symlinks(path, "read")  # a symlinked CLAUDE.md or .gitignore is not ours to copy
    data = _read(path)
    return data.decode("utf-8", "surrogateescape") if data is not None else None


def write_text(path: str, text: str) -> None:
    """Write a bootstrap file's new text, the bytes :func:`read_text` kept back as they were."""
    atomic.write_bytes(path, text.encode("utf-8", "surrogateescape"))


CLAUDE_LINE = (
    f"> 🔀 **Session history (refocus)**: See [{INDEX_FILE}]({INDEX_FILE}) "
    "for incoming briefs and outbound spawns."
)


def gitignore_change(workdir: str) -> tuple[str, str] | None:
    path = os.path.join(workdir, ".gitignore")
    text = _read_text(path)
    if text is not None:
        lines = {line.strip() for line in text.splitlines()}
        if INDEX_REL in lines or "/" + INDEX_REL in lines:
            return None
        if text and not text.endswith("\n"):
            text += "\n"
    return path, (text or "") + INDEX_REL + "\n"


# the instructions file each agent reads first in a repository, where the INDEX link line goes
CONTEXT_FILES = {"claude": "CLAUDE.md", "codex": "AGENTS.md", "gemini": "GEMINI.md"}


def claude_md_change(workdir: str) -> tuple[str, str] | None:
    return context_file_change(workdir, "CLAUDE.md")


def context_file_change(workdir: str, name: str) -> tuple[str, str] | None:
    """(path, new text) that puts the INDEX link line first in ``workdir/name``; None when it is there."""
    path = os.path.join(workdir, name)
    text = _read_text(path)
    if text is not None and INDEX_FILE in text:
        return None
    return path, CLAUDE_LINE + "\n\n" + (text or "") if text else CLAUDE_LINE + "\n"


def planned(workdir: str) -> list[tuple[str, str]]:
    return [c for c in (gitignore_change(workdir), claude_md_change(workdir)) if c]


def ensure(workdir: str) -> list[str]:
    """Apply the bootstrap; return the files written."""
    written = []
    for path, text in planned(workdir):
        write_text(path, text)
        written.append(path)
    return written
