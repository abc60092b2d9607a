"""What a person at a terminal sees: ids never cut, git's pager rules, git's colour rules
(docs/using.md)."""

from __future__ import annotations

import re

from tests.cli.tty import on_tty
from tests.gitrepo import git
from tests.runner import refocus, spawn_args

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_list_never_cuts_an_id_at_80_columns(repos):
    src, dest = repos
    long_slug = "a-rather-long-slug-that-fills-the-id-column-up"
    rid = refocus(*spawn_args(dest, long_slug), cwd=src).json["id"]
    code, out = on_tty("list", cwd=src, columns=80, env={"GIT_PAGER": "cat"})
    assert code == 0, out
    assert rid in ANSI.sub("", out), out
    assert "…" not in out


def test_show_pages_through_git_pager(tmp_path, spawned):
    src, dest, out = spawned
    paged = tmp_path / "paged.txt"
    pager = f"cat > {paged}"
    code, text = on_tty("show", out["id"], cwd=dest, env={"GIT_PAGER": pager})
    assert code == 0, text
    assert out["id"] in paged.read_text(), "show went through GIT_PAGER"


def test_core_pager_is_honoured_and_no_pager_and_pager_refocus_turn_it_off(tmp_path, spawned):
    src, dest, out = spawned
    paged = tmp_path / "paged.txt"
    git(dest, "config", "core.pager", f"cat > {paged}")
    on_tty("show", out["id"], cwd=dest, env={"GIT_PAGER": None, "PAGER": None})
    assert paged.exists(), "core.pager is used like git does"
    paged.unlink()
    code, text = on_tty("--no-pager", "show", out["id"], cwd=dest, env={"GIT_PAGER": None})
    assert not paged.exists() and out["id"] in text
    git(dest, "config", "pager.refocus", "false")
    code, text = on_tty("show", out["id"], cwd=dest, env={"GIT_PAGER": None})
    assert not paged.exists() and out["id"] in text


def test_never_paged_into_a_pipe(tmp_path, spawned):
    src, dest, out = spawned
    paged = tmp_path / "paged.txt"
    r = refocus("show", out["id"], cwd=dest, env={"GIT_PAGER": f"cat > {paged}"})
    assert out["id"] in r.stdout and not paged.exists()


def test_colour_follows_no_color_flag_and_color_ui(spawned):
    src, dest, out = spawned
    code, text = on_tty("show", "nope", cwd=dest, env={"GIT_PAGER": "cat"})
    assert code == 1 and "\x1b[" in text, "errors are coloured on a terminal"
    for args, env in ((["--no-color"], {}), ([], {"NO_COLOR": "1"})):
        code, text = on_tty(*args, "show", "nope", cwd=dest, env={"GIT_PAGER": "cat", **env})
        assert code == 1 and "\x1b[" not in text and "error:" in text, (args, env, text)
    git(dest, "config", "color.ui", "never")
    code, text = on_tty("show", "nope", cwd=dest, env={"GIT_PAGER": "cat"})
    assert "\x1b[" not in text and "error:" in text


def test_a_listing_takes_color_ui_from_the_settings_it_read(spawned):
    """list reads color.ui with the rest of the repository's settings, as
    `git config --get` gives it: always colours a pipe, the last value wins,
    and `git -c` counts."""
    src, dest, out = spawned
    git(dest, "config", "color.ui", "always")
    r = refocus("list", cwd=dest)
    assert out["id"] in ANSI.sub("", r.stdout) and "\x1b[" in r.stdout, r.stdout
    git(dest, "config", "--add", "color.ui", "never")
    code, text = on_tty("list", cwd=dest, env={"GIT_PAGER": "cat"})
    assert code == 0 and out["id"] in text and "\x1b[" not in text, text
    r = refocus("list", cwd=dest, env={"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "color.ui",
                                       "GIT_CONFIG_VALUE_0": "always"})
    assert "\x1b[" in r.stdout, r.stdout
