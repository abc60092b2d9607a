"""Errors in the user's words, JSON error objects, empty states, health --exit-code,
did-you-mean, help and man page layout."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.cli.test_docs import MAN
from tests.runner import refocus, spawn_args


def _complete(dest, *extra, check=True):
    return refocus("complete", *extra, "--summary", "done", "--dod", "1", "--no-material-changes", "test",
                   cwd=dest, check=check)


def test_completing_twice_says_already_completed_with_the_date(started):
    src, dest, rid = started
    _complete(dest, rid)
    completed_at = refocus("show", rid, "--json", cwd=dest).json["state"]["completed_at"]
    r = _complete(dest, rid, check=False)
    assert r.returncode == 1
    when = completed_at[:16].replace("T", " ")
    assert r.stderr.strip() == f"error: {rid} is already completed ({when}); nothing to do.", r


def test_starting_a_blocked_refocus_says_what_is_possible(started):
    src, dest, rid = started
    refocus("complete", rid, "--status", "blocked", "--summary", "needs X", "--no-material-changes", "n/a", cwd=dest)
    r = refocus("start", rid, cwd=dest, check=False)
    assert r.returncode == 1 and "is blocked" in r.stderr and "only be abandoned" in r.stderr, r


def test_json_errors_are_an_object_on_stdout_and_a_line_on_stderr(repos):
    src, dest = repos
    r = refocus("show", "no-such-id", "--json", cwd=src, check=False)
    assert r.returncode == 1
    assert r.json == {"version": 1, "kind": "error", "code": "user-error", "exit_code": 1,
                      "message": "unknown refocus id 'no-such-id' (see `git refocus list`)."}
    assert r.stderr.startswith("error: unknown refocus id")
    usage = refocus("list", "--bogus", "--json", cwd=src, check=False)
    assert usage.returncode == 2 and usage.json["code"] == "usage" and "--bogus" in usage.json["message"]


def test_missing_reason_and_missing_done_when_exit_alike(repos):
    src, dest = repos
    no_reason = refocus("spawn", dest, "--done-when", "x", cwd=src, check=False)
    no_done = refocus("spawn", dest, "--reason", "why", cwd=src, check=False)
    assert no_reason.returncode == no_done.returncode == 1, (no_reason, no_done)
    assert "--reason" in no_reason.stderr and "--done-when" in no_done.stderr
    assert no_reason.stderr.count("\n") == no_done.stderr.count("\n") == 1, "one line each"


def test_empty_states_say_so(repos):
    src, dest = repos
    assert refocus("list", cwd=src).stdout.startswith("nothing here")
    assert refocus("list", "--all", cwd=src).stdout.startswith("nothing here")
    assert refocus("status", cwd=src).stdout.strip() == "nothing needs attention here."
    assert refocus("health", cwd=src).stdout.strip() == "nothing needs attention here."


def test_health_exit_code_for_ci(repos):
    src, dest = repos
    assert refocus("health", "--exit-code", cwd=src).returncode == 0
    refocus(*spawn_args(dest), cwd=src, env={"GIT_REFOCUS_NOW": "2020-01-01T00:00:00Z"})
    r = refocus("health", "--exit-code", cwd=src, check=False)
    assert r.returncode == 1 and "un-launched" in r.stdout, r
    assert refocus("health", cwd=src).returncode == 0, "without --exit-code health is a report"


@pytest.mark.parametrize("typo,suggestion", [("stauts", "status"), ("sapwn", "spawn"), ("pick", "pickup")])
def test_a_mistyped_command_gets_a_suggestion(repos, typo, suggestion):
    src, _ = repos
    r = refocus(typo, cwd=src, check=False)
    assert r.returncode == 2
    assert f"'{typo}' is not a git refocus command" in r.stderr and f"Did you mean '{suggestion}'" in r.stderr, r


def test_help_summaries_are_never_cut(repos):
    src, _ = repos
    text = refocus("--help", cwd=src).stdout.split("Commands:")[1]
    assert "..." not in text
    assert "make it active for commit tagging" in " ".join(text.split())


def test_man_page_renders_bullets_and_tables_line_for_line():
    if shutil.which("man") is None:
        pytest.skip("no man(1) here")
    text = subprocess.run(["man", "-l", str(MAN)], capture_output=True, text=True,
                          env={"MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}).stdout
    assert "- sets notes.displayRef" not in text, "init's bullets are not run together"
    lines = [line.strip() for line in text.splitlines()]
    assert any(line.startswith("session-end") for line in lines), "the hook table keeps one row a line"
    assert any(line.startswith("post-tool-use") for line in lines)
    assert "\u2010" not in text and "\u00ad" not in text, "no word is hyphenated across lines"


@pytest.mark.parametrize("args", [["list"], ["list", "--json"], ["list", "--all"], ["list", "--all", "--json"],
                                  ["status"], ["status", "--json"], ["index"], ["index", "--json"]])
def test_a_plain_listing_prints_what_the_click_command_prints(started, tmp_path, args):
    """`list`, `status` and `index` are run without click when they carry no other option
    (gitrefocus.cli.listings); `-C DIR` sends the same command through click. Both must
    say the same, for a repository with refocuses, and as errors outside one."""
    src, dest, rid = started
    for where in (src, dest):
        plain = refocus(*args, cwd=where)
        parsed = refocus("-C", str(where), *args, cwd=tmp_path)
        assert (plain.returncode, plain.stdout, plain.stderr) == (parsed.returncode, parsed.stdout, parsed.stderr)
        assert rid in plain.stdout or args[0] == "index"
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    plain = refocus(*args, cwd=outside, check=False)
    parsed = refocus("-C", str(outside), *args, cwd=tmp_path, check=False)
    assert plain.returncode == parsed.returncode == 1
    assert plain.stdout == parsed.stdout and plain.stderr == parsed.stderr
    assert "not inside a git repository" in plain.stderr
