"""Which side of a refocus a repository is, by the repository's identity
(``refs/refocus-meta/identity``, docs/paths-and-identity.md), not by where it
lives: every copy of the destination (a linked worktree, a clone that synced)
lists a reserved refocus as incoming and doctor checks it there; a fork and its
upstream, which share history and start on the same commit, are two repositories.

The repositories here share history on purpose: that is where the commit each
side stood on at spawn cannot tell them apart and only paths were left."""

from __future__ import annotations

import shutil

import pytest

from tests.gitrepo import git, make_repo, refs
from tests.runner import refocus, spawn_args


@pytest.fixture
def twins(tmp_path):
    """``up`` and ``fork``, a clone of it: the same history, the same HEAD."""
    up = make_repo(tmp_path / "up")
    fork = tmp_path / "fork"
    git(tmp_path, "clone", "-q", str(up), str(fork))
    assert git(up, "rev-parse", "HEAD") == git(fork, "rev-parse", "HEAD")
    return up, fork


def listed(repo) -> dict[str, dict]:
    return {e["id"]: e for e in refocus("list", "--json", cwd=repo).json["entries"]}


def doctor(repo) -> tuple[int, list[dict]]:
    r = refocus("doctor", "--json", cwd=repo, check=False)
    return r.returncode, r.json["findings"]


def test_a_linked_worktree_of_the_destination_takes_a_reserved_refocus_as_incoming(twins, tmp_path):
    fork, up = twins[1], twins[0]
    rid = refocus(*spawn_args(up), cwd=fork).json["id"]
    linked = tmp_path / "up-linked"
    git(up, "worktree", "add", "-q", str(linked))
    entry = listed(linked)[rid]
    assert entry["direction"] == "incoming" and entry["counterpart"] == str(fork.resolve()), entry
    rc, findings = doctor(linked)
    assert rc == 0, findings
    assert [f for f in findings if f["id"] == rid], "doctor in the linked worktree checks the incoming refocus"
    assert refocus("start", rid, "--json", cwd=linked).json["status"] == "in-progress", "it starts where it is incoming"


def test_a_clone_of_the_destination_that_synced_takes_it_as_incoming_and_doctor_checks_it(twins, tmp_path):
    up, fork = twins
    rid = refocus(*spawn_args(up), cwd=fork).json["id"]
    clone = tmp_path / "up-clone"
    git(tmp_path, "clone", "-q", str(up), str(clone))
    out = refocus("sync", "--json", cwd=clone).json
    assert out["identity"]["adopted"] and out["identity"]["here"] == out["identity"]["remote"]
    assert refs(clone, "refs/refocus-meta/")["refs/refocus-meta/identity"] == \
        refs(up, "refs/refocus-meta/")["refs/refocus-meta/identity"]
    entry = listed(clone)[rid]
    assert entry["direction"] == "incoming", entry
    assert [e["id"] for e in refocus("status", "--json", cwd=clone).json["incoming"]["pending_launch"]] == [rid]
    rc, findings = doctor(clone)
    assert rc == 0 and [f for f in findings if f["id"] == rid], findings
    fork_clone = tmp_path / "fork-clone"
    git(tmp_path, "clone", "-q", str(fork), str(fork_clone))
    refocus("sync", cwd=fork_clone)
    assert listed(fork_clone)[rid]["direction"] == "outgoing"


def test_a_fork_and_its_upstream_are_two_repositories_wherever_they_live(twins, tmp_path):
    """Moved elsewhere (no recorded path is left), each still knows its side."""
    up, fork = twins
    rid = refocus(*spawn_args(up), cwd=fork).json["id"]
    assert refs(up, "refs/refocus-meta/") != refs(fork, "refs/refocus-meta/"), "two identities"
    moved_up, moved_fork = tmp_path / "elsewhere" / "u", tmp_path / "elsewhere" / "f"
    moved_up.parent.mkdir()
    shutil.move(str(up), moved_up)
    shutil.move(str(fork), moved_fork)
    (moved_up / "docs" / "refocus" / f"{rid}.md").unlink()  # not even the brief file is left to go by
    assert listed(moved_up)[rid]["direction"] == "incoming"
    assert listed(moved_fork)[rid]["direction"] == "outgoing"


def test_a_fork_that_syncs_with_its_upstream_keeps_its_identity_and_is_told(twins, tmp_path):
    up, fork = twins
    remote = tmp_path / "up.git"
    git(tmp_path, "clone", "-q", "--bare", str(up), str(remote))
    git(up, "remote", "add", "origin", str(remote))
    other = make_repo(tmp_path / "other")
    refocus(*spawn_args(up), cwd=other)  # up gets its identity
    refocus("sync", cwd=up)  # and publishes it
    refocus(*spawn_args(other), cwd=fork)  # the fork gets its own
    mine = refs(fork, "refs/refocus-meta/")
    git(fork, "remote", "add", "upstream", str(remote))
    r = refocus("sync", "upstream", "--json", cwd=fork)
    assert refs(fork, "refs/refocus-meta/") == mine, "the fork keeps its identity"
    assert any("identity of another repository" in w for w in r.json["warnings"]), r.json
    assert refs(remote, "refs/refocus-meta/") == refs(up, "refs/refocus-meta/"), "nothing pushed over upstream's"
