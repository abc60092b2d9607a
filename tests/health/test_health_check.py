"""`git refocus check ID`: stated intent against git, as flags to verify."""

from __future__ import annotations

import time

import pytest

from tests.gitrepo import commit_files, git
from tests.runner import refocus, spawn_args

CTX = "docs/context"


@pytest.fixture
def worked(repos):
    """A started refocus in dest, whose context files predate the spawn."""
    src, dest = repos
    commit_files(dest, "context before spawn", {f"{CTX}/architecture.md": "# Architecture\n",
                                          f"{CTX}/gotchas.md": "# Gotchas\n"}, when=int(time.time()) - 30)
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    refocus("start", rid, cwd=dest)
    return src, dest, rid


def later(k: int = 0) -> int:
    return int(time.time()) + 2 + k


def item(model, section, label_start):
    return next(i for i in model[section] if i["label"].startswith(label_start))


def test_missing_artifact_and_untouched_context_file_are_flagged(worked):
    src, dest, rid = worked
    commit_files(dest, f"feat: the standard\n\nRefocus-Id: {rid}", {"MCPSTANDARD.md": "# MCP standard\n"}, when=later())
    refocus("complete", "--summary", "Wrote it.", "--dod", "1", "--dod", "2",
            "--artifact", "MCPSTANDARD.md=the standard", "--artifact", "docs/review.md=review notes",
            "--material-change", "architecture.md=SSH-stdio transport",
            "--material-change", "gotchas.md=webhooks arrive out of order", cwd=dest)
    # the architecture promotion is committed; the gotchas one is thrown away
    git(dest, "checkout", "--", f"{CTX}/gotchas.md")
    commit_files(dest, f"docs: promote\n\nRefocus-Id: {rid}", when=later(1))
    model = refocus("check", rid, "--json", cwd=dest).json
    assert model["id"] == rid and model["status"] == "result" and model["since_basis"] == "commit"
    assert [c["subject"] for c in model["linked_commits"]] == ["docs: promote", "feat: the standard"]

    found = item(model, "artifacts", "MCPSTANDARD.md")
    assert found["at_head"] and found["touched_by"] and found["flags"] == []
    missing = item(model, "artifacts", "docs/review.md")
    assert not missing["at_head"] and not missing["in_worktree"]
    assert missing["flags"] == ["does not exist at HEAD or in the work tree — verify it was produced, or where it went."]

    arch = item(model, "material_changes", "architecture.md")
    assert arch["changed_since_spawn"] and arch["flags"] == []
    gotchas = item(model, "material_changes", "gotchas.md")
    assert not gotchas["changed_since_spawn"]
    assert gotchas["flags"] == [f"{CTX}/gotchas.md has not changed since spawn — verify the change was recorded there."]

    std = item(model, "done_when", "MCPSTANDARD.md exists")
    assert std["met"] is True and std["flags"] == [] and std["paths"][0]["at_head"]
    assert model["flag_count"] == 2

    text = refocus("check", rid, cwd=dest)
    assert text.returncode == 0, "flags are not failures"
    assert "⚑ docs/review.md\n      does not exist at HEAD" in text.stdout
    assert "⚑ gotchas.md — webhooks arrive out of order" in text.stdout
    for word in ("fail", "FAIL", "wrong", "not done"):
        assert word not in text.stdout, "flags to verify, never verdicts"


def test_unlinked_work_and_uncommitted_files_are_flagged(worked):
    src, dest, rid = worked
    commit_files(dest, "made without the hook", {"MCPSTANDARD.md": "# std\n"}, when=later())
    (dest / "notes.md").write_text("draft\n")
    refocus("complete", "--summary", "Done.", "--dod", "1", "--artifact", "MCPSTANDARD.md", "--artifact", "notes.md",
            "--artifact", "/etc/passwd", "--material-change", "architecture.md=new transport", cwd=dest)
    model = refocus("check", rid, "--json", cwd=dest).json
    assert model["linked_commits"] == []
    assert any("no commit linked to" in f for f in item(model, "artifacts", "MCPSTANDARD.md")["flags"])
    assert any("work tree but not at HEAD" in f for f in item(model, "artifacts", "notes.md")["flags"])
    assert item(model, "artifacts", "/etc/passwd")["flags"] == ["points outside this repository — verify where it lives."]
    assert any("changed in the work tree but not in any commit" in f
               for f in item(model, "material_changes", "architecture.md")["flags"])
    std = item(model, "done_when", "MCPSTANDARD.md exists")
    assert any("no commit since spawn is linked" in f for f in std["flags"])
    assert any("exists at HEAD but no linked commit touched it" in f for f in std["flags"])
    review = item(model, "done_when", "Review integrated")
    assert review["met"] is False and any("marks this not met" in f for f in review["flags"])


def test_check_before_any_result_and_from_the_source_repo(worked):
    src, dest, rid = worked
    model = refocus("check", rid, "--json", cwd=src).json  # the source reaches the dest repo
    assert model["repo"] == str(dest.resolve()) and model["has_result"] is False
    std = item(model, "done_when", "MCPSTANDARD.md exists")
    assert std["facts"][0] == "no result recorded yet."
    assert std["flags"] == ["names `MCPSTANDARD.md`, which does not exist at HEAD — verify."]
    assert model["artifacts"] == [] and model["material_changes"] == []


def test_check_unknown_id_is_one_clear_error(worked):
    src, dest, rid = worked
    r = refocus("check", "no-such-thing", cwd=dest, check=False)
    assert r.returncode == 1 and r.stderr.startswith("error: unknown refocus id") and "Traceback" not in r.stderr


def test_check_accepts_a_short_id(worked):
    src, dest, rid = worked
    assert refocus("check", rid[-6:], "--json", cwd=dest).json["id"] == rid
