"""CLI wiring for list, show, status, index, pickup and gc."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import click

from gitrefocus.cli import across, render
from gitrefocus.model.ids import ref_name

if TYPE_CHECKING:
    from gitrefocus.ops.index_md import Row

def _where(r: Row) -> str:
    if not r.counterpart:
        return ""
    return ("from " if r.direction == "incoming" else "to ") + r.counterpart


@click.command("list")
@click.option("--all", "all_", is_flag=True, help="Include older finished and archived entries.")
@click.option("--global", "global_", is_flag=True, help=across.GLOBAL_HELP)
@click.option("--prune", is_flag=True, help=across.PRUNE_HELP)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def list_(all_, global_, prune, as_json):
    """List refocuses here: active ones and those finished recently."""
    if global_:
        return across.list_global(all_, prune, as_json)
    from gitrefocus.commands.list import list_ as run

    model = run(all=all_)
    render.notes(model.notices)
    if as_json:
        render.emit_json("list", model.to_json())
        return
    rows = [[r.id, r.status, r.direction, _where(r)] for r in model.entries]
    if not rows:
        render.echo("nothing here: no refocus is active or finished recently." if not all_ else
                    "nothing here: no refocus has been spawned into or out of this repository.")
        return
    with render.paged() if all_ else contextlib.nullcontext():
        render.table(None, ["ID", "STATUS", "DIRECTION", "COUNTERPART"], rows)


@click.command()
@click.argument("refocus_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def show(refocus_id, as_json):
    """Show one refocus in full: the brief document and its event log."""
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
        render.echo(f"# Events ({model.direction}, {ref_name(model.id)})")
        for e in model.events:
            who = e.event.actor.get("name") or ""
            render.echo(f"{e.event.at}  {e.event.kind:<13} {who}  {e.commit[:10]}")


def _section(title: str, rows: list[str]) -> bool:
    if rows:
        render.echo(title)
        for r in rows:
            render.echo("  " + r)
    return bool(rows)


@click.command()
@click.option("--global", "global_", is_flag=True, help=across.GLOBAL_HELP)
@click.option("--prune", is_flag=True, help=across.PRUNE_HELP)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def status(global_, prune, as_json):
    """What needs attention here: incoming briefs, outgoing results, divergences."""
    if global_:
        return across.status_global(prune, as_json)
    from gitrefocus.commands.status import status as run

    model = run()
    render.notes(model.notices)
    if as_json:
        render.emit_json("status", model.to_json())
        return
    inc, out = model.incoming, model.outgoing
    said = False
    if model.active and model.active.problem:
        render.warn(f"the active refocus of this worktree {model.active.problem}; commits are tagged with it. "
                    "Clear it: git refocus stop.")
        said = True
    elif model.active:
        said = _section("Active here (commits carry its Refocus-Id; `git refocus stop` clears it):",
                        [f"{model.active.id}  {model.active.status}"])
    said |= _section("Incoming, waiting for launch:", [f"{r.row.id}  {_where(r.row)}" for r in inc.pending_launch])
    said |= _section("Incoming, in progress:", [
        f"{r.row.id}  launched {r.row.launched_at}" + (f"  (may have exited without complete: {r.unfinished})" if r.unfinished else "")
        for r in inc.in_progress])
    said |= _section("Incoming, blocked:", [r.row.id for r in inc.blocked])
    said |= _section("Outgoing, results waiting (git refocus receive):", [
        f"{w.row.id}  {w.row.status}: {(w.parsed.summary if w.parsed else '').strip()[:100]}" for w in out.results_waiting])
    said |= _section("Outgoing, still un-launched (continue waiting, or abandon):", [
        f"{r.row.id}  {_where(r.row)}  {int(r.age_hours)} h" for r in out.unlaunched])
    said |= _section("Outgoing, in flight:", [f"{r.row.id}  {r.row.status}  {_where(r.row)}" for r in out.in_flight])
    said |= _section("Divergences:", [f"{d.id}: {d.problem}" for d in model.divergences])
    for title, lines in (("Stale context:", model.stale_context),
                         ("Changes since last session:", model.changes_since_last_session)):
        if lines:
            said |= _section(title, [str(x) for x in lines])
    if not said:
        render.echo("nothing needs attention here.")


@click.command()
@click.option("--global", "global_", is_flag=True,
              help="Write the overview of every registered repository instead (see --output).")
@click.option("--output", metavar="PATH",
              help="With --global: write here (default refocus.globalIndex, else ~/REFOCUS-INDEX.md).")
@click.option("--prune", is_flag=True, help=across.PRUNE_HELP)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def index(global_, output, prune, as_json):
    """Regenerate docs/refocus/INDEX.md (every writing command also does)."""
    if global_:
        return across.index_global(output, prune, as_json)
    from gitrefocus.commands.index import index as run

    model = run()
    render.notes(model.notices)
    if as_json:
        render.emit_json("index", model.to_json())
    else:
        render.echo(f"{model.path}: {model.active} active, {model.recent} recent, {model.archived} archived.")


@click.command()
@click.argument("refocus_id", metavar="ID")
def pickup(refocus_id):
    """Print the prompt a child session starts with (never changes anything).

    \b
    cd DEST && claude --session-id SID -p "$(git refocus pickup ID)"
    """
    from gitrefocus.commands.pickup import pickup as run

    render.raw(run(refocus_id=refocus_id).prompt)


@click.command()
@click.option("--dry-run", "-n", is_flag=True, help="Show what would move.")
@click.option("--days", type=click.IntRange(min=0), help="Archive results older than this (default refocus.archiveDays, 90).")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def gc(dry_run, days, as_json):
    """Move results finished long ago to docs/refocus/archive/YYYY-QN/."""
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
