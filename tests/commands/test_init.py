"""`git refocus init`: hook (chained, core.hooksPath), notes config, remote refspecs, dry run."""

from __future__ import annotations

import os
from pathlib import Path

from tests.gitrepo import commit, git, git_run, make_repo, refs, trailers
from tests.runner import ROOT, refocus

RID = "2026-04-26-mcp-standard-a3f91c"


def config(repo, key) -> list[str]:
    return git(repo, "config", "--get-all", key, check=False).splitlines()


def activate(repo, rid=RID):
    gitdir = Path(git(repo, "rev-parse", "--absolute-git-dir").strip())
    (gitdir / "refocus").mkdir(exist_ok=True)
    (gitdir / "refocus" / "active").write_text(rid + "\n")


def test_init_installs_hook_config_and_bootstrap(tmp_path):
    repo = make_repo(tmp_path / "r")
    out = refocus("init", "--json", cwd=repo).json
    assert out["kind"] == "init" and out["changed"] == 8
    hook = repo / ".git" / "hooks" / "commit-msg"
    assert hook.read_bytes() == (ROOT / "githooks" / "commit-msg").read_bytes() and os.access(hook, os.X_OK)
    rewrite = repo / ".git" / "hooks" / "post-rewrite"
    assert rewrite.read_bytes() == (ROOT / "githooks" / "post-rewrite").read_bytes() and os.access(rewrite, os.X_OK)
    assert f"rm {rewrite}" in out["undo"]
    assert config(repo, "notes.displayRef") == ["refs/notes/refocus"]
    assert config(repo, "notes.rewriteRef") == ["refs/notes/refocus"]
    assert config(repo, "notes.rewriteMode") == ["cat_sort_uniq"]
    assert "docs/refocus/INDEX.md" in (repo / ".gitignore").read_text()
    assert "docs/refocus/INDEX.md" in (repo / "CLAUDE.md").read_text()
    assert f"rm {hook}" in out["undo"]
    activate(repo)
    commit(repo, "tagged")
    assert trailers(repo) == [RID]


def test_init_is_idempotent_and_text_says_what_and_how_to_undo(tmp_path):
    repo = make_repo(tmp_path / "r")
    first = refocus("init", cwd=repo).stdout
    assert "install the commit-msg hook" in first and "to undo:" in first and "git config --fixed-value --unset" in first
    again = refocus("init", cwd=repo)
    assert "nothing to change" in again.stdout
    assert config(repo, "notes.displayRef") == ["refs/notes/refocus"], "no duplicate config values"


def test_dry_run_changes_nothing(tmp_path):
    repo = make_repo(tmp_path / "r")
    before = git(repo, "config", "--local", "--list")
    out = refocus("init", "--dry-run", "--json", cwd=repo).json
    assert out["dry_run"] and out["changed"] == 8
    assert not (repo / ".git" / "hooks" / "commit-msg").exists()
    assert not (repo / ".gitignore").exists() and not (repo / "CLAUDE.md").exists()
    assert git(repo, "config", "--local", "--list") == before
    assert "would change (dry run)" in refocus("init", "--dry-run", cwd=repo).stdout


def test_existing_hooks_and_config_values_are_kept(tmp_path):
    repo = make_repo(tmp_path / "r")
    git(repo, "config", "--add", "notes.displayRef", "refs/notes/review")
    git(repo, "config", "notes.rewriteMode", "concatenate")
    refocus("init", cwd=repo)
    assert config(repo, "notes.displayRef") == ["refs/notes/review", "refs/notes/refocus"]
    assert config(repo, "notes.rewriteMode") == ["concatenate"], "a user's choice is not overridden"


def test_lossy_rewrite_mode_is_warned_about(tmp_path):
    repo = make_repo(tmp_path / "r")
    git(repo, "config", "notes.rewriteMode", "overwrite")
    r = refocus("init", cwd=repo)
    assert "notes.rewriteMode is overwrite" in r.stderr


def test_existing_commit_msg_hook_is_chained_not_replaced(tmp_path):
    repo = make_repo(tmp_path / "r")
    hooks = repo / ".git" / "hooks"
    (hooks / "commit-msg").write_text('#!/bin/sh\necho "Change-Id: I123" >> "$1"\n')
    (hooks / "commit-msg").chmod(0o755)
    out = refocus("init", "--json", cwd=repo).json
    chained = hooks / "commit-msg.pre-refocus"
    assert chained.read_text().startswith("#!/bin/sh\necho") and f"mv {chained} {hooks / 'commit-msg'}" in out["undo"]
    activate(repo)
    commit(repo, "both hooks")
    msg = git(repo, "log", "-1", "--format=%B")
    assert "Change-Id: I123" in msg and f"Refocus-Id: {RID}" in msg
    assert refocus("init", "--json", cwd=repo).json["changed"] == 0, "our hook is recognised on the second run"


