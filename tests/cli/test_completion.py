"""Shell completion: printed by `git refocus completion SHELL`, answering subcommands,
options and the repository's ids and slugs (issue 12, item 7)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.runner import ROOT, refocus, source_env, spawn_args


def words(*args, cwd):
    out = refocus("__complete", "--", *args, cwd=cwd).stdout
    return [line.split("\t")[0] for line in out.splitlines()]


def test_subcommands_and_options(repos):
    src, _ = repos
    assert {"start", "status", "stop"} <= set(words("st", cwd=src))
    assert "--done-when" in words("spawn", "--do", cwd=src)
    assert words("complete", "--status", "", cwd=src) == ["completed", "blocked"]


def test_ids_and_slugs_from_the_catalog(repos):
    src, dest = repos
    rid = refocus(*spawn_args(dest, "mcp-standard"), cwd=src).json["id"]
    for command in (["show"], ["pickup"], ["log"], ["abandon"], ["spawn", str(dest), "--parent"]):
        got = words(*command, "", cwd=src)
        assert rid in got and "mcp-standard" in got, (command, got)
    assert words("show", "mcp", cwd=src) == ["mcp-standard"]
    assert words("show", rid[:4], cwd=src) == [rid]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_script_is_printed_for_each_shell(repos, shell):
    src, _ = repos
    text = refocus("completion", shell, cwd=src).stdout
    assert "git-refocus __complete" in text
    if shutil.which(shell):
        check = {"bash": ["bash", "-n"], "zsh": ["zsh", "-n"], "fish": ["fish", "--no-execute"]}[shell]
        proc = subprocess.run([*check], input=text, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


def test_bash_completes_git_refocus_through_the_script(tmp_path, repos):
    if not shutil.which("bash"):
        pytest.skip("no bash")
    src, dest = repos
    rid = refocus(*spawn_args(dest, "mcp-standard"), cwd=src).json["id"]
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "git-refocus").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gitrefocus "$@"\n')
    (shim / "git-refocus").chmod(0o755)
    script = refocus("completion", "bash", cwd=src).stdout
    probe = script + (
        'COMP_WORDS=(git refocus sta); COMP_CWORD=2; _git_refocus; printf "%s\\n" "${COMPREPLY[@]}"; echo --;'
        'COMP_WORDS=(git-refocus show mcp); COMP_CWORD=2; _git_refocus; printf "%s\\n" "${COMPREPLY[@]}"\n')
    env = source_env({"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)})
    proc = subprocess.run(["bash", "-c", probe], cwd=src, env=env, capture_output=True, text=True)
    first, second = proc.stdout.split("--\n")
    assert set(first.split()) == {"start", "status"}, proc
    assert second.split() == ["mcp-standard"], proc
    assert rid
