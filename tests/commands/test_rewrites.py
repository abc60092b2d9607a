"""Linkage that survives history rewrites: the post-rewrite hook (amend, rebase), squash
commits naming several refocuses in their body, `link --detect` after a forge's squash and
rebase merges (here and from a CI clone given the merged branch's head), and doctor."""

from __future__ import annotations

import json
import shlex

import pytest

from gitrefocus.model import note_line
from tests.gitrepo import _clock, env, git, note
from tests.runner import refocus, spawn_args


def dated(**extra) -> dict:
    """An environment whose commits are a minute later than the last ones (as real commits are)."""
    _clock[0] += 60
    when = f"@{_clock[0]} +0000"
    return env(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when, **extra)


def work(repo, message: str, files: dict[str, str], rid: str | None = None, *, verify: bool = True) -> str:
    """Commit ``files``; ``rid``: as a session of that refocus (the hook adds its trailer)."""
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    extra = {"SESSION_REFOCUS_ID": rid} if rid else {}
    git(repo, "commit", "-q", "-m", message, *([] if verify else ["--no-verify"]), env=dated(**extra))
    return git(repo, "rev-parse", "HEAD").strip()


def linked_subjects(repo, rid) -> dict[str, list[str]]:
    return {c["subject"]: c["via"] for c in refocus("log", rid, "--json", cwd=repo).json["commits"]}


def lines(repo, rev) -> list[note_line.NoteRecord]:
    return [r for r in note_line.parse(note(repo, rev)) if r.event == "linked"]


@pytest.fixture
def merged(started, tmp_path):
    """Four feature branches of two refocuses, pushed to a bare "forge" and merged there by a
    worker without git-refocus: squashed with every trailer in the body (A), squashed with none
    (B), squashed and reworded (C), rebased with its messages cut to the subject (D); the forge
    deletes the branches (keeping B's head as refs/pull/2/head) and dest fast-forwards."""
    src, dest, rid = started
    rid2 = refocus(*spawn_args(dest, "second"), cwd=src).json["id"]
    forge = tmp_path / "forge.git"
    git(tmp_path, "init", "-q", "--bare", str(forge))
    git(dest, "remote", "add", "origin", str(forge))
    git(dest, "push", "-q", "origin", "main")
    plan = {"featA": [("a1", {"a.txt": "a\n"}, rid), ("a2", {"a2.txt": "a2\n"}, rid2)],
            "featB": [("b1", {"b.txt": "b\n"}, rid)],
            "featC": [("c1", {"c.txt": "c1\n"}, rid2), ("c2", {"c.txt": "c1\nc2\n"}, rid)],
            "featD": [("d1", {"d.txt": "d\n"}, rid), ("d2", {"d2.txt": "d2\n"}, rid2)]}
    made = {}
    for branch, commits in plan.items():
        git(dest, "switch", "-q", "-c", branch, "main")
        for subject, files, who in commits:
            made[subject] = work(dest, subject, files, who)
        git(dest, "push", "-q", "origin", branch)
    git(dest, "switch", "-q", "main")
    for subject in made:
        assert git(dest, "log", "-1", "--format=%(trailers:key=Refocus-Id,valueonly)", made[subject]).strip()

    worker = tmp_path / "worker"
    git(tmp_path, "clone", "-q", str(forge), str(worker))
    w = worker
    work(w, "hotfix on main", {"u.txt": "u\n"}, verify=False)
    git(w, "merge", "-q", "--squash", "origin/featA")
    git(w, "commit", "-q", "--no-verify", "-m",
        f"Feature A (#1)\n\n* a1\n\nRefocus-Id: {rid}\n\n* a2\n\nRefocus-Id: {rid2}\n", env=dated())
    git(w, "merge", "-q", "--squash", "origin/featB")
    git(w, "commit", "-q", "--no-verify", "-m", "Feature B (#2)", env=dated())
    git(w, "merge", "-q", "--squash", "origin/featC")
    git(w, "commit", "-q", "--no-verify", "-m", "Feature C, as the reviewer put it (#3)\n\nNo trailer here.\n",
        env=dated())
    git(w, "switch", "-q", "-c", "d", "origin/featD")
    git(w, "rebase", "-q", "main", "-x", 'git commit -q --amend --no-verify -m "$(git log -1 --format=%s) (rebased)"',
        env=dated())
    git(w, "switch", "-q", "main")
    git(w, "merge", "-q", "--ff-only", "d")
    git(w, "push", "-q", "origin", "main", "origin/featB:refs/pull/2/head")
    git(w, "push", "-q", "origin", "--delete", *plan)

    git(dest, "fetch", "-q", "--prune", "origin")
    git(dest, "merge", "-q", "--ff-only", "origin/main")
    git(dest, "branch", "-q", "-D", *plan)
    return {"src": src, "dest": dest, "rid": rid, "rid2": rid2, "forge": forge, "made": made, "tmp": tmp_path}


