"""`git refocus handoff`: click wiring only; the work is in gitrefocus.handoff."""

from __future__ import annotations

import os

import click

from gitrefocus.cli import render
from gitrefocus.errors import RefocusError

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

    from click import Context, HelpFormatter

    from gitrefocus.handoff.pipeline import Handoff

DEFAULT = "brief"


class _Handoff(click.Group):
    """``git refocus handoff TRANSCRIPT`` is ``handoff brief TRANSCRIPT``; the agent pipeline's
    steps (prepare, reduce, finalize) are subcommands."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ctx.help_option_names):
            args = [DEFAULT, *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: Context, formatter: HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "[brief] [OPTIONS] [TRANSCRIPT|SESSION-ID]")
        formatter.write_usage(ctx.command_path, "prepare|reduce|finalize [OPTIONS] ...", "   or: ")

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        brief = self.commands[DEFAULT]
        rows = [r for r in (p.get_help_record(ctx) for p in brief.get_params(ctx) if isinstance(p, click.Option)) if r]
        with formatter.section("Options (brief)"):
            formatter.write_dl(rows)
        self.format_commands(ctx, formatter)


@click.group("handoff", cls=_Handoff, invoke_without_command=False)
def handoff() -> None:
    """Distill a Claude Code transcript into a five-section brief.

    TRANSCRIPT is a session's .jsonl file, or a session id looked up under
    ~/.claude/projects/<encoded-cwd>/ (or $CLAUDE_CONFIG_DIR/projects/);
    the session's subagents/ files are read too. Left out, it is the session
    this runs in ($CLAUDE_CODE_SESSION_ID, set in Claude Code's Bash tool).

    The brief has five sections in a fixed order: Convergence (where the
    session landed), Dead-ends (rejected hypotheses and the user's
    corrections, quoted verbatim), Code-state (from git, read-only),
    Open-threads & conflicts (with stated-intent-vs-git flags to verify) and
    Basics (what the user established). Every claim carries a pointer —
    transcript:L<n> (a line of the transcript file), commit:<hash> or
    file:<path> — and claims without one are marked [unsourced].

    Without a subcommand, `brief` runs: the built-in extractors (no model),
    or --extractor claude / --extractor-cmd. The /handoff command of the
    Claude Code plugin runs the agent pipeline instead: `prepare` writes the
    plan, the agent spawns five extractor subagents in one message (after
    the chunk-summarizers and `reduce` for an oversized spine), `finalize`
    checks their answers against the transcript and git and renders the
    brief, using the built-in extractor for any section that fails.

    \b
    Examples:
      git refocus handoff ~/.claude/projects/-home-me-repo/<session-id>.jsonl
      git refocus handoff <session-id> --out brief.md
      git refocus handoff <session-id> --extractor claude
      git refocus handoff prepare <session-id> --json
      git refocus handoff finalize \\
          --sections ~/.cache/git-refocus/handoff/<dir>/sections
    """


@handoff.command(DEFAULT)
@click.argument("transcript", metavar="[TRANSCRIPT|SESSION-ID]", required=False)
@click.option("--out", "out", metavar="FILE",
              help="Write the brief (or, with --json, the JSON) to FILE instead of stdout.")
@click.option("--json", "as_json", is_flag=True, help="Print the five section objects and metadata as JSON.")
@click.option("--extractor-cmd", metavar="CMD",
              help="Run the five extractor prompts (one per section) through CMD (sh -c; prompt on stdin, "
                   "one JSON section object on stdout), in parallel; a section whose answer fails "
                   "validation falls back to the built-in extractor.")
@click.option("--extractor", "extractor", type=click.Choice(["builtin", "claude"]), default="builtin",
              show_default=True,
              help="Which model extracts the sections: the built-in, model-free extractors, or the installed "
                   "`claude` binary (-p, JSON output, read-only tools) with the built-in extractor as the "
                   "fallback for any section whose answer fails validation.")
@click.option("--extractor-timeout", type=click.FloatRange(min=1), default=600, show_default=True,
              metavar="SECONDS", help="Time limit for each extractor command call.")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the cache in the git dir.")
@click.option("--spine", "show_spine", is_flag=True,
              help="Print the prepared spine (numbered L<n> lines) instead of the brief, to read a "
                   "transcript:L<n> pointer in context.")
def brief(transcript: str | None, out: str | None, as_json: bool, extractor: str, extractor_cmd: str | None,
          extractor_timeout: float, no_cache: bool, show_spine: bool) -> int:
    """The brief of one transcript (the default: `handoff TRANSCRIPT`).

    Nothing from the transcript is executed. Tool output never reaches the
    brief. Without --extractor or --extractor-cmd no model is involved; with
    one, each model answer is checked like the agent's (schema, pointers that
    resolve, verbatim quotes, injection hygiene) and a section that fails is
    replaced by the built-in extractor's, marked. The result is cached under
    the git dir, keyed by the transcript's leaf uuid.

    \b
    Examples:
      git refocus handoff <session-id> --json
      git refocus handoff <session-id> --extractor-cmd 'my-model --json'
      git refocus handoff <session-id> --extractor claude
    """
    from gitrefocus.handoff import pipeline
    from gitrefocus.model.agents import session_from_env

    transcript = transcript or session_from_env(os.environ)
    if not transcript:
        raise click.UsageError("name a transcript or a session id (outside an agent's session there is no default).")
    if out and os.path.isdir(out):
        raise RefocusError(f"--out {out!r} is a directory; name a file.")
    if show_spine:
        _emit(pipeline.spine(transcript), out)
        return 0
    if extractor == "claude" and extractor_cmd:
        raise RefocusError("--extractor claude and --extractor-cmd name two models; pass one of them.")
    with render.working("reading the transcript...", quiet=as_json):
        result = pipeline.handoff(transcript, extractor_cmd=extractor_cmd, use_cache=not no_cache,
                                  timeout=extractor_timeout, extractor=extractor)
    _show(result, as_json, out)
    return 0


def _show(result: Handoff, as_json: bool, out: str | None, extra: dict[str, Any] | None = None) -> None:
    for message in result.warnings:
        render.warn(message)
    if as_json:
        payload = {**result.to_json(), **(extra or {})}
        if out:
            import json

            doc = {"version": render.JSON_VERSION, "kind": "handoff", **payload}
            _emit(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", out)
        else:
            render.emit_json("handoff", payload)
        return
    _emit(result.brief.text, out)


@handoff.command("prepare")
@click.argument("transcript", metavar="[TRANSCRIPT|SESSION-ID]", required=False)
@click.option("--warm", is_flag=True,
              help="Warm mode: the running session writes the five section objects itself; prints how "
                   "(prompts/warm.txt). No spine is written for subagents.")
@click.option("--dir", "directory", metavar="DIR",
              help="Write the plan into DIR (new or empty) instead of ~/.cache/git-refocus/handoff/<session>-*/.")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def prepare(transcript: str | None, warm: bool, directory: str | None, as_json: bool) -> int:
    """Write the plan for the agent's extractor subagents.

    The plan directory holds plan.json, the scrubbed spine (or, for an
    oversized one, its chunks and the chunk-summarizer prompts), the read-only
    git facts, the five extractor prompts (the handoff skill's text, with its SECURITY
    block and schemas) and an empty sections/ directory for their answers.
    Without TRANSCRIPT, the session named by $CLAUDE_CODE_SESSION_ID.

    \b
    Next: spawn the five extractors in ONE message (each started with its
    `launch` prompt from plan.json), then
      git refocus handoff finalize --sections PLAN_DIR/sections
    A chunked plan first needs its chunk-summarizers (also in one message)
    and `git refocus handoff reduce <plan dir>`.

    \b
    Example:
      git refocus handoff prepare <session-id> --json
    """
    from gitrefocus.handoff import agent

    with render.working("reading the transcript...", quiet=as_json):
        doc = agent.prepare_plan(transcript, cwd=os.getcwd(), warm=warm, directory=directory)
    if as_json:
        render.emit_json("handoff-plan", {k: v for k, v in doc.items() if k not in ("version", "kind")})
        return 0
    directory = doc["directory"]
    render.echo(f"plan:      {os.path.join(directory, 'plan.json')} ({doc['mode']})")
    if doc["mode"] == "warm":
        render.echo(f"turns:     {doc['turns']}")
    elif doc["mode"] == "chunked":
        render.echo(f"chunks:    {len(doc['chunks'])}: spawn one chunk-summarizer per chunk in ONE message "
                    f"(prompts/chunk-NNN.txt), then `git refocus handoff reduce {directory}`")
    else:
        render.echo(f"spine:     {doc['spine']}")
    if doc["mode"] != "warm":
        render.echo(f"prompts:   {os.path.join(directory, 'prompts')}/<section>.txt")
    render.echo(f"sections:  {doc['sections_dir']}")
    render.echo(f"finally:   git refocus handoff finalize --sections {doc['sections_dir']}")
    if doc["mode"] == "warm":  # what to write, shown here so the agent needs no second read
        from gitrefocus.handoff.plandir import read_text

        render.echo("")
        render.raw(read_text(doc["warm_prompt"]) or "")
    return 0


@handoff.command("reduce")
@click.argument("plan_dir", metavar="PLAN-DIR")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def reduce(plan_dir: str, as_json: bool) -> int:
    """Assemble a chunked plan's reduced spine from the chunk summaries.

    Each summary is read from chunks/chunk-NNN.json, in order; a chunk whose
    summary is missing or invalid keeps its raw text under a warning header.
    The five extractors then read reduced-spine.txt.

    \b
    Example:
      git refocus handoff reduce PLAN_DIR
    """
    from gitrefocus.handoff import agent

    spine, failed = agent.reduce_plan(plan_dir)
    if failed:
        render.warn(f"{len(failed)} chunk summar(ies) missing or invalid (chunk {', '.join(map(str, failed))}); "
                    "their raw text was used.")
    if as_json:
        render.emit_json("handoff-reduce", {"spine": spine, "failed_chunks": failed})
    else:
        render.echo(f"reduced spine: {spine}")
    return 0


@handoff.command("finalize")
@click.option("--sections", "sections_dir", required=True, metavar="DIR",
              help="The plan's sections directory (or the plan directory) holding <section>.json answers.")
@click.option("--out", "out", metavar="FILE", help="Write the brief (or, with --json, the JSON) to FILE.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the checked section objects, what the checks found and `for_spawn` (the bullets "
                   "/refocus passes to spawn) as JSON.")
def finalize(sections_dir: str, out: str | None, as_json: bool) -> int:
    """Check the extractors' answers and render the brief.

    Each <section>.json is validated (schema, pointers that resolve in the
    transcript and git, verbatim quotes found in the transcript, no
    instructions outside quotation marks). A missing or invalid answer shows
    the placeholder and the built-in extractor's section; an answer
    whose pointers do not resolve is marked as not trusted and replaced the
    same way. Nothing in an answer is executed.

    \b
    Example:
      git refocus handoff finalize --sections PLAN_DIR/sections --out brief.md
    """
    from gitrefocus.handoff import agent

    if out and os.path.isdir(out):
        raise RefocusError(f"--out {out!r} is a directory; name a file.")
    with render.working("checking the sections...", quiet=as_json):
        result, doc = agent.finalize_plan(sections_dir, cwd=os.getcwd())
    _show(result, as_json, out, {"mode": doc.get("mode"), "for_spawn": agent.for_spawn(result)})
    return 0


def _emit(text: str, out: str | None) -> None:
    from gitrefocus.store import atomic

    if not out:
        render.raw(text)
        return
    try:
        atomic.write_text(out, text)
    except OSError as exc:
        raise RefocusError(f"cannot write {out!r}: {exc.strerror}.") from None
    render.note(f"wrote {out}")
