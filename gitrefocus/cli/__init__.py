"""The command line: click wiring in :mod:`gitrefocus.cli.app` (``cli``, ``main``,
``COMMANDS``, loaded when first named here), one module per area of commands,
and what needs no click at all (:mod:`gitrefocus.cli.render`,
:mod:`gitrefocus.cli.guard`, :mod:`gitrefocus.cli.listings`): importing the
package imports nothing else, so a plain listing never loads click."""

from __future__ import annotations

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any

    # what __getattr__ hands out, as the type checker should see it
    from gitrefocus.cli.app import COMMANDS as COMMANDS
    from gitrefocus.cli.app import LazyGroup as LazyGroup
    from gitrefocus.cli.app import cli as cli
    from gitrefocus.cli.app import main as main


_APP = ("cli", "main", "COMMANDS", "LazyGroup")


def __getattr__(name: str) -> Any:
    if name in _APP:
        from gitrefocus.cli import app

        return getattr(app, name)
    raise AttributeError(f"module 'gitrefocus.cli' has no attribute {name!r}")
