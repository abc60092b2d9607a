"""CLI wiring for list, show, status, index, pickup and gc."""

from __future__ import annotations

import click

from gitrefocus.cli import across, listings, render
from gitrefocus.model.ids import ref_name


@click.command("list")
@click.option("--all", "all_", is_flag=True, help="Include older finished and archived entries.")
@click.option("--global", "global_", is_flag=True, help=across.GLOBAL_HELP)
@click.option("--prune", is_flag=True, help=across.PRUNE_HELP)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def list_(all_: bool, global_: bool, prune: bool, as_json: bool) -> None:
    """List refocuses here: active ones and those finished recently.

    \b
    Examples:
      git refocus list
      git refocus list --all --json
      git refocus list --global
    """
    if global_:
        return across.list_global(all_, prune, as_json)
    listings.show_list(all_, as_json)


@click.command()
@click.argument("refocus_id", metavar="[ID]", required=False)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def show(refocus_id: str | None, as_json: bool) -> None:
    """Show one refocus in full: the brief document and its event log.

    Without ID, the refocus this session works on (in a child session, its
    own; with no session id, the worktree's active one).

    \b
    Examples:
      git refocus show mcp-standard
      git refocus show --json
    """
    from gitrefocus.commands.show import show as run

    model = run(refocus_id=refocus_id)
    if as_json:
        render.emit_json("show", model.to_json())
        return
    for p in model.problems:
        render.warn(p)
    with render.paged():
        if model.brief:
            render.echo(model.brief.rstrip("\n"))
            render.echo()
        if model.here:
            render.echo("# On this machine")
            render.echo(f"source:    {model.here['source']}")
            render.echo(f"dest:      {model.here['dest']}")
            render.echo(f"continue:  {model.here['relaunch_shown']}")
            render.echo()
        render.echo(f"# Events ({model.direction}, {ref_name(model.id)})")
        for e in model.events:
            who = e.event.actor.get("name") or ""
            render.echo(f"{e.event.at}  {e.event.kind:<13} {who}  {e.commit[:10]}")


@click.command()
@click.option("--global", "global_", is_flag=True, help=across.GLOBAL_HELP)
@click.option("--prune", is_flag=True, help=across.PRUNE_HELP)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def status(global_: bool, prune: bool, as_json: bool) -> None:
    """What needs attention here: incoming briefs, outgoing results, divergences.

    \b
    Examples:
      git refocus status
      git refocus status --global
    """
    if global_:
        return across.status_global(prune, as_json)
    listings.show_status(as_json)


@click.command()
@click.option("--global", "global_", is_flag=True,
              help="Write the overview of every registered repository instead (see --output).")
@click.option("--output", metavar="PATH",
              help="With --global: write here (default refocus.globalIndex, else ~/REFOCUS-INDEX.md).")
@click.option("--prune", is_flag=True, help=across.PRUNE_HELP)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def index(global_: bool, output: str | None, prune: bool, as_json: bool) -> None:
    """Regenerate docs/refocus/INDEX.md (every writing command also does).

    \b
    Examples:
      git refocus index
      git refocus index --global --output ~/REFOCUS-INDEX.md
    """
    if global_:
        return across.index_global(output, prune, as_json)
    listings.show_index(as_json)


@click.command()
@click.argument("refocus_id", metavar="ID")
@click.option("--run", "run_child", is_flag=True,
              help="Run the child now, non-interactively, in its directory (claude -p, codex exec or gemini -p "
                   "with this prompt, as its brief says).")
@click.option("--allowed-tools", "allowed_tools", multiple=True, metavar="TOOL",
              help="With --run: a tool the child may use besides git refocus, in its agent's own terms "
                   "(`Bash(git commit:*)`, `run_shell_command(git commit)`); repeat. A Codex child runs "
                   "what its sandbox allows.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def pickup(refocus_id: str, run_child: bool, allowed_tools: tuple[str, ...], as_json: bool) -> None:
    """Print the prompt a child session starts with (never changes anything).

    \b
    cd DEST && claude --session-id SID -p "$(git refocus pickup ID)"

    With --run, start that child itself (a one-shot spawn): the form an
    agent can run under the /refocus command's own permissions. The
    child's output is printed; the exit status is the child's.

    \b
    Examples:
      git refocus pickup mcp-standard
      git refocus pickup mcp-standard --json
    """
    from gitrefocus.commands.pickup import pickup as run

    if run_child and as_json:
        raise click.UsageError("--json prints the prompt; --run runs the child and prints its output: choose one.")
    if run_child:
        from gitrefocus.commands.pickup import run_oneshot

        run_oneshot(refocus_id=refocus_id, allowed_tools=list(allowed_tools))
        return
    if allowed_tools:
        raise click.UsageError("--allowed-tools goes with --run.")
    model = run(refocus_id=refocus_id)
    if as_json:
        render.emit_json("pickup", model.to_json())
        return
    render.raw(model.prompt)


@click.command()
@click.option("--dry-run", "-n", is_flag=True, help="Show what would move.")
@click.option("--days", type=click.IntRange(min=0), help="Archive results older than this (default refocus.archiveDays, 90).")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def gc(dry_run: bool, days: int | None, as_json: bool) -> None:
    """Move results finished long ago to docs/refocus/archive/YYYY-QN/.

    \b
    Examples:
      git refocus gc --dry-run
      git refocus gc --days 180
    """
    from gitrefocus.commands.gc import gc as run

    model = run(dry_run=dry_run, days=days)
    if as_json:
        render.emit_json("gc", model.to_json())
        return
    verb = "would move" if dry_run else "moved"
    for m in model.archived:
        render.echo(f"{verb} {m.source} -> {m.target}")
    if not model.archived:
        render.echo(f"nothing finished more than {model.days} days ago.")
