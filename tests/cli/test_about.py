"""`git refocus help [COMMAND]` and `git refocus version`, as git and gh users type them."""

from __future__ import annotations

from tests.runner import refocus


def test_help_and_version_are_commands(tmp_path):
    assert refocus("help", cwd=tmp_path).stdout == refocus("--help", cwd=tmp_path).stdout
    spawn = refocus("help", "spawn", cwd=tmp_path).stdout
    assert spawn.startswith("Usage: git refocus spawn ") and spawn == refocus("spawn", "--help", cwd=tmp_path).stdout
    assert refocus("help", "loop", "start", cwd=tmp_path).stdout.startswith("Usage: git refocus loop start ")
    assert refocus("version", cwd=tmp_path).stdout == refocus("--version", cwd=tmp_path).stdout
    bad = refocus("help", "nope", cwd=tmp_path, check=False)
    assert bad.returncode == 2 and "'nope' is not a git refocus command" in bad.stderr and "Traceback" not in bad.stderr


def _examples(text: str) -> list[list[str]]:
    """The example command lines of a help text (continued with a trailing backslash)."""
    import re
    import shlex

    joined = text.replace("\\\n", " ")
    return [shlex.split(re.split(r" [<>] ", line)[0])[2:] for line in joined.splitlines()
            if line.strip().startswith("git refocus ")]


def test_every_command_shows_an_example_that_parses():
    """Each command's help ends with an example, and every example names options the
    command takes (parsed by the command itself, nothing run)."""
    import click

    from gitrefocus.cli import cli
    from tests.cli.test_columns import _all_commands

    for name, cmd in _all_commands():
        ctx = click.Context(cmd, info_name=f"git refocus {name}".strip())
        text = cmd.get_help(ctx)
        assert "Example" in text, f"`git refocus {name} --help` has no example"
        for args in _examples(text):
            top = click.Context(cli, info_name="git refocus")
            target, rest = cli, list(args)
            while isinstance(target, click.Group) and rest and target.get_command(top, rest[0]) is not None:
                target = target.get_command(top, rest.pop(0))
            try:
                target.make_context("git refocus", rest)
            except click.ClickException as exc:
                raise AssertionError(f"example `git refocus {' '.join(args)}` in {name!r}: {exc}") from None


def test_quiet_and_verbose(started):
    src, dest, rid = started
    args = ["complete", rid, "--summary", "done", "--dod", "1", "--dod", "2", "--no-material-changes", "none"]
    quiet = refocus("-q", *args, cwd=dest)
    assert quiet.stderr == "" and f"{rid}: result" in quiet.stdout, quiet
    loud = refocus("-v", "status", cwd=src)
    assert "+ git -C " in loud.stderr and "Outgoing" in loud.stdout, loud
    assert refocus("-q", "-v", "status", cwd=src, check=False).returncode == 2


def test_without_quiet_the_same_completion_notes_what_to_commit(started):
    src, dest, rid = started
    r = refocus("complete", rid, "--summary", "done", "--dod", "1", "--dod", "2", "--no-material-changes", "none",
                cwd=dest)
    assert "commit the brief" in r.stderr, r
