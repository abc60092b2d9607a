"""`git refocus demo`: the whole round trip in throwaway repositories."""

from __future__ import annotations

from tests.runner import refocus


def test_demo_round_trip_runs(tmp_path):
    r = refocus("demo", "--json", cwd=tmp_path)
    assert r.json["events"] == ["spawned", "started", "completed", "received"]


def test_the_demo_leaves_nothing_in_the_users_registry(tmp_path, hermetic):
    """Its repositories are deleted at the end (or kept for a look): either way no
    `--global` command lists them or warns about them later."""
    refocus("demo", cwd=tmp_path)
    refocus("demo", "--dir", tmp_path / "kept", cwd=tmp_path)
    registry = hermetic / ".local/state/git-refocus/repositories"
    assert not registry.exists() or registry.read_text().strip() == "", registry.read_text()
    r = refocus("list", "--global", cwd=tmp_path)
    assert "warning" not in r.stderr and "in the 0 registered repositories" in r.stderr, r


def test_demo_dir_twice_is_one_clear_error_and_changes_nothing(tmp_path):
    target = tmp_path / "d"
    refocus("demo", "--dir", target, cwd=tmp_path)
    before = sorted(p.name for p in target.iterdir())
    r = refocus("demo", "--dir", target, cwd=tmp_path, check=False)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "already has agents-memory and mcp" in r.stderr, r
    assert sorted(p.name for p in target.iterdir()) == before
