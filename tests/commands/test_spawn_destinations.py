"""Spawning into an un-initialised destination says so and never claims tagging;
bookkeeping commits carry their own id; clones know their side."""

from __future__ import annotations

from tests.gitrepo import git, trailers
from tests.runner import refocus, spawn_args


def test_spawn_into_an_uninitialised_destination_warns_loudly(repos):
    src, dest = repos
    out = refocus(*spawn_args(dest), cwd=src).json
    warning = " ".join(out["warnings"])
    assert "has not run `git refocus init`" in warning and "NOT carry Refocus-Id" in warning, out
    assert "init" in warning and str(dest) in warning
    assert ".gitignore" in warning, "the files spawn wrote there are named"
    assert not (dest / ".git" / "hooks" / "commit-msg").exists(), "spawn never installs code in another repo"


def test_start_without_a_hook_does_not_claim_tagging(repos):
    src, dest = repos
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    r = refocus("start", rid, cwd=dest)
    assert "now carry Refocus-Id" not in r.stdout
    assert "NOT tagged" in r.stdout and "git refocus init" in r.stdout
    assert refocus("start", rid, "--json", cwd=dest).json["tagging"] is False


def test_initialised_destination_spawns_without_the_warning(initialized):
    src, dest = initialized
    out = refocus(*spawn_args(dest), cwd=src).json
    assert not [w for w in out["warnings"] if "git refocus init" in w], out
    r = refocus("start", out["id"], cwd=dest)
    assert "commits here now carry Refocus-Id" in r.stdout


def test_spawn_commit_carries_its_own_id_not_the_active_one(started):
    src, dest, active = started
    out = refocus(*spawn_args(dest, "second-task", "--commit"), cwd=src).json
    assert out["commits"]["dest"], out
    assert trailers(dest, out["commits"]["dest"]) == [out["id"]]
    assert active != out["id"]


def test_a_clone_of_the_destination_lists_incoming_after_sync(tmp_path, repos):
    src, dest = repos
    remote = tmp_path / "dest.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(dest, "remote", "add", "origin", str(remote))
    git(dest, "push", "-q", "origin", "main")
    refocus("init", "--remote", "origin", cwd=dest)
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    refocus("sync", cwd=dest)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    refocus("init", "--remote", "origin", cwd=clone)
    refocus("sync", cwd=clone)
    entries = {e["id"]: e for e in refocus("list", "--json", cwd=clone).json["entries"]}
    assert entries[rid]["direction"] == "incoming", entries
    assert refocus("list", "--json", cwd=src).json["entries"][0]["direction"] == "outgoing"
