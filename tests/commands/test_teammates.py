"""A refocus handed to a teammate on another machine: A spawns it in its clone of the
destination; B, with only a clone of the destination, syncs, starts, works and completes it
there; A syncs and receives the result. Nothing either side stores names the other's paths."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import commit_files, git, make_repo
from tests.runner import refocus, spawn_args


def machine(root: Path, name: str) -> dict:
    """The environment of one machine: its own HOME and registry (git identity as the tests')."""
    home = root / f"home-{name}"
    (home / ".local/state").mkdir(parents=True)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n[user]\n\tname = Ada Author\n\temail = ada@example.com\n")
    return {"HOME": str(home), "XDG_STATE_HOME": str(home / ".local/state"),
            "XDG_CONFIG_HOME": str(home / ".config"), "GIT_CONFIG_GLOBAL": str(gitconfig)}


def test_a_teammate_completes_on_another_machine_and_the_parent_receives(tmp_path):
    a, b = machine(tmp_path, "a"), machine(tmp_path, "b")
    remotes = {}
    for name in ("src", "dest"):
        remotes[name] = tmp_path / f"{name}.git"
        git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remotes[name]))
    src, dest = make_repo(tmp_path / "a" / "src"), make_repo(tmp_path / "a" / "dest")
    for name, repo in (("src", src), ("dest", dest)):
        git(repo, "remote", "add", "origin", str(remotes[name]))
        git(repo, "push", "-q", "origin", "main")
        refocus("init", cwd=repo, env=a)
    rid = refocus(*spawn_args(dest, "teamwork"), cwd=src, env=a).json["id"]
    for repo in (src, dest):
        refocus("sync", "--yes", cwd=repo, env=a)

    theirs = tmp_path / "b" / "dest"
    git(tmp_path, "clone", "-q", str(remotes["dest"]), str(theirs))
    refocus("init", cwd=theirs, env=b)
    refocus("sync", "--yes", cwd=theirs, env=b)
    listed = refocus("list", cwd=theirs, env=b).stdout
    assert rid in listed and "not on this machine" in listed, listed
    refocus("start", rid, cwd=theirs, env=b)
    brief = theirs / "docs" / "refocus" / f"{rid}.md"
    assert brief.exists(), "the teammate's clone works from the brief, written from the event log"
    commit_files(theirs, "teammate's work", {"work.txt": "done\n"})
    done = refocus("complete", rid, "--summary", "Done by the teammate.", "--dod", "1", "--dod", "2",
                   "--no-material-changes", "n/a", "--json", cwd=theirs, env=b).json
    assert done["status"] == "result"
    refocus("sync", cwd=theirs, env=b)
    for text in (brief.read_text(), git(theirs, "log", "-p", f"refs/refocus/{rid}"),
                 git(theirs, "log", "--notes=refocus", "--format=%N")):
        assert str(tmp_path / "a") not in text, "nothing of machine A's paths reached shared data"

    synced = refocus("sync", "--json", cwd=dest, env=a)
    assert "lost to the remote" not in synced.stderr, "a fast-forward loses nothing recorded here"
    got = refocus("receive", "--json", cwd=src, env=a).json
    assert [(r["id"], r["result"]["summary"]) for r in got["received"]] == [(rid, "Done by the teammate.")]
    assert refocus("receive", "--json", cwd=src, env=a).json["received"] == [], "received once"
    for repo, env in ((src, a), (dest, a), (theirs, b)):
        assert refocus("doctor", "--json", cwd=repo, env=env, check=False).json["clean"], repo
