"""Shell completion: printed by `git refocus completion SHELL`, answering subcommands,
options and the repository's ids and slugs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

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


def test_bash_completes_git_refocus_through_the_script(completing):
    if not shutil.which("bash"):
        pytest.skip("no bash")
    src, _, env = completing
    script = refocus("completion", "bash", cwd=src).stdout
    probe = script + (
        'COMP_WORDS=(git refocus sta); COMP_CWORD=2; _git_refocus; printf "%s\\n" "${COMPREPLY[@]}"; echo --;'
        'COMP_WORDS=(git-refocus show mcp); COMP_CWORD=2; _git_refocus; printf "%s\\n" "${COMPREPLY[@]}"\n')
    proc = subprocess.run(["bash", "-c", probe], cwd=src, env=env, capture_output=True, text=True)
    first, second = proc.stdout.split("--\n")
    assert set(first.split()) == {"start", "status"}, proc
    assert second.split() == ["mcp-standard"], proc


@pytest.fixture
def completing(tmp_path, repos):
    """src with one refocus (mcp-standard) and an environment whose PATH has a `git-refocus`
    running this checkout: (src, refocus id, env)."""
    src, dest = repos
    rid = refocus(*spawn_args(dest, "mcp-standard"), cwd=src).json["id"]
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "git-refocus").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gitrefocus "$@"\n')
    (shim / "git-refocus").chmod(0o755)
    return src, rid, source_env({"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"})


def zsh_offers(line, *, cwd, env, before="", after=""):
    """What zsh's compsys offers for LINE<TAB>, driven through a real interactive zsh."""
    proc = subprocess.run(["zsh", "-f", str(Path(__file__).with_name("zsh_complete.zsh")),
                           before or ":", after or ":", line],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc
    return proc.stdout.split()


ZSH_CASES = [  # (what is typed, what must be offered (exactly, or at least for a set))
    ("git refocus st", ["start", "stop", "status"]),
    ("git-refocus show mcp", ["mcp-standard"]),
    ("git refocus show ", {"mcp-standard", "RID"}),
    ("git-refocus spawn --do", ["--done-when"]),
    ("git refocus complete --status ", ["completed", "blocked"]),
    ("git refocus spawn ../de", ["dest"]),  # a path argument falls back to files
]


@pytest.mark.skipif(not shutil.which("zsh"), reason="zsh is not installed (apt-get install zsh)")
def test_zsh_completes_through_the_evaluated_script(completing):
    src, rid, env = completing
    for line, expected in ZSH_CASES:
        got = zsh_offers(line, cwd=src, env=env, after='eval "$(git refocus completion zsh)"')
        if isinstance(expected, set):
            assert {rid if e == "RID" else e for e in expected} <= set(got), (line, got)
        else:
            assert sorted(got) == sorted(expected), (line, got)


@pytest.mark.skipif(not shutil.which("zsh"), reason="zsh is not installed (apt-get install zsh)")
def test_zsh_completes_from_fpath_on_the_first_tab(tmp_path, completing):
    """Saved as _git-refocus on $fpath, the script is autoloaded by the first TAB, which must
    complete too (it used to only define the function)."""
    src, _, env = completing
    functions = tmp_path / "zfunc"
    functions.mkdir()
    (functions / "_git-refocus").write_text(refocus("completion", "zsh", cwd=src).stdout)
    before = f"fpath=({functions} $fpath)"
    assert sorted(zsh_offers("git-refocus st", cwd=src, env=env, before=before)) == ["start", "status", "stop"]
    assert zsh_offers("git refocus show mc", cwd=src, env=env, before=before) == ["mcp-standard"]


def readme_fish_install():
    """The fish install command exactly as README gives it."""
    readme = (ROOT / "README.md").read_text()
    commands = [c for line in readme.splitlines() for c in re.findall(r"`([^`]+)`", line)
                if "completion fish" in c]
    assert len(commands) == 1, commands
    return commands[0]


@pytest.mark.skipif(not shutil.which("fish"), reason="fish is not installed (apt-get install fish)")
def test_fish_completes_after_the_readme_install(completing):
    src, rid, env = completing
    install = subprocess.run(["fish", "-c", readme_fish_install()], cwd=src, env=env,
                             capture_output=True, text=True)  # a fresh HOME: no conf.d yet
    assert install.returncode == 0, install

    def fish_offers(line):
        proc = subprocess.run(["fish", "-c", "complete -C $argv[1]", line], cwd=src, env=env,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc
        return [row.split("\t")[0] for row in proc.stdout.splitlines()]

    assert fish_offers("git refocus st") == ["start", "status", "stop"]
    assert fish_offers("git-refocus st") == ["start", "status", "stop"]
    assert "refocus" in fish_offers("git refoc")
    assert fish_offers("git refocus show mcp") == ["mcp-standard"]
    assert set(fish_offers("git refocus show ")) == {rid, "mcp-standard"}
    assert fish_offers("git-refocus spawn --do") == ["--done-when"]
    assert sorted(fish_offers("git refocus complete --status ")) == ["blocked", "completed"]
    assert fish_offers("git refocus spawn ../de") == ["../dest/"]  # a path argument: files
