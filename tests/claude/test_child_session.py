"""The child's SessionStart: who the child is (by session id, or by the evidence of the client
process after /clear or a fork, never by recency), and what it is told, rules first."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.claude.hookcall import context, hook
from tests.gitrepo import git, make_repo
from tests.runner import ROOT, refocus

LONG = "criterion " + "with many words that make it long " * 4  # ~150 characters


def long_brief_args(dest, n=60):
    args = ["spawn", str(dest), "--slug", "long", "--reason", "The reason this branch exists, said once."]
    for i in range(n):
        args += ["--done-when", f"{i + 1}: {LONG}", "--out-of-scope", f"not this {i + 1}: {LONG}"]
    return args + ["--context", "A fact handed over", "--json"]


def test_a_brief_past_the_cap_keeps_identity_rules_and_reason_and_cuts_only_the_lists(repos, tmp_path):
    src, dest = repos
    refocus("init", cwd=dest)
    out = refocus(*long_brief_args(dest), cwd=src).json
    text = context(hook("session-start", {"session_id": out["child_session_id"], "cwd": str(dest),
                                          "source": "startup"}, dest))
    assert len(text) <= 10_000
    first = text.splitlines()[0]
    assert first.startswith(f"git refocus: this session is the child session of refocus {out['id']}")
    brief = str(dest.resolve() / "docs" / "refocus" / f"{out['id']}.md")
    assert f"The full brief is {brief}" in text and os.path.isfile(brief)
    rules = text.index("This session is a leaf")
    assert rules < text.index("/refocus-complete") < text.index("--status blocked") < text.index(
        "The reason this branch exists, said once."), "the rules and how to complete come before the reason"
    assert text.index("The reason this branch exists") < text.index("Definition of done")
    assert "more in the brief)" in text, "a list that does not fit is cut with a pointer to the brief"
    assert "Commits made in this session carry the trailer Refocus-Id" in text


def test_the_child_is_told_commits_are_untagged_where_the_hook_is_missing(spawned):
    src, dest, out = spawned  # dest never ran `git refocus init`
    text = context(hook("session-start", {"session_id": out["child_session_id"], "cwd": str(dest)}, dest))
    assert "not tagged with Refocus-Id" in text and "carry the trailer" not in text
    assert f"docs/refocus/{out['id']}.md" in text and "--commit" in text, "told to commit the brief and result"


# -- a fake client: a process named `claude` that runs the hook as its child, like the real one

FAKE_CLIENT = """#!/bin/sh
# run `git refocus hook session-start` once per payload file, in this one process
for payload in "$@"; do
  case $payload in --*|[0-9a-f]*-*) continue ;; esac
  PYTHONPATH={root} {python} -m gitrefocus hook session-start < "$payload" > "$payload.out"
done
"""


@pytest.fixture
def client(tmp_path):
    """``client(cwd, *payloads, argv=())``: run the payloads as one client process would, in order;
    each hook's stdout."""
    binary = tmp_path / "fake" / "claude"
    binary.parent.mkdir()
    binary.write_text(FAKE_CLIENT.format(root=shlex.quote(str(ROOT)), python=shlex.quote(sys.executable)))
    binary.chmod(0o755)
    count = iter(range(1000))

    def run(cwd, *payloads, argv=(), env=None):
        files = []
        for payload in payloads:
            path = tmp_path / f"payload-{next(count)}.json"
            path.write_text(json.dumps({"cwd": str(cwd), "hook_event_name": "SessionStart", **payload}))
            files.append(path)
        full = {k: v for k, v in os.environ.items() if k != "CLAUDE_ENV_FILE"}
        subprocess.run([str(binary), *argv, *map(str, files)], cwd=cwd, check=True, env={**full, **(env or {})})
        return [Path(f"{f}.out").read_text() for f in files]

    return run


