"""``git refocus init``: make this repository take part.

Installs the commit-msg hook (chaining an existing one), sets the notes
config so ``git log`` shows refocus notes and rewrites carry them, writes the
.gitignore entry and CLAUDE.md link line, and optionally adds tracking
refspecs for a remote and the Claude Code hooks. Idempotent; ``dry_run``
reports the same steps without doing them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from gitrefocus.model.ids import INDEX_FILE
from gitrefocus.ops import setup
from gitrefocus.store import atomic, registry
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class InitOutcome:
    repo: str
    dry_run: bool
    hooks_dir: str  # where git runs hooks from
    core_hooks_path: str | None
    steps: list[setup.Step]  # every step, needed (changed) or already done
    warnings: list[str]

    @property
    def changed(self) -> int:
        return sum(1 for s in self.steps if s.needed)

    @property
    def undo(self) -> list[str]:
        return [s.undo for s in self.steps if s.needed and s.undo]

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo, "dry_run": self.dry_run, "hooks_dir": self.hooks_dir,
            "core_hooks_path": self.core_hooks_path, "steps": [s.to_json() for s in self.steps],
            "changed": self.changed, "undo": self.undo, "warnings": self.warnings,
        }


def _bootstrap_steps(ws: Workspace) -> list[setup.Step]:
    steps = []
    for path, text in setup.planned(ws.workdir):
        rel = ws.rel(path)
        what = (f"add {INDEX_FILE} to " if rel == ".gitignore" else "add the refocus INDEX link line to ") + rel
        steps.append(setup.Step(
            "file", what, True, f"remove that line from {rel}",
            functools.partial(atomic.write_text, path, text),
        ))
    return steps


def _claude_steps(ws: Workspace, dry_run: bool) -> list[setup.Step]:
    from gitrefocus.claude import settings

    changed = settings.install(workdir=ws.workdir, dry_run=dry_run)
    if not changed:
        return [setup.Step("claude", "Claude Code hooks already in .claude/settings.json", False)]
    return [setup.Step("claude", f"merge the git-refocus hooks into {ws.rel(p)}", True,
                         f"remove the `git refocus hook` entries from {ws.rel(p)}") for p in changed]


def plan(ws: Workspace, *, remote: str | None = None) -> list[setup.Step]:
    steps = [setup.hook_step(ws)]
    steps += setup.config_steps(ws)
    if remote:
        steps += setup.remote_steps(ws, remote)
    steps += _bootstrap_steps(ws)
    return steps


def init(*, remote: str | None = None, claude: bool = False, dry_run: bool = False, cwd: str = ".") -> InitOutcome:
    ws = Workspace.open(cwd)
    steps = plan(ws, remote=remote)  # everything is checked before anything changes
    if not dry_run:
        for step in steps:
            if step.needed and step.apply is not None:
                step.apply()
    if claude:
        steps += _claude_steps(ws, dry_run)
    if not dry_run:
        registry.try_register(ws)  # the user-level list `--global` commands read
    warnings = []
    problem = setup.rewrite_mode_problem(ws)
    if problem:
        warnings.append(problem)
    hooks_path = ws.git("config", "--get", "core.hooksPath", check=False).stdout.strip()
    return InitOutcome(repo=ws.workdir, dry_run=dry_run, hooks_dir=setup.hooks_dir(ws),
                       core_hooks_path=hooks_path or None, steps=steps, warnings=warnings)
