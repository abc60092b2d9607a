"""Click wiring only: parse, dispatch, map errors to exit codes.

Commands are loaded lazily (each lives in its own ``gitrefocus.cli.<area>``
module), so ``git refocus hook session-start`` never imports what ``handoff``
or ``sync`` need.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from gitrefocus import __version__

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from click import Command, Context, HelpFormatter

# command name -> (module, attribute); adding a command means adding its module
# and one line here. A module that fails to import is a bug and says so.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("gitrefocus.cli.init", "init"),
    "spawn": ("gitrefocus.cli.workflow", "spawn"),
    "start": ("gitrefocus.cli.workflow", "start"),
    "stop": ("gitrefocus.cli.workflow", "stop"),
    "complete": ("gitrefocus.cli.workflow", "complete"),
    "abandon": ("gitrefocus.cli.workflow", "abandon"),
    "receive": ("gitrefocus.cli.workflow", "receive"),
    "list": ("gitrefocus.cli.views", "list_"),
    "show": ("gitrefocus.cli.views", "show"),
    "status": ("gitrefocus.cli.views", "status"),
    "index": ("gitrefocus.cli.views", "index"),
    "pickup": ("gitrefocus.cli.views", "pickup"),
    "gc": ("gitrefocus.cli.views", "gc"),
    "demo": ("gitrefocus.cli.demo", "demo"),
    "log": ("gitrefocus.cli.audit", "log"),
    "link": ("gitrefocus.cli.audit", "link"),
    "post-rewrite": ("gitrefocus.cli.audit", "post_rewrite"),
    "sync": ("gitrefocus.cli.audit", "sync"),
    "doctor": ("gitrefocus.cli.audit", "doctor"),
    "hook": ("gitrefocus.cli.hooks", "hook"),
    "handoff": ("gitrefocus.cli.handoff", "handoff"),
    "health": ("gitrefocus.cli.health", "health"),
    "check": ("gitrefocus.cli.health", "check"),
    "decisions": ("gitrefocus.cli.health", "decisions"),
    "search": ("gitrefocus.cli.health", "search"),
    "completion": ("gitrefocus.cli.completion", "completion"),
    "__complete": ("gitrefocus.cli.completion", "complete_words"),
    "loop": ("gitrefocus.cli.loop", "loop"),
    "tree": ("gitrefocus.cli.tree", "tree"),
    "help": ("gitrefocus.cli.about", "help_"),
    "version": ("gitrefocus.cli.about", "version"),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Context, name: str) -> Command | None:
        if name not in COMMANDS:
            return None
        module, attr = COMMANDS[name]
        command: click.Command = getattr(importlib.import_module(module), attr)
        if command.name != name:
            command.name = name
        return command

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        name = args[0] if args else ""
        if args and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            names = [c for c in self.list_commands(ctx) if not c.startswith("_")]
            close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
            close += [c for c in names if c.startswith(name) and c not in close]
            hint = f" Did you mean {' or '.join(repr(c) for c in close[:3])}?" if close else ""
            ctx.fail(f"{name!r} is not a git refocus command.{hint} See `git refocus --help`.")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=1000)))  # whole, wrapped: never cut
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="git-refocus")
@click.option("--debug", is_flag=True, envvar="GIT_REFOCUS_DEBUG", help="Show tracebacks for internal errors.")
@click.option("-C", "directory", metavar="PATH", help="Run as if started in PATH (like git -C).")
@click.option("--no-pager", is_flag=True, help="Do not page long output (like git --no-pager).")
@click.option("--no-color", "--no-colour", "no_color", is_flag=True,
              help="Plain text, no colour (also NO_COLOR, or color.ui=never in git config).")
@click.option("-q", "--quiet", is_flag=True, help="No notes or progress on stderr: results, warnings and errors only.")
@click.option("-v", "--verbose", is_flag=True, help="Show each git command run, on stderr (GIT_REFOCUS_VERBOSE=1).")
@click.pass_context
def cli(ctx: click.Context, debug: bool, directory: str | None, no_pager: bool, no_color: bool, quiet: bool,
        verbose: bool) -> None:
    """Concept-bound session forking for coding agents, recorded in git.

    A session in repo A that drifts into work belonging to repo B spawns a
    child session in B with a curated brief; the child completes with a
    result that A later receives. Briefs and results live in docs/refocus/,
    events in refs/refocus/<id>, the audit trail in refs/notes/refocus.

    \b
    Example, a round trip:
      (in repo A)  git refocus spawn ../B --slug mcp-standard \\
                       --reason "..." --done-when "..."
      (in repo B)  claude --session-id <SID>   # its SessionStart hook: start
      (in repo B)  git refocus complete --summary "..." \\
                       --no-material-changes "investigation"
      (in repo A)  git refocus status; git refocus receive <ID>

    Exit codes: 0 ok, 1 user error, 2 usage, 3 refused by a guard,
    4 conflict with concurrent writers, 70 internal error, 130 interrupted.
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    if directory:
        try:
            os.chdir(directory)
        except OSError as exc:
            raise click.UsageError(f"cannot change to {directory!r}: {exc.strerror}") from None
    if quiet and verbose:
        raise click.UsageError("-q and -v contradict each other; choose one.")
    if verbose:
        os.environ["GIT_REFOCUS_VERBOSE"] = "1"
    from gitrefocus.cli import render

    render.configure(pager=not no_pager, color=not no_color, quiet=quiet)


def _wants_json(argv: list[str]) -> bool:
    return "--json" in argv[: argv.index("--")] if "--" in argv else "--json" in argv


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or bool(os.environ.get("GIT_REFOCUS_DEBUG"))
    as_json = _wants_json(args)
    from gitrefocus.cli import guard, render

    def parsed() -> int:
        try:
            return cli.main(args=argv, prog_name="git refocus", standalone_mode=False) or 0
        except click.exceptions.Abort:
            return render.failure("aborted.", 1, as_json)
        except click.exceptions.Exit as exc:
            return exc.exit_code
        except click.ClickException as exc:
            if as_json:
                render.failure(exc.format_message(), exc.exit_code, as_json, stderr=False)
            exc.show()
            return exc.exit_code

    return guard.run(parsed, as_json=as_json, debug=debug)
