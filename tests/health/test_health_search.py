"""`git refocus search TEXT [--cross-project]` across the configured projects."""

from __future__ import annotations

import pytest

from tests.gitrepo import commit_files, git, make_repo
from tests.runner import refocus, spawn_args

CTX = "docs/context"


@pytest.fixture
def world(tmp_path):
    """context-keeper (here), and under work/: zed, a plain directory, and a symlink that leaves work/."""
    here = make_repo(tmp_path / "context-keeper")
    commit_files(here, "context", {f"{CTX}/patterns.md": "# Patterns\n\n- All bash targets bash 3.2 (macOS default)\n"
                                                   "<private>\nbash 3.2 secret workaround\n</private>\n"
                                                   "- inline <private>bash 3.2 hidden</private> visible tail\n"})
    work = tmp_path / "work"
    zed = make_repo(work / "zed")
    commit_files(zed, "context", {f"{CTX}/glossary.md": "# Glossary\n- BASH 3.2 portability matters here too\n",
                            f"{CTX}/private.md": "---\nprivate: true\n---\nbash 3.2 in a private file\n"})
    (work / "plain").mkdir()
    (work / "plain" / "notes.md").write_text("bash 3.2 but not a project\n")
    outside = make_repo(tmp_path / "outside")
    commit_files(outside, "leak", {f"{CTX}/leak.md": "bash 3.2 leaked\n"})
    (work / "escape").symlink_to(outside)
    secret = tmp_path / "secret.md"
    secret.write_text("bash 3.2 outside any project\n")
    (zed / CTX / "linked.md").symlink_to(secret)
    (zed / CTX / "linked-dir").symlink_to(outside / CTX, target_is_directory=True)
    git(here, "config", "--add", "refocus.searchPaths", str(work))
    return here, work, zed, outside


def test_local_search_prefixes_the_project_and_hides_private_text(world):
    here, *_ = world
    r = refocus("search", "bash 3.2", cwd=here)
    assert r.stdout.splitlines() == [
        '[context-keeper] docs/context/patterns.md:3 — "- All bash targets bash 3.2 (macOS default)"',
    ]


def test_cross_project_search_refuses_paths_that_leave_their_parent(world):
    here, work, zed, outside = world
    model = refocus("search", "bash 3.2", "--cross-project", "--json", cwd=here).json
    got = [(m["project"], m["path"], m["line"], m["kind"]) for m in model["results"]]
    assert got == [("context-keeper", f"{CTX}/patterns.md", 3, "context"),
                   ("zed", f"{CTX}/glossary.md", 2, "context")]
    assert [p["name"] for p in model["projects"]] == ["context-keeper", "zed"]
    refused = {r["path"]: r["reason"] for r in model["refused"]}
    assert str(work / "escape") in refused and "outside the configured parent" in refused[str(work / "escape")]
    assert str(zed.resolve() / CTX / "linked.md") in refused, "a file that resolves outside its project"
    assert str(zed.resolve() / CTX / "linked-dir") in refused, "a directory that resolves outside its project"
    assert not any("leaked" in m["text"] or "outside any project" in m["text"] for m in model["results"])
    text = refocus("search", "bash 3.2", "--cross-project", cwd=here)
    assert '[zed] docs/context/glossary.md:2 — "- BASH 3.2 portability matters here too"' in text.stdout
    assert text.stderr.count("warning: refused ") == 3


def test_briefs_and_results_are_searched_by_kind(repos):
    src, dest = repos
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    refocus("start", rid, cwd=dest)
    refocus("complete", "--summary", "The MCP standard now speaks SSH-stdio.", "--no-material-changes", "docs only",
            cwd=dest)
    model = refocus("search", "mcp standard", "--json", cwd=dest).json
    kinds = {m["kind"] for m in model["results"]}
    assert kinds == {"brief", "result"}
    assert all(m["id"] == rid and m["path"] == f"docs/refocus/{rid}.md" for m in model["results"])
    only = refocus("search", "mcp standard", "--kind", "result", "--json", cwd=dest).json["results"]
    assert only and {m["kind"] for m in only} == {"result"} and "SSH-stdio" in only[0]["text"]
    # the source's copy is searched too, with its own project name
    assert all(m["project"] == "src" for m in refocus("search", "SSH-stdio", "--json", cwd=src).json["results"])


def test_cross_project_not_configured_or_disabled(world, tmp_path):
    here, *_ = world
    git(here, "config", "--unset-all", "refocus.searchPaths")
    r = refocus("search", "bash", "--cross-project", cwd=here)
    assert r.returncode == 0 and "cross-project search is not configured" in r.stderr
    assert "git config --add refocus.searchPaths" in r.stderr
    git(here, "config", "refocus.searchPaths", "disabled")
    r = refocus("search", "bash", "--cross-project", "--json", cwd=here)
    assert "disabled" in r.json["notices"][0] and [p["name"] for p in r.json["projects"]] == ["context-keeper"]


def test_limit_and_empty_queries(world):
    here, *_ = world
    model = refocus("search", "a", "--cross-project", "--limit", "2", "--json", cwd=here).json
    assert len(model["results"]) == 2 and model["truncated"]
    r = refocus("search", "  ", cwd=here, check=False)
    assert r.returncode == 1 and r.stderr == "error: nothing to search for: give a non-empty TEXT.\n"
    r = refocus("search", "zzz-no-such-text", cwd=here)
    assert r.stdout == "" and "no matches" in r.stderr


def test_search_path_relative_and_tilde(world, hermetic):
    here, work, zed, outside = world
    git(here, "config", "--unset-all", "refocus.searchPaths")
    (hermetic / "projects").symlink_to(work)
    git(here, "config", "refocus.searchPaths", "~/projects")
    names = [p["name"] for p in refocus("search", "bash", "--cross-project", "--json", cwd=here).json["projects"]]
    assert names == ["context-keeper", "zed"]


def test_the_source_finds_its_outgoing_refocus_before_any_result(spawned):
    """The brief's file lives in the destination; the source searches the snapshot its
    event log holds, and names it by its ref."""
    src, dest, out = spawned
    rid = out["id"]
    found = refocus("search", "MCPSTANDARD.md exists", "--json", cwd=src).json["results"]
    assert found and {(m["id"], m["path"], m["kind"]) for m in found} == {(rid, f"refs/refocus/{rid}", "brief")}, found
    assert refocus("search", "MCPSTANDARD.md exists", "--json", cwd=dest).json["results"][0]["path"] == \
        f"docs/refocus/{rid}.md", "the destination searches its file, not the snapshot again"