def test_a_rejecting_chained_hook_still_rejects(tmp_path):
    repo = make_repo(tmp_path / "r")
    hooks = repo / ".git" / "hooks"
    (hooks / "commit-msg").write_text('#!/bin/sh\necho "no WIP commits" >&2\ngrep -qv WIP "$1"\n')
    (hooks / "commit-msg").chmod(0o755)
    refocus("init", cwd=repo)
    proc = git_run(repo, "commit", "--allow-empty", "-m", "WIP")
    assert proc.returncode != 0 and "no WIP commits" in proc.stderr


def test_occupied_chain_slot_is_refused_with_advice(tmp_path):
    repo = make_repo(tmp_path / "r")
    hooks = repo / ".git" / "hooks"
    for name in ("commit-msg", "commit-msg.pre-refocus"):
        (hooks / name).write_text("#!/bin/sh\nexit 0\n")
    r = refocus("init", cwd=repo, check=False)
    assert r.returncode == 1 and "merge the two by hand" in r.stderr and "Traceback" not in r.stderr


def test_core_hooks_path_is_honoured(tmp_path):
    repo = make_repo(tmp_path / "r")
    shared = tmp_path / "shared-hooks"
    git(repo, "config", "core.hooksPath", str(shared))
    out = refocus("init", "--json", cwd=repo).json
    assert out["hooks_dir"] == str(shared) and out["core_hooks_path"] == str(shared)
    assert (shared / "commit-msg").exists() and not (repo / ".git" / "hooks" / "commit-msg").exists()
    activate(repo)
    commit(repo, "via hooksPath")
    assert trailers(repo) == [RID]
    text = refocus("init", cwd=make_repo(tmp_path / "r2"), check=True).stdout
    assert "core.hooksPath" not in text


def test_relative_core_hooks_path(tmp_path):
    repo = make_repo(tmp_path / "r")
    git(repo, "config", "core.hooksPath", ".githooks")
    refocus("init", cwd=repo)
    assert (repo / ".githooks" / "commit-msg").exists()
    activate(repo)
    (repo / "sub").mkdir()
    (repo / "sub" / "f").write_text("x")
    git(repo / "sub", "add", "f")
    git(repo / "sub", "commit", "-q", "-m", "from a subdirectory")
    assert trailers(repo) == [RID]


def test_remote_refspecs_fetch_into_tracking_refs_outside_refs_remotes(tmp_path):
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    origin = make_repo(tmp_path / "origin")
    head = git(origin, "rev-parse", "HEAD").strip()
    git(origin, "update-ref", f"refs/refocus/{RID}", head)
    git(origin, "push", "-q", str(bare), "main", f"refs/refocus/{RID}")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    out = refocus("init", "--remote", "origin", "--json", cwd=clone).json
    assert [s["what"] for s in out["steps"] if s["kind"] == "remote" and s["changed"]] == [
        "git config --add remote.origin.fetch '+refs/refocus/*:refs/refocus-remotes/origin/refocus/*'",
        "git config --add remote.origin.fetch '+refs/notes/refocus*:refs/refocus-remotes/origin/notes/refocus*'",
        "git config --add remote.origin.fetch '+refs/refocus-meta/identity*:refs/refocus-remotes/origin/identity*'",
    ]
    git(clone, "fetch", "-q", "origin")  # no notes on the remote yet: not an error
    assert refs(clone, "refs/refocus-remotes/") == {f"refs/refocus-remotes/origin/refocus/{RID}": head}
    assert "refocus" not in git(clone, "branch", "-r")
    assert f"refs/refocus/{RID}" not in refs(clone), "fetch never writes live refs"
    assert refocus("init", "--remote", "origin", "--json", cwd=clone).json["changed"] == 0


def test_unknown_remote_is_one_clear_error(tmp_path):
    repo = make_repo(tmp_path / "r")
    r = refocus("init", "--remote", "nope", cwd=repo, check=False)
    assert r.returncode == 1 and r.stderr.strip() == (
        "error: no remote named 'nope'; add it with `git remote add nope URL` first.")
    assert not (repo / ".git" / "hooks" / "commit-msg").exists(), "nothing changes when a step is refused"


def test_claude_flag_merges_settings(tmp_path):
    repo = make_repo(tmp_path / "r")
    out = refocus("init", "--claude", "--json", cwd=repo).json
    assert any(s["kind"] == "claude" and s["changed"] for s in out["steps"])
    assert (repo / ".claude" / "settings.json").exists()
    again = refocus("init", "--claude", "--json", cwd=repo).json
    assert again["changed"] == 0


