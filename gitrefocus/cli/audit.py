"""CLI wiring for log, link, sync and doctor."""

from __future__ import annotations

import click

from gitrefocus.cli import render

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from gitrefocus.commands.link import DetectOutcome


@click.command()
@click.argument("refocus_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def log(refocus_id: str, as_json: bool) -> None:
    """List the commits that belong to a refocus, oldest first.

    A commit belongs to it when it carries the `Refocus-Id: ID` trailer (added
    by the commit-msg hook) or a `linked` note (`git refocus link`). Branches,
    tags, remote branches and HEAD are searched.

    \b
    Examples:
      git refocus log mcp-standard
      git refocus log mcp-standard --json
    """
    from gitrefocus.commands.log import log as run

    model = run(refocus_id=refocus_id)
    if as_json:
        render.emit_json("log", model.to_json())
        return
    if model.elsewhere:
        render.note(f"{model.id} was worked on in {model.elsewhere}: its commits are there "
                    "(`git refocus log` there lists them).")
        return
    if not model.commits:
        render.note(f"no commits are linked to {model.id} yet.")
        return
    if not _inside_cwd(model.repo):
        render.note(f"the commits of {model.id} are in its destination, {model.repo}:")
    with render.paged():
        for c in model.commits:
            render.echo(f"{c.abbrev} {c.author_date[:10]} {c.subject}  ({', '.join(c.via(model.id))})")


def _inside_cwd(repo: str) -> bool:
    import os

    cwd = os.path.realpath(os.getcwd())
    return cwd == os.path.realpath(repo) or cwd.startswith(os.path.realpath(repo) + os.sep)


@click.command()
@click.argument("refocus_id", metavar="ID", required=False)
@click.argument("revs", metavar="REV-RANGE...", nargs=-1)
@click.option("--detect", is_flag=True,
              help="Find the commits of RANGE (default: HEAD's recent history) that carry the change of "
                   "linked commits gone from every branch (a squash or rebase merge) and link them.")
@click.option("--from", "from_rev", metavar="REV",
              help="With --detect: the merged branch's head (the commits it has and RANGE's end lacks are "
                   "the gone ones); for a clone without that branch's reflog, such as CI.")
@click.option("--dry-run", "-n", is_flag=True, help="Say which commits would be linked; change nothing.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def link(refocus_id: str | None, revs: tuple[str, ...], detect: bool, from_rev: str | None, dry_run: bool,
         as_json: bool) -> None:
    """Link commits to a refocus: by hand, or found after a squash or rebase.

    \b
    git refocus link ID REV-RANGE...     link these commits to ID
    git refocus link --detect [RANGE]    link what a rewrite left unlinked

    REV-RANGE is a commit (one commit) or a range such as main..HEAD. Each
    commit gets a `linked` line in refs/notes/refocus and the refocus's event
    log records the link; history is never rewritten.

    --detect compares `git patch-id`s: each commit of RANGE against each linked
    commit that no branch, tag, remote branch or HEAD reaches any more (a
    rebase or cherry-pick), and against the combined change of each run of
    them (a squash). Each match is shown with why; a commit already naming a
    refocus keeps it. Commits rewritten by amend and rebase are linked by the
    post-rewrite hook as it happens; --detect is for merges made elsewhere
    (from CI: --from names the merged branch's head).

    \b
    Examples:
      git refocus link mcp-standard HEAD~3..HEAD
      git refocus link mcp-standard a1b2c3d --dry-run
      git refocus link --detect --dry-run
      git refocus link --detect --from FETCH_HEAD origin/main
    """
    from gitrefocus.errors import RefocusError

    if detect:
        if revs:
            raise RefocusError("with --detect, give at most one RANGE.")
        rng = [refocus_id, *revs] if refocus_id else []
        from gitrefocus.commands.link import detect as run_detect

        found = run_detect(revs=rng, from_rev=from_rev, dry_run=dry_run)
        render.warnings(found.warnings)
        if as_json:
            render.emit_json("link-detect", found.to_json())
            return
        _show_detect(found)
        return
    if from_rev:
        raise RefocusError("--from goes with --detect.")
    if refocus_id is None or not revs:
        raise click.UsageError("name a refocus and the commits to link (ID REV-RANGE...), or use --detect.")
    from gitrefocus.commands.link import link as run

    model = run(refocus_id=refocus_id, revs=list(revs), dry_run=dry_run)
    render.warnings(model.warnings)
    if as_json:
        render.emit_json("link", model.to_json())
        return
    n, already = len(model.linked), len(model.already_linked)
    render.echo(f"{model.id}: {'would link' if model.dry_run else 'linked'} {n} commit{'s' if n != 1 else ''}"
                + (f" ({already} already linked)" if already else "")
                + ("; nothing was changed:" if model.dry_run and n else "; nothing was changed." if model.dry_run else "."))
    if model.dry_run:
        for oid in model.linked:
            render.echo(f"  {oid}")


def _show_detect(found: DetectOutcome) -> None:
    verb = "would link" if found.dry_run else "linked"
    for m in found.matches:
        olds = m.replaces
        why = (f"same change as {olds[0][:12]} (rebased)" if m.how == "rebased"
               else f"same change as the {len(olds)} commits {olds[0][:12]}..{olds[-1][:12]} (squashed)")
        render.echo(f"{m.commit[:12]} {m.subject}")
        render.echo(f"    {verb} to {', '.join(m.ids)}: {why}")
    if not found.matches:
        render.note("no commit of the range carries the change of a gone linked commit.")
    if found.unmatched:
        render.note(f"{len(found.unmatched)} gone linked commit(s) have no match in the range "
                    "(widen RANGE, or give the merged branch's head with --from).")


@click.command("post-rewrite", hidden=True)
@click.argument("kind", type=click.Choice(["amend", "rebase"]))
def post_rewrite(kind: str) -> None:
    """The post-rewrite hook (githooks/post-rewrite): keeps refocus linkage on the
    commits a rewrite made; reads git's ``OLD NEW`` lines on stdin; always exits 0."""
    import sys

    from gitrefocus.commands.link import post_rewrite as run

    text = sys.stdin.buffer.read(64 << 20).decode("utf-8", "replace")
    n = run(kind=kind, pairs_text=text)
    if n:
        render.note(f"kept {n} rewritten commit{'s' if n != 1 else ''} linked to {'its' if n == 1 else 'their'} "
                    "refocus (git log --notes=refocus).")


@click.command()
@click.argument("remote", required=False)
@click.option("--progress/--no-progress", default=None, help="Show progress on stderr (default: when stderr is a terminal).")
@click.option("--yes", "-y", is_flag=True,
              help="Agree that refocus data may be pushed to REMOTE's URL (recorded; asked once on a terminal).")
@click.option("--dry-run", is_flag=True, help="Compare ref tips with the remote's and say what would be "
              "taken and pushed; fetch and change nothing.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def sync(remote: str | None, progress: bool, yes: bool, dry_run: bool, as_json: bool) -> None:
    """Exchange refocus refs and notes with REMOTE (default: refocus.remote,
    the current branch's remote, origin, or the only remote).

    Fetches refs/refocus/* and refs/notes/refocus into tracking refs under
    refs/refocus-remotes/REMOTE/, merges event logs (union of events, same
    order and status on every clone) and notes (union of lines), then pushes
    without force; a push rejected because the remote moved is retried.
    Git runs without hooks.

    The remote's data is evidence: state is recomputed from events, and a log
    that drops or changes an event held here, or an event that is malformed,
    dated before what it follows or a second spawned event, is not taken. The
    local log is kept (and pushed back); the remote's is kept under
    refs/refocus-quarantine/remotes/ and listed as a conflict.

    Nothing is pushed until you agree for the remote's URL: sync asks once on
    a terminal; --yes agrees from a script. The agreement is kept in
    .git/config (refocus.agreedRemote, one URL per value), so a changed URL (a
    fork, a moved origin) is asked again. Without it, sync still fetches and
    merges. Set refocus.remote to send refocus data to a private remote of its
    own, apart from the code's.

    \b
    Examples:
      git refocus sync
      git refocus sync private --yes
      git refocus sync upstream --dry-run
    """
    import sys

    from gitrefocus.commands.sync import sync as run

    if dry_run:
        from gitrefocus.commands.sync import dry_run as plan_sync

        plan = plan_sync(remote=remote)
        if as_json:
            render.emit_json("sync", plan.to_json())
            return
        take, push = plan.to_take, plan.to_push
        render.echo(f"{plan.remote}: would take {len(take)} refocus log(s), push {len(push)}"
                    + ("; the notes differ" if plan.notes_differ else "") + ". Nothing was changed.")
        for label, ids in (("take", take), ("push", push)):
            for rid in ids:
                render.echo(f"  {label} {rid}")
        return
    if not yes and not as_json and sys.stdin.isatty() and sys.stderr.isatty():
        from gitrefocus.commands.sync import unagreed

        where = unagreed(remote=remote)
        yes = where is not None and _ask_consent(*where)
    if progress is None:  # a spinner on a terminal that says what it is doing, fetch and push alike
        with render.working(f"syncing with {remote or 'the remote'}...", quiet=as_json) as update:
            model = run(remote=remote, progress=update, yes=yes)
    else:
        model = run(remote=remote, progress=render.note if progress else None, yes=yes)
    render.warnings(model.warnings)
    if as_json:
        render.emit_json("sync", model.to_json())
        return
    here = [f"{len(ids)} {label}" for ids, label in
            ((model.created, "new"), (model.fast_forwarded, "updated"), (model.merged, "merged")) if ids]
    notes = f"; notes {model.notes}" if model.notes != "same" else ""
    pushed = len(model.pushed) + (1 if model.notes_pushed else 0) + (1 if model.identity.get("published") else 0)
    sent = (f"; pushed {pushed} ref{'s' if pushed != 1 else ''}" if pushed
            else f"; {model.withheld} ref(s) not pushed (not agreed)" if model.withheld else "; nothing to push")
    render.echo(f"synced with {model.remote}: " + (", ".join(here) or "nothing new") + notes + sent + ".")
    if model.identity.get("adopted"):
        render.echo(f"this clone is now the repository {model.remote} holds the refocus data of "
                    f"(identity {model.identity['here'][:12]}): its refocuses are incoming or outgoing here as there.")


def _ask_consent(remote: str, url: str) -> bool:
    return click.confirm(f"Push refocus data (event logs refs/refocus/*, audit notes refs/notes/refocus) to "
                         f"{remote} ({url})? It is asked once for this URL", default=False, err=True)


@click.command()
@click.option("--repair", is_flag=True, help="Repair what can be repaired without losing anything.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
@click.pass_context
def doctor(ctx: click.Context, repair: bool, as_json: bool) -> None:
    """Check that brief files, refs, notes, the hook and local state agree.

    Reports every divergence; with --repair fixes those whose fix loses
    nothing: a missing file or ref rebuilt from the other, a file left behind
    by an interrupted write brought forward, missing audit lines and linkage
    notes re-created from the event log, a saved transcript saved again,
    markers, loops, stops, syncs and --commit commits a killed command left
    unfinished, stale locks (git's index.lock among them), the hook, notes
    config and what init sets up. A stale lock on a remote is reported with
    the command that removes it. Exits 1 while problems remain.

    \b
    Examples:
      git refocus doctor
      git refocus doctor --repair
    """
    from gitrefocus.commands.doctor import doctor as run

    with render.working("checking files, refs, notes, the hook and local state...", quiet=as_json):
        model = run(repair=repair)
    if as_json:
        render.emit_json("doctor", model.to_json())
    else:
        for f in model.findings:
            mark = "repaired" if f.repaired else ("info" if f.severity == "info" else "problem")
            render.prose(f"{mark}: {f.message}")
            if f.repair_error:
                render.prose(f"  repair failed: {f.repair_error}", "    ")
            elif f.repairable and not f.repaired:
                render.prose(f"  --repair would {f.repair}.", "    ")
        if model.clean:
            from gitrefocus.ops.places import home

            render.echo(f"{home(model.repo)}: consistent" + (f" ({model.repaired} repaired)." if model.repaired else "."))
        else:
            render.echo(f"{model.problems} problem(s)"
                        + (f", {model.repairable} repairable with --repair." if model.repairable else "."))
    if not model.clean:
        ctx.exit(1)
