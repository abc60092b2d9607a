"""Text and JSON for the ``--global`` forms of list, status and index."""

from __future__ import annotations

from gitrefocus.cli import render
from gitrefocus.ops import places

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from gitrefocus.ops.index_md import Row

GLOBAL_HELP = "Read every repository in the registry ($XDG_STATE_HOME/git-refocus/repositories; init and spawn add them)."
PRUNE_HELP = "With --global: drop registered paths that vanished from the registry."


def _where(row: Row) -> str:
    return places.route(row.direction, row.counterpart)


def list_global(all_: bool, prune: bool, as_json: bool) -> None:
    from gitrefocus.commands.across import list_global as run

    model = run(all=all_, prune=prune)
    render.warnings(model.across.warnings)
    if as_json:
        render.emit_json("list", model.to_json())
        return
    rows = [[places.home(g.repo), g.row.id, g.row.status, g.row.direction, _where(g.row)] for g in model.entries]
    if rows:
        render.table(None, ["REPOSITORY", "ID", "STATUS", "DIRECTION", "COUNTERPART"], rows)
    else:
        render.note(f"nothing active or recent in the {len(model.across.repos)} registered repositories.")


def status_global(prune: bool, as_json: bool) -> None:
    from gitrefocus.commands.across import status_global as run

    model = run(prune=prune)
    render.warnings(model.across.warnings)
    if as_json:
        render.emit_json("status", model.to_json())
        return
    said = False
    for s in model.repos:
        inc, out = s.incoming, s.outgoing
        lines = [f"incoming, waiting for launch: {d.row.id}" for d in inc.pending_launch]
        lines += [f"incoming, in progress: {d.row.id}" + ("  (quiet)" if d.quiet else "") for d in inc.in_progress]
        lines += [f"incoming, blocked: {d.row.id}" for d in inc.blocked]
        lines += [f"outgoing, result waiting (git refocus receive): {w.row.id}" for w in out.results_waiting]
        lines += [f"outgoing, still un-launched: {d.row.id}  {int(d.age_hours)} h" for d in out.unlaunched]
        lines += [f"divergence: {d.id}: {d.problem}" for d in s.divergences]
        if lines:
            render.echo(places.home(s.repo))
            for line in lines:
                render.echo("  " + line)
            said = True
    if not said:
        render.echo(f"nothing needs attention in the {len(model.repos)} registered repositories.")


def index_global(output: str | None, prune: bool, as_json: bool) -> None:
    from gitrefocus.commands.across import index_global as run

    model = run(output=output, prune=prune)
    render.warnings(model.across.warnings)
    if as_json:
        render.emit_json("index", model.to_json())
        return
    verb = "wrote" if model.changed else "unchanged:"
    render.echo(f"{verb} {model.path}: {len(model.model.active)} active, {len(model.model.recent)} recent, "
                f"{model.model.archived_count} archived across {len(model.across.repos)} repositories.")