def test_outside_a_repository(tmp_path):
    r = refocus("init", cwd=tmp_path, check=False)
    assert r.returncode == 1 and "not inside a git repository" in r.stderr


def _team_hooks(tmp_path):
    """A repository whose committed .githooks/commit-msg (core.hooksPath) refuses "WIP" commits."""
    repo = make_repo(tmp_path / "team")
    (repo / ".githooks").mkdir()
    hook = repo / ".githooks" / "commit-msg"
    hook.write_text('#!/bin/sh\nif grep -q "^WIP" "$1"; then echo "no WIP commits" >&2; exit 1; fi\n')
    hook.chmod(0o755)
    git(repo, "add", ".githooks")
    commit(repo, "team hooks")
    git(repo, "config", "core.hooksPath", ".githooks")
    return repo, hook


def test_a_tracked_hooks_path_is_never_rewritten_and_init_says_how_to_chain(tmp_path):
    repo, hook = _team_hooks(tmp_path)
    before = hook.read_bytes()
    r = refocus("init", cwd=repo, check=False)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r
    assert "core.hooksPath is .githooks, tracked in this repository" in r.stderr and "git-refocus-chain" in r.stderr
    assert hook.read_bytes() == before and sorted(p.name for p in hook.parent.iterdir()) == ["commit-msg"]
    assert config(repo, "notes.displayRef") == [] and git(repo, "status", "--porcelain") == "", "nothing changed"

    line = r.stderr.rsplit("run `git refocus init` again: ", 1)[1].strip()
    hook.write_text(hook.read_text() + line + "\n")
    git(repo, "commit", "-qam", "chain git-refocus")
    teammate = tmp_path / "teammate"
    git_run(tmp_path, "clone", "-q", str(repo), str(teammate))
    git(teammate, "config", "core.hooksPath", ".githooks")
    commit(teammate, "a teammate without git-refocus commits as before")

    out = refocus("init", "--json", cwd=repo).json
    assert [s["what"] for s in out["steps"] if s["kind"] == "hook"][0].startswith("install the commit-msg hook that")
    assert hook.read_text() == before.decode() + line + "\n", "the team's hook is untouched"
    assert refocus("init", "--json", cwd=repo).json["steps"][0]["changed"] is False
    doctor = refocus("doctor", cwd=repo, check=False)
    assert doctor.returncode == 0 and "consistent" in doctor.stdout, doctor
    assert refocus("status", cwd=repo).returncode == 0
    activate(repo)
    commit(repo, "tagged through the chain")
    assert trailers(repo) == [RID]
    rejected = git_run(repo, "commit", "-q", "--allow-empty", "-m", "WIP nope")
    assert rejected.returncode == 1 and "no WIP commits" in rejected.stderr, "the team's hook still decides"


def test_files_of_the_user_in_other_bytes_are_kept_byte_for_byte(tmp_path):
    """A CLAUDE.md, AGENTS.md or .gitignore that is not UTF-8 (Latin-1, or whatever a remote
    committed) was read as strict UTF-8: spawn into the repository, init and init --codex all
    failed ("text that is not valid UTF-8 cannot be recorded; rename the directory or file").
    The link line is added to the bytes as they are, and --undo gives them back."""
    from tests.runner import spawn_args

    src, repo = make_repo(tmp_path / "src"), make_repo(tmp_path / "r")
    held = {name: b"Caf\xe9 \xed\xa0\x80 rules\n" for name in ("CLAUDE.md", "AGENTS.md", ".gitignore")}
    for name, data in held.items():
        (repo / name).write_bytes(data)
    git(repo, "add", *held)
    git(repo, "commit", "-qm", "files in Latin-1")
    r = refocus(*spawn_args(repo), cwd=src, check=False)
    assert r.returncode == 0, r
    assert (repo / ".gitignore").read_bytes() == held[".gitignore"] + b"docs/refocus/INDEX.md\n"
    line = "> 🔀 **Session history (refocus)**: See [docs/refocus/INDEX.md](docs/refocus/INDEX.md)".encode()
    assert (repo / "CLAUDE.md").read_bytes().startswith(line) and \
        (repo / "CLAUDE.md").read_bytes().endswith(b"\n\n" + held["CLAUDE.md"])
    assert refocus("init", "--codex", cwd=repo, check=False).returncode == 0
    assert (repo / "AGENTS.md").read_bytes().endswith(b"\n\n" + held["AGENTS.md"])
    findings = refocus("doctor", "--json", cwd=repo, check=False).json["findings"]
    assert not [f for f in findings if f["kind"] == "setup"], findings
    refocus("init", "--undo", cwd=repo)
    assert {name: (repo / name).read_bytes() for name in held} == held
