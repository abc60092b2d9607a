"""`list --global`, `status --global`, `search --global`, `index --global` over the registry."""

from __future__ import annotations

import pytest

from tests.gitrepo import git, make_repo
from tests.runner import refocus


def registry_file(home):
    return home / ".local/state/git-refocus/repositories"


def spawn(src, dest, slug, *extra):
    return refocus("spawn", dest, "--slug", slug, "--reason", f"{slug} work", "--done-when", "d", *extra, "--json",
                   cwd=src).json


@pytest.fixture
def three(tmp_path):
    """a spawns into b, b spawns into c (continuing the first), c is registered by init only."""
    a, b, c = (make_repo(tmp_path / n) for n in ("alpha", "beta", "gamma"))
    first = spawn(a, b, "first")
    second = spawn(b, c, "second", "--parent", first["id"])
    return a, b, c, first["id"], second["id"]


def test_list_global_reads_every_repository_and_shows_each_refocus_once(three, tmp_path):
    a, b, c, first, second = three
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    out = refocus("list", "--global", "--json", cwd=outside).json
    assert sorted(out["repositories"]) == sorted(str(p.resolve()) for p in (a, b, c))
    got = {(e["id"], e["repo"], e["direction"]) for e in out["entries"]}
    assert got == {(first, str(b.resolve()), "incoming"), (second, str(c.resolve()), "incoming")}
    text = refocus("list", "--global", cwd=outside).stdout
    assert first in text and second in text and "REPOSITORY" in text


def test_the_fresher_copy_wins(three):
    a, b, c, first, second = three
    refocus("start", first, cwd=b)
    git(a, "update-ref", "-d", f"refs/refocus/{first}")  # the source's copy is gone: only b's remains
    rows = {e["id"]: e for e in refocus("list", "--global", "--json", cwd=a).json["entries"]}
    assert rows[first]["status"] == "in-progress" and rows[first]["repo"] == str(b.resolve())


def test_vanished_symlinked_and_opted_out_entries(three, hermetic, tmp_path):
    a, b, c, first, second = three
    link = tmp_path / "link-to-beta"
    link.symlink_to(b)
    gone = tmp_path / "gone"
    with registry_file(hermetic).open("a") as fh:
        fh.write(f"{link}\n{gone}\nrelative/path\n")
    git(c, "config", "refocus.global", "false")
    r = refocus("list", "--global", "--json", cwd=a)
    out = r.json
    reasons = {s["path"]: s["reason"] for s in out["skipped"]}
    assert "symlink" in reasons[str(link)] and "vanished" in reasons[str(gone)]
    assert "opted out" in reasons[str(c.resolve())]
    rows = {e["id"]: e["repo"] for e in out["entries"]}
    assert rows == {first: str(b.resolve()), second: str(b.resolve())}, "c opted out: only b's copy is read"
    assert f"{link}: is a symlink" in r.stderr and "--prune" in r.stderr
    assert "opted out" not in r.stderr, "opting out is not a warning"
    pruned = refocus("list", "--global", "--prune", "--json", cwd=a).json
    assert sorted(pruned["pruned"]) == sorted([str(gone), "relative/path"])
    assert registry_file(hermetic).read_text().splitlines() == [str(p.resolve()) for p in (a, b, c)] + [str(link)]


def test_a_briefs_dir_that_leaves_its_repository_is_not_followed(tmp_path, hermetic):
    victim = make_repo(tmp_path / "victim")
    spawn(make_repo(tmp_path / "src"), victim, "secret")
    evil = make_repo(tmp_path / "evil")
    (evil / "docs").mkdir()
    (evil / "docs/refocus").symlink_to(victim / "docs/refocus")
    registry_file(hermetic).write_text(f"{evil}\n")
    r = refocus("list", "--global", "--json", cwd=tmp_path)
    assert r.json["entries"] == [] and "outside the repository" in r.stderr
    r = refocus("search", "secret", "--global", "--json", cwd=evil)
    assert all("victim" not in m["project_dir"] for m in r.json["results"])


def test_status_global_names_the_repository_of_each_item(three, tmp_path):
    a, b, c, first, second = three
    out = refocus("status", "--global", "--json", cwd=tmp_path).json
    pending = {r["repo"]: [x["id"] for x in r["incoming"]["pending_launch"]] for r in out["repos"]}
    assert pending[str(b.resolve())] == [first] and pending[str(c.resolve())] == [second]
    text = refocus("status", "--global", cwd=tmp_path).stdout
    assert f"incoming, waiting for launch: {first}" in text


def test_search_global_reads_registered_repositories(three):
    a, b, c, first, second = three
    out = refocus("search", "second work", "--global", "--json", cwd=a).json
    assert {m["id"] for m in out["results"]} == {second}
    assert out["global"] is True
    assert refocus("search", "second work", "--json", cwd=a).json["results"] == []


def test_index_global_writes_the_overview(three, hermetic, tmp_path):
    a, b, c, first, second = three
    out = refocus("index", "--global", "--json", cwd=a).json
    assert out["path"] == str(hermetic / "REFOCUS-INDEX.md") and out["active"] == 2
    text = (hermetic / "REFOCUS-INDEX.md").read_text()
    assert "| Repository |" in text and f"`{str(b.resolve())}`" in text.replace(str(hermetic), "~")
    assert "## Spawn tree" in text and "-->" in text
    assert refocus("index", "--global", "--json", cwd=a).json["changed"] is False
    git(a, "config", "--global", "refocus.globalIndex", str(tmp_path / "elsewhere.md"))
    refocus("index", "--global", cwd=a)
    assert (tmp_path / "elsewhere.md").read_text().startswith("# Refocus index — all repositories")
    refocus("index", "--global", "--output", tmp_path / "opt.md", cwd=a)
    assert (tmp_path / "opt.md").exists()
