"""CLI wiring for spawn, start, complete, abandon and receive."""

from __future__ import annotations

import click

from gitrefocus.cli import render


@click.command()
@click.argument("dest", type=click.Path(file_okay=True, dir_okay=True))
@click.option("--slug", help="Kebab-case name for the work (1-48 of a-z 0-9 -). Derived from DEST and --reason if omitted.")
@click.option("--reason", help="Why this branch exists: the trigger, one short paragraph. Required.")
@click.option("--done-when", "done_when", multiple=True, metavar="CRITERION",
              help="A success criterion; repeat. At least one is required.")
@click.option("--out-of-scope", multiple=True, metavar="TEXT", help="Something the child must not do; repeat.")
@click.option("--context", multiple=True, metavar="FACT", help="An inherited-context bullet (5-15 is the aim); repeat.")
@click.option("--deliverable", multiple=True, metavar="TEXT", help="An open question or desired deliverable; repeat.")
@click.option("--alternative", "alternatives", multiple=True, metavar="TEXT",
              help="A hypothesis or option already considered and rejected, and why (alternatives_considered; "
                   "the child is told not to re-propose it); repeat.")
@click.option("--pushback", multiple=True, metavar="TEXT",
              help="A correction or objection the user made, verbatim where possible (reviewer_pushback); repeat.")
@click.option("--related", multiple=True, metavar="REF", help="An external reference (URL, path#anchor); repeat.")
@click.option("--related-id", "related_ids", multiple=True, metavar="ID", help="A sibling refocus id; repeat.")
@click.option("--file", "files", multiple=True, metavar="PATH", help="A relevant file in DEST (confirmed); repeat.")
@click.option("--parent", metavar="ID", help="The refocus this one continues (e.g. re-spawning blocked work).")
@click.option("--assign", metavar="WHO", help="Who owns this refocus (assigned_to).")
@click.option("--from-transcript", metavar="PATH|SESSION", help="Fill Inherited context from a Claude Code transcript (handoff).")
@click.option("--oneshot", is_flag=True, help="Print the non-interactive relaunch form (`claude -p`, `codex exec`, "
                                             "`gemini -p`).")
@click.option("--agent", type=click.Choice(["claude", "codex", "gemini"]),
              help="The agent the child runs in (default: the one this session runs in, else refocus.agent).")
@click.option("--commit", is_flag=True, help="Commit the files this command wrote (scoped commit).")
@click.option("--dry-run", is_flag=True, help="Make every check and say what would be written; change nothing.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def spawn(dest: str, slug: str | None, reason: str | None, done_when: tuple[str, ...], out_of_scope: tuple[str, ...],
          context: tuple[str, ...], deliverable: tuple[str, ...], alternatives: tuple[str, ...],
          pushback: tuple[str, ...], related: tuple[str, ...], related_ids: tuple[str, ...], files: tuple[str, ...],
          parent: str | None, assign: str | None, from_transcript: str | None, oneshot: bool, agent: str | None,
          commit: bool, dry_run: bool, as_json: bool) -> None:
    """Source side: write a brief for a child session in DEST.

    DEST must be an existing directory inside a git work tree. The brief goes
    to DEST/docs/refocus/<id>.md (status reserved), the event log to
    refs/refocus/<id> in both repositories, and the relaunch command is
    printed:

    \b
      cd DEST && claude --session-id <SID>

    With --agent codex or gemini the child runs in Codex CLI or Gemini CLI
    instead (each needs `git refocus init --codex` / `--gemini` once).
    Refused (exit 3) from a child session: children are leaves.

    \b
    Examples:
      git refocus spawn ../mcp --slug mcp-standard \\
          --reason "The memory session drifted into the MCP standard." \\
          --done-when "MCPSTANDARD.md exists"
      git refocus spawn ../mcp --slug s --reason R --done-when D --dry-run
    """
    from gitrefocus.commands.spawn import spawn as run

    model = run(dest=dest, slug=slug, reason=reason, done_when=list(done_when), out_of_scope=list(out_of_scope),
                context=list(context), deliverables=list(deliverable), alternatives=list(alternatives),
                pushback=list(pushback), related=list(related),
                related_ids=list(related_ids), files=list(files), parent=parent, assign=assign,
                from_transcript=from_transcript, oneshot=oneshot, agent=agent, commit=commit, dry_run=dry_run)
    render.warnings(model.warnings)
    if as_json:
        render.emit_json("spawn", model.to_json())
        return
    render.echo(model.marker)
    if model.dry_run:
        for path in model.files_written:
            render.echo(f"  would write {path}")
        return
    render.echo(f"brief:   {model.brief_path}")
    if model.source_files:  # first use here: nothing in this repository changes unsaid
        how = "committed" if model.commits.get("source") else "commit them with your work"
        render.echo(f"wrote here: {', '.join(model.source_files)} ({how})")
    render.echo("launch the child with:")
    render.echo(f"  {model.relaunch_command}")


