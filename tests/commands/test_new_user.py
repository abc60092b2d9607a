"""What a new user meets on the documented path, from a fresh HOME and two fresh
repositories: nothing claims what is not so, nothing changes unsaid."""

from __future__ import annotations

from tests.gitrepo import git
from tests.runner import refocus, spawn_args


def test_status_does_not_claim_tagging_where_no_hook_runs(repos):
    src, dest = repos
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    refocus("start", rid, cwd=dest)
    text = refocus("status", cwd=dest).stdout
    assert "commits carry its Refocus-Id" not in text and "NOT tagged" in text and "git refocus init" in text, text
    assert refocus("status", "--json", cwd=dest).json["active"]["tagging"] is False
    refocus("init", cwd=dest)
    assert "commits carry its Refocus-Id" in refocus("status", cwd=dest).stdout
    assert refocus("status", "--json", cwd=dest).json["active"]["tagging"] is True


def test_spawn_names_the_files_it_wrote_in_the_source(repos):
    src, dest = repos
    (src / ".gitignore").write_text("*.log\n")
    git(src, "add", ".gitignore")
    git(src, "commit", "-qm", "ignore logs")
    r = refocus(*spawn_args(dest)[:-1], cwd=src)
    assert "wrote here: .gitignore, CLAUDE.md (commit them with your work)" in r.stdout, r
    assert git(src, "status", "--porcelain").split() == ["M", ".gitignore", "??", "CLAUDE.md"]
    again = refocus(*spawn_args(dest, "second")[:-1], cwd=src)
    assert "wrote here" not in again.stdout, "nothing new was written the second time"
    assert refocus(*spawn_args(dest, "third"), cwd=src).json["source_files"] == []


def test_spawn_into_a_subdirectory_completes_with_the_source_updated(tmp_path):
    from tests.gitrepo import make_repo

    repo = make_repo(tmp_path / "mono")
    (repo / "svc").mkdir()
    out = refocus(*spawn_args(repo / "svc"), cwd=repo).json
    refocus("start", out["id"], cwd=repo / "svc")
    r = refocus("complete", "--summary", "done", "--no-material-changes", "none", cwd=repo / "svc")
    assert "not reachable" not in r.stdout and "now shows the result waiting" in r.stdout, r
    assert refocus("complete", "--help", cwd=repo).returncode == 0
    waiting = refocus("status", "--json", cwd=repo).json["outgoing"]["results_waiting"]
    assert [w["id"] for w in waiting] == [out["id"]], waiting


def test_an_ambiguous_id_says_how_many_and_a_typo_gets_a_suggestion(repos):
    src, dest = repos
    ids = [refocus(*spawn_args(dest, f"mcp-{i}"), cwd=src).json["id"] for i in range(7)]
    r = refocus("show", "mcp", cwd=src, check=False)
    assert r.returncode == 1 and "7 match" in r.stderr and "and 2 more" in r.stderr, r
    typo = refocus("show", "mpc-3", cwd=src, check=False)
    assert typo.returncode == 1 and f"did you mean {ids[3]}" in typo.stderr, typo
    none = refocus("show", "zzzzzz", cwd=src, check=False)
    assert "did you mean" not in none.stderr and "unknown refocus id 'zzzzzz'" in none.stderr


def test_outside_a_repository_the_directory_is_named(tmp_path):
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    r = refocus("status", cwd=outside, check=False)
    assert r.returncode == 1 and f"'{outside.resolve()}' is not inside a git repository" in r.stderr, r
    assert "'.'" not in r.stderr


def test_tree_mermaid_keeps_non_ascii_repository_names(tmp_path):
    from tests.gitrepo import make_repo

    src, dest = make_repo(tmp_path / "café"), make_repo(tmp_path / "Überblick")
    refocus(*spawn_args(dest, "mcp"), cwd=src)
    text = refocus("tree", "--mermaid", cwd=src).stdout
    assert "café → Überblick" in text, text


def test_spawn_file_outside_dest_is_refused_and_a_missing_one_is_said(repos):
    src, dest = repos
    (dest / "api.py").write_text("x\n")
    bad = refocus(*spawn_args(dest, "s", "--file", "../src/README.md"), cwd=src, check=False)
    assert bad.returncode == 1 and "outside the destination" in bad.stderr, bad
    bad = refocus(*spawn_args(dest, "s", "--file", str(src / "README.md")), cwd=src, check=False)
    assert bad.returncode == 1 and "outside the destination" in bad.stderr, bad
    assert refocus("list", "--all", "--json", cwd=src).json["entries"] == [], "nothing was spawned"
    out = refocus(*spawn_args(dest, "s", "--file", str(dest / "api.py"), "--file", "later.py"), cwd=src).json
    brief = refocus("show", out["id"], "--json", cwd=dest).json["brief"]
    assert "relevant_files:\n  - api.py\n  - later.py\n" in brief, brief
    assert any("later.py: not in" in w for w in out["warnings"]), out["warnings"]
