"""--dry-run on the commands that write (spawn, complete, abandon, link, sync) and
`init --undo`: a dry run makes the command's checks, says what would change, and leaves
refs, notes, files and local state exactly as they were."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tests.gitrepo import commit, git, make_repo, remote_with_clones
from tests.runner import refocus, spawn_args


def snapshot(*repos: Path) -> dict[str, str]:
    """Every ref, and every file in the work tree and under .git/refocus, by content."""
    out: dict[str, str] = {}
    for repo in repos:
        out[f"{repo}:refs"] = git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
        for root, dirs, files in os.walk(repo):
            dirs[:] = [d for d in dirs if d != ".git"] if Path(root) == repo else dirs
            for name in files:
                path = Path(root) / name
                out[str(path)] = hashlib.sha1(path.read_bytes()).hexdigest()
        state = repo / ".git" / "refocus"
        for path in sorted(state.rglob("*")) if state.exists() else []:
            if path.is_file():
                out[str(path)] = hashlib.sha1(path.read_bytes()).hexdigest()
        out[f"{repo}:config"] = (repo / ".git" / "config").read_text()
    return out


def test_spawn_dry_run_checks_and_writes_nothing(repos):
    src, dest = repos
    before = snapshot(src, dest)
    out = refocus(*spawn_args(dest, "mcp-standard", "--dry-run"), cwd=src).json
    assert out["dry_run"] is True and out["brief_path"].endswith(".md") and out["brief_path"] in out["files_written"]
    assert snapshot(src, dest) == before
    text = refocus(*spawn_args(dest, "mcp-standard", "--dry-run")[:-1], cwd=src).stdout
    assert "would spawn" in text and "nothing was changed" in text and "would write" in text, text
    refused = refocus("spawn", str(dest), "--reason", "r", "--dry-run", cwd=src, check=False)
    assert refused.returncode == 1 and "--done-when" in refused.stderr, "a dry run refuses what spawn refuses"
    assert snapshot(src, dest) == before


def test_complete_and_abandon_dry_runs_write_nothing(started):
    src, dest, rid = started
    before = snapshot(src, dest)
    out = refocus("complete", rid, "--summary", "Wrote it.", "--dod", "1", "--no-material-changes", "docs",
                  "--dry-run", "--json", cwd=dest).json
    assert out["dry_run"] is True and out["status"] == "result" and out["result"]["summary"] == "Wrote it."
    text = refocus("complete", rid, "--summary", "Wrote it.", "--dod", "1", "--no-material-changes", "docs",
                   "--dry-run", cwd=dest).stdout
    assert "would be recorded as result; nothing was changed" in text and "Wrote it." in text, text
    missing = refocus("complete", rid, "--summary", "x", "--dry-run", cwd=dest, check=False)
    assert missing.returncode == 1 and "material" in missing.stderr, "the same checks as a real completion"
    gone = refocus("abandon", rid, "--reason", "not needed", "--dry-run", cwd=src)
    assert f"{rid} would be abandoned (not needed); nothing was changed." in gone.stdout, gone
    assert snapshot(src, dest) == before
    refocus("complete", rid, "--summary", "Wrote it.", "--no-material-changes", "docs", "--dod", "1", cwd=dest)
    late = refocus("abandon", rid, "--reason", "too late", "--dry-run", cwd=src, check=False)
    assert late.returncode != 0, "a dry run refuses what abandon refuses"


def test_link_dry_run_names_the_commits_and_writes_nothing(started):
    src, dest, rid = started
    git(dest, "config", "core.hooksPath", "/nonexistent")  # made without the hook
    oid = commit(dest, "untagged work")
    before = snapshot(src, dest)
    out = refocus("link", rid, "HEAD", "--dry-run", "--json", cwd=dest).json
    assert out["dry_run"] is True and out["linked"] == [oid]
    assert oid in refocus("link", rid, "HEAD", "--dry-run", cwd=dest).stdout
    assert snapshot(src, dest) == before


def test_sync_dry_run_compares_tips_and_fetches_nothing(tmp_path):
    remote, (a, b) = remote_with_clones(tmp_path, "a", "b")
    src = make_repo(tmp_path / "src")
    rid = refocus(*spawn_args(a), cwd=src).json["id"]
    plan = refocus("sync", "--dry-run", "--json", cwd=a).json
    assert plan["dry_run"] is True and plan["to_push"] == [rid] and plan["to_take"] == []
    refocus("sync", cwd=a)
    before = snapshot(b)
    plan = refocus("sync", "--dry-run", "--json", cwd=b).json
    assert plan["to_take"] == [rid] and plan["to_push"] == [] and plan["notes_differ"] is True, plan
    assert f"take {rid}" in refocus("sync", "--dry-run", cwd=b).stdout
    assert snapshot(b) == before, "nothing fetched, no tracking ref written"


def test_init_undo_takes_back_init_and_the_claude_routes(tmp_path, hermetic):
    repo = make_repo(tmp_path / "r")
    (repo / ".gitignore").write_text("*.log\n")
    hook = repo / ".git" / "hooks" / "commit-msg"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    git(repo, "add", ".gitignore")
    commit(repo, "ignore logs")
    before = snapshot(repo)
    user_before = sorted(p.relative_to(hermetic) for p in hermetic.rglob("*") if p.is_file())
    refocus("init", "--claude", cwd=repo)
    refocus("init", "--claude", "--user", cwd=repo)
    dry = refocus("init", "--undo", "--dry-run", "--json", cwd=repo).json
    assert dry["dry_run"] and dry["undone"] and dry["changed"] >= 8, dry
    assert (repo / ".claude").exists(), "a dry run removes nothing"
    refocus("init", "--undo", cwd=repo)
    refocus("init", "--undo", "--user", cwd=repo)
    after = snapshot(repo)
    assert after == before, {k: (before.get(k), after.get(k)) for k in set(before) | set(after)
                             if before.get(k) != after.get(k)}
    assert hook.read_text() == "#!/bin/sh\nexit 0\n", "the hook that ran before is back"
    user_after = sorted(p.relative_to(hermetic) for p in hermetic.rglob("*") if p.is_file()
                        and ".local/state" not in str(p))
    assert user_after == [p for p in user_before if ".local/state" not in str(p)], user_after
    assert str(repo) not in refocus("list", "--global", cwd=repo).stderr
    assert "nothing of git-refocus's to take back" in refocus("init", "--undo", cwd=repo).stdout
