"""`git refocus list`."""

from __future__ import annotations

from tests.runner import refocus


def test_list_names_the_refocus_in_the_source(spawned):
    src, dest, out = spawned
    lines = refocus("list", cwd=src).stdout.splitlines()
    assert lines[1].startswith(out["id"]), lines
