"""CLI wiring for init."""

from __future__ import annotations

import click

from gitrefocus.cli import render


@click.command()
@click.option("--remote", metavar="NAME",
              help="Also add fetch refspecs so `git fetch NAME` keeps refocus refs and notes in "
                   "refs/refocus-remotes/NAME/ (tracking refs, never under refs/remotes/).")
@click.option("--claude", is_flag=True,
              help="Also install the Claude Code surface in this project: /refocus and /refocus-complete in "
                   ".claude/commands, the refocus-drift skill in .claude/skills, the hooks in .claude/settings.json.")
@click.option("--user", is_flag=True, help="With --claude: install it in ~/.claude instead (every project).")
@click.option("--plugin", is_flag=True,
              help="With --claude: install it as a Claude Code plugin instead, from the local marketplace shipped "
                   "in this package (runs `claude plugin marketplace add` and `claude plugin install`, or prints "
                   "them when `claude` is not on PATH).")
@click.option("--codex", is_flag=True,
              help="Also wire the git-refocus hooks into Codex CLI (~/.codex/hooks.json, every project) and trust "
                   "them through `codex app-server` (Codex runs no hook it was not told to trust).")
@click.option("--gemini", is_flag=True,
              help="Also wire the git-refocus hooks into Gemini CLI (~/.gemini/settings.json, every project).")
@click.option("--undo", is_flag=True,
              help="Take back what init did here (with --user or --plugin: that Claude Code route); refocus "
                   "refs, notes and briefs are kept.")
@click.option("--dry-run", is_flag=True, help="Show what would change; change nothing.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def init(remote: str | None, claude: bool, user: bool, plugin: bool, codex: bool, gemini: bool, undo: bool,
         dry_run: bool, as_json: bool) -> None:
    """Make this repository take part in refocus.

    \b
    - installs the commit-msg hook that adds `Refocus-Id: <id>` to commits made
      while a refocus is active, in the hooks directory git uses (core.hooksPath
      is honoured); an existing commit-msg hook is kept and runs first;
    - installs the post-rewrite hook that keeps a commit's refocus link when an
      amend or rebase drops its trailer, and the pre-push hook that refuses to
      send refocus refs or a saved transcript to a remote nobody agreed to
      (each chained the same way);
    - sets notes.displayRef and notes.rewriteRef to refs/notes/refocus and
      notes.rewriteMode to cat_sort_uniq, so `git log` shows refocus notes and
      amend/rebase carry them to the new commits;
    - adds docs/refocus/INDEX.md to .gitignore and the INDEX link line to
      CLAUDE.md (agent sessions read CLAUDE.md first; the line is how they
      find the refocus history).

    With --user, --plugin, --codex or --gemini outside a repository, only that
    agent's part is installed. Running it again changes nothing. Each change is printed with its
    undo command.

    \b
    Examples:
      git refocus init
      git refocus init --claude
      git refocus init --codex --gemini
      git refocus init --dry-run --json
      git refocus init --undo
    """
    from gitrefocus.commands.init import init as run
    from gitrefocus.commands.init import undo as run_undo

    if undo and remote:
        raise click.UsageError("--undo takes back every remote's refspecs; leave out --remote.")
    agents = [a for a, wanted in (("codex", codex), ("gemini", gemini)) if wanted]
    model = (run_undo(claude=claude, user=user, plugin=plugin, agents=agents, dry_run=dry_run) if undo else
             run(remote=remote, claude=claude, user=user, plugin=plugin, agents=agents, dry_run=dry_run))
    for w in model.warnings:
        render.warn(w)
    if as_json:
        render.emit_json("init", model.to_json())
        return
    changes = [s for s in model.steps if s.needed and s.apply is not None]
    if not changes and not model.by_hand:
        where = model.repo or (" and ".join(a.capitalize() for a in agents) if agents else "Claude Code")
        if model.undone:
            render.echo(f"{where} has nothing of git-refocus's to take back.")
            return
        render.echo(f"{where} already {'takes part in refocus' if model.repo else 'has the refocus surface'}; "
                    "nothing to change.")
        return
    if changes:
        render.echo(("would change (dry run):" if dry_run else "changed:"))
    for s in changes:
        render.echo(f"  - {s.what}")
    if model.by_hand and model.undone:
        render.echo("left for you to do:")
        for s in model.by_hand:
            render.echo(f"  {s.what.removeprefix('run: ')}")
    elif model.by_hand:
        render.echo("left for you to do (`claude` or `codex` is not on PATH):")
        for s in model.by_hand:
            render.echo(f"  {s.what.removeprefix('run: ')}")
    if model.core_hooks_path:
        render.echo(f"core.hooksPath is set: the hook lives in {model.hooks_dir}.")
    if model.undo and not dry_run:
        render.echo("to undo: git refocus init --undo" + (" --claude" if claude and not (user or plugin) else
                                                          " --user" if user else " --plugin" if plugin else "")
                    + "".join(f" --{a}" for a in agents) + ", or by hand:")
        for u in model.undo:
            render.echo(f"  {u}")
