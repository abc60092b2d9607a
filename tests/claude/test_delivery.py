"""Results reach their parent exactly once: the SessionStart hook marks a result received only
after the text naming it is on its stdout, and only the results it names (tests/e2e drives the
real client over 150 of them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.backlog import waiting_results
from tests.claude.hookcall import context, hook
from tests.gitrepo import make_repo
from tests.runner import ROOT, refocus, source_env


def received(repo) -> set[str]:
    out = subprocess.run(["git", "-C", str(repo), "for-each-ref", "--format=%(refname:lstrip=2) %(contents:subject)",
                          "refs/refocus/"], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.endswith(": received")}


def named(text: str, ids: list[str]) -> set[str]:
    return {rid for rid in ids if rid in text}


def parent_start(src, n: int):
    return hook("session-start", {"session_id": f"parent-{n}", "cwd": str(src), "source": "startup"}, src)


@pytest.fixture
def backlog(tmp_path):
    return waiting_results(tmp_path / "backlog", 12)


def test_a_backlog_is_told_a_few_at_a_time_each_marked_once_it_is_told(backlog):
    src, dest, ids = backlog  # 13 waiting
    told: list[str] = []
    for n, expect in enumerate((5, 5, 3)):
        text = context(parent_start(src, n))
        now = named(text, ids)
        assert len(now) == expect, text
        assert received(src) == set(told) | now, "marked exactly the results this session was told"
        assert not now & set(told), "no result is told twice"
        rest = len(ids) - len(told) - expect
        if rest:
            assert f"{rest} more results wait to be received: `git refocus receive`" in text
        else:
            assert "more results wait" not in text
        assert len(text) <= 10_000
        told += sorted(now)
    assert told == ids, "oldest first, every one of them"
    again = parent_start(src, 9)
    assert "came back" not in again.stdout


def test_each_result_says_what_was_not_met_and_where_the_full_result_is(tmp_path):
    src, dest = make_repo(tmp_path / "src"), make_repo(tmp_path / "mono")
    (dest / "services" / "api").mkdir(parents=True)
    refocus("init", cwd=src)
    sub = dest / "services" / "api"
    out = refocus("spawn", sub, "--slug", "api", "--reason", "r", "--done-when", "Endpoint exists",
                  "--done-when", "Load tested", "--done-when", "Documented", "--json", cwd=src).json
    child = {"CLAUDE_CODE_SESSION_ID": out["child_session_id"]}
    refocus("start", cwd=sub, env=child)
    done = refocus("complete", "--summary", "Endpoint added.", "--dod", "1", "--dod-unmet", "2=no load rig yet",
                   "--no-material-changes", "n/a", cwd=sub, env=child)
    assert "Load tested" not in done.stderr, "a criterion given with --dod-unmet is not warned about"
    assert "Documented" in done.stderr, "one marked neither met nor unmet is"
    text = context(parent_start(src, 0))
    assert "Done-when criteria not met: Load tested (not met: no load rig yet); Documented (not stated)" in text
    full = text.split("Full result: ")[1].splitlines()[0]
    assert full == str(dest.resolve() / "docs" / "refocus" / f"{out['id']}.md") and os.path.isfile(full), \
        "the brief lives at the destination repository's root, wherever in it the child worked"


def test_a_result_goes_to_sessions_on_its_parents_tree_only(tmp_path):
    mono, dest = make_repo(tmp_path / "mono"), make_repo(tmp_path / "dest")
    web, api = mono / "services" / "web", mono / "services" / "api"
    web.mkdir(parents=True)
    api.mkdir(parents=True)
    out = refocus("spawn", dest, "--slug", "w", "--reason", "r", "--done-when", "d", "--json", cwd=web,
                  env={"CLAUDE_PROJECT_DIR": str(web)}).json
    child = {"CLAUDE_CODE_SESSION_ID": out["child_session_id"]}
    refocus("start", cwd=dest, env=child)
    refocus("complete", "--summary", "Done for web.", "--dod", "1", "--no-material-changes", "n/a", cwd=dest, env=child)
    sibling = hook("session-start", {"session_id": "s1", "cwd": str(api), "source": "startup"}, api)
    assert out["id"] not in sibling.stdout, "a session in a sibling directory is not the parent"
    assert received(mono) == set()
    text = context(hook("session-start", {"session_id": "s2", "cwd": str(web),
                                           "source": "startup"}, web))
    assert out["id"] in text and received(mono) == {out["id"]}


def test_a_hook_killed_at_any_write_leaves_each_result_told_and_marked_or_waiting(backlog, tmp_path):
    src, dest, ids = backlog
    pristine = tmp_path / "pristine"
    subprocess.run(["cp", "-a", str(src), str(pristine)], check=True)
    for kill_after in range(1, 40):
        subprocess.run(["rm", "-rf", str(src)], check=True)
        subprocess.run(["cp", "-a", str(pristine), str(src)], check=True)
        payload = {"session_id": "parent", "cwd": str(src), "source": "startup"}
        r = refocus("hook", "session-start", cwd=src, input=json.dumps(payload), check=False,
                    env={"GIT_REFOCUS_KILL_AFTER_WRITES": str(kill_after)})
        marked = received(src)
        assert marked <= named(r.stdout, ids), f"killed after write {kill_after}: marked {marked - named(r.stdout, ids)} untold"
        if r.returncode == 0:
            break  # the hook ran to its end: every write was a crash point
    else:
        pytest.fail("the hook never finished")
    assert kill_after > 5, "the crash points included the receipts"


def test_a_receipt_that_fails_loses_no_result(backlog, tmp_path):
    src, dest, ids = backlog
    index = src / "docs" / "refocus" / "INDEX.md"
    index.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(tmp_path / "elsewhere.md", index)
    r = parent_start(src, 0)
    assert r.returncode == 0
    told = named(context(r), ids)
    assert len(told) == 5 and received(src) <= told, "whatever was marked was told"
    assert "session-start" in (src / ".git" / "refocus" / "errors.jsonl").read_text(), "the failure is logged"


def test_nothing_is_marked_when_the_context_cannot_be_written(backlog):
    src, dest, ids = backlog
    payload = json.dumps({"session_id": "parent", "cwd": str(src), "source": "startup"}).encode()
    read, write = os.pipe()
    os.close(read)  # the client went away: writing stdout fails
    proc = subprocess.run([sys.executable, "-m", "gitrefocus", "hook", "session-start"], cwd=src, input=payload,
                          stdout=write, stderr=subprocess.PIPE, env=source_env({"PYTHONPATH": str(ROOT)}))
    os.close(write)
    assert proc.returncode == 0 and b"BrokenPipe" in proc.stderr
    assert received(src) == set(), "no result is marked received unless the text naming it was written"