@click.command()
@click.argument("refocus_id", metavar="[ID]", required=False)
@click.option("--session-id", help="The Claude session opening the brief (default: $CLAUDE_CODE_SESSION_ID).")
@click.option("--take-over", is_flag=True,
              help="Take on a refocus that belongs to another session (refused without this flag).")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def start(refocus_id: str | None, session_id: str | None, take_over: bool, as_json: bool) -> None:
    """Child side: mark a brief in-progress and make it active for commit tagging.

    Usually run by the SessionStart hook. Without ID, picks the brief whose
    child_session_id is this session; with no session id (a person at a
    terminal), the only one waiting here. In a Claude Code session the
    refocus becomes this session's own (its commits, `complete` and `stop`);
    at a terminal it becomes the worktree's active refocus. A session
    starting a refocus that belongs to another session is refused (exit 3)
    unless it says --take-over.

    \b
    Examples:
      git refocus start
      git refocus start mcp-standard --take-over
    """
    from gitrefocus.commands.start import start as run

    model = run(refocus_id=refocus_id, session_id=session_id, take_over=take_over)
    render.warnings(model.warnings)
    if as_json:
        render.emit_json("start", model.to_json())
    else:
        if model.took_over_from:
            render.note(f"this session took {model.id} over from session {model.took_over_from}.")
        tagged = ("commits here now carry Refocus-Id." if model.tagging else
                  "commits here are NOT tagged: no git-refocus commit-msg hook (run `git refocus init`).")
        render.echo(f"{model.id}: {model.status} (launched {model.launched_at}); {tagged}")


@click.command()
@click.argument("refocus_id", metavar="[ID]", required=False)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def stop(refocus_id: str | None, as_json: bool) -> None:
    """Stop tagging this worktree's commits with a refocus (clears the active marker).

    Without ID, clears whatever `start` made active here. The refocus keeps
    its status: finish it with `complete` or `abandon`.

    \b
    Example:
      git refocus stop
    """
    from gitrefocus.commands.stop import stop as run

    model = run(refocus_id=refocus_id)
    if as_json:
        render.emit_json("stop", model.to_json())
        return
    if model.id is None:
        render.echo("no refocus is active here; commits are not tagged.")
        return
    if model.cleared_active or model.sessions_unmapped:
        render.echo(f"{model.id} is no longer active here; new commits do not carry its Refocus-Id.")
    else:
        render.echo(f"{model.id} was not active here; nothing to clear.")
    if model.env_still_set:
        render.warn(f"$SESSION_REFOCUS_ID still names {model.id} in this shell; `unset SESSION_REFOCUS_ID` too.")


@click.command()
@click.argument("refocus_id", metavar="[ID]", required=False)
@click.option("--status", type=click.Choice(["completed", "blocked"]), default="completed", show_default=True,
              help="completed: the work is done; say which done_when criteria are met (--dod) and which not "
                   "(--dod-unmet): one marked neither is recorded as not stated, with a warning. "
                   "blocked: needs work elsewhere first.")
@click.option("--summary", help="One paragraph: what was accomplished, or where it blocked.")
@click.option("--dod", multiple=True, metavar="N|TEXT", help="A done_when criterion that is met (number or text); repeat.")
@click.option("--dod-unmet", multiple=True, metavar="N|TEXT[=WHY]", help="A criterion not met, with why; repeat.")
@click.option("--artifact", multiple=True, metavar="PATH[=DESC]", help="A file produced; repeat.")
@click.option("--follow-up", multiple=True, metavar="DIR:SLUG:REASON", help="Work that belongs elsewhere (parent decides); repeat.")
@click.option("--material-change", multiple=True, metavar="FILE=SUMMARY",
              help="A decision to promote into docs/context/FILE; repeat.")
@click.option("--no-material-changes", metavar="REASON", help="Say why nothing canonical changed (e.g. investigation only).")
@click.option("--from-json", metavar="FILE",
              help="Read the result as a JSON return object ('-': stdin): status (completed, blocked, or failed "
                   "and partial, both recorded as blocked), summary, artifacts, and optionally dod, "
                   "material_changes, follow_ups, errors, next_steps, metadata (docs/using.md). Flags add to it.")
