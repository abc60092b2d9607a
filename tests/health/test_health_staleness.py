"""`git refocus health`: counts from history, checked against the git CLI itself."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.gitrepo import cli_count, commit_files, filler, git, make_repo
from tests.runner import refocus

CTX = "docs/context"


@pytest.fixture
def layered(tmp_path):
    """Context files last edited at different depths of history (and one nested, one decision)."""
    repo = make_repo(tmp_path / "proj")
    commit_files(repo, "context", {f"{CTX}/architecture.md": "# A\n", f"{CTX}/glossary.md": "# G\n",
                             f"{CTX}/patterns.md": "# P\n", f"{CTX}/team/people.md": "# People\n",
                             f"{CTX}/decisions/ADR-001.md": "# ADR-001: x\n"})
    filler(repo, 9, "early")
    commit_files(repo, "touch glossary", {f"{CTX}/glossary.md": "# G\n- term\n"})
    filler(repo, 4, "middle")
    commit_files(repo, "touch people", {f"{CTX}/team/people.md": "# People\n- Ada\n"})
    filler(repo, 2, "late")
    commit_files(repo, "touch patterns", {f"{CTX}/patterns.md": "# P\n- retry\n"})
    return repo


def counts(repo, *extra) -> dict:
    model = refocus("health", "--json", *extra, cwd=repo).json
    return {c["path"]: c["commits_since"] for c in model["context"]}


def expected(repo, paths) -> dict:
    return {p: cli_count(repo, p)[1] for p in paths}


def test_counts_match_the_git_cli_at_every_depth(layered):
    model = refocus("health", "--json", cwd=layered).json
    paths = [c["path"] for c in model["context"]]
    assert f"{CTX}/decisions/ADR-001.md" not in paths, "decision records are not scored for staleness"
    assert sorted(paths) == sorted(f"{CTX}/{p}" for p in ("architecture.md", "glossary.md", "patterns.md", "team/people.md"))
    got = {c["path"]: c["commits_since"] for c in model["context"]}
    assert got == expected(layered, paths)
    assert got == {f"{CTX}/architecture.md": 18, f"{CTX}/glossary.md": 8, f"{CTX}/team/people.md": 3, f"{CTX}/patterns.md": 0}
    for c in model["context"]:
        assert c["last_commit"] == cli_count(layered, c["path"])[0]
    assert model["stale_context"] == [f"{CTX}/architecture.md", f"{CTX}/glossary.md"], "flagged past 5 commits"
    assert not model["healthy"]


def test_text_lists_only_stale_files_and_says_so_when_healthy(layered):
    out = refocus("health", cwd=layered).stdout
    assert "architecture.md (18 commits behind)" in out and "glossary.md (8 commits behind)" in out
    assert "patterns.md" not in out and "people.md" not in out
    git(layered, "config", "refocus.stalenessCommits", "50")
    r = refocus("health", cwd=layered)
    assert r.stdout == "nothing needs attention here.\n" and r.stderr == "", "one line when healthy, as status says"
    assert "patterns.md (0 commits behind)" in refocus("health", "--all", cwd=layered).stdout


def test_zero_threshold_disables_the_check(layered):
    git(layered, "config", "refocus.stalenessCommits", "0")
    model = refocus("health", "--json", cwd=layered).json
    assert model["staleness_enabled"] is False and model["context"] == [] and model["healthy"]
    assert refocus("health", cwd=layered).stdout == "nothing needs attention here.\n"


def test_counts_after_a_rebase_match_the_git_cli(layered):
    repo = layered
    base = git(repo, "rev-parse", "HEAD~6").strip()
    git(repo, "branch", "side", base)
    before = counts(repo)
    # upstream gains commits (one of them edits the glossary) and main is rebased onto them
    git(repo, "checkout", "-q", "side")
    filler(repo, 3, "upstream")
    commit_files(repo, "upstream glossary", {f"{CTX}/glossary.md": "# G\n- upstream term\n"})
    filler(repo, 2, "upstream2")
    git(repo, "checkout", "-q", "main")
    git(repo, "rebase", "-q", "side")
    after = counts(repo)
    paths = list(after)
    assert after == expected(repo, paths), "the same question on the rewritten history"
    assert after != before
    model = refocus("health", "--json", cwd=repo).json
    assert model["cache"] == "hit"
    for c in model["context"]:
        assert c["last_commit"] == cli_count(repo, c["path"])[0], "hashes after the rebase, not before"


def test_incremental_update_matches_a_cold_walk(layered):
    repo = layered
    assert refocus("health", "--json", cwd=repo).json["cache"] == "walk"
    assert refocus("health", "--json", cwd=repo).json["cache"] == "hit"
    filler(repo, 3, "more")
    commit_files(repo, "touch architecture", {f"{CTX}/architecture.md": "# A\n- new\n"})
    filler(repo, 1, "more2")
    model = refocus("health", "--json", cwd=repo).json
    assert model["cache"] == "incremental"
    got = {c["path"]: c["commits_since"] for c in model["context"]}
    assert got == expected(repo, list(got))
    os.unlink(repo / ".git/refocus/cache/health.json")
    cold = refocus("health", "--json", cwd=repo).json
    assert cold["cache"] == "walk" and cold["context"] == model["context"]
    git(repo, "reset", "-q", "--hard", "HEAD~2")  # moving back is not "new commits on top": walk again
    back = refocus("health", "--json", cwd=repo).json
    assert back["cache"] == "walk"
    assert {c["path"]: c["commits_since"] for c in back["context"]} == expected(repo, list(got))


def test_merge_histories_use_per_file_simplification(layered):
    """Past a merge, each file is asked exactly what the CLI asks (per-path history simplification)."""
    repo = layered
    git(repo, "checkout", "-q", "-b", "feature", "HEAD~5")
    commit_files(repo, "feature glossary", {f"{CTX}/glossary.md": "# G\n- feature term\n"})
    filler(repo, 2, "feature")
    git(repo, "checkout", "-q", "main")
    filler(repo, 2, "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    # an "ours" merge that discards the side's change to architecture.md
    git(repo, "checkout", "-q", "-b", "discarded", "HEAD~3")
    commit_files(repo, "side architecture", {f"{CTX}/architecture.md": "# A\n- side\n"})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "-s", "ours", "-m", "merge discarded", "discarded")
    filler(repo, 1, "after")
    got = counts(repo)
    assert got == expected(repo, list(got))


def test_uncommitted_context_file_is_listed_but_not_scored(layered):
    (layered / CTX / "new-notes.md").write_text("# fresh\n")
    model = refocus("health", "--json", cwd=layered).json
    row = next(c for c in model["context"] if c["path"] == f"{CTX}/new-notes.md")
    assert row == {"path": f"{CTX}/new-notes.md", "committed": False, "last_commit": None,
                   "commits_since": None, "at_least": False, "stale": False}
    assert "(not committed yet)" in refocus("health", "--all", cwd=layered).stdout


def test_quick_walk_is_bounded_and_says_at_least(layered):
    from gitrefocus.health import staleness
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.open(str(layered))
    quick = staleness.context_staleness(ws=ws, walk_limit=6)  # raised to threshold + 1 = 6
    rows = {c["path"]: (c["commits_since"], c["at_least"], c["stale"]) for c in quick["files"]}
    assert rows[f"{CTX}/architecture.md"] == (6, True, True), "not seen in 6 commits: at least 6, so stale"
    assert rows[f"{CTX}/patterns.md"] == (0, False, False)
    assert staleness.describe(next(c for c in quick["files"] if c["path"].endswith("architecture.md"))) \
        == f"{CTX}/architecture.md (6+ commits behind)"
    assert not (layered / ".git/refocus/cache/health.json").exists(), "inexact answers are never cached"


def test_quick_walk_past_a_merge_is_exact_or_a_lower_bound(layered):
    from gitrefocus.health import staleness
    from gitrefocus.store.workspace import Workspace

    repo = layered
    git(repo, "checkout", "-q", "-b", "topic", "HEAD~1")
    commit_files(repo, "topic work", {"topic.txt": "t\n"})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")  # HEAD is a merge
    ws = Workspace.open(str(repo))
    quick = {c["path"]: c for c in staleness.context_staleness(ws=ws, walk_limit=6)["files"]}
    assert (quick[f"{CTX}/patterns.md"]["commits_since"], quick[f"{CTX}/patterns.md"]["at_least"]) == \
        (cli_count(repo, f"{CTX}/patterns.md")[1], False)
    arch = quick[f"{CTX}/architecture.md"]
    assert arch["at_least"] and arch["stale"] and arch["commits_since"] <= cli_count(repo, f"{CTX}/architecture.md")[1]


def test_context_dir_setting_and_bad_values(layered, tmp_path):
    git(layered, "config", "refocus.contextDir", "docs/context/team")
    assert list(counts(layered)) == [f"{CTX}/team/people.md"]
    git(layered, "config", "refocus.contextDir", "../outside")
    r = refocus("health", cwd=layered, check=False)
    assert r.returncode == 1 and r.stderr.startswith("error: refocus.contextDir") and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_no_context_dir_and_unborn_head_are_healthy(tmp_path):
    empty = make_repo(tmp_path / "empty", commit=False)
    assert refocus("health", "--json", cwd=empty).json["context"] == []
    plain = make_repo(tmp_path / "plain")
    assert refocus("health", cwd=plain).stdout == "nothing needs attention here.\n"


def test_cache_is_refused_through_a_symlink(layered, tmp_path):
    refocus("health", cwd=layered)
    cache = layered / ".git/refocus/cache/health.json"
    target = tmp_path / "elsewhere.json"
    target.write_text(cache.read_text())
    cache.unlink()
    cache.symlink_to(target)
    model = refocus("health", "--json", cwd=layered).json
    assert model["cache"] == "walk", "a symlinked cache is neither read nor written"
    assert cache.is_symlink() and json.loads(target.read_text())["version"] == 1


# -- refocus work ------------------------------------------------------------
def test_in_progress_work_counts_commits_since_launch_and_trailers(spawned):
    src, dest, out = spawned
    rid = out["id"]
    commit_files(dest, "before launch", {"pre.txt": "x\n"}, when=int(time.time()) - 5)
    refocus("start", rid, cwd=dest)
    now = int(time.time()) + 1
    commit_files(dest, f"feat: standard\n\nRefocus-Id: {rid}", {"MCPSTANDARD.md": "# std\n"}, when=now)
    commit_files(dest, "chore: unrelated", {"other.txt": "o\n"}, when=now + 1)
    commit_files(dest, f"docs: more\n\nSigned-off-by: Ada <ada@example.com>\nrefocus-id: {rid}", {"more.md": "m\n"}, when=now + 2)
    work = refocus("health", "--json", cwd=dest).json["refocus"]
    assert work == [{"id": rid, "launched_at": work[0]["launched_at"], "commits_since_launch": 3, "with_trailer": 2,
                     "linked_by_note": 0, "basis": "commit", "truncated": False, "flagged": False}]
    assert rid not in refocus("health", cwd=dest).stdout, "linked work is healthy"
    assert refocus("health", "--json", cwd=src).json["refocus"] == [], "counted where the work happens"


def test_untagged_work_since_launch_is_flagged(spawned):
    src, dest, out = spawned
    rid = out["id"]
    refocus("start", rid, cwd=dest)
    now = int(time.time()) + 1
    commit_files(dest, "wip without the hook", {"a.txt": "a\n"}, when=now)
    commit_files(dest, "Refocus-Id: in the subject is not a trailer", {"b.txt": "b\n"}, when=now + 1)
    model = refocus("health", "--json", cwd=dest).json
    assert model["refocus"][0]["commits_since_launch"] == 2 and model["refocus"][0]["with_trailer"] == 0
    assert model["refocus"][0]["flagged"] and not model["healthy"]
    text = refocus("health", cwd=dest).stdout
    assert f"{rid}  2 commit(s) since launch, 0 with its Refocus-Id trailer" in text


def test_work_committed_in_a_linked_worktree_counts_from_the_main_one(spawned, tmp_path):
    """The child worked in a linked worktree (`git worktree add`) on its own branch: health
    in the main worktree counts those commits and their trailers, as health there does."""
    src, dest, out = spawned
    rid = out["id"]
    linked = tmp_path / "dest-linked"
    git(dest, "worktree", "add", "-q", "-b", "standard", str(linked))
    refocus("start", rid, cwd=linked)
    now = int(time.time()) + 1
    commit_files(linked, f"feat: standard\n\nRefocus-Id: {rid}", {"MCPSTANDARD.md": "# std\n"}, when=now)
    commit_files(linked, f"docs: more\n\nRefocus-Id: {rid}", {"more.md": "m\n"}, when=now + 1)
    there = refocus("health", "--json", cwd=linked).json["refocus"][0]
    here = refocus("health", "--json", cwd=dest).json["refocus"][0]
    assert (here["commits_since_launch"], here["with_trailer"]) == (2, 2), here
    assert (there["commits_since_launch"], there["with_trailer"]) == (2, 2), there
    assert not here["flagged"]


def test_launch_point_falls_back_to_time_after_history_is_rewritten(spawned):
    src, dest, out = spawned
    rid = out["id"]
    refocus("start", rid, cwd=dest)
    now = int(time.time()) + 1
    commit_files(dest, f"one\n\nRefocus-Id: {rid}", {"a.txt": "a\n"}, when=now)
    # rewrite the commit the launch note sits on: it is no longer on HEAD
    assert refocus("health", "--json", cwd=dest).json["refocus"][0]["basis"] == "commit"
    before = git(dest, "rev-parse", "HEAD~1").strip()
    env = dict(os.environ, GIT_COMMITTER_NAME="Rebaser")  # same dates, new hashes
    git(dest, "-c", "notes.rewriteRef=", "rebase", "-q", "--root", "--force-rebase",
        "--committer-date-is-author-date", env=env)
    assert git(dest, "rev-parse", "HEAD~1").strip() != before
    work = refocus("health", "--json", cwd=dest).json["refocus"][0]
    assert work["basis"] == "time", "the noted launch commit is gone: the launch time bounds the walk"
    assert work["commits_since_launch"] == 1 and work["with_trailer"] == 1


def test_stale_reserved_outgoing_briefs_are_reported(spawned):
    src, dest, out = spawned
    later = "2099-01-01T00:00:00Z"
    model = refocus("health", "--json", cwd=src, env={"GIT_REFOCUS_NOW": later}).json
    assert [u["id"] for u in model["unlaunched"]] == [out["id"]]
    assert "still un-launched" in refocus("health", cwd=src, env={"GIT_REFOCUS_NOW": later}).stdout
    assert refocus("health", "--json", cwd=src).json["unlaunched"] == [], "not before refocus.staleReservedHours"
    assert refocus("health", "--json", cwd=dest, env={"GIT_REFOCUS_NOW": later}).json["unlaunched"] == []


def test_status_shows_stale_context(layered):
    model = refocus("status", "--json", cwd=layered).json
    assert model["stale_context"] == [f"{CTX}/architecture.md (18 commits behind)", f"{CTX}/glossary.md (8 commits behind)"]
    assert "Stale context:\n  docs/context/architecture.md (18 commits behind)" in refocus("status", cwd=layered).stdout


def test_the_context_files_kept_by_head_follow_head_and_never_trust_a_bad_file(layered):
    """The list of tracked context files is kept by (HEAD, contextDir): a new commit,
    a reset and a changed contextDir each list again, and a kept file that does not
    parse, or holds anything but paths, is listed again from git."""
    repo = layered
    kept = repo / ".git/refocus/cache/context-files.json"

    def committed() -> list[str]:
        return sorted(c["path"] for c in refocus("health", "--json", cwd=repo).json["context"] if c["committed"])

    def tracked() -> list[str]:
        names = git(repo, "ls-tree", "-r", "--name-only", "HEAD", "--", f"{CTX}/").split()
        return sorted(n for n in names if "/decisions/" not in n)

    assert committed() == tracked() and kept.exists()
    commit_files(repo, "a new context file", {f"{CTX}/new.md": "# N\n"})
    assert f"{CTX}/new.md" in committed() == tracked()
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    assert f"{CTX}/new.md" not in committed() == tracked()
    head = git(repo, "rev-parse", "HEAD").strip()
    for bad in ('{"key": ', json.dumps({"key": [head, CTX], "files": [1, 2]}),
                json.dumps({"key": [head, CTX], "files": "docs/context/x.md"})):
        kept.write_text(bad)
        assert committed() == tracked(), bad
    commit_files(repo, "another directory", {"notes/ctx.md": "# C\n"})
    git(repo, "config", "refocus.contextDir", "notes")
    assert committed() == ["notes/ctx.md"]
