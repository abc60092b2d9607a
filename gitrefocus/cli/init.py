"""CLI wiring for init."""

from __future__ import annotations

import click

from gitrefocus.cli import render


@click.command()
@click.option("--remote", metavar="NAME",
              help="Also add fetch refspecs so `git fetch NAME` keeps refocus refs and notes in "
                   "refs/refocus-remotes/NAME/ (tracking refs, never under refs/remotes/).")
@click.option("--claude", is_flag=True, help="Also merge the Claude Code hooks into .claude/settings.json.")
@click.option("--dry-run", is_flag=True, help="Show what would change; change nothing.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def init(remote, claude, dry_run, as_json):
    """Make this repository take part in refocus.

    \b
    - installs the commit-msg hook that adds `Refocus-Id: <id>` to commits made
      while a refocus is active, in the hooks directory git uses (core.hooksPath
      is honoured); an existing commit-msg hook is kept and runs first;
    - sets notes.displayRef and notes.rewriteRef to refs/notes/refocus and
      notes.rewriteMode to cat_sort_uniq, so `git log` shows refocus notes and
      amend/rebase carry them to the new commits;
    - adds docs/refocus/INDEX.md to .gitignore and the INDEX link line to CLAUDE.md
      (agent sessions read CLAUDE.md first; the line is how they find the refocus history).

    Running it again changes nothing. Each change is printed with its undo command.
    """
    from gitrefocus.commands.init import init as run

    model = run(remote=remote, claude=claude, dry_run=dry_run)
    for w in model.warnings:
        render.warn(w)
    if as_json:
        render.emit_json("init", model.to_json())
        return
    changes = [s for s in model.steps if s.needed]
    if not changes:
        render.echo(f"{model.repo} already takes part in refocus; nothing to change.")
        return
    render.echo(("would change (dry run):" if dry_run else "changed:"))
    for s in changes:
        render.echo(f"  - {s.what}")
    if model.core_hooks_path:
        render.echo(f"core.hooksPath is set: the hook lives in {model.hooks_dir}.")
    if model.undo and not dry_run:
        render.echo("to undo:")
        for u in model.undo:
            render.echo(f"  {u}")
