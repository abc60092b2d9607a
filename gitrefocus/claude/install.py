"""The agent's surface, installed three ways from the one plugin shipped in this package
(``gitrefocus/claude/plugin/``): its command and skill files copied into a project's
``.claude/`` (with the hooks in its settings.json), the same into ``~/.claude``, or the plugin
itself, installed by the client's own plugin manager from the package's local marketplace.

Each way is a list of :class:`~gitrefocus.ops.setup.Step`, so ``init`` checks, dry-runs,
applies and undoes them like the rest of a repository's setup.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import subprocess
from importlib import resources

from gitrefocus.claude import settings
from gitrefocus.errors import RefocusError
from gitrefocus.ops import setup, teardown

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

PLUGIN = "refocus"
MARKETPLACE = "git-refocus"  # the name in plugin/.claude-plugin/marketplace.json
PLUGIN_ID = f"{PLUGIN}@{MARKETPLACE}"
# the plugin's files that a .claude directory gets, at the same relative paths
COPIED = ("commands/refocus.md", "commands/refocus-complete.md", "commands/handoff.md",
          "skills/refocus-drift/SKILL.md")
CLI_TIMEOUT = 120


def plugin_dir() -> str:
    """Where the plugin (and its one-plugin marketplace) lives in the installed package."""
    return str(resources.files("gitrefocus").joinpath("claude", "plugin"))


def copy_steps(claude_dir: str, shown: str) -> list[setup.Step]:
    """Commands and skill into ``claude_dir``, hooks into its settings.json; ``shown`` is how
    the directory is named to the user (``.claude``, ``~/.claude``)."""
    steps = [setup.file_step(os.path.join(claude_dir, rel), _shipped(rel), f"{shown}/{rel}") for rel in COPIED]
    shown_settings = f"{shown}/settings.json"
    if not settings.install_into(claude_dir, dry_run=True):
        steps.append(setup.Step("claude", f"the git-refocus hooks are in {shown_settings}", False))
    else:
        steps.append(setup.Step("claude", f"merge the git-refocus hooks into {shown_settings}", True,
                                f"remove the `git refocus hook` entries from {shown_settings}",
                                functools.partial(settings.install_into, claude_dir)))
    return steps


def shipped(rel: str) -> bytes:
    """A file of the plugin, as shipped (``rel``: its path in the plugin, e.g. commands/refocus.md)."""
    return _shipped(rel)


def _shipped(rel: str) -> bytes:
    return resources.files("gitrefocus").joinpath("claude", "plugin", *rel.split("/")).read_bytes()


def plugin_steps(claude: str | None) -> list[setup.Step]:
    """Add the package's marketplace and install the plugin from it with ``claude plugin``.

    Without a ``claude`` on PATH the steps are only printed (``apply`` is None)."""
    add = ["claude", "plugin", "marketplace", "add", plugin_dir()]
    install = ["claude", "plugin", "install", PLUGIN_ID]
    undo_add = f"claude plugin marketplace remove {MARKETPLACE}"
    undo_install = f"claude plugin uninstall {PLUGIN_ID}"
    if claude is None:
        return [setup.Step("plugin", f"run: {shlex.join(add)}", True, undo_add),
                setup.Step("plugin", f"run: {shlex.join(install)}", True, undo_install)]
    known = {m.get("name"): m for m in _listed(claude, "plugin", "marketplace", "list", "--json")}
    ours = known.get(MARKETPLACE)
    if ours is not None and os.path.realpath(str(ours.get("path"))) != os.path.realpath(plugin_dir()):
        raise RefocusError(f"Claude Code already knows a marketplace named {MARKETPLACE} at {ours.get('path')}; "
                           f"remove it with `{undo_add}` and run this again.")
    installed = any(p.get("id") == PLUGIN_ID for p in _listed(claude, "plugin", "list", "--json"))
    return [
        setup.Step("plugin", f"the {MARKETPLACE} marketplace is known to Claude Code", False) if ours else
        setup.Step("plugin", shlex.join(add), True, undo_add, functools.partial(_run, claude, add[1:])),
        setup.Step("plugin", f"the {PLUGIN_ID} plugin is installed", False) if installed else
        setup.Step("plugin", shlex.join(install), True, undo_install, functools.partial(_run, claude, install[1:])),
    ]


def _run(claude: str, args: list[str]) -> str:
    try:
        done = subprocess.run([claude, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=CLI_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RefocusError(f"`claude {shlex.join(args)}` did not run: {exc}") from None
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no output"]
        raise RefocusError(f"`claude {shlex.join(args)}` failed (exit {done.returncode}): {said[0]}")
    return done.stdout


def _listed(claude: str, *args: str) -> list[dict[str, Any]]:
    out = _run(claude, list(args))
    try:
        items = json.loads(out[out.index("["):] if "[" in out else out)
    except ValueError:
        raise RefocusError(f"`claude {shlex.join(args)}` did not print a JSON list; is this Claude Code 2.1 or newer?") \
            from None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def undo_copy_steps(claude_dir: str, shown: str, up_to: str) -> list[setup.Step]:
    """The command and skill files still as shipped, and our hook entries in settings.json."""
    out = []
    for rel in COPIED:
        path = os.path.join(claude_dir, rel)
        current = setup.read_file(path)
        if current is None:
            continue
        if current == _shipped(rel):
            out.append(setup.Step("file", f"remove {shown}/{rel}", True, apply=functools.partial(teardown.remove_file, path, up_to)))
        else:
            out.append(setup.Step("file", f"{shown}/{rel} was edited; kept (remove it by hand)", False))
    if settings.uninstall_from(claude_dir, dry_run=True):
        out.append(setup.Step("claude", f"remove the `git refocus hook` entries from {shown}/settings.json", True,
                              apply=functools.partial(settings.uninstall_from, claude_dir, up_to=up_to)))
    return out


def undo_plugin_steps(claude: str | None) -> list[setup.Step]:
    steps = [["claude", "plugin", "uninstall", PLUGIN_ID],
             ["claude", "plugin", "marketplace", "remove", MARKETPLACE]]
    if claude is None:
        return [setup.Step("plugin", f"run: {shlex.join(s)}", True) for s in steps]
    return [setup.Step("plugin", shlex.join(s), True, apply=functools.partial(_run, claude, s[1:]))
            for s in steps]