def test_squash_and_rebase_merges_are_linked_by_detect(merged):
    dest, rid, rid2 = merged["dest"], merged["rid"], merged["rid2"]
    # the squash that lists both trailers in its body is linked to both already
    assert linked_subjects(dest, rid) == {"Feature A (#1)": ["trailer"]}
    assert linked_subjects(dest, rid2) == {"Feature A (#1)": ["trailer"]}

    dry = refocus("link", "--detect", "--dry-run", "--json", cwd=dest).json
    assert dry["kind"] == "link-detect" and dry["dry_run"] and dry["unmatched"] == []
    found = {m["subject"]: (sorted(m["ids"]), m["how"], len(m["replaces"])) for m in dry["matches"]}
    assert found == {
        "Feature B (#2)": ([rid], "rebased", 1),  # one commit squashed: its own patch
        "Feature C, as the reviewer put it (#3)": (sorted([rid, rid2]), "squashed", 2),
        "d1 (rebased)": ([rid], "rebased", 1),
        "d2 (rebased)": ([rid2], "rebased", 1),
    }
    assert linked_subjects(dest, rid) == {"Feature A (#1)": ["trailer"]}, "a dry run changes nothing"

    text = refocus("link", "--detect", cwd=dest).stdout
    assert "squashed" in text and f"linked to {rid}" in text
    assert linked_subjects(dest, rid) == {"Feature A (#1)": ["trailer"], "Feature B (#2)": ["note"],
                                          "Feature C, as the reviewer put it (#3)": ["note"],
                                          "d1 (rebased)": ["note"]}
    assert linked_subjects(dest, rid2) == {"Feature A (#1)": ["trailer"],
                                           "Feature C, as the reviewer put it (#3)": ["note"],
                                           "d2 (rebased)": ["note"]}
    c = git(dest, "log", "-1", "--format=%H", "--grep=Feature C").strip()
    made = merged["made"]
    assert {(r.refocus_id, r.fields["via"], r.fields["replaces"]) for r in lines(dest, c)} == {
        (rid, "detect", f"{made['c1'][:12]},{made['c2'][:12]}"),
        (rid2, "detect", f"{made['c1'][:12]},{made['c2'][:12]}")}
    events = git(dest, "log", "--format=%s", f"refs/refocus/{rid}")
    assert f"refocus({rid}): linked" in events
    again = refocus("link", "--detect", "--json", cwd=dest).json
    assert again["matches"] == [], "a second run links nothing twice"
    assert "hotfix on main" not in linked_subjects(dest, rid) | linked_subjects(dest, rid2)


def test_doctor_reports_the_unlinked_replacement_and_repairs_it(merged):
    dest, rid = merged["dest"], merged["rid"]
    r = refocus("doctor", "--json", cwd=dest, check=False)
    kinds = {(f["kind"], f["id"]) for f in r.json["findings"]}
    assert r.returncode == 1 and ("linked-rewritten", rid) in kinds and ("linked-rewritten", merged["rid2"]) in kinds
    refocus("doctor", "--repair", cwd=dest, check=False)
    assert "Feature B (#2)" in linked_subjects(dest, rid)
    after = refocus("doctor", "--json", cwd=dest, check=False).json
    assert not [f for f in after["findings"] if f["kind"].startswith("linked-")]
    # a lost note line of a detected link is re-created from the event log, replaces and all
    b = git(dest, "log", "-1", "--format=%H", "--grep=Feature B").strip()
    before = note(dest, b)
    git(dest, "notes", "--ref=refocus", "remove", b)
    refocus("doctor", "--repair", cwd=dest, check=False)
    assert [x for x in note(dest, b).splitlines() if "via=detect" in x] == \
        [x for x in before.splitlines() if "via=detect" in x]


def test_a_ci_clone_relinks_from_the_merged_branch_head(merged):
    """The recipe of docs/rewrites-and-privacy.md: a clone without the branch's reflog, given its head."""
    dest, rid, tmp = merged["dest"], merged["rid"], merged["tmp"]
    refocus("sync", "origin", cwd=dest)
    ci = tmp / "ci"
    git(tmp, "clone", "-q", str(merged["forge"]), str(ci))
    refocus("init", cwd=ci)
    refocus("sync", "origin", cwd=ci)
    git(ci, "fetch", "-q", "origin", "refs/pull/2/head")
    nothing = refocus("link", "--detect", "--json", cwd=ci).json
    assert nothing["matches"] == [], "without the branch's head, a fresh clone has nothing gone"
    out = refocus("link", "--detect", "--from", "FETCH_HEAD", "origin/main", "--json", cwd=ci).json
    assert [(m["subject"], m["ids"]) for m in out["matches"]] == [("Feature B (#2)", [rid])]
    refocus("sync", "origin", cwd=ci)
    refocus("sync", "origin", cwd=dest)
    assert linked_subjects(dest, rid).get("Feature B (#2)") == ["note"]
    bad = refocus("link", "--detect", "--from", "no-such-head", cwd=ci, check=False)
    assert bad.returncode == 1 and "unknown revision 'no-such-head'" in bad.stderr


