"""CLI wiring for health, check, decisions and search."""

from __future__ import annotations

import click

from gitrefocus.cli import render

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from gitrefocus.health.staleness import HealthReport


@click.command()
@click.option("--all", "all_", is_flag=True, help="Also list what is healthy.")
@click.option("--exit-code", is_flag=True, help="Exit 1 when anything is flagged (for CI), like git diff --exit-code.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def health(all_: bool, exit_code: bool, as_json: bool) -> None:
    """Staleness of docs/context and of refocus work, counted from git history.

    For each context file: commits on HEAD since the last commit that changed
    it, flagged past refocus.stalenessCommits (default 5; 0 disables). For
    each in-progress refocus here: commits since launch and how many carry
    its Refocus-Id trailer. Outgoing briefs still un-launched past
    refocus.staleReservedHours. Says "nothing needs attention here." when
    everything is healthy; --exit-code makes anything flagged exit 1.

    \b
    Examples:
      git refocus health
      git refocus health --all --exit-code
    """
    from gitrefocus.health.staleness import health as run

    with render.working("counting commits since each context file and launch...", quiet=as_json):
        model = run()
    _health_text(model, all_, as_json)
    if exit_code and not model["healthy"]:
        raise click.exceptions.Exit(1)


def _health_text(model: HealthReport, all_: bool, as_json: bool) -> None:
    from gitrefocus.health.staleness import describe

    if as_json:
        render.emit_json("health", model)
        return
    files = model["context"] if all_ else [f for f in model["context"] if f["stale"]]
    if files:
        title = f"Context files (stale past {model['threshold']} commits):"
        render.echo(title)
        for f in files:
            render.echo("  " + describe(f) + ("  stale" if f["stale"] and all_ else ""))
    work = model["refocus"] if all_ else [w for w in model["refocus"] if w["flagged"]]
    if work:
        render.echo("In-progress refocus work:")
        for w in work:
            n = w["commits_since_launch"]
            if n is None:
                render.echo(f"  {w['id']}  (no launch time recorded)")
                continue
            linked = (w["with_trailer"] or 0) + (w["linked_by_note"] or 0)  # counted together with n
            line = (f"  {w['id']}  {n}{'+' if w['truncated'] else ''} commit(s) since launch, "
                    f"{w['with_trailer']} with its Refocus-Id trailer")
            if w["linked_by_note"]:
                line += f", {w['linked_by_note']} linked by note"
            if n and not linked:
                line += "  (check the commit-msg hook, or: git refocus link ID REV-RANGE)"
            render.echo(line)
    if model["unlaunched"]:
        render.echo("Outgoing, still un-launched (continue waiting, or abandon):")
        for u in model["unlaunched"]:
            render.echo(f"  {u['id']}  {int(u['age_hours'])} h  to {u['dest_dir']}")
    if model["healthy"]:
        render.echo("nothing needs attention here." if not all_ else "healthy.")


@click.command()
@click.argument("refocus_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def check(refocus_id: str, as_json: bool) -> None:
    """Stated intent against git for one refocus, as flags to verify.

    Looks at each done_when criterion, each artifact the result lists (does
    it exist at HEAD, did a linked commit touch it) and each material change
    (did that context file change since spawn). Every flag is a prompt to
    verify, not a verdict.

    \b
    Example:
      git refocus check mcp-standard
    """
    from gitrefocus.health.check import check as run

    model = run(refocus_id=refocus_id)
    if as_json:
        render.emit_json("check", model)
        return
    render.prose(f"{model['id']} ({model['status']}): {len(model['linked_commits'])} linked commit(s) "
                 f"since spawn, {model['commits_since_spawn']} commit(s) in all.")
    for section, title in (("done_when", "Done when"), ("artifacts", "Artifacts"),
                           ("material_changes", "Material changes")):
        items = model[section]
        if not items:
            continue
        render.echo(f"{title}:")
        for item in items:
            render.prose(f"  {'⚑' if item['flags'] else '-'} {item['label']}", "    ")
            for flag in item["flags"]:
                render.prose(f"      {flag}", "      ")
            for fact in item["facts"]:
                render.prose(f"      {fact}", "      ")
    if not model["flag_count"]:
        render.echo("no flags: nothing in git contradicts the stated intent (still worth a look).")


@click.command()
@click.option("--dry-run", "-n", is_flag=True, help="Print the index instead of writing it.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def decisions(dry_run: bool, as_json: bool) -> None:
    """Generate docs/context/decisions/INDEX.md from the ADR files.

    Each ADR gives its title (`# ADR-NNN: Title`), status, date and tags (the
    `**Status:** X | **Date:** Y | **Tags:** Z` line) and superseded-by.
    ADRs with `private: true` in their frontmatter are left out; files that
    cannot be parsed are listed, not fatal.

    \b
    Examples:
      git refocus decisions --dry-run
      git refocus decisions
    """
    from gitrefocus.health.decisions import decisions as run

    model = run(write=not dry_run)
    for err in model["errors"]:
        render.warn(f"{err['file']}: {err['error']}")
    if as_json:
        render.emit_json("decisions", model)
        return
    if dry_run:
        render.echo(model["text"].rstrip("\n"))
        return
    verb = "wrote" if model["changed"] else "unchanged:"
    render.echo(f"{verb} {model['path']} ({len(model['entries']) - len(model['errors'])} decision(s), "
                f"{model['private_skipped']} private skipped, {len(model['errors'])} unreadable).")


@click.command()
@click.argument("text")
@click.option("--cross-project", is_flag=True, help="Also search the projects under refocus.searchPaths.")
@click.option("--kind", type=click.Choice(["brief", "result", "context"]), multiple=True,
              help="Only these kinds of text; repeat.")
@click.option("--limit", type=click.IntRange(min=1), default=200, show_default=True, help="Stop after this many matches.")
@click.option("--global", "global_", is_flag=True,
              help="Also search every repository in the user-level registry (git refocus init/spawn add them).")
@click.option("--prune", is_flag=True, help="With --global: drop registered paths that vanished from the registry.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def search(text: str, cross_project: bool, kind: tuple[str, ...], limit: int, global_: bool, prune: bool,
           as_json: bool) -> None:
    """Search briefs, results and context files (case-insensitive).

    With --cross-project, also every git work tree directly under each
    refocus.searchPaths entry (git config --add refocus.searchPaths ~/work).
    Paths that resolve outside their configured parent are refused.

    \b
    Examples:
      git refocus search "SSH-stdio"
      git refocus search dispatcher --kind result --global
    """
    from gitrefocus.health.search import search as run

    with render.working("searching...", quiet=as_json):
        model = run(text=text, cross_project=cross_project, kinds=list(kind), limit=limit,
                    global_=global_, prune=prune)
    for r in model["refused"]:
        render.warn(f"refused {r['path']}: {r['reason']}")
    for n in model["notices"]:
        render.note(n)
    if as_json:
        render.emit_json("search", model)
        return
    for m in model["results"]:
        render.echo(f"[{m['project']}] {m['path']}:{m['line']} — \"{m['text']}\"")
    if model["truncated"]:
        render.note(f"stopped after {limit} matches (--limit).")
    if not model["results"]:
        render.note(f"no matches for {text!r}.")
