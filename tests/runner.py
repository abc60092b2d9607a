"""Running our CLI as a user would: `git refocus ...` from this source tree.

:func:`refocus` runs the command line in this process by default — the entry point with the
arguments, working directory, environment and stdin given, file descriptors 1 and 2 captured
(so the output of the git processes it starts is caught too), and every piece of process state
the CLI keeps put back afterwards (:func:`_reset`) — the way pre-commit's command tests run.
A new interpreter costs its start-up and imports on every call (~120 ms for a `list`), most of
the suite's time.
``own_process=True`` runs it as ``python -m gitrefocus`` in a subprocess instead: for the tests
where the process boundary is the point (what a fresh interpreter loads, exit on a signal, a
kill point of tests/faults, a process running concurrently with another). Set
``GIT_REFOCUS_TEST_SUBPROCESS=1`` to run every call in a subprocess, to check that both ways agree.

(The git CLI itself, for building repositories and checking what git sees, is tests/gitrepo.py.)
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout under test


def source_env(env: dict | None = None) -> dict:
    """This process's environment, with PYTHONPATH on the source tree (not whatever copy is
    installed in the venv) and ``env`` applied (a value of None removes the variable)."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT)
    full_env.update(env or {})
    return {k: v for k, v in full_env.items() if v is not None}


def git_refocus_on_path(directory: Path) -> Path:
    """A ``git-refocus`` in ``directory``/bin that runs this checkout, so that ``git refocus``
    (git finding its subcommand on PATH) is the code under test; the bin directory."""
    shim = directory / "bin"
    shim.mkdir(parents=True)
    (shim / "git-refocus").write_text(f'#!/bin/sh\nPYTHONPATH={shlex.quote(str(ROOT))} '
                                      f'exec {shlex.quote(sys.executable)} -m gitrefocus "$@"\n')
    (shim / "git-refocus").chmod(0o755)
    return shim


# what a hook run on every tool call or stop must not spend its time loading
HEAVY = ("click", "rich", "pygit2", "yaml", "dataclasses", "inspect", "typing")


def loaded_by(*modules: str, among: tuple[str, ...] = HEAVY) -> list[str]:
    """Those of ``among`` a fresh interpreter has loaded once it imported ``modules`` from the source tree."""
    code = f"import sys, {', '.join(modules)}; print(' '.join(m for m in {among!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=source_env()).stdout.split()


class Result:
    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr

    @property
    def json(self):
        return json.loads(self.stdout)

    def __repr__(self):
        return f"<exit {self.returncode}\nstdout: {self.stdout}\nstderr: {self.stderr}>"


# a call with one of these set may SIGKILL its own process (tests/faults): never this one
KILLING = ("GIT_REFOCUS_KILL_AFTER_WRITES", "GIT_REFOCUS_KILL_AT")


def refocus(*args, cwd, env=None, input=None, check=True, own_process=False) -> Result:
    """Run ``git refocus ARGS`` in ``cwd`` with ``env`` applied to this process's environment
    (None removes a variable) and ``input`` on stdin; fail the test on a non-zero exit unless
    check=False. In this process unless ``own_process`` (see the module's docstring)."""
    argv = list(map(str, args))
    result = run_cli(argv, cwd=cwd, env=source_env(env), input=input, own_process=own_process)
    if check and result.returncode != 0:
        raise AssertionError(f"git refocus {' '.join(argv)} failed: {result!r}")
    return result


def run_cli(argv: list[str], *, cwd, env: dict, input: str | None = None, own_process: bool = False,
            timeout: float | None = None) -> Result:
    """``python -m gitrefocus ARGV`` with exactly ``env`` as its environment: in this process, or
    in its own when asked, when GIT_REFOCUS_TEST_SUBPROCESS is set or when it may kill itself
    (``timeout`` applies to a subprocess only)."""
    if own_process or os.environ.get("GIT_REFOCUS_TEST_SUBPROCESS") or any(env.get(k) for k in KILLING):
        proc = subprocess.run([sys.executable, "-m", "gitrefocus", *argv], cwd=str(cwd), env=env,
                              capture_output=True, text=True, input=input, timeout=timeout)
        return Result(proc.returncode, proc.stdout, proc.stderr)
    return Result(*_in_process(argv, cwd, env, input))