@click.option("--save-transcript", is_flag=True, help="Consent to commit the child transcript (scrubbed) under docs/refocus/transcripts/.")
@click.option("--commit", is_flag=True, help="Commit the files this command wrote (scoped commit).")
@click.option("--dry-run", is_flag=True, help="Make every check and print the result it would record; change nothing.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def complete(refocus_id: str | None, status: str, summary: str | None, dod: tuple[str, ...], dod_unmet: tuple[str, ...],
             artifact: tuple[str, ...], follow_up: tuple[str, ...], material_change: tuple[str, ...],
             no_material_changes: str | None, from_json: str | None, save_transcript: bool, commit: bool, dry_run: bool,
             as_json: bool) -> None:
    """Child side: append the Result and return it to the source.

    Material changes are mandatory: name each decision with
    --material-change FILE=SUMMARY (promoted into docs/context/FILE), or say
    --no-material-changes REASON. Without ID, completes the active refocus.

    \b
    Examples:
      git refocus complete --summary "Wrote the standard." --dod 1 \\
          --artifact "MCPSTANDARD.md=the standard" \\
          --no-material-changes "docs only" --commit
      git refocus complete --status blocked --summary "Needs the API key."
      git refocus complete --summary "Done." --dod 1 \\
          --no-material-changes "none" --dry-run
    """
    from gitrefocus.commands.complete import complete as run

    model = run(refocus_id=refocus_id, status=status, summary=summary, dod=list(dod), dod_unmet=list(dod_unmet),
                artifacts=list(artifact), follow_ups=list(follow_up), material_changes=list(material_change),
                no_material_changes=no_material_changes, from_json=from_json, save_transcript=save_transcript,
                commit=commit, dry_run=dry_run)
    render.warnings(model.warnings)
    if as_json:
        render.emit_json("complete", model.to_json())
        return
    if model.dry_run:
        render.echo(f"{model.id} would be recorded as {model.status}; nothing was changed. The result:")
        render.raw(model.result.render().rstrip("\n") + "\n")
        for path in model.files_written:
            render.echo(f"  would write {path}")
        return
    render.echo(f"{model.id}: {model.status} at {model.completed_at}.")
    if model.suggested_files:
        render.note("files this session wrote that are not listed as artifacts (kept as suggested_files): "
                    + ", ".join(model.suggested_files))
    if model.redactions:
        from gitrefocus.commands.complete import redaction_counts

        lines: dict[str, list[str]] = {}
        for r in model.redactions:
            lines.setdefault(r["kind"], []).append(str(r["line"]))
        kinds = "; ".join(f"{kind} ×{n} (line {', '.join(lines[kind][:10])}{', …' if n > 10 else ''})"
                          for kind, n in redaction_counts(model.redactions).items())
        render.echo(f"redacted {len(model.redactions)} secret(s) from the saved transcript: {kinds}")
    if model.source_updated:
        render.echo(f"the source ({model.source_dir}) now shows the result waiting.")
    else:
        render.echo("the source repository is not reachable here; `git refocus sync` carries the result.")
    if not commit and model.files_written:
        import os
        import shlex

        files = " ".join(shlex.quote(os.path.relpath(p)) for p in model.files_written)
        render.note(f"commit the brief, its result and the promoted context with the work: git add {files} "
                    "(or complete with --commit).")


@click.command()
@click.argument("refocus_id", metavar="ID")
@click.option("--reason", required=True, help="Why this refocus is abandoned (kept in the record).")
@click.option("--commit", is_flag=True, help="Commit the brief file change (scoped commit).")
@click.option("--dry-run", is_flag=True, help="Check and say what would change; change nothing.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def abandon(refocus_id: str, reason: str, commit: bool, dry_run: bool, as_json: bool) -> None:
    """Stop a refocus that is not finished; its brief stays as a record.

    Editing the brief's frontmatter to `status: abandoned` (with `reason:`)
    does the same; the next command records the edit.

    \b
    Examples:
      git refocus abandon mcp-standard --reason "Done upstream instead."
      git refocus abandon mcp-standard --reason R --dry-run
    """
    from gitrefocus.commands.abandon import abandon as run

    model = run(refocus_id=refocus_id, reason=reason, commit=commit, dry_run=dry_run)
    render.warnings(model.warnings)
    if as_json:
        render.emit_json("abandon", model.to_json())
    elif model.dry_run:
        render.echo(f"{model.id} would be abandoned ({model.reason}); nothing was changed.")
        for path in model.files_written:
            render.echo(f"  would update {path}")
    else:
        render.echo(f"{model.id}: abandoned ({model.reason}).")


@click.command()
@click.argument("refocus_id", metavar="[ID]", required=False)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def receive(refocus_id: str | None, as_json: bool) -> None:
    """Source side: acknowledge a returned result (records `received`).

    Without ID, receives every result waiting here. The SessionStart hook
    does this when it shows the results to the parent session.

    \b
    Examples:
      git refocus receive
      git refocus receive mcp-standard --json
    """
    from gitrefocus.commands.receive import receive as run

    model = run(refocus_id=refocus_id)
    if as_json:
        render.emit_json("receive", model.to_json())
        return
    if not model.received:
        render.echo("no results waiting.")
    for r in model.received:
        res = r.parsed
        render.echo(f"{r.id}: {r.status} — {res.summary.strip() if res else ''}")
        for f in res.follow_ups if res else ():
            render.echo(f"  follow-up: {f.dir} {f.slug}: {f.reason}")
