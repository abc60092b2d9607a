"""What ``git refocus init --undo`` takes back: the reverse of :mod:`setup` and of the
three Claude Code routes, as a list of :class:`~gitrefocus.ops.setup.Step` (so a dry run,
the report and the change describe the same thing).

Only what git-refocus put there is removed: our commit-msg hook (a hook it chained is put
back), our notes config and remote refspecs, the INDEX.md line of .gitignore and the link
line of CLAUDE.md, the command and skill files that are still as shipped, and the hook
entries that run ``git refocus hook``. Refocus data (refs, notes, briefs) is never touched:
it is the record. A team's committed hook is never edited; its chain line is left for the
user to remove (a step done by hand).
"""

from __future__ import annotations

import functools
import os

from gitrefocus.model.ids import INDEX_FILE
from gitrefocus.ops import setup
from gitrefocus.store import remote as remote_
from gitrefocus.store.notes import NOTES_REF
from gitrefocus.store.workspace import CHAIN_MARKER, PRIVATE_HOOK

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable

    from gitrefocus.store.workspace import Workspace


def repository_steps(ws: Workspace) -> list[setup.Step]:
    return [*_hook_steps(ws), *_config_steps(ws), *_remote_steps(ws), *_file_steps(ws)]


def remove_file(path: str, up_to: str | None = None) -> None:
    """Remove ``path``, then each parent directory left empty, below ``up_to``."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    if up_to is None:
        return
    parent, stop = os.path.dirname(path), os.path.abspath(up_to)
    while os.path.abspath(parent).startswith(stop + os.sep):
        try:
            os.rmdir(parent)
        except OSError:
            return  # not empty (or not ours to remove)
        parent = os.path.dirname(parent)


def _hook_steps(ws: Workspace) -> list[setup.Step]:
    directory = setup.hooks_dir(ws)
    hook = os.path.join(directory, setup.HOOK_NAME)
    current = setup.read_file(hook)
    private = os.path.join(ws.common_dir, PRIVATE_HOOK)
    out = []
    if os.path.lexists(private):
        out.append(setup.Step("hook", f"remove the commit-msg hook {private}", True, apply=functools.partial(remove_file, private)))
    tracked = setup.tracked_dir(ws, directory)
    if current is not None and CHAIN_MARKER.encode() in current:
        out.append(setup.Step("hook", f"remove the line ending in `# {CHAIN_MARKER}` from {tracked or directory}/"
                              f"{setup.HOOK_NAME} (the team's hook: not edited here)", True))
    elif current is not None and setup.is_ours(current):
        if tracked:
            out.append(setup.Step("hook", f"{tracked}/{setup.HOOK_NAME} is git-refocus's hook, committed: "
                                  "remove it from the repository by hand if the team no longer wants it", True))
        else:
            chained = os.path.join(directory, setup.CHAINED_NAME)
            if os.path.isfile(chained):
                out.append(setup.Step("hook", f"put back the commit-msg hook that ran before ({setup.CHAINED_NAME})",
                                      True, apply=functools.partial(os.replace, chained, hook)))
            else:
                out.append(setup.Step("hook", f"remove the commit-msg hook ({hook})", True,
                                      apply=functools.partial(remove_file, hook)))
    if not tracked:
        for name in (setup.REWRITE_HOOK, setup.PUSH_HOOK):
            out += _plain_hook_steps(directory, name)
    return out


def _plain_hook_steps(directory: str, name: str) -> list[setup.Step]:
    """Take back a hook init installed in an untracked hooks directory, putting back the one it chained."""
    hook = os.path.join(directory, name)
    current = setup.read_file(hook)
    if current is None or not setup.is_ours(current):
        return []
    chained = os.path.join(directory, name + setup.CHAINED)
    if os.path.isfile(chained):
        return [setup.Step("hook", f"put back the {name} hook that ran before ({name}{setup.CHAINED})",
                           True, apply=functools.partial(os.replace, chained, hook))]
    return [setup.Step("hook", f"remove the {name} hook ({hook})", True, apply=functools.partial(remove_file, hook))]


def _config_steps(ws: Workspace) -> list[setup.Step]:
    out = []
    for key in ("notes.displayRef", "notes.rewriteRef"):
        if NOTES_REF in setup.config_values(ws, key):
            out.append(setup.Step("config", f"git config --fixed-value --unset-all {key} {NOTES_REF}", True,
                                  apply=functools.partial(ws.git, "config", "--local", "--fixed-value",
                                                          "--unset-all", key, NOTES_REF)))
    if setup.config_values(ws, "notes.rewriteMode")[-1:] == [setup.REWRITE_MODE]:
        out.append(setup.Step("config", "git config --unset notes.rewriteMode", True,
                              apply=functools.partial(ws.git, "config", "--local", "--unset-all",
                                                      "notes.rewriteMode")))
    return out


def _remote_steps(ws: Workspace) -> list[setup.Step]:
    out = []
    for name in remote_.names(ws):
        key = f"remote.{name}.fetch"
        have = setup.config_values(ws, key)
        for spec in remote_.tracking_refspecs(name):
            if spec in have:
                out.append(setup.Step("remote", f"git config --fixed-value --unset {key} {spec}", True,
                                      apply=functools.partial(ws.git, "config", "--local", "--fixed-value",
                                                              "--unset", key, spec)))
    return out


def _without(path: str, drop: Callable[[str], bool]) -> str | None:
    """The text of ``path`` without the lines ``drop`` matches, or None when none does."""
    text = setup.read_text(path)
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if not drop(line.strip())]
    if len(kept) == len(lines):
        return None
    if path.endswith(tuple(setup.CONTEXT_FILES.values())) and kept[:1] == ["\n"]:
        kept = kept[1:]  # the blank line init put after the link
    return "".join(kept)


def _file_steps(ws: Workspace) -> list[setup.Step]:
    out = []
    for rel, drop, what in ((".gitignore", lambda ln: ln in (setup.INDEX_REL, "/" + setup.INDEX_REL),
                             f"remove {setup.INDEX_REL} from .gitignore"),
                            *((name, lambda ln: ln == setup.CLAUDE_LINE.strip(),
                               f"remove the {INDEX_FILE} link line from {name}")
                              for name in setup.CONTEXT_FILES.values())):
        path = os.path.join(ws.workdir, rel)
        text = _without(path, drop)
        if text is None:
            continue
        apply = (functools.partial(remove_file, path) if not text.strip()  # nothing but ours: the file goes
                 else functools.partial(setup.write_text, path, text))
        out.append(setup.Step("file", what + (f" (and {rel}, left empty)" if not text.strip() else ""), True,
                              apply=apply))
    return out
