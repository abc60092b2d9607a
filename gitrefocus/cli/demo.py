"""CLI wiring for demo."""

from __future__ import annotations

import click

from gitrefocus.cli import render


@click.command()
@click.option("--dir", "directory", type=click.Path(file_okay=False), help="Create the two repositories here (kept).")
@click.option("--keep", is_flag=True, help="Keep the throwaway repositories to look around.")
@click.option("--json", "as_json", is_flag=True, help="Print a versioned JSON object at the end.")
def demo(directory: str | None, keep: bool, as_json: bool) -> None:
    """Run a real spawn → start → complete → receive round trip over two
    throwaway repositories, and say what happened at each step.

    \b
    Examples:
      git refocus demo
      git refocus demo --dir /tmp/refocus-demo
    """
    from gitrefocus.commands.demo import demo as run

    model = run(directory=directory, keep=keep, say=(lambda s: None) if as_json else render.echo)
    if as_json:
        render.emit_json("demo", model.to_json())
    elif model.kept or directory:
        render.echo(f"repositories kept in {model.root}")