def _in_process(argv: list[str], cwd, env: dict, input: str | None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``python -m gitrefocus ARGV``, run here; what the
    interpreter would set up and tear down around it is done by hand."""
    from gitrefocus.entry import main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams, saved_argv = (sys.stdin, sys.stdout, sys.stderr), sys.argv
    saved_sigint = signal.getsignal(signal.SIGINT)
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    for stream in saved_streams[1:]:
        stream.flush()
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        if input is not None:
            stdin.write(input.encode())
            stdin.seek(0)
        for fd, file in ((0, stdin), (1, out), (2, err)):
            os.dup2(file.fileno(), fd)
        streams = ()
        try:
            _reset(env)
            os.environ.clear()
            os.environ.update(env)
            os.chdir(cwd)
            sys.argv = [str(ROOT / "gitrefocus" / "__main__.py"), *argv]
            # the streams of a Python started with its stdio on files (or pipes)
            streams = (open(0, encoding="utf-8", closefd=False), open(1, "w", encoding="utf-8", closefd=False),
                       open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False))
            sys.stdin, sys.stdout, sys.stderr = streams
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
            except BaseException:  # noqa: BLE001 - what the interpreter prints on an uncaught exception
                import traceback

                traceback.print_exc()
                code = 1
            if code is None:
                code = 0
            elif not isinstance(code, int):
                print(code, file=sys.stderr)
                code = 1
        finally:
            for stream in streams:  # flushed as at exit (the descriptors stay open: closefd=False)
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            sys.argv = saved_argv
            for fd, saved in zip((0, 1, 2), saved_fds):
                os.dup2(saved, fd)
                os.close(saved)
            signal.signal(signal.SIGINT, saved_sigint)
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
            _reset(saved_env)
        out.seek(0)
        err.seek(0)
        return code, _text(out.read()), _text(err.read())


def _text(data: bytes) -> str:
    """What ``subprocess.run(text=True)`` makes of a stream's bytes (universal newlines)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


# The state the CLI keeps in module globals for the life of its process (caches, counters, open
# connections, a clock read at import), put back to that of a fresh interpreter before and after every in-process run by
# _reset. A module not yet imported has nothing to reset. tests/test_runner.py fails when a module
# grows such state that is not named here or in PURE.
RESET = {
    ("gitrefocus.store.catalog_cache", "_open"), ("gitrefocus.store.workspace", "_PACKED_FILES"),
    ("gitrefocus.store.config", "_LAST"), ("gitrefocus.store.git", "_named"), ("gitrefocus.store.identity", "_held"),
    ("gitrefocus.store.faults", "_writes"), ("gitrefocus.store.faults", "_points"),
    ("gitrefocus.store.faults", "_armed"), ("gitrefocus.store.workspace", "resolved"),
    ("gitrefocus.ops.places", "_known"), ("gitrefocus.ops.places", "_scanned"),
    ("gitrefocus.cli.render", "_settings"), ("gitrefocus.cli.render", "_git_config"),
    ("gitrefocus.handoff.scrub", "_GATE"), ("gitrefocus.claude.hookio", "STARTED"),
}
# module state that needs no reset: a pure function of its key, or filled once at import
PURE = {("gitrefocus.handoff.scrub", "_key_kind"), ("gitrefocus.handoff.cues", "NEEDLES"),
        ("gitrefocus.handoff.records", "_prefix_bytes")}


def _reset(env) -> None:
    """``env``: the environment the process runs in next."""
    modules = sys.modules
    if m := modules.get("gitrefocus.store.catalog_cache"):
        m.forget()  # closes its sqlite connections
    if m := modules.get("gitrefocus.store.workspace"):
        m._PACKED_FILES.clear()
    if m := modules.get("gitrefocus.store.config"):
        m._LAST.clear()
    if m := modules.get("gitrefocus.store.git"):
        m._named.clear()
    if m := modules.get("gitrefocus.store.identity"):
        m._held.clear()
    if m := modules.get("gitrefocus.store.faults"):
        m._writes = m._points = 0
        m._armed = None
    if m := modules.get("gitrefocus.store.workspace"):
        m.resolved.cache_clear()
    if m := modules.get("gitrefocus.ops.places"):
        m._known.clear()
        m._scanned.clear()
    if m := modules.get("gitrefocus.cli.render"):
        m.configure()
        m._git_config.cache_clear()
    if click := modules.get("click"):
        # click caches each command's help option, made with the option names of the context it
        # was first asked in (a subcommand run alone, in completion, has none of the group's -h)
        for name, module in list(modules.items()):
            if name.startswith("gitrefocus.cli") and module is not None:
                for value in list(vars(module).values()):
                    if isinstance(value, click.Command):
                        _forget_help_option(value)
    if m := modules.get("gitrefocus.claude.hookio"):
        m.STARTED = time.monotonic()  # the hook's clock (its time limit) starts with its process
    if m := modules.get("pygit2"):
        # libgit2 finds the global and XDG config files from HOME once, when it loads: where a new
        # process started with ``env`` would look
        paths, home = m.settings.search_path, env.get("HOME", "")
        paths[m.GIT_CONFIG_LEVEL_GLOBAL] = home
        xdg = env.get("XDG_CONFIG_HOME")
        paths[m.GIT_CONFIG_LEVEL_XDG] = os.path.join(xdg, "git") if xdg else os.path.join(home, ".config", "git")
    if m := modules.get("gitrefocus.handoff.scrub"):
        # its Hyperscan database, compiled on first use (~0.1 s), is kept from one run to the next
        # unless the next one turns Hyperscan off
        if m._GATE is None or env.get("GIT_REFOCUS_NO_HYPERSCAN"):
            m._GATE = m._UNSET


def _forget_help_option(command) -> None:
    command._help_option = None
    for sub in getattr(command, "commands", {}).values():
        _forget_help_option(sub)


def spawn_args(dest, slug="mcp-standard", *extra):
    """The arguments of a typical `git refocus spawn` into ``dest`` (with --json)."""
    return ["spawn", str(dest), "--slug", slug, "--reason", "MCP standard work drifted into this repo.",
            "--done-when", "MCPSTANDARD.md exists", "--done-when", "Review integrated", *extra, "--json"]
