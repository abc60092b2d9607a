"""The CLI, its help and the man page stay in step (sqlite-utils style)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from gitrefocus.cli import cli, manpage
from tests.runner import ROOT

MAN = ROOT / "man" / "git-refocus.1"


def commands():
    ctx = click.Context(cli)
    return [(name, cli.get_command(ctx, name)) for name in cli.list_commands(ctx)
            if not cli.get_command(ctx, name).hidden]


@pytest.mark.parametrize("name,cmd", commands(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_command_has_help_and_a_man_section(name, cmd):
    assert (cmd.help or "").strip(), f"{name} has no help text"
    for param in cmd.params:
        if isinstance(param, click.Option) and param.name != "help":
            assert param.help, f"{name} {param.opts[0]} has no help"
    assert f".SS git refocus {name}".replace("-", "\\-") in MAN.read_text(), f"{name} missing from the man page"


def test_committed_man_page_is_generated_from_the_cli():
    assert MAN.read_text() == manpage.render(), "run: python -m gitrefocus.cli.manpage > man/git-refocus.1"


def test_core_commands_are_offered():
    names = {name for name, _ in commands()}
    assert {"spawn", "start", "complete", "abandon", "receive", "list", "show", "status", "index", "pickup", "gc", "demo"} <= names


def test_git_help_finds_the_installed_man_page():
    installed = Path(sys.prefix) / "share" / "man" / "man1" / "git-refocus.1"
    if not installed.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{installed} missing: scripts/setup-venv must install the package for real")
        pytest.skip("package installed editable; the man page is installed by a real install")
    assert installed.read_text() == MAN.read_text()
    if shutil.which("man") is None:
        pytest.skip("no man(1) on this machine")
    env = dict(os.environ, PATH=f"{Path(sys.prefix) / 'bin'}{os.pathsep}{os.environ['PATH']}", MANPAGER="cat", PAGER="cat")
    proc = subprocess.run(["git", "help", "refocus"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and "concept-bound session forking" in proc.stdout, proc.stderr



def readme_section(title: str) -> str:
    return (ROOT / "README.md").read_text().split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_readme_lists_exactly_the_cli_commands():
    import re

    sentence = readme_section("Commands").split("Read commands", 1)[0]  # the list: "`spawn`, ... and `version`."
    listed = set(re.findall(r"`([a-z][a-z-]*)`", sentence))
    shown = {name for name, _ in commands()}
    assert listed == shown, (f"README's command list lacks {sorted(shown - listed)} "
                             f"and names {sorted(listed - shown)}, which the CLI does not have")


def configuration_keys() -> set[str]:
    """Every ``refocus.*`` key the code reads or writes: the defaults table, and each
    ``"refocus.<key>"`` string in the package."""
    import ast
    import re

    from gitrefocus.store.config import DEFAULTS

    keys = set(DEFAULTS)
    for path in (ROOT / "gitrefocus").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found = re.fullmatch(r"refocus\.([a-z][A-Za-z]+)", node.value)
                if found:
                    keys.add(found.group(1))
    return keys


def test_readme_lists_exactly_the_configuration_keys():
    import re

    listed = set(re.findall(r"`([a-z][A-Za-z]+)`", readme_section("Configuration")))
    used = configuration_keys()
    assert "quietHours" in used and "staleReservedHours" in used, used
    assert listed == used, (f"README's configuration list lacks {sorted(used - listed)} "
                            f"and names {sorted(listed - used)}, which the code does not read")
    man = MAN.read_text().split(".SH CONFIGURATION", 1)[1].split(".SH ", 1)[0]
    assert set(re.findall(r"refocus\.([a-z][A-Za-z]+)", man)) == used, "the man page's CONFIGURATION lags the code"


def test_git_help_works_from_a_source_tree_in_a_venv(tmp_path):
    """An editable install has no man page; the first command from the source tree puts it
    where `man` finds it from PATH, so `git refocus --help` (git runs `man git-refocus`) works."""
    if shutil.which("man") is None:
        pytest.skip("no man(1) on this machine")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    target = venv / "share" / "man" / "man1" / "git-refocus.1"
    assert not target.exists()
    site = [p for p in sys.path if p.endswith("site-packages")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *site]))
    subprocess.run([str(venv / "bin" / "python"), "-m", "gitrefocus", "--version"], check=True, env=env,
                   capture_output=True)
    assert target.read_text() == MAN.read_text()
    (venv / "bin" / "git-refocus").write_text(f'#!/bin/sh\nexec "{venv / "bin" / "python"}" -m gitrefocus "$@"\n')
    (venv / "bin" / "git-refocus").chmod(0o755)
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin", MANPAGER="cat", PAGER="cat")
    env.pop("MANPATH", None)
    proc = subprocess.run(["git", "refocus", "--help"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and "concept-bound session forking" in proc.stdout, proc.stderr
