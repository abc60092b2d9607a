"""Output: versioned JSON for scripts, text for people, diagnostics on stderr.

Text goes through rich only when the stream is a terminal and colour is
allowed (``--no-color``, ``NO_COLOR``, ``TERM=dumb`` and git's ``color.ui``
say no; ``color.ui=always`` says yes even into a pipe); otherwise it is plain,
so pipes and tests see exactly what we wrote. Long output is paged by git's
rules (:func:`paged`).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping

from gitrefocus.model.text import neutralise as neutralise  # re-exported: the renderers use it by this name

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import TextIO

    from rich.console import Console

JSON_VERSION = 1
JSON_HELP = "Print a versioned JSON object instead of text."  # the --json option of every command
_settings = {"pager": True, "color": True, "quiet": False}  # the global --no-pager, --no-color, -q
_FALSE, _TRUE = ("false", "no", "off", "0", "never"), ("true", "yes", "on", "1", "always")


def configure(*, pager: bool = True, color: bool = True, quiet: bool = False) -> None:
    _settings.update(pager=pager, color=color, quiet=quiet)


@functools.cache
def _git_config(key: str) -> str | None:
    """``git config --get key`` here, lower-cased: from the settings the command
    already read for the repository here when it did, else from git."""
    from gitrefocus.errors import RefocusError
    from gitrefocus.store import config, git, workspace

    try:
        found = workspace.discover(".")
        known = config.last_read(found[0]) if found else None
        if known is not None:
            values = known.get(key)
            return (values[-1] or "").strip().lower() if values else None
        proc = git.run(".", "config", "--get", key, check=False)
    except RefocusError:  # GIT_DIR names no repository: the error being shown says so
        return None
    return proc.stdout.strip().lower() if proc.returncode == 0 else None


def _use_rich(stream: TextIO) -> bool:
    if not _settings["color"] or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    ui = _git_config("color.ui")  # once per process
    if ui in _FALSE:
        return False
    return stream.isatty() or ui == "always"


def _console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, markup=False, highlight=False, force_terminal=True)


def failure(message: str, exit_code: int, as_json: bool = False, *, stderr: bool = True) -> int:
    """An error: one line on stderr, and with --json an error object on stdout."""
    if as_json:
        code = {1: "user-error", 2: "usage", 3: "refused", 4: "conflict", 70: "internal"}.get(exit_code, "error")
        emit_json("error", {"code": code, "exit_code": exit_code, "message": message})
    if stderr:
        error(message)
    return exit_code


def pager_command() -> str | None:
    """The pager git would use for ``git refocus``, or None not to page: stdout is
    not a terminal, --no-pager, git is already paging us, ``pager.refocus`` is
    false, or the pager is ``cat``. Otherwise ``pager.refocus`` when it names a
    command, else ``git var GIT_PAGER`` (GIT_PAGER, core.pager, PAGER, less)."""
    if not _settings["pager"] or not sys.stdout.isatty() or os.environ.get("GIT_PAGER_IN_USE"):
        return None
    from gitrefocus.store import git

    own = git.run(".", "config", "--get", "pager.refocus", check=False).stdout.strip()
    if own.lower() in _FALSE:
        return None
    if own and own.lower() not in _TRUE:
        return own
    proc = git.run(".", "var", "GIT_PAGER", check=False)
    command = proc.stdout.strip() if proc.returncode == 0 else "less"
    return None if command in ("", "cat") else command


@contextlib.contextmanager
def working(message: str, *, quiet: bool = False) -> Iterator[Callable[[str], None]]:
    """While a command that can take a while works: a transient spinner on a
    terminal's stderr, whose text the block updates (plain lines when colour is
    off); nothing into a pipe or with ``quiet`` (--json)."""
    if quiet or _settings["quiet"] or not sys.stderr.isatty():
        yield lambda text: None
        return
    if not _use_rich(sys.stderr):
        note(message)
        yield note
        return
    from rich.live import Live
    from rich.spinner import Spinner

    live = Live(Spinner("dots", text=message), console=_console(stderr=True), transient=True,
                refresh_per_second=10)
    live.start(refresh=True)
    try:
        yield lambda text: live.update(Spinner("dots", text=text), refresh=True)
    finally:
        live.stop()


class _PagerText(io.StringIO):
    def isatty(self) -> bool:  # rich renders for the terminal the pager shows
        return True


@contextlib.contextmanager
def paged() -> Iterator[None]:
    """Send what the block writes to stdout through the pager (see :func:`pager_command`)."""
    command = pager_command()
    if command is None:
        yield
        return
    import subprocess

    real, buffer = sys.stdout, _PagerText()
    sys.stdout = buffer
    try:
        yield
    finally:
        sys.stdout = real
        env = dict(os.environ, GIT_PAGER_IN_USE="true")
        env.setdefault("LESS", "FRX")
        env.setdefault("LV", "-c")
        real.flush()
        try:
            subprocess.run(command, shell=True, input=buffer.getvalue().encode("utf-8"), env=env, check=False)
        except OSError:
            real.write(buffer.getvalue())


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def emit_json(kind: str, payload: Mapping[str, object]) -> None:
    doc: dict[str, object] = {"version": JSON_VERSION, "kind": kind}
    doc.update(payload)
    # written as it is encoded (what json.dumps would return, never held whole: `list --all --json`
    # of 100k refocuses is ~100 MB of text)
    out = sys.stdout
    for chunk in json.JSONEncoder(ensure_ascii=False, indent=2, sort_keys=False).iterencode(doc):
        if not chunk.isascii():
            # a path with bytes that are not UTF-8 (a lone surrogate here) as JSON's escape for it:
            # the document stays UTF-8 in every locale, and json.loads gives the same string back
            chunk = _LONE_SURROGATE.sub(_escaped, chunk)
        out.write(chunk)
    out.write("\n")


def echo(text: str = "") -> None:
    sys.stdout.write(neutralise(text) + "\n")


def prose(text: str, indent: str = "  ") -> None:
    """A sentence for people: on a terminal, wrapped to its width (80 columns at most), the
    lines after the first indented; a path or a command is never broken. Piped, one line
    (what scripts and grep read)."""
    if sys.stdout.isatty():
        import shutil
        import textwrap

        width = min(shutil.get_terminal_size((80, 24)).columns, 80)
        text = textwrap.fill(text, width, subsequent_indent=indent, break_long_words=False,
                             break_on_hyphens=False)
    echo(text)


def raw(text: str) -> None:
    """Text as is but for control characters (a prompt, a rendered brief)."""
    sys.stdout.write(neutralise(text))


def error(message: str) -> None:
    _err(f"error: {message}", "bold red")


def warn(message: str) -> None:
    _err(f"warning: {message}", "yellow")


def note(message: str) -> None:
    """Information on stderr (not a warning): silenced by -q."""
    if not _settings["quiet"]:
        _err(message, None)


def warnings(messages: list[str]) -> None:
    """The warnings a command's outcome carries, one line each on stderr."""
    for message in messages:
        warn(message)


def notes(messages: list[str]) -> None:
    for message in messages:
        note(message)


def _err(text: str, style: str | None) -> None:
    text = neutralise(text)
    if style and _use_rich(sys.stderr):
        _console(stderr=True).print(text, style=style)
    else:
        sys.stderr.write(text + "\n")


def table(title: str | None, columns: list[str], rows: list[list[str]]) -> None:
    """A table: rich when stdout is a terminal, aligned plain text otherwise.
    The first column is never cut (see above)."""
    if _use_rich(sys.stdout):
        from rich.table import Table

        t = Table(title=title, title_justify="left", show_edge=False)
        for i, col in enumerate(columns):
            if i == 0:  # the key (an id): what users copy, never cut; the other columns wrap
                t.add_column(col, no_wrap=True, min_width=max([len(col)] + [len(r[0]) for r in rows]))
            else:
                t.add_column(col, overflow="fold")
        for row in rows:
            t.add_row(*(neutralise(v) for v in row))
        _console().print(t)
        return
    rows = [[neutralise(v) for v in row] for row in rows]
    if title:
        echo(title)
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    echo("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip())
    for row in rows:
        echo("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=False)).rstrip())
