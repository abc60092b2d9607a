"""How every command line ends: its errors as one line and an exit code
(SPEC §5), the same whether click parsed it (:func:`gitrefocus.cli.main`) or
it is a listing run without click (:mod:`gitrefocus.cli.listings`)."""

from __future__ import annotations

from collections.abc import Callable

from gitrefocus.errors import EXIT_INTERNAL, RefocusError


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
        return render.failure(str(exc), exc.exit_code, as_json)
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: one line unless --debug
        if debug:
            raise
        return render.failure(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback).",
                              EXIT_INTERNAL, as_json)
