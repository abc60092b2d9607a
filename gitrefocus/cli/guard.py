"""How every command line ends: its errors as one line and an exit code
(the table in :mod:`gitrefocus.errors`), the same whether click parsed it (:func:`gitrefocus.cli.main`) or
it is a listing run without click (:mod:`gitrefocus.cli.listings`)."""

from __future__ import annotations

from collections.abc import Callable

from gitrefocus.errors import EXIT_INTERNAL, EXIT_USER, RefocusError


def run(body: Callable[[], int | None], *, as_json: bool, debug: bool) -> int:
    """Run ``body``: SIGINT as one line and exit 130, a RefocusError as its
    line and code, a closed stdout as success, anything else as an internal
    error in one line (a traceback with ``debug``)."""
    from gitrefocus.cli import editable, render
    from gitrefocus.store import interrupts

    interrupts.install()  # SIGINT: one line and exit 130 (errors.Interrupted), never a traceback
    if editable.running_from_source():
        editable.install_man_page()  # so that `git refocus --help` finds the page
    try:
        return body() or 0
    except RefocusError as exc:
        return render.failure(_with_repair(str(exc), exc), exc.exit_code, as_json)
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: one line unless --debug
        problem = environment_problem(exc)
        if problem is not None:  # a full or read-only disk, a permission: the user's to fix
            return render.failure(_with_repair(problem, exc), EXIT_USER, as_json)
        if debug:
            raise
        return render.failure(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback).",
                              EXIT_INTERNAL, as_json)


# errors of the machine, not of git refocus: a full disk, a read-only file system, a permission
_ERRNOS = ("ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "EFBIG", "EISDIR", "ENOTDIR", "ENXIO", "EMFILE", "ENFILE",
           "EIO", "ENAMETOOLONG", "ELOOP")
_GIT_WORDS = ("no space left", "read-only file system", "permission denied", "disk quota", "quota exceeded",
              "database or disk is full", "readonly database", "input/output error")


def environment_problem(exc: BaseException) -> str | None:
    """One sentence for a failure the user must fix in the machine (and not a
    bug): an OSError of the kinds above, or a libgit2 or sqlite error that says so."""
    import errno

    if isinstance(exc, UnicodeError):  # a path or value that is not UTF-8 (a directory's name, a file)
        return (f"text that is not valid UTF-8 cannot be recorded ({getattr(exc, 'reason', exc)}); "
                f"rename the directory or file, or pass UTF-8.")
    if isinstance(exc, OSError) and exc.errno in {getattr(errno, n) for n in _ERRNOS if hasattr(errno, n)}:
        where = f" {exc.filename}" if exc.filename else ""
        return f"could not write or read{where}: {exc.strerror or exc}."
    text = str(exc)
    if any(word in text.lower() for word in _GIT_WORDS):
        return f"could not write to the repository: {text.rstrip('.')}."
    return None


def _with_repair(message: str, exc: BaseException) -> str:
    """``message``, saying what became of the command: nothing changed when it
    failed before its first durable write; else the repair that finishes it."""
    from gitrefocus.errors import ConflictError, Interrupted
    from gitrefocus.store import atomic, faults

    if isinstance(exc, (ConflictError, Interrupted)) or "doctor --repair" in message or "nothing" in message.lower():
        return message
    if not isinstance(exc, (atomic.WriteFailed, atomic.NotRegular, OSError)) and environment_problem(exc) is None:
        return message
    if faults.writes() == 0:
        return message.rstrip(".") + "; nothing was changed."
    return (message.rstrip(".") + "; the command stopped part-way: once that is fixed, run "
            "`git refocus doctor --repair` to finish it.")
