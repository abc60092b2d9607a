"""store/atomic: a file is written whole under a temporary name beside it, then renamed."""

from __future__ import annotations

import os

import pytest

from gitrefocus.store import atomic


def leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".tmp-"))


def test_a_new_file_is_readable_by_all_and_an_existing_one_keeps_its_mode(tmp_path):
    new = tmp_path / "d" / "new.md"
    atomic.write_text(str(new), "first\n")
    assert new.read_text() == "first\n" and new.stat().st_mode & 0o777 == 0o644
    private = tmp_path / "private.md"
    private.write_text("old\n")
    private.chmod(0o600)
    atomic.write_text(str(private), "new\n")
    assert private.read_text() == "new\n" and private.stat().st_mode & 0o777 == 0o600
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "d") == []


def test_a_failed_write_leaves_the_file_as_it_was_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "brief.md"
    target.write_text("kept\n")

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        atomic.write_text(str(target), "lost\n")
    assert target.read_text() == "kept\n" and leftovers(tmp_path) == []


def test_a_temporary_name_already_taken_is_passed_over(tmp_path, monkeypatch):
    taken = tmp_path / ".tmp-000000000000"
    taken.write_text("someone else's\n")
    draws = iter([b"\0" * 6, b"\1" * 6])
    monkeypatch.setattr(os, "urandom", lambda n: next(draws))
    atomic.write_text(str(tmp_path / "out.md"), "mine\n")
    assert (tmp_path / "out.md").read_text() == "mine\n"
    assert taken.read_text() == "someone else's\n" and leftovers(tmp_path) == [taken.name]


def test_a_temporary_name_that_is_a_symlink_is_not_followed(tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.write_text("not ours\n")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / ".tmp-000000000000").symlink_to(outside)
    draws = iter([b"\0" * 6, b"\1" * 6])
    monkeypatch.setattr(os, "urandom", lambda n: next(draws))
    atomic.write_text(str(tmp_path / "repo" / "out.md"), "mine\n")
    assert outside.read_text() == "not ours\n" and (tmp_path / "repo" / "out.md").read_text() == "mine\n"
