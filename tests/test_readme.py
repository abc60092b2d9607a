"""The README's commands, run as written: each ```sh block is extracted and pasted into
bash (set -e: any failing line fails the test) from a fresh HOME, with `git-refocus` on
PATH running this checkout. A block that is not run is named in NOT_RUN with the reason
and the test that covers it instead, so a new block is either run here or accounted for."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.gitrepo import git, make_repo
from tests.runner import ROOT, git_refocus_on_path, refocus, source_env

NOT_RUN = {  # the first line of a block -> why it is not run here
    "./scripts/demo": "sets up .venv (pip) and runs `git refocus demo`: tests/commands/test_demo.py runs the demo",
    "scripts/setup-venv": "installs into the shared .venv; every test here runs the package it installs",
}


def blocks() -> dict[str, str]:
    """Every ```sh block of the README, by the heading above it (numbered when a heading has several)."""
    out: dict[str, str] = {}
    heading = ""
    for part in re.split(r"^(```sh\n.*?^```)$", (ROOT / "README.md").read_text(), flags=re.M | re.S):
        if part.startswith("```sh\n"):
            key = heading if heading not in out else f"{heading} ({sum(k.startswith(heading) for k in out) + 1})"
            out[key] = part[len("```sh\n"):-3]
        else:
            heading = ([h for h in re.findall(r"^#+ (.+)$", part, flags=re.M)] or [heading])[-1]
    return out


@pytest.fixture
def shell(tmp_path, hermetic):
    """Run a README block in bash from HOME, `git refocus` being this checkout; no `claude` on PATH."""
    shim = git_refocus_on_path(tmp_path)
    man = tmp_path / "share/man/man1"  # where an install puts the man page: `git refocus --help` is `git help refocus`
    man.mkdir(parents=True)
    (man / "git-refocus.1").write_text((ROOT / "man/git-refocus.1").read_text())
    git_dir = os.path.dirname(subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True).stdout)
    env = source_env({"PATH": os.pathsep.join([str(shim), git_dir, "/usr/bin", "/bin"]),
                      "MANPATH": str(man.parent), "MANPAGER": "cat", "PAGER": "cat"})

    def run(block: str, *, extra_env=None) -> subprocess.CompletedProcess:
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], cwd=hermetic, capture_output=True,
                              text=True, env={**env, **(extra_env or {})}, timeout=300)
        assert proc.returncode == 0, f"README block failed (exit {proc.returncode}):\n{block}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc
    return run


def test_every_block_is_run_or_accounted_for():
    run = {"A round trip by hand", "With Claude Code", "Install", "Loops, the global index and the spawn tree",
           "With Codex CLI and Gemini CLI"}
    for heading, block in blocks().items():
        assert heading in run or block.splitlines()[0].split()[0] in NOT_RUN, \
            f"README block under {heading!r} is neither run by tests/test_readme.py nor listed in NOT_RUN"


def test_the_round_trip_by_hand_as_written(shell, hermetic):
    memory, mcp = make_repo(hermetic / "projects/agents/memory"), make_repo(hermetic / "projects/mcp")
    out = shell(blocks()["A round trip by hand"])
    rid = refocus("list", "--all", "--json", cwd=memory).json["entries"][0]["id"]
    assert f"SPAWNED {rid} → {mcp}" in out.stdout
    assert f"{rid}: result — Wrote the standard." in out.stdout, "receive showed the result"
    assert f"Refocus-Id: {rid}" in git(mcp, "log", "-1", "--format=%B", "HEAD~1"), "the child's own commit is tagged"
    assert git(mcp, "status", "--porcelain", "docs/") == "", "--commit committed the brief and the promoted context"
    for repo in (memory, mcp):
        doctor = refocus("doctor", cwd=repo, check=False)
        assert doctor.returncode == 0 and "consistent" in doctor.stdout, doctor


def test_the_claude_code_routes_as_written(shell, hermetic):
    repo = make_repo(hermetic / "project")
    lines = [ln for ln in blocks()["With Claude Code"].splitlines() if ln and not ln.startswith("#")]
    shell("cd project\n" + "\n".join(lines))
    assert (repo / ".claude/settings.json").is_file() and (hermetic / ".claude/settings.json").is_file()
    assert refocus("doctor", cwd=repo, check=False).returncode == 0


def test_the_codex_and_gemini_routes_as_written(shell, hermetic):
    """As written, with neither client installed: the hooks, skills and commands are written, and
    Codex's trust is the step printed for the user (tests/e2e/test_cross_agent.py trusts them)."""
    repo = make_repo(hermetic / "project")
    lines = [ln for ln in blocks()["With Codex CLI and Gemini CLI"].splitlines() if ln and not ln.startswith("#")]
    out = shell("cd project\n" + "\n".join(lines))
    assert (hermetic / ".codex/hooks.json").is_file() and (hermetic / ".gemini/settings.json").is_file()
    assert (hermetic / ".codex/skills/refocus/SKILL.md").is_file()
    assert (hermetic / ".gemini/commands/refocus.toml").is_file()
    assert "trust the git-refocus hooks in Codex" in out.stdout
    assert (repo / "AGENTS.md").is_file() and (repo / "GEMINI.md").is_file()


def test_the_install_block_s_help_as_written(shell):
    block = blocks()["Install"]
    first, rest = block.split("\n", 1)
    assert first.split()[0] in NOT_RUN
    shown = shell(rest).stdout
    assert "git-refocus" in shown and "spawn" in shown, shown


def test_the_loop_block_as_written_from_the_agents_shell(shell, hermetic):
    make_repo(hermetic / "project")
    out = shell("cd project\n" + blocks()["Loops, the global index and the spawn tree"],
                extra_env={"CLAUDE_CODE_SESSION_ID": "0b0e4a4c-1111-4222-8333-944445555666"})
    assert "TESTS PASS" in out.stdout and "1/5" in out.stdout, out.stdout


def test_the_readme_counts_the_tests_there_are():
    """"run about N tests": within a tenth of what pytest collects."""
    said = int(re.search(r"run about (\d+) tests", (ROOT / "README.md").read_text()).group(1))
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                         cwd=ROOT, capture_output=True, text=True, env=source_env(), timeout=300)
    collected = int(re.search(r"(\d+) tests? collected", out.stdout).group(1))
    assert abs(collected - said) <= collected / 10, f"README says about {said} tests; pytest collects {collected}"
