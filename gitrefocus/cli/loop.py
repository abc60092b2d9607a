"""CLI wiring for ``git refocus loop``."""

from __future__ import annotations

import click

from gitrefocus.cli import render

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from click import Command

    from gitrefocus.commands.loop import LoopOutcome

SESSION_HELP = "The Claude Code session (default: $CLAUDE_CODE_SESSION_ID)."


@click.group()
def loop() -> None:
    """Keep one Claude Code session working until a promise is kept.

    While a session's loop is active, the Stop hook (git refocus init
    --claude) blocks each stop and hands the loop prompt back, until the
    agent's last message carries the promise, as <promise>TEXT</promise> or
    a line of its own, or --max-iterations stops were seen. State is kept
    per session under $GIT_DIR/refocus/loops/, so another session in the
    same repository is never captured. In a child session the loop is tied
    to its refocus: each iteration is a `loop` event, and `complete` ends it.
    Claude Code itself honours at most 8 blocks in a row
    (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP) and then ends the turn: the loop
    pauses there, and whenever the client ended a turn it had blocked, so
    the session's next prompt is never captured; `loop resume` continues.

    \b
    Examples:
      git refocus loop start --promise "TESTS PASS" --max-iterations 5 \\
          --prompt "Fix the failing tests; run them before you stop."
      git refocus loop list
    """


def _report(model: LoopOutcome, as_json: bool) -> None:
    render.warnings(model.warnings)
    if as_json:
        render.emit_json("loop", model.to_json())
        return
    x = model.loop
    tied = f", refocus {x.refocus_id}" if x.refocus_id else ""
    render.echo(f"loop {x.id} {model.action} (session {x.session_id}, iteration {x.current} of "
                f"{x.max_iterations}{tied}).")


@loop.command()
@click.option("--promise", required=True, metavar="TEXT", help="What the agent says when the work is done.")
@click.option("--max-iterations", required=True, type=click.IntRange(min=1), metavar="N",
              help="Let the stop through after N stops at most.")
@click.option("--prompt", metavar="TEXT", help="What the agent is told on each blocked stop.")
@click.option("--prompt-file", metavar="FILE", help="Read the prompt from FILE (UTF-8).")
@click.option("--session", metavar="SID", help=SESSION_HELP)
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def start(promise: str, max_iterations: int, prompt: str | None, prompt_file: str | None, session: str | None,
          as_json: bool) -> None:
    """Start a loop in this session; it becomes the foreground loop.

    \b
    Examples:
      git refocus loop start --promise "TESTS PASS" --max-iterations 5 \\
          --prompt "Fix the failing tests."
    """
    from gitrefocus.commands.loop import start as run

    _report(run(promise=promise, max_iterations=max_iterations, prompt=prompt, prompt_file=prompt_file,
                session=session), as_json)


@loop.command("list")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def list_(as_json: bool) -> None:
    """List the loops of every session in this repository.

    \b
    Examples:
      git refocus loop list
      git refocus loop list --json
    """
    from gitrefocus.commands.loop import list_ as run

    model = run()
    render.warnings(model.problems)
    if as_json:
        render.emit_json("loop-list", model.to_json())
        return
    rows = [[x.id + ("*" if fg else ""), x.status, f"{x.current}/{x.max_iterations}", x.session_id[:8],
             x.refocus_id or "", x.ended or "", x.promise[:40]] for x, fg in model.loops]
    if rows:
        render.table(None, ["LOOP", "STATUS", "ITER", "SESSION", "REFOCUS", "ENDED", "PROMISE"], rows)
    else:
        render.note("no loops here.")


def _changer(action: str, doc: str) -> Command:
    @click.argument("loop_id", metavar="[LOOP]", required=False)
    @click.option("--session", metavar="SID", help=SESSION_HELP)
    @click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
    def command(loop_id: str | None, session: str | None, as_json: bool) -> None:
        from gitrefocus.commands.loop import change

        _report(change(action, loop_id=loop_id, session=session), as_json)

    command.__doc__ = f"{doc}\n\n\b\nExamples:\n  git refocus loop {action}\n  git refocus loop {action} LOOP --json"
    return loop.command(action)(command)


pause = _changer("pause", "Pause a loop (default: this session's foreground loop); stops go through.")
resume = _changer("resume", "Resume a paused loop and make it the foreground loop.")
cancel = _changer("cancel", "Cancel a loop for good; the next stop goes through.")
activate = _changer("activate", "Make a loop its session's foreground loop (the one before is paused).")
