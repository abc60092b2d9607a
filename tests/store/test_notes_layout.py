"""store/notes.add_note builds the notes commit itself (no scratch ref, so libgit2 never reads
all of packed-refs): its tree must be the one libgit2's own create_note builds, fan-out and
all, and the real git CLI must read every note from it."""

from __future__ import annotations

import pygit2
import pytest

from gitrefocus.store import notes
from tests.gitrepo import commit, git, make_repo

REF = notes.NOTES_REF


def _libgit2_tree(repo: pygit2.Repository, parent, target: str, message: str) -> str:
    """The tree libgit2's create_note writes for the same note, on a throwaway ref."""
    name = "refs/notes/oracle"
    if parent is not None:
        repo.references.create(name, parent, force=True)
    sig = pygit2.Signature("t", "t@example.com")
    repo.create_note(message, sig, sig, target, name, True)
    tree = str(repo.references.get(name).peel(pygit2.Commit).tree_id)
    repo.references.delete(name)
    return tree


def _fanned_out(path, repo: pygit2.Repository, target: str, text: str) -> None:
    """refs/notes/refocus holding one note on ``target`` in a two-level fan-out, as git writes
    once a notes tree grows large: <2 hex>/<38 hex>."""
    blob = git(path, "hash-object", "-w", "--stdin", input=text).strip()
    inner = git(path, "mktree", input=f"100644 blob {blob}\t{target[2:]}\n").strip()
    outer = git(path, "mktree", input=f"040000 tree {inner}\t{target[:2]}\n").strip()
    top = git(path, "commit-tree", outer, "-m", "fanned out").strip()
    git(path, "update-ref", REF, top)


@pytest.mark.parametrize("fanout", [False, True])
def test_notes_equal_libgit2s_and_git_reads_them(tmp_path, fanout):
    path = make_repo(tmp_path / "r")
    first = git(path, "rev-parse", "HEAD").strip()
    second = commit(path, "second")
    repo = pygit2.Repository(str(path))
    if fanout:
        _fanned_out(path, repo, first, "old line\n")
    steps = [(first, "line one"), (second, "line two"), (first, "line three"), (second, "line two")]
    for target, line in steps:
        before = repo.references.get(REF)
        parent = before.target if before is not None else None
        lines = notes.read_note(repo, target).splitlines() if parent is not None else []
        expected = _libgit2_tree(repo, parent, target, "\n".join(lines + [line]) + "\n") \
            if line not in lines else None
        notes.add_note(repo, target, line)
        after = repo.references.get(REF).peel(pygit2.Commit)
        if expected is None:  # a line already there: nothing written
            assert after.id == parent
        else:
            assert str(after.tree_id) == expected
            assert after.parents == ([] if parent is None else [repo[parent]])
    show = git(path, "notes", "--ref=refocus", "show", first)
    assert show == ("old line\n" if fanout else "") + "line one\nline three\n"
    assert git(path, "notes", "--ref=refocus", "show", second) == "line two\n"
    assert "line three" in git(path, "log", "--notes=refocus", "-1", "--format=%N", first)
    listed = git(path, "ls-tree", "-r", "--name-only", REF).split()
    assert len(listed) == 2, listed  # each note replaced where it was, never added twice
    if fanout:
        assert f"{first[:2]}/{first[2:]}" in listed
    assert not [r for r in git(path, "for-each-ref", "--format=%(refname)").split() if "tmp" in r or "oracle" in r]
    git(path, "fsck", "--strict", "--no-dangling")
