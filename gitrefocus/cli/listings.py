"""list, status and index as they print: the commands run most, by people and by
the agent. Nothing here imports click: ``git refocus list``, ``status`` and
``index`` with no option but ``--json`` (and ``--all`` for list) come here
straight from :mod:`gitrefocus.entry`, as the hooks do, and the click commands
of :mod:`gitrefocus.cli.views` call the same functions for every other form."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

from gitrefocus.cli import guard, render

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module

if TYPE_CHECKING:
    from gitrefocus.ops.index_md import Row

# command -> the options it may take here; anything else goes through click
PLAIN: dict[str, frozenset[str]] = {"list": frozenset({"--json", "--all"}), "status": frozenset({"--json"}),
                                    "index": frozenset({"--json"})}


def plain(args: list[str]) -> bool:
    """``args`` are a listing this module runs without click."""
    return bool(args) and args[0] in PLAIN and set(args[1:]) <= PLAIN[args[0]]


def main(args: list[str]) -> int:
    """Run a :func:`plain` command line, with the CLI's errors and exit codes."""
    flags = set(args[1:])
    as_json = "--json" in flags
    shows: dict[str, Callable[[], None]] = {
        "list": lambda: show_list("--all" in flags, as_json),
        "status": lambda: show_status(as_json),
        "index": lambda: show_index(as_json),
    }
    return guard.run(shows[args[0]], as_json=as_json, debug=bool(os.environ.get("GIT_REFOCUS_DEBUG")))


def _where(r: Row) -> str:
    from gitrefocus.ops.places import route  # loaded already: the listing's rows come from ops

    return route(r.direction, r.counterpart)


def _section(title: str, rows: list[str]) -> bool:
    if rows:
        render.echo(title)
        for r in rows:
            render.echo("  " + r)
    return bool(rows)


def show_list(all_: bool, as_json: bool) -> None:
    from gitrefocus.commands.list import list_ as run

    model = run(all=all_)
    render.notes(model.notices)
    if as_json:
        render.emit_json("list", model.to_json())
        return
    rows = [[r.id, r.status, _where(r) or r.direction] for r in model.entries]
    if not rows:
        render.echo("nothing here: no refocus is active or finished recently." if not all_ else
                    "nothing here: no refocus has been spawned into or out of this repository.")
        return
    with render.paged() if all_ else contextlib.nullcontext():
        render.table(None, ["ID", "STATUS", "COUNTERPART"], rows)  # direction: "from …" / "to …"


def show_status(as_json: bool) -> None:
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
    elif model.active and not model.active.tagging:
        said = _section("Active here (commits are NOT tagged: run `git refocus init`):",
                        [f"{model.active.id}  {model.active.status}"])
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


def show_index(as_json: bool) -> None:
    from gitrefocus.commands.index import index as run

    model = run()
    render.notes(model.notices)
    if as_json:
        render.emit_json("index", model.to_json())
    else:
        render.echo(f"{model.path}: {model.active} active, {model.recent} recent, {model.archived} archived.")
