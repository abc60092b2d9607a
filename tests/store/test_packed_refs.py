"""Refs in packed-refs, as git writes the file once `git gc` or `git pack-refs` has run:
read once per process while the file stays the same, looked up by bisection when it is
sorted, and answered exactly as git answers (the id, or no such ref)."""

from __future__ import annotations

import json
import os
import random

from gitrefocus.store import workspace
from tests.gitrepo import commit, git, make_repo
from tests.runner import refocus, spawn_args

ID64 = "ab" * 32  # a SHA-256 repository's id: present, but in a form this does not read


def packed_repo(tmp_path, refs: int = 300):
    """A repository whose packed-refs holds ``refs`` refs under refs/refocus/ and as many annotated
    tags (each followed by its ``^`` peeled line): (repo, {refname: id} as git lists them)."""
    repo = make_repo(tmp_path / "r")
    head = git(repo, "rev-parse", "HEAD").strip()
    second = commit(repo, "second")
    lines = []
    for i in range(refs):
        lines.append(f"update refs/refocus/{i:04d}-{'x' * (i % 7)} {head if i % 2 else second}")
        lines.append(f"create refs/refocus/{i:04d}/nested {head}")  # a name that extends another one
    git(repo, "update-ref", "--stdin", input="\n".join(lines) + "\n")
    for i in range(0, refs, 3):
        git(repo, "tag", "-a", "-m", f"tag {i}", f"t{i:04d}", second)
    git(repo, "pack-refs", "--all")
    listed = git(repo, "for-each-ref", "--format=%(objectname) %(refname)")
    return repo, dict(reversed(line.split(" ", 1)) for line in listed.splitlines())


def absent_names(present) -> list[str]:
    """Names around every present one that git does not hold: prefixes, extensions, neighbours."""
    near = set()
    for name in present:
        near.update({name[:-1], name + "0", name + "/", name.replace("refs/", "refs/a"), name + "-"})
    return sorted(near - set(present)) + ["", "refs", "a", "zzzz", "refs/refocus/", "~"]


def test_a_sorted_file_with_peeled_lines_answers_every_ref_as_git_does(tmp_path):
    repo, refs = packed_repo(tmp_path)
    path = str(repo / ".git" / "packed-refs")
    data = open(path, "rb").read()
    assert data.startswith(b"# pack-refs with:") and b" sorted" in data.split(b"\n")[0] and b"\n^" in data
    for name, oid in refs.items():
        assert workspace._packed(path, name) == oid, name
    for name in absent_names(refs):
        assert workspace._packed(path, name) is None, name


def test_an_unsorted_file_answers_the_same(tmp_path):
    repo, refs = packed_repo(tmp_path, refs=60)
    path = repo / ".git" / "packed-refs"
    header, *body = path.read_bytes().split(b"\n")[:-1]
    records: list[list[bytes]] = []
    for line in body:  # a ref line with its peeled lines after it
        if line.startswith(b"^"):
            records[-1].append(line)
        else:
            records.append([line])
    random.Random(7).shuffle(records)
    path.write_bytes(b"# pack-refs with: peeled \n" + b"".join(b"\n".join(r) + b"\n" for r in records))
    assert git(repo, "for-each-ref", "--format=%(objectname) %(refname)").count("\n") == len(refs)
    for name, oid in refs.items():
        assert workspace._packed(str(path), name) == oid, name
    for name in absent_names(refs):
        assert workspace._packed(str(path), name) is None, name
    path.write_bytes(b"".join(b"\n".join(r) + b"\n" for r in records))  # no header at all
    assert all(workspace._packed(str(path), name) == oid for name, oid in refs.items())


def test_an_id_of_another_length_is_present_but_not_read_and_a_missing_file_holds_nothing(tmp_path):
    path = tmp_path / "packed-refs"
    ids = {f"refs/refocus/{c}": c * 40 for c in "1234567"}
    ids["refs/refocus/4"] = ID64
    for header in (b"# pack-refs with: peeled fully-peeled sorted \n", b""):
        path.write_bytes(header + b"".join(f"{oid} {name}\n".encode() for name, oid in sorted(ids.items())))
        assert workspace._packed(str(path), "refs/refocus/4") is ...
        assert workspace._packed(str(path), "refs/refocus/3") == "3" * 40
        assert workspace._packed(str(path), "refs/refocus/8") is None
    path.write_bytes(b"1" * 40 + b" refs/refocus/last")  # unterminated: git refuses the line
    assert workspace._packed(str(path), "refs/refocus/last") is None
    assert workspace._packed(str(tmp_path / "none"), "refs/refocus/1") is None


def test_the_file_is_read_once_and_read_again_when_it_is_rewritten(tmp_path):
    repo, refs = packed_repo(tmp_path, refs=20)
    path = str(repo / ".git" / "packed-refs")
    name = "refs/refocus/0004-xxxx"
    assert workspace._packed(path, name) == refs[name]
    snapshot = workspace._PACKED_FILES[path][1]
    assert workspace._packed(path, "refs/refocus/0003-xxx") == refs["refs/refocus/0003-xxx"]
    assert workspace._PACKED_FILES[path][1] is snapshot, "one read for every lookup while the file is the same"
    # git moves a ref: a new file renamed over the old one, same size and (forced here) same mtime
    stamp = os.stat(path)
    other = git(repo, "rev-parse", "HEAD~1").strip()
    assert other != refs[name]
    git(repo, "update-ref", name, other)
    git(repo, "pack-refs", "--all")
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert os.stat(path).st_size == stamp.st_size
    assert workspace._packed(path, name) == other
    git(repo, "update-ref", "-d", name)
    assert workspace._packed(path, name) is None


def test_the_cli_reads_packed_refs_as_it_reads_loose_ones(repos, tmp_path):
    """After `git pack-refs --all` (as `git gc` runs on its own) every command sees what it saw."""
    src, dest = repos
    ids = [refocus(*spawn_args(dest, f"job-{i}"), cwd=src).json for i in range(5)]
    before = {repo: refocus("list", "--json", cwd=repo).json for repo in (src, dest)}
    for repo in (src, dest):
        git(repo, "pack-refs", "--all")
        assert not os.listdir(repo / ".git" / "refs" / "refocus")
        assert refocus("list", "--json", cwd=repo).json == before[repo]
    child = ids[2]
    out = refocus("hook", "session-start", cwd=dest, input=json.dumps(
        {"session_id": child["child_session_id"], "cwd": str(dest), "source": "startup"})).stdout
    assert f"child session of refocus {child['id']}" in out
    git(dest, "pack-refs", "--all")  # the started refocus's loose ref packed in turn
    assert refocus("show", child["id"], "--json", cwd=dest).json["status"] == "in-progress"
    refocus("complete", child["id"], "--summary", "done", "--no-material-changes", "packed", cwd=dest)
    git(dest, "pack-refs", "--all")
    assert refocus("show", child["id"], "--json", cwd=dest).json["status"] == "result"
    assert refocus("receive", child["id"], cwd=src).returncode == 0
