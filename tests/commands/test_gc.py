"""`git refocus gc`."""

from __future__ import annotations

from tests.gitrepo import git
from tests.runner import refocus


def test_gc_archives_old_results(spawned):
    src, dest, out = spawned
    rid = out["id"]
    refocus("start", rid, cwd=dest)
    refocus("complete", rid, "--summary", "x", "--no-material-changes", "n/a", cwd=dest)
    dry = refocus("gc", "--dry-run", "--json", cwd=dest, env={"GIT_REFOCUS_NOW": "2099-01-01T00:00:00Z"}).json
    assert dry["archived"] and (dest / "docs/refocus" / f"{rid}.md").exists()
    git(dest, "add", f"docs/refocus/{rid}.md")
    git(dest, "commit", "-q", "-m", "brief")
    done = refocus("gc", "--json", cwd=dest, env={"GIT_REFOCUS_NOW": "2099-01-01T00:00:00Z"}).json
    assert git(dest, "status", "--short", "docs/refocus").startswith("R  "), "tracked briefs are git-mv'ed"
    target = dest / done["archived"][0]["to"]
    assert target.exists() and "/archive/20" in str(target)
    assert refocus("list", "--all", "--json", cwd=dest).json["entries"][0]["archived"]
