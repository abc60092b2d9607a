"""The package's layout rules, checked on the source: which layer may import
which, where git runs, where refs move, and what the hot entry point loads."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gitrefocus"

# The layers (docs/ARCHITECTURE.md, "The layers"): a package, or a part of one -> the top-level
# gitrefocus packages it may import. claude/ is two layers: its wiring (hook settings, plugin
# install, launching a child) sits beside ops/, for commands to use; its hook handlers sit
# above commands/, which they run (start, receive, loop).
CLAUDE_WIRING = {"claude/__init__.py", "claude/settings.py", "claude/install.py", "claude/launch.py",
                 "claude/client.py", "claude/hookio.py", "claude/agent_install.py"}
_BELOW_COMMANDS = {"errors", "model", "store", "ops", "handoff", "health"}
ALLOWED = {
    "model": {"errors", "model"},
    "store": {"errors", "model", "store"},
    "ops": {"errors", "model", "store", "ops"},
    "handoff": {"errors", "model", "store", "handoff"},
    "health": {"errors", "model", "store", "ops", "health"},
    "claude wiring": {"errors", "model", "store", "ops", "claude wiring"},
    "commands": _BELOW_COMMANDS | {"commands", "claude wiring"},
    "claude": _BELOW_COMMANDS | {"commands", "claude", "claude wiring"},
    "cli": _BELOW_COMMANDS | {"commands", "claude", "claude wiring", "cli"},
}


def layer_of(rel: str) -> str:
    """The layer of a module, by its path below gitrefocus/ (``claude/settings.py``)."""
    return "claude wiring" if rel in CLAUDE_WIRING else rel.split("/")[0]


def layer_imported(name: str) -> str | None:
    """The layer a ``gitrefocus.…`` import names, or None for anything else."""
    parts = name.split(".")
    if parts[0] != "gitrefocus" or len(parts) < 2 or parts[1] == "__version__":
        return None
    if parts[1] == "claude":
        module = f"claude/{parts[2]}.py" if len(parts) > 2 else "claude/__init__.py"
        return "claude wiring" if module in CLAUDE_WIRING else "claude"
    return parts[1]
# modules that start processes, and why; none of them runs git
PROCESS_STARTERS = {
    "store/git.py": "the one git wrapper",
    "ops/promote.py": "refocus.contextSaveCommand (sh -c)",
    "claude/session_end.py": "refocus.contextSaveCommand, detached (sh -c)",
    "claude/client.py": "ps, to find the client process where there is no /proc",
    "claude/launch.py": "`claude -p` (or `codex exec`, `gemini -p`), the one-shot child of pickup --run",
    "claude/agent_install.py": "`codex app-server`, to trust our hooks for init --codex",
    "handoff/external.py": "handoff --extractor-cmd (sh -c)",
    "cli/render.py": "the pager git would use (sh -c, like git)",
    "claude/install.py": "`claude plugin` for init --claude --plugin",
}
# calls that move a ref or write a notes commit onto one
REF_WRITERS = {"set_target", "create_note", "create_reference", "lock_ref"}


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        yield rel, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imported(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "gitrefocus":
                yield from (f"gitrefocus.{a.name}" for a in node.names)
                continue
            # `from gitrefocus.claude import settings` imports the module gitrefocus.claude.settings
            modules_ = [f"{node.module}.{a.name}" for a in node.names
                        if (ROOT / f"{node.module}.{a.name}".replace(".", "/")).with_suffix(".py").is_file()]
            yield from modules_ or [node.module]
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_lower_layers_never_import_higher_ones():
    bad = []
    for rel, tree in modules():
        layer = layer_of(rel)
        if "/" not in rel:
            continue  # entry.py, errors.py, __main__.py: the entry points and the exit-code table
        assert layer in ALLOWED, f"{rel}: a new subpackage; give it a layer in ALLOWED and docs/ARCHITECTURE.md"
        for name in imported(tree):
            target = layer_imported(name)
            if target is not None and target not in ALLOWED[layer]:
                bad.append(f"{rel} ({layer}) imports {name} ({target})")
    assert not bad, "layering broken:\n" + "\n".join(bad)


def test_every_module_commands_import_from_claude_is_wiring():
    """No cycle between commands/ and claude/: what commands use of claude/ never runs a command."""
    for rel, tree in modules():
        if rel.startswith("commands/"):
            for name in imported(tree):
                if name.startswith("gitrefocus.claude"):
                    assert layer_imported(name) == "claude wiring", f"{rel} imports the hook handler {name}"


def test_click_and_rich_live_in_cli_only():
    bad = [f"{rel} imports {name}" for rel, tree in modules() if not rel.startswith("cli/")
           for name in imported(tree) if name.split(".")[0] in ("click", "rich")]
    assert not bad, "\n".join(bad)


def starts_processes(tree) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and ast.unparse(n.func.value) in ("subprocess", "os")
               and n.func.attr in ("run", "Popen", "call", "check_call", "check_output", "system", "popen")
               for n in ast.walk(tree))


def test_git_runs_only_through_the_wrapper():
    starters = sorted(rel for rel, tree in modules() if starts_processes(tree))
    assert starters == sorted(PROCESS_STARTERS), f"modules that start processes: {starters}"
    for rel in PROCESS_STARTERS:
        if rel == "store/git.py":
            continue
        text = (PACKAGE / rel).read_text(encoding="utf-8")
        assert '"git"' not in text and "'git'" not in text, f"{rel} starts git itself"


def test_only_store_moves_refs():
    bad = []
    for rel, tree in modules():
        if rel.startswith("store/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in REF_WRITERS:
                bad.append(f"{rel}:{node.lineno} .{node.attr}")
            if (isinstance(node, ast.Attribute) and node.attr == "delete" and "ref" in ast.unparse(node.value).lower()
                    and ast.unparse(node.value) != "refs"):  # refs.delete is the store's own function
                bad.append(f"{rel}:{node.lineno} {ast.unparse(node)}")
            if isinstance(node, ast.Constant) and node.value == "update-ref":
                bad.append(f"{rel}:{node.lineno} update-ref")
    assert not bad, "ref writes outside store/:\n" + "\n".join(bad)


def test_package_root_holds_only_the_entry_points():
    entries = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__")
    loose = [e for e in entries if not (PACKAGE / e).is_dir() or e == "data"]
    assert loose == ["__init__.py", "__main__.py", "data", "entry.py", "errors.py"], loose


def test_every_subpackage_says_what_it_owns():
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc, f"{init.parent.name}/__init__.py has no docstring saying what the package owns"


@pytest.mark.parametrize("module", ["gitrefocus.entry", "gitrefocus.claude.post_tool_use"])
def test_hot_entry_points_load_no_heavy_modules(module):
    code = (f"import sys, {module}; "
            "print(' '.join(m for m in ('click', 'rich', 'pygit2', 'yaml') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT))).stdout.strip()
    assert out == "", f"importing {module} loaded {out}"


def test_every_registered_command_imports_and_is_named_after_itself():
    import click

    from gitrefocus.cli import COMMANDS, cli

    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert isinstance(command, click.Command) and command.name == name, name
