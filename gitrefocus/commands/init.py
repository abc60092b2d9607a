"""``git refocus init``: make this repository take part.

Installs the commit-msg hook (chaining an existing one), sets the notes
config so ``git log`` shows refocus notes and rewrites carry them, writes the
.gitignore entry and CLAUDE.md link line, and optionally adds tracking
refspecs for a remote and the Claude Code hooks. Idempotent; ``dry_run``
reports the same steps without doing them.
"""

from __future__ import annotations

from gitrefocus.model.brief import INDEX_FILE
from gitrefocus.ops import setup
from gitrefocus.store import atomic
from gitrefocus.store.workspace import Workspace


def _bootstrap_steps(ws: Workspace) -> list[setup.Step]:
    steps = []
    for path, text in setup.planned(ws.workdir):
        rel = ws.rel(path)
        what = (f"add {INDEX_FILE} to " if rel == ".gitignore" else "add the refocus INDEX link line to ") + rel
        steps.append(setup.Step(
            "file", what, True, f"remove that line from {rel}",
            lambda path=path, text=text: atomic.write_text(path, text),
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


def init(*, remote: str | None = None, claude: bool = False, dry_run: bool = False, cwd: str = ".") -> dict:
    ws = Workspace.open(cwd)
    steps = plan(ws, remote=remote)  # everything is checked before anything changes
    if not dry_run:
        for step in steps:
            if step.needed:
                step.apply()
    if claude:
        steps += _claude_steps(ws, dry_run)
    warnings = []
    problem = setup.rewrite_mode_problem(ws)
    if problem:
        warnings.append(problem)
    hooks_path = ws.git("config", "--get", "core.hooksPath", check=False).stdout.strip()
    return {
        "repo": ws.workdir, "dry_run": dry_run,
        "hooks_dir": setup.hooks_dir(ws), "core_hooks_path": hooks_path or None,
        "steps": [s.as_dict() for s in steps],
        "changed": sum(1 for s in steps if s.needed),
        "undo": [s.undo for s in steps if s.needed and s.undo],
        "warnings": warnings,
    }
