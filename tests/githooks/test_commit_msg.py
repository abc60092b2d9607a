"""githooks/commit-msg against the real git CLI: lookup order, one trailer, empty messages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.gitrepo import body, commit, env, git, git_run, make_repo, trailers
from tests.runner import ROOT, refocus

HOOK = ROOT / "githooks" / "commit-msg"
RID = "2026-04-26-mcp-standard-a3f91c"
OTHER = "2026-05-01-other-work-b4e2d1"
SID = "4f2c1a9e-1111-4222-8333-444455556666"


@pytest.fixture
def repo(tmp_path):
    path = make_repo(tmp_path / "work")
    hooks = path / ".git" / "hooks"
    shutil.copy(HOOK, hooks / "commit-msg")
    return path


def state(repo) -> Path:
    d = repo / ".git" / "refocus"
    d.mkdir(exist_ok=True)
    return d


def set_active(repo, rid=RID):
    (state(repo) / "active").write_text(rid + "\n")


def map_session(repo, sid=SID, rid=OTHER):
    (state(repo) / "sessions").mkdir(exist_ok=True)
    (state(repo) / "sessions" / sid).write_text(rid + "\n")


def test_no_active_refocus_no_trailer(repo):
    commit(repo, "plain work")
    assert trailers(repo) == [] and "Refocus-Id" not in body(repo)


def test_trailer_from_the_active_file(repo):
    set_active(repo)
    commit(repo, "work on it")
    assert trailers(repo) == [RID]
    assert body(repo) == f"work on it\n\nRefocus-Id: {RID}\n"


def test_trailer_from_the_session_map_beats_active(repo):
    set_active(repo)
    map_session(repo)
    commit(repo, "session work", env=env(CLAUDE_CODE_SESSION_ID=SID))
    assert trailers(repo) == [OTHER]


def test_a_session_mapped_to_nothing_is_never_tagged_with_the_worktree_marker(repo):
    """Another session in the child's directory (its own CLAUDE_CODE_SESSION_ID, mapped to no
    refocus) is not the child: the marker serves only work with no session id."""
    set_active(repo)
    map_session(repo)
    commit(repo, "another session", env=env(CLAUDE_CODE_SESSION_ID="9f2c1a9e-0000-4222-8333-444455556666"))
    assert trailers(repo) == [], "an unmapped session's commit carries no Refocus-Id"
    commit(repo, "a person at a terminal", env=env(CLAUDE_CODE_SESSION_ID=None))
    assert trailers(repo) == [RID], "work with no session id is tagged from the marker"
    commit(repo, "an empty session id is no session", env=env(CLAUDE_CODE_SESSION_ID=""))
    assert trailers(repo) == [RID]


def test_trailer_from_the_environment_beats_everything(repo):
    set_active(repo)
    map_session(repo)
    third = "2026-06-02-third-c0ffee"
    commit(repo, "env work", env=env(SESSION_REFOCUS_ID=third, CLAUDE_CODE_SESSION_ID=SID))
    assert trailers(repo) == [third]


@pytest.mark.parametrize("bad", ["not-an-id", "2026-04-26-UPPER-a3f91c", "2026-04-26--x-a3f91c", "../../etc/passwd",
                                 "2026-04-26-x-a3f91c; rm -rf /", "2026-04-26-x-a3f91", "2026-04-26-x-a3f91c\r"])
def test_malformed_ids_are_ignored_and_the_commit_succeeds(repo, bad):
    (state(repo) / "active").write_text(bad + "\n")
    commit(repo, "still commits")
    assert trailers(repo) == []
    commit(repo, "env too", env=env(SESSION_REFOCUS_ID=bad))
    assert trailers(repo) == []


def test_malformed_env_falls_through_to_the_next_source(repo):
    set_active(repo)
    commit(repo, "x", env=env(SESSION_REFOCUS_ID="garbage"))
    assert trailers(repo) == [RID]


def test_symlinked_state_is_not_followed(repo, tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text(RID + "\n")
    state(repo)
    os.symlink(target, repo / ".git" / "refocus" / "active")
    commit(repo, "x")
    assert trailers(repo) == []
    (repo / ".git" / "refocus" / "active").unlink()
    shutil.rmtree(repo / ".git" / "refocus")
    real = tmp_path / "realstate"
    real.mkdir()
    (real / "active").write_text(RID + "\n")
    os.symlink(real, repo / ".git" / "refocus")
    commit(repo, "y")
    assert trailers(repo) == []


def test_unsafe_session_ids_are_not_used_as_paths(repo):
    set_active(repo)
    map_session(repo, "x", OTHER)
    commit(repo, "x", env=env(CLAUDE_CODE_SESSION_ID="../refocus/sessions/x"))
    assert trailers(repo) == [], "neither read through the path nor taken for no session at all"


def test_amend_keeps_exactly_one_trailer(repo):
    set_active(repo)
    commit(repo, "first")
    git(repo, "commit", "-q", "--amend", "--no-edit", "--allow-empty")
    assert trailers(repo) == [RID]
    git(repo, "commit", "-q", "--amend", "--allow-empty", "-m", "reworded")
    assert trailers(repo) == [RID]
    set_active(repo, OTHER)
    git(repo, "commit", "-q", "--amend", "--no-edit", "--allow-empty")
    assert trailers(repo) == [RID], "an existing trailer is never doubled or replaced"
    assert body(repo).count("Refocus-Id:") == 1


def test_reused_and_cherry_picked_messages_keep_one_trailer(repo):
    set_active(repo)
    first = commit(repo, "original")
    set_active(repo, OTHER)
    git(repo, "commit", "-q", "--allow-empty", "-C", first)
    assert trailers(repo) == [RID]
    git(repo, "commit", "-q", "--allow-empty", "-c", first, env=env(GIT_EDITOR="true"))
    assert trailers(repo) == [RID]
    git(repo, "checkout", "-q", "-b", "side", "HEAD~2")
    (repo / "f.txt").write_text("x\n")
    git(repo, "add", "f.txt")
    commit(repo, "on side")
    pick = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    git(repo, "cherry-pick", "-e", pick, env=env(GIT_EDITOR="true"))
    assert trailers(repo) == [OTHER]
    assert body(repo).count("Refocus-Id:") == 1


def test_lowercase_existing_trailer_counts(repo):
    set_active(repo)
    commit(repo, "x", "-m", f"refocus-id: {OTHER}")
    assert body(repo).lower().count("refocus-id:") == 1


def test_joins_an_existing_trailer_block(repo):
    set_active(repo)
    commit(repo, "fix: thing", "-m", "Explained.", "-m", "Signed-off-by: Ada <ada@example.com>")
    assert body(repo).endswith(f"Explained.\n\nSigned-off-by: Ada <ada@example.com>\nRefocus-Id: {RID}\n")
    commit(repo, "feat: subject only looks like a trailer")
    assert body(repo) == f"feat: subject only looks like a trailer\n\nRefocus-Id: {RID}\n"
    assert trailers(repo) == [RID]


def test_empty_messages_are_left_alone(repo):
    set_active(repo)
    before = git(repo, "rev-parse", "HEAD")
    proc = git_run(repo, "commit", "--allow-empty", "-m", "")
    assert proc.returncode != 0 and "empty commit message" in proc.stderr
    proc = git_run(repo, "commit", "--allow-empty", env=env(GIT_EDITOR="true"))
    assert proc.returncode != 0 and "empty commit message" in proc.stderr, "template comments only: still aborts"
    assert git(repo, "rev-parse", "HEAD") == before
    git(repo, "commit", "-q", "--allow-empty", "--allow-empty-message", "-m", "")
    assert body(repo).strip() == ""


def test_custom_comment_char_template_only_still_aborts(repo):
    set_active(repo)
    git(repo, "config", "core.commentChar", ";")
    proc = git_run(repo, "commit", "--allow-empty", env=env(GIT_EDITOR="true"))
    assert proc.returncode != 0 and "empty commit message" in proc.stderr
    editor = "sed -i '1s/^/edited with semicolons/'"
    git(repo, "commit", "-q", "--allow-empty", env=env(GIT_EDITOR=editor))
    assert body(repo) == f"edited with semicolons\n\nRefocus-Id: {RID}\n"


def test_editor_message_with_comments_and_verbose_diff(repo):
    set_active(repo)
    (repo / "f.txt").write_text("hello\n")
    git(repo, "add", "f.txt")
    editor = "sed -i '1s/^/from the editor/'"
    git(repo, "commit", "-q", "-v", env=env(GIT_EDITOR=editor))
    assert body(repo) == f"from the editor\n\nRefocus-Id: {RID}\n"
    (repo / "f.txt").write_text("again\n")
    git(repo, "commit", "-q", "-a", env=env(GIT_EDITOR=editor))
    assert body(repo) == f"from the editor\n\nRefocus-Id: {RID}\n"


def test_message_without_final_newline_and_with_hash_lines(repo):
    set_active(repo)
    msg = repo.parent / "msg.txt"
    msg.write_bytes(b"subject\n\n#123 is the issue\nbody line")
    git(repo, "commit", "-q", "--allow-empty", "-F", str(msg))
    assert body(repo) == f"subject\n\n#123 is the issue\nbody line\n\nRefocus-Id: {RID}\n"


def test_git_interpret_trailers_reads_it_with_other_trailers(repo):
    set_active(repo)
    commit(repo, "x", "-m", "Co-authored-by: Bob <bob@example.com>")
    parsed = git(repo, "interpret-trailers", "--parse", input=body(repo))
    assert parsed == f"Co-authored-by: Bob <bob@example.com>\nRefocus-Id: {RID}\n"
    assert git(repo, "log", "-1", "--format=%(trailers:key=Refocus-Id,valueonly)").strip() == RID
    assert git(repo, "log", "--format=%h", "-F", f"--grep=Refocus-Id: {RID}").strip()


def test_worktrees_have_their_own_active_id(repo, tmp_path):
    set_active(repo)
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(wt), "-b", "wt")
    commit(wt, "in the worktree")
    assert trailers(wt) == [], "the main worktree's active id does not leak into another worktree"
    wt_git = Path(git(wt, "rev-parse", "--git-dir").strip())
    (wt_git / "refocus").mkdir()
    (wt_git / "refocus" / "active").write_text(OTHER + "\n")
    commit(wt, "tagged in the worktree")
    assert trailers(wt) == [OTHER]


def test_merge_commits_are_tagged(repo):
    set_active(repo)
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, "side")
    git(repo, "checkout", "-q", "main")
    commit(repo, "main")
    git(repo, "merge", "-q", "--no-ff", "--no-edit", "side")
    assert trailers(repo) == [RID]


def test_hook_failure_never_fails_the_commit(repo, tmp_path):
    set_active(repo)
    (repo / "f.txt").write_text("x\n")
    git(repo, "add", "f.txt")
    # the verbose-diff path needs `git interpret-trailers`; hooks find git in GIT_EXEC_PATH
    fake = tmp_path / "exec-path"
    fake.mkdir()
    (fake / "git").write_text("#!/bin/sh\nexit 1\n")
    (fake / "git").chmod(0o755)
    proc = git_run(repo, "commit", "-q", "-v", env=env(GIT_EXEC_PATH=str(fake), GIT_EDITOR="sed -i 1s/^/edited/"))
    assert proc.returncode == 0, proc.stderr
    assert "the commit is not tagged" in proc.stderr
    assert body(repo) == "edited\n"
    errors = (repo / ".git" / "refocus" / "errors.jsonl").read_text().splitlines()
    assert json.loads(errors[-1])["where"] == "commit-msg" and json.loads(errors[-1])["at"].endswith("Z")


def test_it_is_posix_sh_and_passes_dash_n():
    text = HOOK.read_text()
    assert text.startswith("#!/bin/sh\n") and "python" not in text.lower().replace("no python", "")
    assert os.access(HOOK, os.X_OK)
    for shell in ("dash", "sh", "bash"):
        if shutil.which(shell):
            subprocess.run([shell, "-n", str(HOOK)], check=True)


def test_package_data_carries_the_same_hook():
    from gitrefocus.ops import setup

    assert setup.hook_source() == HOOK.read_bytes()


def test_pre_commit_manifest():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["stages"] == ["commit-msg"] and hook["language"] == "script"
    assert (ROOT / hook["entry"]).resolve() == HOOK.resolve()


def test_runs_under_the_pre_commit_framework_calling_convention(repo):
    """pre-commit runs `entry <message file>` from the top of the work tree."""
    set_active(repo)
    msg = repo / ".git" / "COMMIT_EDITMSG"
    msg.write_text("via pre-commit\n")
    subprocess.run([str(HOOK), str(msg)], cwd=repo, check=True)
    assert msg.read_text() == f"via pre-commit\n\nRefocus-Id: {RID}\n"


def test_real_round_trip_after_init(started):
    src, dest, rid = started
    (dest / "work.txt").write_text("done\n")
    git(dest, "add", "work.txt")
    commit(dest, "the child's work")
    assert trailers(dest) == [rid]
    refocus("complete", "--summary", "done", "--no-material-changes", "investigation", cwd=dest)
    commit(dest, "after completion")
    assert trailers(dest) == [], "completion clears the active id"
