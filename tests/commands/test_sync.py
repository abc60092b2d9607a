"""`git refocus sync`: two clones and a bare remote converge, nothing lost, rejections retried."""

from __future__ import annotations

import pytest

from gitrefocus.model import note_line
from tests.gitrepo import commit, event_kinds, git, make_repo, refs
from tests.runner import refocus, spawn_args


def event_ids(repo, rid) -> list[str]:
    import json

    out = git(repo, "log", "--first-parent", "--reverse", "--format=%H %P", f"refs/refocus/{rid}")
    ids = []
    for line in out.splitlines():
        oid, *parents = line.split()
        if len(parents) > 1:
            continue  # a merge marker carries no event
        ids.append(json.loads(git(repo, "show", f"{oid}:event.json"))["event_id"])
    return ids


def note_lines(repo) -> set[str]:
    """Every line of every note in refs/notes/refocus (whether or not its commit is here)."""
    listing = git(repo, "notes", "--ref=refocus", "list").split()
    blobs = listing[0::2]
    out = git(repo, "cat-file", "--batch", input="\n".join(blobs) + "\n")
    return {r.format() for r in note_line.parse(out)}


def at(ts: str) -> dict:
    return {"GIT_REFOCUS_NOW": ts}


@pytest.fixture
def world(tmp_path):
    """A bare remote, clone A (with its source repo) and clone B (with another source repo)."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    seed = make_repo(tmp_path / "seed")
    git(seed, "push", "-q", str(remote), "main")
    a, b = tmp_path / "A", tmp_path / "B"
    git(tmp_path, "clone", "-q", str(remote), str(a))
    refocus("init", cwd=a)
    git(a, "add", ".gitignore", "CLAUDE.md")
    commit(a, "take part in refocus")
    git(a, "push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", str(remote), str(b))
    refocus("init", cwd=b)
    return {"remote": remote, "A": a, "B": b, "srcA": make_repo(tmp_path / "srcA"), "srcB": make_repo(tmp_path / "srcB")}


def share_brief(w, rid):
    """A commits and pushes the brief file, both clones sync, B pulls it."""
    a, b = w["A"], w["B"]
    git(a, "add", f"docs/refocus/{rid}.md")
    commit(a, f"brief {rid}")
    git(a, "push", "-q", "origin", "main")
    refocus("sync", cwd=a)
    git(b, "pull", "-q", "--no-rebase", "origin", "main")
    refocus("sync", cwd=b)


def assert_converged(w, ids):
    for rid in ids:
        tips = {name: refs(w[name]).get(f"refs/refocus/{rid}") for name in ("A", "B")}
        tips["remote"] = refs(w["remote"]).get(f"refs/refocus/{rid}")
        assert len(set(tips.values())) == 1 and None not in tips.values(), (rid, tips)
    notes_tips = {name: refs(w[name]).get("refs/notes/refocus") for name in ("A", "B")}
    notes_tips["remote"] = refs(w["remote"]).get("refs/notes/refocus")
    assert len(set(notes_tips.values())) == 1, notes_tips


def test_two_clones_converge_same_and_different_ids(world):
    w = world
    a, b = w["A"], w["B"]
    x = refocus(*spawn_args(a, "shared"), cwd=w["srcA"], env=at("2026-05-01T09:00:00Z")).json["id"]
    share_brief(w, x)
    assert refs(b)[f"refs/refocus/{x}"] == refs(a)[f"refs/refocus/{x}"]
    # both write without syncing: B starts X (and works), A links one of its commits to X; each spawns its own
    refocus("start", x, cwd=b, env=at("2026-05-01T10:00:00Z"))
    worked = commit(b, "work on the shared refocus")
    a_commit = commit(a, "A's related change")
    refocus("link", x, a_commit, cwd=a, env=at("2026-05-01T09:30:00Z"))
    y = refocus(*spawn_args(b, "only-b"), cwd=w["srcB"], env=at("2026-05-01T11:00:00Z")).json["id"]
    z = refocus(*spawn_args(a, "only-a"), cwd=w["srcA"], env=at("2026-05-01T08:00:00Z")).json["id"]
    before = {rid: set(event_ids(a, rid)) | set(event_ids(b, rid)) for rid in (x,)}
    lines_before = note_lines(a) | note_lines(b)

    first = refocus("sync", "--json", cwd=b).json
    assert sorted(first["pushed"]) == sorted([x, y]) and first["notes_pushed"]
    second = refocus("sync", "--json", cwd=a).json
    assert second["merged"] == [x] and second["created"] == [y], second
    assert sorted(second["pushed"]) == sorted([x, z])
    third = refocus("sync", "--json", cwd=b).json
    assert third["fast_forwarded"] == [x] and third["created"] == [z] and third["pushed"] == []
    again = refocus("sync", "--json", cwd=a).json
    assert (again["created"], again["merged"], again["pushed"], again["notes_pushed"]) == ([], [], [], False)

    assert_converged(w, [x, y, z])
    assert set(event_ids(a, x)) == before[x] and len(event_ids(a, x)) == len(before[x]), "union of events, none lost"
    assert event_kinds(a, x) == ["spawned", "linked", "started"], "deterministic order by time"
    assert lines_before <= note_lines(a) and note_lines(a) == note_lines(b), "union of note lines"
    show = refocus("show", x, "--json", cwd=a).json
    assert show["status"] == "in-progress"
    assert "status: in-progress" in (a / "docs/refocus" / f"{x}.md").read_text(), "A's brief file caught up"
    log = refocus("log", x, "--json", cwd=b).json
    git(b, "fetch", "-q", "origin")
    assert worked in [c["oid"] for c in log["commits"]]
    assert "refocus" not in git(a, "branch", "-r") + git(b, "branch", "-r"), "tracking refs stay out of refs/remotes/"
    for clone in (a, b):
        model = refocus("doctor", "--json", cwd=clone, check=False).json
        assert model["clean"], model["findings"]


def test_interleaved_events_merge_into_the_same_log_on_both_sides(world):
    """A's event is older than B's but reaches the remote later: both sides end with
    the same, time-ordered log, and the push stays a fast-forward (merge marker)."""
    w = world
    a, b = w["A"], w["B"]
    x = refocus(*spawn_args(a, "interleave"), cwd=w["srcA"], env=at("2026-05-01T09:00:00Z")).json["id"]
    share_brief(w, x)
    refocus("link", x, commit(b, "b1"), cwd=b, env=at("2026-05-01T12:00:00Z"))
    refocus("link", x, commit(a, "a1"), cwd=a, env=at("2026-05-01T10:00:00Z"))
    refocus("link", x, commit(b, "b2"), cwd=b, env=at("2026-05-01T13:00:00Z"))
    refocus("link", x, commit(a, "a2"), cwd=a, env=at("2026-05-01T11:00:00Z"))
    refocus("sync", cwd=b)
    remote_before = refs(w["remote"])[f"refs/refocus/{x}"]
    out = refocus("sync", "--json", cwd=a).json
    assert out["merged"] == [x] and out["rounds"] == 1
    tip = refs(w["remote"])[f"refs/refocus/{x}"]
    git(w["remote"], "merge-base", "--is-ancestor", remote_before, tip)  # a fast-forward on the remote
    refocus("sync", cwd=b)
    assert_converged(w, [x])
    assert event_kinds(b, x) == ["spawned", "linked", "linked", "linked", "linked"]
    times = git(b, "log", "--first-parent", "--reverse", "--no-merges", "--format=%at", f"refs/refocus/{x}").split()
    assert times == sorted(times)


def test_concurrent_push_rejection_is_retried(world, tmp_path):
    w = world
    a, b = w["A"], w["B"]
    x = refocus(*spawn_args(a, "race"), cwd=w["srcA"]).json["id"]
    share_brief(w, x)
    # B's event reaches the remote *while* A pushes: the remote's pre-receive hook moves the ref first
    refocus("link", x, commit(b, "b's change"), cwd=b)
    git(b, "push", "-q", "origin", f"refs/refocus/{x}:refs/pending/{x}")
    hook = w["remote"] / "hooks" / "pre-receive"
    flag = tmp_path / "raced"
    hook.write_text(f"#!/bin/sh\nif [ ! -e {flag} ]; then touch {flag}; unset GIT_QUARANTINE_PATH; "
                    f"git update-ref refs/refocus/{x} refs/pending/{x} || exit 1; fi\nexit 0\n")
    hook.chmod(0o755)
    refocus("link", x, commit(a, "a's change"), cwd=a)
    # hooks of child git processes are disabled: a failing pre-push hook in A does not stop sync
    (a / ".git" / "hooks" / "pre-push").write_text("#!/bin/sh\nexit 1\n")
    (a / ".git" / "hooks" / "pre-push").chmod(0o755)
    out = refocus("sync", "--json", cwd=a).json
    assert flag.exists() and out["rounds"] == 2, out
    assert x in out["merged"] and x in out["pushed"]
    refocus("sync", cwd=b)
    refocus("sync", cwd=a)
    assert_converged(w, [x])
    assert event_kinds(a, x).count("linked") == 2, "both links survived the race"


def test_parallel_syncs_from_both_clones_converge(world):
    import subprocess
    import sys

    w = world
    a, b = w["A"], w["B"]
    x = refocus(*spawn_args(a, "parallel"), cwd=w["srcA"]).json["id"]
    share_brief(w, x)
    for i in range(3):
        refocus("link", x, commit(a, f"a{i}"), cwd=a)
        refocus("link", x, commit(b, f"b{i}"), cwd=b)
    procs = [subprocess.Popen([sys.executable, "-m", "gitrefocus", "sync", "--json"], cwd=c,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in (a, b)]
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    refocus("sync", cwd=a)
    refocus("sync", cwd=b)
    assert_converged(w, [x])
    assert event_kinds(a, x).count("linked") == 6


def test_sync_errors_are_one_sentence(tmp_path):
    repo = make_repo(tmp_path / "lonely")
    r = refocus("sync", cwd=repo, check=False)
    assert r.returncode == 1 and r.stderr.strip() == (
        "error: this repository has no remote to sync with; add one with `git remote add NAME URL`.")
    r = refocus("sync", "nope", cwd=repo, check=False)
    assert r.returncode == 1 and "no remote named 'nope'" in r.stderr
    git(repo, "remote", "add", "gone", str(tmp_path / "missing.git"))
    r = refocus("sync", cwd=repo, check=False)
    assert r.returncode == 1 and r.stderr.startswith("error: fetching from gone failed:") and "Traceback" not in r.stderr


def test_progress_goes_to_stderr(world):
    w = world
    x = refocus(*spawn_args(w["A"], "progress"), cwd=w["srcA"]).json["id"]
    r = refocus("sync", "--progress", cwd=w["A"])
    assert "fetching refocus refs and notes from origin" in r.stderr and "pushing" in r.stderr
    assert r.stdout.startswith("synced with origin:") and x
    quiet = refocus("sync", cwd=w["A"])
    assert quiet.stderr == ""


def test_a_hostile_remote_ref_is_skipped_with_a_warning(world):
    w = world
    a, b = w["A"], w["B"]
    x = refocus(*spawn_args(a, "mine"), cwd=w["srcA"]).json["id"]
    bogus = "2026-01-01-not-an-event-log-abcdef"
    git(b, "push", "-q", "origin", f"HEAD:refs/refocus/{bogus}", f"HEAD:refs/refocus/{x}")
    r = refocus("sync", "--json", cwd=a)
    assert r.json["rounds"] == 1 and r.json["created"] == [], r.json
    assert f"refs/refocus/{bogus} is not a refocus event log" in r.stderr
    assert f"refs/refocus/{x} is not a refocus event log" in r.stderr
    assert f"refs/refocus/{bogus}" not in refs(a), "nothing from the bad ref reaches the live refs"
    assert refs(a)[f"refs/refocus/{x}"] != refs(w["remote"])[f"refs/refocus/{x}"], "our log is kept, not replaced"


def test_a_sync_with_nothing_to_do_loads_no_libgit2_and_one_with_work_still_merges(world):
    """A no-op sync compares the remote's refs and notes with ours through git alone (libgit2
    costs more to load than the whole comparison); the first ref that differs loads it."""
    import os
    import subprocess
    import sys

    from tests.runner import ROOT

    w = world
    a, b = w["A"], w["B"]
    x = refocus(*spawn_args(a, "quiet"), cwd=w["srcA"]).json["id"]
    refocus("sync", cwd=a)
    refocus("sync", cwd=b)
    probe = ("import sys; sys.argv = ['git-refocus'] + sys.argv[1:]\n"
             "from gitrefocus.entry import main\n"
             "try:\n    code = main()\nfinally:\n    print('pygit2' in sys.modules, file=sys.stderr)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    trace = w["remote"].parent / "trace"

    def sync(repo):
        trace.unlink(missing_ok=True)
        proc = subprocess.run([sys.executable, "-c", probe, "sync", "--json"], cwd=repo,
                              env=dict(env, GIT_TRACE=str(trace)), capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return __import__("json").loads(proc.stdout), proc.stderr.strip().splitlines()[-1]

    quiet, loaded = sync(b)
    assert (quiet["created"], quiet["merged"], quiet["pushed"], quiet["notes_pushed"]) == ([], [], [], False)
    assert loaded == "False", "a no-op sync loaded libgit2"
    # nothing merged, so nothing moved: the live refs are listed once, for merging and pushing alike
    listings = [line for line in trace.read_text().splitlines() if "for-each-ref" in line and "refs/refocus/" in line]
    assert sum(line.rstrip().endswith(" refs/refocus/") for line in listings) == 1, listings
    refocus("start", x, cwd=b)
    refocus("sync", cwd=b)
    busy, loaded = sync(a)
    assert busy["fast_forwarded"] == [x] and loaded == "True"
    assert_converged(w, [x])


def test_a_local_transition_that_lost_to_the_remote_is_said(world):
    """Clone A completes while clone B abandons the same refocus: B's sync keeps both
    events, the remote's completion (first) stands, and B is told its abandon lost."""
    a, b = world["A"], world["B"]
    git(world["srcA"], "config", "refocus.global", "false")  # B's machine cannot reach the source: as on two machines
    rid = refocus(*spawn_args(a), cwd=world["srcA"]).json["id"]
    refocus("start", rid, cwd=a)
    refocus("sync", cwd=a)
    refocus("sync", cwd=b)
    refocus("complete", rid, "--summary", "done here", "--no-material-changes", "none", "--dod", "1", "--dod", "2",
            cwd=a)
    refocus("sync", cwd=a)
    refocus("abandon", rid, "--reason", "not needed after all", cwd=b)
    r = refocus("sync", "--json", cwd=b)
    lost = [w for w in r.json["warnings"] if "lost to the remote" in w]
    assert len(lost) == 1 and lost[0].startswith(f"{rid}: the abandoned recorded here lost to the remote's"), \
        r.json["warnings"]
    assert refocus("show", rid, "--json", cwd=b).json["status"] == "result"
    assert refocus("sync", "--json", cwd=b).json["warnings"] == [], "said once, on the sync that merged it"