def sessions(dest) -> dict[str, str]:
    d = dest / ".git" / "refocus" / "sessions"
    return {p.name: p.read_text().strip() for p in d.iterdir()} if d.is_dir() else {}


def test_clear_in_the_childs_client_continues_the_child(spawned, client):
    src, dest, out = spawned
    rid, sid = out["id"], out["child_session_id"]
    cleared = "c1ea4ed0-0000-4000-8000-000000000001"
    first, after = client(dest, {"session_id": sid, "source": "startup"}, {"session_id": cleared, "source": "clear"})
    assert f"child session of refocus {rid}" in first
    assert f"child session of refocus {rid}" in json.loads(after)["hookSpecificOutput"]["additionalContext"]
    assert sessions(dest) == {sid: rid, cleared: rid}
    kinds = [e["kind"] for e in refocus("show", rid, "--json", cwd=dest).json["events"]]
    assert kinds.count("started") == 1, "a /clear is no second start"


def test_a_finish_forgets_the_childs_sessions_from_its_own_list(spawned, client, monkeypatch):
    """Complete forgets every session and client process mapped to the child (its first
    session, the one after /clear) by reading the refocus's own reverse list, not every
    mapping here (a history holds one per open refocus); a mapping an older version made,
    without that list, is still found by reading them all."""
    src, dest, out = spawned
    rid, sid = out["id"], out["child_session_id"]
    cleared = "c1ea4ed0-0000-4000-8000-000000000002"
    client(dest, {"session_id": sid, "source": "startup"}, {"session_id": cleared, "source": "clear"})
    state = dest / ".git" / "refocus"
    others = {f"other-{n}": "2026-01-01-other-abcdef" for n in range(30)}
    for name, other in others.items():
        (state / "sessions" / name).write_text(other + "\n")
    assert (state / "clients").is_dir() and any((state / "clients").iterdir())
    from gitrefocus.store import localstate

    asked: list[str] = []
    real = localstate.refocus_for_session
    monkeypatch.setattr(localstate, "refocus_for_session", lambda g, s: asked.append(s) or real(g, s))
    refocus("complete", rid, "--summary", "done", "--no-material-changes", "n/a", cwd=dest)
    monkeypatch.undo()
    assert sessions(dest) == others and not any((state / "clients").iterdir())
    assert not (state / "mapped" / f"{rid}.jsonl").exists()
    assert not set(others) & set(asked), "a finish read other refocuses' mappings"
    # a mapping made before reverse lists existed: found by reading every mapping
    second = refocus("spawn", str(dest), "--slug", "legacy", "--reason", "r", "--done-when", "d", "--json", cwd=src).json
    (state / "sessions" / "legacy-session").write_text(second["id"] + "\n")
    refocus("abandon", second["id"], "--reason", "not needed", cwd=src)
    assert sessions(dest) == others


def test_clear_in_another_client_is_not_the_child_even_when_it_is_the_newest(spawned, client, hermetic):
    src, dest, out = spawned
    rid, sid = out["id"], out["child_session_id"]
    client(dest, {"session_id": sid, "source": "startup"})
    # the old rule took "the newest other transcript of this project" for the cleared session
    from gitrefocus.model.session import encode_project_dir

    project = hermetic / ".claude" / "projects" / encode_project_dir(str(dest.resolve()))
    project.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_text("{}\n")
    stranger = "5a1e0000-0000-4000-8000-000000000002"
    env_file = dest.parent / "env"
    env_file.write_text("")
    [said] = client(dest, {"session_id": stranger, "source": "clear",
                           "transcript_path": str(project / f"{stranger}.jsonl")}, env={"CLAUDE_ENV_FILE": str(env_file)})
    text = json.loads(said)["hookSpecificOutput"]["additionalContext"]
    assert text.startswith(f"git refocus: this session began with /clear and is not the child session of refocus {rid}")
    assert text.count("\n") == 0 or "child session of refocus" not in text.split("\n", 1)[1]
    assert stranger not in sessions(dest) and env_file.read_text() == "", "no role, no map entry"


