"""CLI wiring for ``git refocus tree``: rich on a terminal, plain when piped, JSON, mermaid."""

from __future__ import annotations

import sys

import click

from gitrefocus.cli import render
from gitrefocus.cli.across import GLOBAL_HELP, PRUNE_HELP

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from gitrefocus.ops.spawn_tree import Forest, Node


def _line(node: Node, focus: str | None) -> str:
    mark = "  ◀" if node.id == focus else ""
    return f"{node.id}  {node.status}  {node.age}  {node.route}{mark}"


def _plain(forest: Forest) -> list[str]:
    out: list[str] = []

    def walk(node: Node, prefix: str, last: bool, top: bool) -> None:
        out.append((prefix + ("└── " if last else "├── ") if not top else "") + _line(node, forest.focus))
        inner = prefix + ("    " if last else "│   ") if not top else ""
        for rel in node.related:
            if rel in forest.nodes:
                out.append(f"{inner}  ~ related: {rel}")
        for i, child in enumerate(node.children):
            walk(child, inner, i == len(node.children) - 1, False)

    for root in forest.roots:
        walk(root, "", True, True)
    return out


def _rich(forest: Forest) -> None:
    from rich.console import Console
    from rich.text import Text
    from rich.tree import Tree

    def add(parent: Tree, node: Node) -> None:
        label = Text(node.id, style="bold" if node.id == forest.focus else "")
        label.append(f"  {node.status}", style="cyan")
        label.append(f"  {node.age}  {node.route}", style="dim")
        branch = parent.add(label)
        for rel in node.related:
            if rel in forest.nodes:
                branch.add(Text(f"~ related: {rel}", style="magenta"))
        for child in node.children:
            add(branch, child)

    top = Tree(Text("spawn tree", style="bold"), hide_root=True)
    for root in forest.roots:
        add(top, root)
    Console(markup=False, highlight=False).print(top)


@click.command()
@click.argument("refocus_id", metavar="[ID]", required=False)
@click.option("--global", "global_", is_flag=True, help=GLOBAL_HELP)
@click.option("--prune", is_flag=True, help=PRUNE_HELP)
@click.option("--mermaid", "as_mermaid", is_flag=True, help="Print a mermaid flowchart (renders on GitHub and GitLab).")
@click.option("--json", "as_json", is_flag=True, help=render.JSON_HELP)
def tree(refocus_id: str | None, global_: bool, prune: bool, as_mermaid: bool, as_json: bool) -> None:
    """Show the spawn tree: parent -> children chains across repositories.

    Each refocus with its status, age and route (source -> dest); siblings
    named in related_refocus_ids are shown as related. With ID, only the
    tree that holds it, from its root down. Without --global, this
    repository and the counterpart repositories its refocuses name.

    \b
    Examples:
      git refocus tree
      git refocus tree mcp-standard --mermaid
      git refocus tree --global
    """
    from gitrefocus.commands.tree import tree as run

    model = run(refocus_id=refocus_id, global_=global_, prune=prune)
    render.warnings(model.warnings)
    if as_json:
        render.emit_json("tree", model.to_json())
        return
    if as_mermaid:
        from gitrefocus.ops.spawn_tree import mermaid

        render.echo("\n".join(mermaid(model.forest, limit=len(model.forest.nodes) or 1)[1:-1]))
        return
    if not model.forest.roots:
        render.note("no refocuses here.")
    elif render._use_rich(sys.stdout):
        _rich(model.forest)
    else:
        for line in _plain(model.forest):
            render.echo(line)
