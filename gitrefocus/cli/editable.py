"""`git refocus --help` is git running `man git-refocus`. A real install puts the
page in <venv>/share/man/man1 (pyproject data-files), where man finds it from
PATH; an editable install (pip install -e) installs no data files, so the
first command run from a source tree copies the page there."""

from __future__ import annotations

import os
import sys


def running_from_source() -> bool:
    """In a virtualenv, with this package imported from outside it (editable or PYTHONPATH)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return sys.prefix != sys.base_prefix and not here.startswith(os.path.abspath(sys.prefix) + os.sep)


def install_man_page() -> str | None:
    """Copy man/git-refocus.1 of the source tree into the venv when it is missing
    there; the path written, or None. Never fails a command."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "man", "git-refocus.1")
    target = os.path.join(sys.prefix, "share", "man", "man1", "git-refocus.1")
    if os.path.exists(target) or not os.path.isfile(source):
        return None
    import shutil

    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
    except OSError:
        return None
    return target
