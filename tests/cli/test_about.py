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
