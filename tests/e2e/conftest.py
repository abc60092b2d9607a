"""Fixtures to drive the real Claude Code binary against the loopback API mock.

- `claude_bin`: the pinned binary (scripts/install-claude, once per session; skips without it
  unless `CI` is set). A module that sets ``BOTH_CLIENTS = True`` runs each of its tests against
  the pinned release and the older one (OLDER_CLIENT).
- `refocus_path`: PATH with this tree's `git refocus` (a logging shim, `shim_calls`) first.
- `wired` (this directory's): src and dest set up with `git refocus init --claude`, committed.
- `mock_api`: a running `MockAnthropic`; script it with `mock_api.add(Text(...), Bash(...))`.
- `run_claude(cwd, prompt, session_id=None, resume=None, extra_env=None, timeout=120)`: runs
  `claude -p` with HOME=`claude_home`, the mock as its API, no other traffic and a fixed git
  identity (GIT_CONFIG_GLOBAL, if the enclosing test set one, is kept).
- `transcript(session_id)`: the transcript that run wrote under `claude_home`.
- `codex_bin`, `gemini_bin`: the pinned Codex CLI and Gemini CLI (scripts/install-agent), for
  the other agents' tests (their model mocks: tests/e2e/agent_mocks.py).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests.e2e.claude_mock import MockAnthropic, find_transcript
from tests.gitrepo import git
from tests.runner import ROOT, refocus

INSTALL_SCRIPT = ROOT / "scripts" / "install-claude"
INSTALL_AGENT = ROOT / "scripts" / "install-agent"
INSTALL_TIMEOUT = 600

# Variables that would let the developer's environment (or an enclosing Claude Code session,
# or a git hook running the tests) leak into the client under test.
_DROPPED_PREFIXES = ("CLAUDE", "ANTHROPIC", "OTEL_", "AI_AGENT", "XDG_")
_DROPPED_VARIABLES = {
    "http_proxy", "https_proxy", "all_proxy", "no_proxy",
    "git_dir", "git_work_tree", "git_index_file", "git_object_directory",
    "git_alternate_object_directories", "git_common_dir", "git_namespace", "git_prefix",
}

# Keep the client off the network: no telemetry, error reports, update checks or
# "nonessential" calls (with these set it does not even send its HEAD /api/hello probe).
CLIENT_ENV = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_UPDATES": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "ANTHROPIC_API_KEY": "test",
    "NO_PROXY": "127.0.0.1,localhost",
}

GIT_IDENTITY_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
}


PINNED = "pinned"
OLDER_CLIENT = "2.1.197"  # the older 2.1.x release the agent surface is also proven with


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``BOTH_CLIENTS = True`` in a module: its tests that use the client run once per release."""
    if getattr(metafunc.module, "BOTH_CLIENTS", False) and "claude_bin" in metafunc.fixturenames:
        metafunc.parametrize("claude_bin", [PINNED, OLDER_CLIENT], indirect=True, scope="session")


@pytest.fixture(scope="session")
def claude_bin(request: pytest.FixtureRequest) -> Path:
    """The pinned `claude` binary (or the release a BOTH_CLIENTS module asks for), installed once
    per session by scripts/install-claude.

    Skips the test when it cannot be installed, unless `CI` is set: there it must work.
    """
    version = getattr(request, "param", PINNED)
    reason = _install_claude(None if version == PINNED else version)
    if isinstance(reason, Path):
        return reason
    if os.environ.get("CI"):
        pytest.fail(f"CI is set and Claude Code {version} is unavailable: {reason}", pytrace=False)
    pytest.skip(f"Claude Code {version} unavailable: {reason}")