def test_a_fork_started_to_resume_the_child_continues_it(spawned, client):
    src, dest, out = spawned
    rid, sid = out["id"], out["child_session_id"]
    client(dest, {"session_id": sid, "source": "startup"})
    forked = "f02c0000-0000-4000-8000-000000000003"
    [said] = client(dest, {"session_id": forked, "source": "fork"}, argv=("--resume", sid, "--fork-session"))
    assert f"child session of refocus {rid}" in said and sessions(dest)[forked] == rid
    other = "f02c0000-0000-4000-8000-000000000004"
    [said] = client(dest, {"session_id": other, "source": "fork"}, argv=("--resume", other[:-1] + "9", "--fork-session"))
    assert "is not the child session" in said and other not in sessions(dest)


def test_client_found_through_ps_where_there_is_no_proc(monkeypatch):
    from gitrefocus.claude import client as found

    monkeypatch.setattr(found, "PROC", "/nonexistent")
    me = found._from_ps(os.getpid())
    assert me is not None and me[0] == os.getppid() and me[1]
    assert found.find() is None  # pytest does not run under a client named claude


def test_a_repository_that_never_took_part_gets_nothing_written_and_nothing_said(tmp_path):
    repo = make_repo(tmp_path / "plain")
    for i in range(3):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"work {i}")
    payload = {"session_id": "s", "cwd": str(repo), "source": "startup"}
    for event, extra in (("session-start", {}), ("post-tool-use", {"tool_name": "Write",
                                                                   "tool_input": {"file_path": "a.txt"}}),
                         ("stop", {"stop_hook_active": False}), ("session-end", {"reason": "other"})):
        r = hook(event, {**payload, **extra}, repo)
        assert r.returncode == 0 and r.stdout == "" and r.stderr == "", (event, r)
    assert not (repo / ".git" / "refocus").exists(), "no local state in a repository that never ran init"
    refocus("init", cwd=repo)
    r = hook("session-start", {**payload, "session_id": "s2"}, repo)
    assert r.returncode == 0  # after init it takes part (and may speak)
    assert (repo / ".git" / "refocus").exists()


def test_a_destination_spawned_into_takes_part_without_init(spawned):
    src, dest, out = spawned  # dest has refocus refs but never ran init
    r = hook("session-start", {"session_id": "someone", "cwd": str(dest)}, dest)
    assert out["id"] in context(r), "the pending brief is still announced there"


def test_clear_ends_no_child(spawned):
    """/clear ends the old session id (SessionEnd, reason clear) but the client goes on: the
    child did not exit, so nothing is recorded and nothing is warned."""
    src, dest, out = spawned
    sid = out["child_session_id"]
    refocus("start", cwd=dest, env={"CLAUDE_CODE_SESSION_ID": sid})
    r = hook("session-end", {"session_id": sid, "cwd": str(dest), "reason": "clear"}, dest)
    assert r.returncode == 0 and r.stderr == ""
    assert [e["kind"] for e in refocus("show", out["id"], "--json", cwd=dest).json["events"]] == ["spawned", "started"]


def test_tagging_is_told_where_git_runs_hooks_from_core_hooks_path(repos):
    src, dest = repos
    git(dest, "config", "core.hooksPath", ".githooks")
    refocus("init", cwd=dest)
    assert (dest / ".githooks" / "commit-msg").is_file()
    out = refocus("spawn", dest, "--slug", "hp", "--reason", "r", "--done-when", "d", "--json", cwd=src).json
    text = context(hook("session-start", {"session_id": out["child_session_id"], "cwd": str(dest)}, dest))
    assert "carry the trailer Refocus-Id" in text
    (dest / ".githooks" / "commit-msg").chmod(0o644)
    later = refocus("start", out["id"], "--json", cwd=dest).json
    assert later["tagging"] is False, "a hook git cannot run tags nothing"
