"""The one way git refocus runs the git CLI.

Local writes go through pygit2; the CLI is used where git itself is the
authority (network operations that carry the user's credentials, notes merges,
scoped commits that must run the user's hooks, history walks that git does
faster), and for the reads of a command that would otherwise load libgit2 for
them alone (a listing's refs, settings and object lookups, a cold cache's states). Every call goes through :func:`run` or :func:`popen`, and every
failure becomes one :class:`RefocusError` line built from git's last line of
stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence

from gitrefocus.errors import RefocusError

# ``-c`` options that keep the user's configuration out of calls whose output
# we parse or whose side effects must stay ours.
NO_HOOKS = ("-c", "core.hooksPath=/dev/null")


VERBOSE = "GIT_REFOCUS_VERBOSE"  # set by `git refocus -v`: each git command is shown on stderr


# Variables by which whoever started git refocus names one repository: git's
# own list (`git rev-parse --local-env-vars`). `git --git-dir=X refocus` sets
# GIT_DIR, `--work-tree=Y` GIT_WORK_TREE; a hook run in a linked worktree gets
# GIT_DIR and GIT_INDEX_FILE.
LOCAL_ENV = ("GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
             "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
             "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
             "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR")
# what git itself keeps when it runs git in another repository (a submodule):
# the `-c` settings the user gave
KEPT_FOR_OTHERS = ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")

_named: dict[tuple[str, str | None, str | None], tuple[str, str] | str] = {}


def named_repository() -> tuple[str, str] | None:
    """(git dir, work tree), resolved, of the repository ``GIT_DIR`` /
    ``GIT_WORK_TREE`` name, as git resolves them from the current directory
    (``git rev-parse``; with GIT_DIR alone the current directory is the top of
    the work tree), asked once per directory and values; None when neither is
    set (discovery walks up for ``.git``). Raises :class:`RefocusError` when
    they name nothing git can work in (no repository, a bare one)."""
    given = os.environ.get("GIT_DIR"), os.environ.get("GIT_WORK_TREE")
    if given == (None, None):
        return None
    key = (os.getcwd(), *given)
    if key not in _named:
        proc = subprocess.run(["git", "rev-parse", "--absolute-git-dir", "--show-toplevel"], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL)
        lines = proc.stdout.splitlines()
        _named[key] = ((os.path.realpath(lines[0]), os.path.realpath(lines[1]))
                       if proc.returncode == 0 and len(lines) == 2 else last_line(proc))
    found = _named[key]
    if isinstance(found, str):
        names = " and ".join(f"{name}={value}" for name, value in zip(("GIT_DIR", "GIT_WORK_TREE"), given, strict=True)
                             if value is not None)
        raise RefocusError(f"{names} names no work tree git can use here ({found}); "
                           "point it at a repository with a work tree, or unset it.")
    return found


def environment(cwd: str, env: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """The environment for git run in ``cwd``: ``env`` (None: this process's)
    as given when neither GIT_DIR nor GIT_WORK_TREE names a repository (the
    usual case: no copy, no question to git);
    else with GIT_DIR / GIT_WORK_TREE made absolute where ``cwd`` lies in the
    repository they name, and without the repository's variables anywhere else,
    as git treats another repository (pre-commit's ``no_git_env``; see
    docs/ARCHITECTURE.md, "Which repository: discovery")."""
    named = named_repository()
    if named is None:  # git finds the repository from cwd
        return dict(env) if env is not None else None
    out = dict(os.environ if env is None else env)
    if names(cwd, named):
        out["GIT_DIR"] = named[0]
        if "GIT_WORK_TREE" in out:
            out["GIT_WORK_TREE"] = named[1]
        return out
    for name in LOCAL_ENV:
        if name not in KEPT_FOR_OTHERS:
            out.pop(name, None)
    return out


def names(path: str, named: tuple[str, str]) -> bool:
    """The repository ``named`` (:func:`named_repository`) is the one of
    ``path``: git's for the current directory, wherever it is (``git
    --work-tree=Y`` from outside Y), and for every path in its work tree."""
    real = os.path.realpath(path)
    return real == os.path.realpath(os.getcwd()) or _inside(real, named[1])


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def command(cwd: str, args: Sequence[str], config: Sequence[str] = ()) -> list[str]:
    argv = ["git", "-C", cwd, *config, *args]
    if os.environ.get(VERBOSE):
        import shlex

        sys.stderr.write(f"+ {shlex.join(argv)}\n")
    return argv


def last_line(proc: subprocess.CompletedProcess[str] | str, returncode: int | None = None) -> str:
    """git's last non-empty line of stderr (or stdout), else the exit code."""
    if isinstance(proc, str):
        text, code = proc, returncode
    else:
        text, code = (proc.stderr or proc.stdout or ""), proc.returncode
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if lines:
        return lines[-1].strip()
    return f"exit {code}" if code is not None else "no output"


