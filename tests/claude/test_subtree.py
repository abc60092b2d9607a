"""Children and parents below a repository's root: Claude Code runs a project's hooks only from
the directory it starts in, so spawn wires the hooks there when the root has them (the real
client on each install route: tests/e2e/test_delivery_claude.py)."""

from __future__ import annotations

import json

from tests.claude.hookcall import context, hook
from tests.gitrepo import make_repo
from tests.runner import refocus


def hooks_in(directory) -> set[str]:
    path = directory / ".claude" / "settings.json"
    if not path.exists():
        return set()
    data = json.loads(path.read_text())
    return {h["command"] for entries in data["hooks"].values() for e in entries for h in e["hooks"]}


def test_spawn_wires_the_hooks_where_the_child_and_the_parent_work(tmp_path):
    mono, dest = make_repo(tmp_path / "mono"), make_repo(tmp_path / "dest")
    web, pkg = mono / "services" / "web", dest / "pkg"
    web.mkdir(parents=True)
    pkg.mkdir()
    for repo in (mono, dest):
        refocus("init", "--claude", cwd=repo)
    (pkg / ".claude").mkdir()
    (pkg / ".claude" / "settings.json").write_text(json.dumps({"model": "kept", "hooks": {}}))
    r = refocus("spawn", pkg, "--slug", "pkg", "--reason", "r", "--done-when", "d", "--json", cwd=web,
                env={"CLAUDE_PROJECT_DIR": str(web)})
    out = r.json
    assert hooks_in(pkg) == hooks_in(dest) == hooks_in(web) != set()
    assert json.loads((pkg / ".claude" / "settings.json").read_text())["model"] == "kept", "merged, not replaced"
    assert str(pkg.resolve() / ".claude" / "settings.json") in out["files_written"]
    assert "Claude Code runs a project's hooks only from the directory it starts in" in r.stderr
    assert out["relaunch_command"].startswith(f"cd {pkg.resolve()} && claude --session-id ")

    text = context(hook("session-start", {"session_id": out["child_session_id"], "cwd": str(pkg), "source": "startup"},
                        pkg))
    brief = dest.resolve() / "docs" / "refocus" / f"{out['id']}.md"
    assert f"The full brief is {brief}" in text and brief.is_file(), "a path that exists, from anywhere"


def test_nothing_is_wired_without_project_hooks_or_at_the_root(tmp_path):
    src, dest = make_repo(tmp_path / "src"), make_repo(tmp_path / "dest")
    (dest / "pkg").mkdir()
    refocus("init", cwd=dest)  # no --claude: the user wires Claude Code some other way (~/.claude, plugin)
    refocus("spawn", dest / "pkg", "--slug", "a", "--reason", "r", "--done-when", "d", cwd=src)
    assert not (dest / "pkg" / ".claude").exists()
    refocus("init", "--claude", cwd=dest)
    before = (dest / ".claude" / "settings.json").read_text()
    refocus("spawn", dest, "--slug", "b", "--reason", "r", "--done-when", "d", cwd=src)
    assert (dest / ".claude" / "settings.json").read_text() == before and not (dest / "pkg" / ".claude").exists()


def test_a_settings_file_that_cannot_take_the_hooks_refuses_before_any_write(tmp_path):
    src, dest = make_repo(tmp_path / "src"), make_repo(tmp_path / "dest")
    (dest / "pkg" / ".claude").mkdir(parents=True)
    (dest / "pkg" / ".claude" / "settings.json").write_text("{not json")
    refocus("init", "--claude", cwd=dest)
    r = refocus("spawn", dest / "pkg", "--slug", "a", "--reason", "r", "--done-when", "d", cwd=src, check=False)
    assert r.returncode == 1 and "settings.json is not valid JSON" in r.stderr, r
    assert not (dest / "docs" / "refocus").exists() or not list((dest / "docs" / "refocus").glob("*.md"))


def test_a_fifo_where_the_settings_go_refuses_instead_of_blocking(tmp_path):
    import os

    src, dest = make_repo(tmp_path / "src"), make_repo(tmp_path / "dest")
    (dest / "pkg" / ".claude").mkdir(parents=True)
    os.mkfifo(dest / "pkg" / ".claude" / "settings.json")
    refocus("init", "--claude", cwd=dest)
    r = refocus("spawn", dest / "pkg", "--slug", "a", "--reason", "r", "--done-when", "d", cwd=src, check=False)
    assert r.returncode == 1 and "is not a regular file" in r.stderr, r