def test_post_rewrite_keeps_the_link_of_a_reworded_amend(started):
    src, dest, rid = started
    old = work(dest, "first try", {"x.txt": "x\n"})
    assert rid in git(dest, "log", "-1", "--format=%B")
    done = git(dest, "commit", "--amend", "-q", "--no-verify", "-m", "reworded without the trailer", check=False)
    new = git(dest, "rev-parse", "HEAD").strip()
    assert rid not in git(dest, "log", "-1", "--format=%B")
    assert linked_subjects(dest, rid) == {"reworded without the trailer": ["note"]}, done
    assert [(r.refocus_id, r.fields["via"], r.fields["replaces"]) for r in lines(dest, new)] == [
        (rid, "rewrite", old[:12])]
    kept = [json.loads(x) for x in (dest / ".git" / "refocus" / "rewritten.jsonl").read_text().splitlines()]
    assert [(k["kind"], k["old"], k["new"], k["ids"]) for k in kept] == [("amend", old, new, [rid])]
    assert "linked-gone" not in refocus("doctor", "--json", cwd=dest, check=False).stdout


def test_post_rewrite_after_a_rebase_records_and_carries_nothing_twice(started):
    src, dest, rid = started
    git(dest, "switch", "-q", "-c", "topic")
    first = work(dest, "topic 1", {"t.txt": "1\n"})
    work(dest, "topic 2", {"t.txt": "1\n2\n"})
    git(dest, "switch", "-q", "main")
    work(dest, "main moves", {"m.txt": "m\n"}, verify=False)
    git(dest, "rebase", "-q", "main", "topic", env=dated())
    kept = [json.loads(x) for x in (dest / ".git" / "refocus" / "rewritten.jsonl").read_text().splitlines()]
    assert [k["kind"] for k in kept] == ["rebase", "rebase"] and kept[0]["old"] == first
    assert all(not lines(dest, k["new"]) for k in kept), "the trailers survived: nothing to carry"
    assert set(linked_subjects(dest, rid)) == {"topic 1", "topic 2"}
    doctor = refocus("doctor", "--json", cwd=dest, check=False).json
    assert not [f for f in doctor["findings"] if f["kind"].startswith("linked-")]


def test_a_post_rewrite_hook_already_there_is_chained_and_gets_the_input(tmp_path):
    from tests.gitrepo import make_repo

    repo = make_repo(tmp_path / "r")
    theirs = repo / ".git" / "hooks" / "post-rewrite"
    theirs.write_text(f"#!/bin/sh\ncat > {shlex.quote(str(tmp_path / 'seen'))}\n")
    theirs.chmod(0o755)
    out = refocus("init", "--json", cwd=repo).json
    assert (repo / ".git" / "hooks" / "post-rewrite.pre-refocus").exists()
    assert any("post-rewrite.pre-refocus" in u for u in out["undo"])
    old = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "commit", "--amend", "-q", "--no-verify", "-m", "amended", env=dated())
    new = git(repo, "rev-parse", "HEAD").strip()
    assert (tmp_path / "seen").read_text().split()[:2] == [old, new]


def test_link_usage_errors(started):
    src, dest, rid = started
    r = refocus("link", "--from", "HEAD", rid, "HEAD", cwd=dest, check=False)
    assert r.returncode == 1 and "--from goes with --detect" in r.stderr
    r = refocus("link", "--detect", "a..b", "c", cwd=dest, check=False)
    assert r.returncode == 1 and "at most one RANGE" in r.stderr
    r = refocus("link", "--detect", "no-such..HEAD", cwd=dest, check=False)
    assert r.returncode == 1 and "unknown revision" in r.stderr


def test_init_undo_takes_back_the_rewrite_and_push_hooks(tmp_path):
    from tests.gitrepo import make_repo

    repo = make_repo(tmp_path / "r")
    hooks = repo / ".git" / "hooks"
    theirs = hooks / "pre-push"
    theirs.write_text("#!/bin/sh\nexit 0\n")
    theirs.chmod(0o755)
    refocus("init", cwd=repo)
    assert (hooks / "post-rewrite").exists() and (hooks / "pre-push.pre-refocus").exists()
    refocus("init", "--undo", cwd=repo)
    assert not (hooks / "post-rewrite").exists() and not (hooks / "pre-push.pre-refocus").exists()
    assert theirs.read_text() == "#!/bin/sh\nexit 0\n", "the pre-push hook that ran before is back"
