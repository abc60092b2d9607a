"""``git refocus init``: make this repository take part.

Installs the commit-msg hook (chaining an existing one), sets the notes
config so ``git log`` shows refocus notes and rewrites carry them, writes the
.gitignore entry and CLAUDE.md link line, and optionally adds tracking
refspecs for a remote and the Claude Code surface (commands, skill, hooks: in
the project's .claude, in ~/.claude, or as a plugin). Idempotent; ``dry_run``
reports the same steps without doing them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import INDEX_FILE
from gitrefocus.model.records import dataclass
from gitrefocus.ops import setup
from gitrefocus.store import registry
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class InitOutcome:
    repo: str | None  # None: only the user-wide Claude Code part (--user/--plugin outside a repository)
    dry_run: bool
    hooks_dir: str | None  # where git runs hooks from
    core_hooks_path: str | None
    steps: list[setup.Step]  # every step, needed (changed) or already done
    warnings: list[str]
    undone: bool = False  # the steps take back what init did (--undo)

    @property
    def changed(self) -> int:
        return sum(1 for s in self.steps if s.needed and s.apply is not None)

    @property
    def undo(self) -> list[str]:
        return [s.undo for s in self.steps if s.needed and s.undo]

    @property
    def by_hand(self) -> list[setup.Step]:
        """Needed steps init cannot do itself (e.g. no `claude` on PATH): printed for the user."""
        return [s for s in self.steps if s.needed and s.apply is None]

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo, "dry_run": self.dry_run, "hooks_dir": self.hooks_dir,
            "core_hooks_path": self.core_hooks_path, "steps": [s.to_json() for s in self.steps],
            "changed": self.changed, "undo": self.undo, "warnings": self.warnings,
            "by_hand": [s.what for s in self.by_hand], "undone": self.undone,
        }


def _bootstrap_steps(ws: Workspace) -> list[setup.Step]:
    steps = []
    for path, text in setup.planned(ws.workdir):
        rel = ws.rel(path)
        what = (f"add {INDEX_FILE} to " if rel == ".gitignore" else "add the refocus INDEX link line to ") + rel
        steps.append(setup.Step(
            "file", what, True, f"remove that line from {rel}",
            functools.partial(setup.write_text, path, text),
        ))
    return steps


def _claude_steps(ws: Workspace | None, user: bool, plugin: bool) -> list[setup.Step]:
    from gitrefocus.claude import install, settings

    if plugin:
        import shutil

        return install.plugin_steps(shutil.which("claude"))
    if user:
        return install.copy_steps(settings.user_claude_dir(), "~/.claude")
    assert ws is not None
    return install.copy_steps(os.path.join(ws.workdir, ".claude"), ".claude")


def plan(ws: Workspace, *, remote: str | None = None) -> list[setup.Step]:
    steps = setup.hook_steps(ws)
    steps += setup.config_steps(ws)
    if remote:
        steps += setup.remote_steps(ws, remote)
    steps += _bootstrap_steps(ws)
    return steps


def _undo_steps(ws: Workspace | None, claude: bool, user: bool, plugin: bool) -> list[setup.Step]:
    from gitrefocus.claude import install, settings
    from gitrefocus.ops import teardown

    steps = teardown.repository_steps(ws) if ws is not None else []
    if plugin:
        import shutil

        steps += install.undo_plugin_steps(shutil.which("claude"))
    elif user:
        steps += install.undo_copy_steps(settings.user_claude_dir(), "~/.claude", settings.user_claude_dir())
    elif ws is not None:  # the project's .claude: always looked at, as `init --claude` may have run
        steps += install.undo_copy_steps(os.path.join(ws.workdir, ".claude"), ".claude", ws.workdir)
    if ws is not None and ws.workdir in registry.entries():
        steps.append(setup.Step("registry", f"remove {ws.workdir} from the registry `--global` commands read", True,
                                apply=functools.partial(registry.remove, {ws.workdir})))
    return steps


def undo(*, claude: bool = False, user: bool = False, plugin: bool = False, agents: Sequence[str] = (),
         dry_run: bool = False, cwd: str = ".") -> InitOutcome:
    """Take back what ``init`` (and, with ``user`` or ``plugin``, that Claude Code route; with
    ``agents``, those agents' hooks) did here. Refocus data (refs, notes, briefs) is kept: it is
    the record."""
    if user and plugin:
        raise RefocusError("choose one of --user and --plugin.")
    ws = Workspace.open(cwd) if not (user or plugin or agents) else Workspace.try_open(cwd)
    steps = _undo_steps(ws, claude, user, plugin) if ws is not None or user or plugin else []
    for agent in agents:
        from gitrefocus.claude import agent_install

        steps += agent_install.undo_steps(agent)
    if not dry_run:
        for step in steps:
            if step.needed and step.apply is not None:
                step.apply()
    return InitOutcome(repo=ws.workdir if ws is not None else None, dry_run=dry_run,
                       hooks_dir=setup.hooks_dir(ws) if ws is not None else None, core_hooks_path=None,
                       steps=steps, warnings=[], undone=True)


def init(*, remote: str | None = None, claude: bool = False, user: bool = False, plugin: bool = False,
         agents: Sequence[str] = (), dry_run: bool = False, cwd: str = ".") -> InitOutcome:
    """``user``/``plugin`` put the Claude Code surface in ~/.claude or install it as a plugin
    instead of the project's .claude; ``agents`` (codex, gemini) wire those clients' user-level
    hooks; outside a repository they do only that."""
    if user and plugin:
        raise RefocusError("choose one of --user and --plugin.")
    ws = Workspace.open(cwd) if remote or not (user or plugin or agents) else Workspace.try_open(cwd)
    steps = plan(ws, remote=remote) if ws is not None else []
    if claude or user or plugin:
        steps += _claude_steps(ws, user, plugin)
    for agent in agents:
        from gitrefocus.claude import agent_install

        if ws is not None:  # the agent's instructions file links INDEX.md, as CLAUDE.md does
            change = setup.context_file_change(ws.workdir, setup.CONTEXT_FILES[agent])
            if change is not None:
                steps.append(setup.Step("file", f"add the refocus INDEX link line to {ws.rel(change[0])}", True,
                                        f"remove that line from {ws.rel(change[0])}",
                                        functools.partial(setup.write_text, *change)))
        steps += agent_install.install_steps(agent, ws.workdir if ws is not None else os.getcwd())
    # everything is checked before anything changes
    if not dry_run:
        for step in steps:
            if step.needed and step.apply is not None:
                step.apply()
    if ws is not None and not dry_run:
        registry.try_register(ws)  # the user-level list `--global` commands read
    warnings = [s.problem for s in steps if s.kind == "file" and not s.needed and s.problem]
    if ws is None:
        return InitOutcome(repo=None, dry_run=dry_run, hooks_dir=None, core_hooks_path=None, steps=steps,
                           warnings=warnings)
    problem = setup.rewrite_mode_problem(ws)
    if problem:
        warnings.append(problem)
    hooks_path = ws.git("config", "--get", "core.hooksPath", check=False).stdout.strip()
    return InitOutcome(repo=ws.workdir, dry_run=dry_run, hooks_dir=setup.hooks_dir(ws),
                       core_hooks_path=hooks_path or None, steps=steps, warnings=warnings)