def failure(what: str, proc: subprocess.CompletedProcess[str]) -> RefocusError:
    return RefocusError(f"{what} failed: {last_line(proc)}.")


def run(cwd: str, *args: str, check: bool = True, input: str | None = None,
        env: Mapping[str, str] | None = None, config: Sequence[str] = (),
        what: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``git -C cwd [config] args``; text in, text out.

    Output that is not UTF-8 (a commit message in Latin-1, a note a remote wrote in any bytes)
    is read with U+FFFD in place of what does not decode: one such byte in a history must not
    fail every command that reads it. Output parsed as git wrote it goes through :func:`read`.

    With ``check`` a non-zero exit raises ``RefocusError("<what> failed: <git's
    last line>.")``, ``what`` defaulting to ``git <subcommand>``.
    """
    from gitrefocus.store import faults

    faults.point(f"git {args[0] if args else ''}")
    if input is not None:
        input.encode("utf-8")  # what goes in stays strict: text that is not UTF-8 is refused, never replaced
    proc = subprocess.run(command(cwd, args, config), capture_output=True, text=True, errors="replace", input=input,
                          env=environment(cwd, env))
    faults.ran(f"git {args[0] if args else ''}")
    if check and proc.returncode != 0:
        raise failure(what or f"git {args[0]}", proc)
    return proc


def output(cwd: str, *args: str, config: Sequence[str] = ()) -> str:
    """stdout of a git call that must succeed, stripped."""
    return run(cwd, *args, config=config).stdout.strip()


def read(cwd: str, *args: str, config: Sequence[str] = ()) -> tuple[int, bytes]:
    """(exit code, stdout as bytes) of a git call whose output is parsed as
    git wrote it (names in any encoding); its stderr is dropped."""
    proc = subprocess.run(command(cwd, args, config), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          stdin=subprocess.DEVNULL, env=environment(cwd))
    return proc.returncode, proc.stdout


def popen(cwd: str, *args: str, config: Sequence[str] = (), stdin: bool = False,
          stderr: bool = True, bufsize: int = -1) -> subprocess.Popen[bytes]:
    """A streaming git call (binary pipes); the caller reads, waits and checks.
    ``stdin``: a pipe to write to; ``stderr=False``: git's stderr is dropped
    (for a long-lived reader whose failures show in its output); ``bufsize``:
    of the pipes' buffers, as :class:`subprocess.Popen` takes it."""
    return subprocess.Popen(command(cwd, args, config), stdout=subprocess.PIPE,
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stderr=subprocess.PIPE if stderr else subprocess.DEVNULL, bufsize=bufsize,
                            env=environment(cwd))


PIPE_BYTES = 1 << 20  # how far git may write ahead of the Python reading it (Linux's default most for a pipe)


def widen_pipe(fd: int) -> None:
    """Let git write up to PIPE_BYTES into the pipe ``fd`` before it waits for
    the reader (64 KiB by default)."""
    import fcntl

    try:
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except OSError:
        pass  # not Linux, or past the system's limit: only slower


def blob_hash(data: bytes) -> str:
    """The object id git gives ``data`` as a blob (``git hash-object``)."""
    import hashlib  # git's SHA-1 object name: the header, then the bytes (no pygit2 object per call)

    h = hashlib.sha1(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()