def _install_claude(version: str | None = None) -> Path | str:
    """The installed binary (the pinned release, or ``version``), or why there is none."""
    if shutil.which("bash") is None:
        return "bash is required to run scripts/install-claude"
    env = None if version is None else dict(os.environ, INSTALL_CLAUDE_VERSION=version)
    try:
        done = subprocess.run(
            ["bash", str(INSTALL_SCRIPT)], capture_output=True, text=True, env=env,
            stdin=subprocess.DEVNULL, timeout=INSTALL_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return f"scripts/install-claude took more than {INSTALL_TIMEOUT} s"
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return f"scripts/install-claude exited {done.returncode}: {done.stderr.strip()[-2000:]}"
    binary = Path(lines[-1])
    if not os.access(binary, os.X_OK):
        return f"scripts/install-claude printed {binary}, which is not executable"
    return binary


@pytest.fixture
def refocus_path(tmp_path: Path) -> dict[str, str]:
    """PATH/PYTHONPATH so the client's hooks and Bash commands run this source tree's `git refocus`,
    not the copy installed in the venv (whose bin/ may be on PATH too). The shim logs every call
    to ``shim_calls(tmp_path)``, so a test can check the hooks really went through it."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "git-refocus"
    log = shlex.quote(str(tmp_path / "git-refocus.calls"))
    shim.write_text(f'#!/bin/sh\necho "$*" >> {log}\n'
                    f'PYTHONPATH={shlex.quote(str(ROOT))} exec {shlex.quote(sys.executable)} -m gitrefocus "$@"\n')
    shim.chmod(0o755)
    return {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}


def shim_calls(tmp_path: Path) -> list[str]:
    """The arguments of every `git refocus` the shim ran, in order."""
    log = tmp_path / "git-refocus.calls"
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def wired(repos: tuple[Path, Path], refocus_path: dict[str, str]) -> tuple[Path, Path]:
    """Source and dest, both set up with `git refocus init --claude` (hooks + commit-msg) and
    committed (the client's flavour of tests/conftest.py's `wired`)."""
    src, dest = repos
    for repo in (src, dest):
        refocus("init", "--claude", cwd=repo, env=refocus_path)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "wire git refocus")
    return src, dest


def spawn(src: Path, dest: Path, env: dict[str, str], slug: str = "mcp-standard") -> dict:
    """`git refocus spawn` from src into dest, with a context line; its JSON."""
    return refocus("spawn", dest, "--slug", slug, "--reason", "The memory session drifted into the MCP standard.",
                   "--done-when", "MCPSTANDARD.md exists", "--context", "Transport is SSH-stdio via a dispatcher",
                   "--json", cwd=src, env=env).json


def client_env(claude_bin: Path, claude_home: Path, mock_api: MockAnthropic, claude_tmpdir: Path,
               refocus_path: dict[str, str]) -> dict[str, str]:
    """The client's environment, with this tree's `git refocus` and the client itself on PATH."""
    bindir = Path(refocus_path["PATH"].split(os.pathsep)[0])
    if not (bindir / "claude").exists():
        (bindir / "claude").symlink_to(claude_bin)
    return claude_env(claude_home, mock_api.url, claude_tmpdir, refocus_path)


@pytest.fixture
def mock_api() -> Iterator[MockAnthropic]:
    """A running API mock with an empty script: `mock_api.add(Text(...), Bash(...))`."""
    with MockAnthropic() as mock:
        yield mock


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    """The HOME of the client under test: it writes `.claude.json` and `.claude/` here."""
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def claude_tmpdir() -> Iterator[Path]:
    # Short on purpose: the client puts unix sockets under it, and those paths are capped
    # near 108 bytes, which a pytest tmp_path can exceed.
    path = Path(tempfile.mkdtemp(prefix="cc-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def claude_env(home: Path, api_url: str, tmpdir: Path, extra_env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of one client run: ours, scrubbed, plus hermetic client and git settings."""
    env = {
        name: value for name, value in os.environ.items()
        if not name.startswith(_DROPPED_PREFIXES) and name.lower() not in _DROPPED_VARIABLES
    }
    env.update(CLIENT_ENV)
    env.update(GIT_IDENTITY_ENV)
    env.update(HOME=str(home), ANTHROPIC_BASE_URL=api_url, CLAUDE_CODE_TMPDIR=str(tmpdir))
    env.update(extra_env or {})
    return env


RunClaude = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def run_claude(claude_bin: Path, mock_api: MockAnthropic, claude_home: Path, claude_tmpdir: Path) -> RunClaude:
    """Run `claude -p PROMPT` in `cwd` against `mock_api`; returns the CompletedProcess.

    A new session gets `--session-id` (random unless given); pass `resume=SID` to continue one.
    The result carries the id used as `.session_id`.
    """

    def run(
        cwd: Path | str,
        prompt: str,
        session_id: str | None = None,
        resume: str | None = None,
        extra_env: dict[str, str] | None = None,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[str]:
        if resume is not None:
            assert session_id is None, "pass either session_id or resume, not both"
            session_args = ["--resume", resume]
            session_id = resume
        else:
            session_id = session_id or str(uuid.uuid4())
            session_args = ["--session-id", session_id]
        args = [str(claude_bin), "-p", prompt, *session_args, "--allowedTools", "Bash"]
        env = claude_env(claude_home, mock_api.url, claude_tmpdir, extra_env)
        done = _run_bounded(args, Path(cwd), env, timeout)
        done.session_id = session_id  # type: ignore[attr-defined]
        return done

    return run


def _run_bounded(args: list[str], cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    """Run in a process group of its own, so hooks and tool commands die with the client."""
    process = subprocess.Popen(
        args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        stdout, stderr = process.communicate(timeout=10)
        pytest.fail(f"claude did not finish within {timeout} s: {args}\n"
                    f"--- stdout\n{stdout}\n--- stderr\n{stderr}", pytrace=False)
    # The client does not wait for its SessionEnd hooks: give them their 1.5 s budget to
    # finish, then end anything a hook or command left running in the background.
    _wait_for_group(process.pid, HOOK_GRACE)
    _kill_group(process.pid)
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)


HOOK_GRACE = 2.0


def _wait_for_group(pgid: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and _group_alive(pgid):
        time.sleep(0.02)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@pytest.fixture
def transcript(claude_home: Path) -> Callable[[str], Path]:
    """`transcript(session_id)`: the path of that session's transcript; fails if there is none."""

    def find(session_id: str) -> Path:
        path = find_transcript(claude_home, session_id)
        assert path is not None, f"no transcript for {session_id} under {claude_home / '.claude' / 'projects'}"
        return path

    return find


def _install_agent(agent: str) -> Path:
    """The pinned ``agent`` command (scripts/install-agent); skips without it unless CI is set
    (there it must work)."""
    reason = ""
    if shutil.which("bash") is None:
        reason = "bash is required to run scripts/install-agent"
    else:
        try:
            proc = subprocess.run(["bash", str(INSTALL_AGENT), agent], capture_output=True, text=True,
                                  timeout=INSTALL_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            proc = None
            reason = f"scripts/install-agent {agent} took more than {INSTALL_TIMEOUT} s"
        if proc is not None:
            lines = proc.stdout.strip().splitlines()
            if proc.returncode == 0 and lines and os.access(lines[-1], os.X_OK):
                return Path(lines[-1])
            reason = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    if os.environ.get("CI"):
        pytest.fail(f"CI is set and the {agent} CLI is unavailable: {reason}", pytrace=False)
    pytest.skip(f"{agent} CLI unavailable: {reason}")


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    """The pinned Codex CLI binary (scripts/install-agent codex)."""
    return _install_agent("codex")


@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    """The pinned Gemini CLI launcher (scripts/install-agent gemini)."""
    return _install_agent("gemini")
