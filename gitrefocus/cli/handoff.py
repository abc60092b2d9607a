"""`git refocus handoff`: click wiring only; the work is in gitrefocus.handoff."""

from __future__ import annotations

import os

import click

from gitrefocus.errors import RefocusError


@click.command("handoff")
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
def handoff(transcript, out, as_json, extractor, extractor_cmd, extractor_timeout, no_cache, show_spine):
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

    Nothing from the transcript is executed. Tool output never reaches the
    brief. Without --extractor-cmd no model is involved. The result is cached
    under the git dir, keyed by the transcript's leaf uuid.

    \b
    Examples:
      git refocus handoff ~/.claude/projects/-home-me-repo/<session-id>.jsonl
      git refocus handoff <session-id> --out brief.md
      git refocus handoff <session-id> --json
      git refocus handoff <session-id> --extractor-cmd 'my-model --json'
      git refocus handoff <session-id> --extractor claude
    """
    from gitrefocus.cli import render
    from gitrefocus.handoff import pipeline

    transcript = transcript or os.environ.get("CLAUDE_CODE_SESSION_ID")
    if not transcript:
        raise click.UsageError("name a transcript or a session id (outside a Claude Code session there is no default).")
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
    for message in result.warnings:
        render.warn(message)
    if as_json:
        if out:
            import json

            from gitrefocus.cli.render import JSON_VERSION

            doc = {"version": JSON_VERSION, "kind": "handoff", **result.to_json()}
            _emit(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", out)
        else:
            render.emit_json("handoff", result.to_json())
        return 0
    _emit(result.brief.text, out)
    return 0


def _emit(text: str, out: str | None) -> None:
    from gitrefocus.cli import render
    from gitrefocus.store import atomic

    if not out:
        render.raw(text)
        return
    try:
        atomic.write_text(out, text)
    except OSError as exc:
        raise RefocusError(f"cannot write {out!r}: {exc.strerror}.") from None
    render.note(f"wrote {out}")
