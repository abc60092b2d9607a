"""``git refocus help [COMMAND]`` and ``git refocus version``: what git and gh users type."""

from __future__ import annotations

import click

from gitrefocus import __version__
from gitrefocus.cli import render


@click.command("help")
@click.argument("command", required=False, metavar="[COMMAND [SUBCOMMAND]]", nargs=-1)
@click.pass_context
def help_(ctx: click.Context, command: tuple[str, ...]) -> None:
    """Show the help of git refocus, or of COMMAND (the same as COMMAND --help).

    \b
    Examples:
      git refocus help
      git refocus help spawn
      git refocus help loop start
    """
    shown = ctx.find_root()  # each level's context a child of the one above: usage and -h as COMMAND --help
    for name in command:
        cmd = shown.command
        sub = cmd.get_command(shown, name) if isinstance(cmd, click.Group) else None
        if sub is None or sub.hidden:
            raise click.UsageError(f"no help for {' '.join(command)!r}: {name!r} is not a git refocus command "
                                   "(see `git refocus help`).")
        shown = click.Context(sub, info_name=name, parent=shown)
    render.echo(shown.get_help())


@click.command()
def version() -> None:
    """Print the version of git refocus (the same as --version).

    \b
    Example:
      git refocus version
    """
    render.echo(f"git-refocus, version {__version__}")
