"""`git refocus doctor [--repair]`: a clean repo stays clean; a damaged one is repaired losslessly.

(Writers killed after each of their durable writes, then repaired: tests/store/test_killed_writers.py.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.gitrepo import commit, git, note, refs
from tests.runner import refocus, spawn_args


def doctor(repo, *args):
    r = refocus("doctor", "--json", *args, cwd=repo, check=False)
    return r.returncode, r.json


def kinds(model) -> list[str]:
    return sorted(f["kind"] for f in model["findings"] if f["severity"] == "problem")


def test_fresh_round_trip_is_clean(started):
    src, dest, rid = started
    commit(dest, "work")
    refocus("complete", "--summary", "ok", "--no-material-changes", "n/a", cwd=dest)
    rc, model = doctor(dest)
    assert rc == 0 and model["clean"] and model["findings"] == [], model
    assert refocus("doctor", cwd=dest).stdout.strip() == f"{dest.resolve()}: consistent."


def test_a_repository_that_never_ran_init_is_told_so_and_is_consistent(spawned):
    """A repository spawn wrote into (or out of) that never ran `git refocus init` is not
    damaged: doctor says once that it is not set up, and exits 0 (spawn warned already)."""
    src, dest, _ = spawned
    for repo in (src, dest):
        rc, model = doctor(repo)
        assert rc == 0 and model["clean"], model
        [finding] = [f for f in model["findings"] if f["kind"] == "setup"]
        assert finding["severity"] == "info" and "never ran `git refocus init`" in finding["message"]
        assert not (repo / ".git" / "hooks" / "commit-msg").exists()


def test_an_init_killed_part_way_gets_the_rest_of_what_init_sets_up(repos):
    """An `init` that installed the hook and was killed before the rest: doctor reports
    the notes config, the .gitignore entry and the CLAUDE.md line, and --repair adds them."""
    src, dest = repos
    refocus("init", cwd=src)
    for key in ("notes.displayRef", "notes.rewriteRef", "notes.rewriteMode"):
        git(src, "config", "--unset-all", key)
    (src / ".gitignore").unlink()
    (src / "CLAUDE.md").unlink()
    rc, model = doctor(src)
    assert rc == 1 and kinds(model) == ["config", "config", "config", "setup", "setup"], model
    assert model["repairable"] == 5
    rc, model = doctor(src, "--repair")
    assert rc == 0 and model["repaired"] == 5
    assert "docs/refocus/INDEX.md" in (src / ".gitignore").read_text() and (src / "CLAUDE.md").exists()
    assert doctor(src) == (0, doctor(src)[1]) and doctor(src)[1]["clean"]


def test_a_removed_hook_is_reinstalled(initialized):
    src, dest = initialized
    (dest / ".git" / "hooks" / "commit-msg").unlink()
    rc, model = doctor(dest)
    assert rc == 1 and kinds(model) == ["hook"]
    assert "--repair would install the commit-msg hook" in refocus("doctor", cwd=dest, check=False).stdout
    assert doctor(dest, "--repair")[0] == 0


def test_deliberately_damaged_repo_is_repaired(started, tmp_path):
    src, dest, rid = started
    work = commit(dest, "work with the trailer")
    refocus("complete", "--summary", "ok", "--no-material-changes", "n/a", cwd=dest)
    brief = dest / "docs/refocus" / f"{rid}.md"
    original = brief.read_text()
    ref_before = refs(dest)[f"refs/refocus/{rid}"]

    # 1. the brief file is deleted; 2. a second refocus loses its ref; 3. a third file is left behind
    brief.unlink()
    other = refocus(*spawn_args(dest, "lost-ref"), cwd=src).json["id"]
    other_file = (dest / "docs/refocus" / f"{other}.md").read_text()
    git(dest, "update-ref", "-d", f"refs/refocus/{other}")
    third = refocus(*spawn_args(dest, "behind"), cwd=src).json["id"]
    third_path = dest / "docs/refocus" / f"{third}.md"
    stale = third_path.read_text()
    refocus("start", third, cwd=dest)
    third_path.write_text(stale)  # as if the process died between moving the ref and writing the file
    # 4. linkage notes and audit lines are missing (the note on HEAD); 5. a temporary ref from a killed writer; 6. dangling session entries
    git(dest, "notes", "--ref=refocus", "remove", work)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    git(dest, "update-ref", f"refs/refocus-tmp/notes-{dead.pid}-deadbeef", "HEAD")
    git(dest, "update-ref", f"refs/notes/refocus-tmp-{dead.pid}-0badf00d", "HEAD")
    live = f"refs/refocus-tmp/notes-{os.getpid()}-00000001"
    git(dest, "update-ref", live, "HEAD")
    sessions = dest / ".git/refocus/sessions"
    sessions.mkdir(exist_ok=True)
    (sessions / "11111111-2222-4333-8444-555555555555").write_text(rid + "\n")  # finished
    (sessions / "66666666-2222-4333-8444-555555555555").write_text("2026-01-01-never-abcdef\n")  # unknown
    (dest / ".git/refocus/active").write_text(rid + "\n")
    # 7. the hook is gone
    (dest / ".git/hooks/commit-msg").unlink()

    rc, model = doctor(dest)
    assert rc == 1
    assert kinds(model) == ["active", "file-behind", "file-missing", "hook", "linkage-missing", "note-missing",
                            "note-missing", "ref-missing", "session-map", "session-map", "tmp-ref", "tmp-ref"], \
        model["findings"]
    assert model["repairable"] == model["problems"]
    assert all(not f["repaired"] for f in model["findings"])
    assert not brief.exists(), "without --repair nothing changes"

    rc, model = doctor(dest, "--repair")
    assert rc == 0 and model["clean"], model
    assert brief.read_text() == original and refs(dest)[f"refs/refocus/{rid}"] == ref_before
    assert (dest / "docs/refocus" / f"{other}.md").read_text() == other_file
    rebuilt = refocus("show", other, "--json", cwd=dest).json
    assert rebuilt["status"] == "reserved" and [e["kind"] for e in rebuilt["events"]] == ["spawned"]
    assert "status: in-progress" in third_path.read_text()
    assert f"refocus {rid} linked status=result via=trailer" in note(dest, work)
    assert any(f"refocus {rid} completed role=dest" in note(dest, c) for c in (work, "HEAD")), "the audit line is back"
    left = set(refs(dest, "refs/refocus-tmp/")) | {r for r in refs(dest, "refs/notes/") if "tmp" in r}
    assert left == {live}, "a temporary ref of a live process is left alone"
    assert not any(sessions.iterdir()) and not (dest / ".git/refocus/active").exists()
    assert (dest / ".git/hooks/commit-msg").exists()
    assert doctor(dest)[1]["clean"]


def test_rebuilt_log_follows_the_file_status(started):
    src, dest, rid = started
    refocus("complete", "--summary", "ok", "--no-material-changes", "n/a", cwd=dest)
    text = (dest / "docs/refocus" / f"{rid}.md").read_text()
    for repo in (src, dest):
        git(repo, "update-ref", "-d", f"refs/refocus/{rid}")
    rc, model = doctor(dest, "--repair")
    assert rc == 0, model
    show = refocus("show", rid, "--json", cwd=dest).json
    assert show["status"] == "result" and [e["kind"] for e in show["events"]] == ["spawned", "edited", "edited"]
    assert (dest / "docs/refocus" / f"{rid}.md").read_text() == text, "the file is kept as it is"
    # the counterpart (source) lacked the ref too: doctor carried it over
    assert f"refs/refocus/{rid}" in refs(src)


def test_counterpart_behind_is_carried_over(started):
    src, dest, rid = started
    before = refs(src)[f"refs/refocus/{rid}"]
    git(src, "update-ref", f"refs/refocus/{rid}", f"refs/refocus/{rid}~1")  # source missed the `started` event
    rc, model = doctor(dest)
    assert rc == 1 and kinds(model) == ["counterpart-behind"]
    rc, model = doctor(dest, "--repair")
    assert rc == 0 and refs(src)[f"refs/refocus/{rid}"] == before


def test_illegal_hand_edit_is_reported_not_repaired(started):
    src, dest, rid = started
    path = dest / "docs/refocus" / f"{rid}.md"
    path.write_text(path.read_text().replace("status: in-progress", "status: reserved"))
    rc, model = doctor(dest, "--repair")
    assert rc == 1 and kinds(model) == ["status-edited"]
    (finding,) = [f for f in model["findings"] if f["kind"] == "status-edited"]
    assert not finding["repairable"] and "not a legal transition" in finding["message"]
    assert "status: reserved" in path.read_text(), "the user's file is left for them to fix"
    text = refocus("doctor", cwd=dest, check=False)
    assert text.returncode == 1 and "1 problem(s)." in text.stdout


def test_legal_hand_edit_is_imported(started):
    src, dest, rid = started
    path = dest / "docs/refocus" / f"{rid}.md"
    path.write_text(path.read_text().replace("status: in-progress", "status: abandoned"))
    rc, model = doctor(dest, "--repair")
    repaired = [f["kind"] for f in model["findings"] if f["repaired"]]
    assert rc == 0 and repaired == ["status-edited", "counterpart-behind", "active"], repaired
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "abandoned"
    assert refocus("show", rid, "--json", cwd=src).json["status"] == "abandoned", "the second pass reached the source"


def test_hook_errors_are_reported_as_info(started):
    src, dest, rid = started
    (dest / ".git/refocus/errors.jsonl").write_text('{"at": "2026-01-01T00:00:00Z", "error": "boom", "where": "commit-msg"}\n')
    rc, model = doctor(dest)
    assert rc == 0 and [f["kind"] for f in model["findings"]] == ["errors"] and "boom" in model["findings"][0]["message"]


def test_outdated_or_non_executable_hook_is_replaced(initialized):
    src, dest = initialized
    hook = dest / ".git/hooks/commit-msg"
    shipped = hook.read_text()
    version = re.search(r"git-refocus-hook-version: \d+", shipped).group(0)
    hook.write_text(shipped.replace(version, "git-refocus-hook-version: 0"))
    rc, model = doctor(dest)
    assert rc == 1 and kinds(model) == ["hook"] and "older version" in model["findings"][0]["message"]
    assert doctor(dest, "--repair")[0] == 0 and hook.read_text() == shipped
    hook.chmod(0o644)
    assert kinds(doctor(dest)[1]) == ["hook"]
    assert doctor(dest, "--repair")[0] == 0 and os.access(hook, os.X_OK)
    newer = shipped.replace(version, "git-refocus-hook-version: 99")
    hook.write_text(newer)
    assert doctor(dest)[1]["clean"] and hook.read_text() == newer, "a newer hook is never downgraded"
