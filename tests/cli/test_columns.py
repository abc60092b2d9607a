"""What people read fits 80 columns: help, the listings (directories shown as `~/…`), and
doctor and check on a terminal (sentences wrapped, a path never broken)."""

from __future__ import annotations

import re

import click
import pytest

from gitrefocus.cli import cli
from tests.cli.tty import on_tty
from tests.gitrepo import commit, make_repo
from tests.runner import refocus, spawn_args


def _all_commands():
    ctx = click.Context(cli, info_name="git refocus")
    out = [("", cli)]
    for name in cli.list_commands(ctx):
        cmd = cli.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        out.append((name, cmd))
        if isinstance(cmd, click.Group):
            sub_ctx = click.Context(cmd, info_name=name, parent=ctx)
            out += [(f"{name} {s}", cmd.get_command(sub_ctx, s)) for s in cmd.list_commands(sub_ctx)]
    return out


@pytest.mark.parametrize("name,cmd", _all_commands(), ids=lambda x: x if isinstance(x, str) else "")
def test_help_fits_80_columns(name, cmd):
    ctx = click.Context(cmd, info_name=f"git refocus {name}".strip(), terminal_width=80, max_content_width=80)
    wide = [line for line in cmd.get_help(ctx).splitlines() if len(line) > 80]
    assert not wide, f"`git refocus {name} --help` is wider than 80 columns: {wide}"


@pytest.fixture
def projects(hermetic):
    """Repositories where people keep them, under HOME; a few refocuses, one started."""
    memory, mcp = make_repo(hermetic / "projects/agents/memory"), make_repo(hermetic / "projects/mcp")
    for repo in (memory, mcp):
        refocus("init", cwd=repo)
    ids = [refocus(*spawn_args(mcp, slug), cwd=memory).json["id"]
           for slug in ("mcp-standard", "ssh-stdio-dispatch", "review")]
    refocus("start", ids[0], cwd=mcp)
    commit(mcp, f"feat: the standard\n\nRefocus-Id: {ids[0]}")
    return memory, mcp, ids


def test_listings_fit_80_columns(projects):
    memory, mcp, ids = projects
    for repo in (memory, mcp):
        for args in (["list"], ["list", "--all"], ["status"]):
            out = refocus(*args, cwd=repo).stdout
            assert ids[1] in out and "~/projects/" in out, out
            wide = [line for line in out.splitlines() if len(line) > 80]
            assert not wide, f"`git refocus {' '.join(args)}` in {repo.name}: {wide}"


def test_doctor_and_check_wrap_on_a_terminal(projects, hermetic):
    memory, mcp, ids = projects
    never = make_repo(hermetic / "projects/never-initialised")
    refocus(*spawn_args(never, "untagged"), cwd=memory)
    for args, cwd in ((["doctor"], never), (["check", ids[0]], mcp)):
        code, out = on_tty(*args, cwd=cwd, columns=80)
        out = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out)  # the progress line's cursor moves
        assert out.strip() and "Traceback" not in out, out
        wide = [line for line in out.splitlines() if len(line) > 80]
        assert not wide, f"`git refocus {' '.join(args)}` on an 80-column terminal: {wide}"
    code, out = on_tty("doctor", cwd=never, columns=80)
    assert "\n  " in out, "a long finding is wrapped with its lines after the first indented"
