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

    With ``check`` a non-zero exit raises ``RefocusError("<what> failed: <git's
    last line>.")``, ``what`` defaulting to ``git <subcommand>``.
    """
    from gitrefocus.store import faults

    faults.point(f"git {args[0] if args else ''}")
    proc = subprocess.run(command(cwd, args, config), capture_output=True, text=True, input=input,
                          env=dict(env) if env is not None else None)
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
                          stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout


def popen(cwd: str, *args: str, config: Sequence[str] = (), stdin: bool = False,
          stderr: bool = True, bufsize: int = -1) -> subprocess.Popen[bytes]:
    """A streaming git call (binary pipes); the caller reads, waits and checks.
    ``stdin``: a pipe to write to; ``stderr=False``: git's stderr is dropped
    (for a long-lived reader whose failures show in its output); ``bufsize``:
    of the pipes' buffers, as :class:`subprocess.Popen` takes it."""
    return subprocess.Popen(command(cwd, args, config), stdout=subprocess.PIPE,
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stderr=subprocess.PIPE if stderr else subprocess.DEVNULL, bufsize=bufsize)


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
