"""`git refocus complete`: the material-changes rule and --from-json validation."""

from __future__ import annotations

import json

from tests.gitrepo import refs
from tests.runner import refocus


def test_complete_without_material_changes_enumeration_is_refused(spawned):
    src, dest, out = spawned
    refocus("start", out["id"], cwd=dest)
    before = refs(dest)
    r = refocus("complete", "--summary", "x", cwd=dest, check=False)
    assert r.returncode == 1 and "material changes" in r.stderr
    assert refs(dest) == before
    ok = refocus("complete", "--summary", "x", "--no-material-changes", "investigation only", "--json", cwd=dest).json
    assert ok["status"] == "result"
    assert "N/A — investigation only" in (dest / "docs/refocus" / f"{out['id']}.md").read_text()


def test_result_json_validation(spawned, tmp_path):
    src, dest, out = spawned
    refocus("start", out["id"], cwd=dest)
    before = refs(dest)
    cases = {
        "missing.json": ({"summary": "x", "artifacts": []}, "missing required field 'status'"),
        "status.json": ({"status": "great", "summary": "x", "artifacts": []}, "unknown status 'great'"),
        "arts.json": ({"status": "completed", "summary": "x", "artifacts": "a"}, "'artifacts' must be a list"),
        "nojson.json": ("{not json", "not valid JSON"),
    }
    for name, (obj, needle) in cases.items():
        path = tmp_path / name
        path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
        r = refocus("complete", "--from-json", path, "--no-material-changes", "n/a", cwd=dest, check=False)
        assert r.returncode == 1 and needle in r.stderr, (name, r)
    assert refs(dest) == before
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"status": "partial", "summary": "half done", "artifacts": [{"path": "a.md", "summary": "A"}],
                                "metadata": {"session_id": "s"}, "errors": ["e1"], "next_steps": "finish",
                                "material_changes": [{"file": "conventions.md", "summary": "use kebab ids"}]}))
    r = refocus("complete", "--from-json", good, "--json", cwd=dest).json
    assert r["status"] == "blocked" and r["result"]["return_status"] == "partial"
    assert (dest / "docs/context/conventions.md").exists()


def test_the_child_is_told_to_commit_its_brief_result_and_promoted_context(started):
    src, dest, rid = started
    r = refocus("complete", "--summary", "done", "--material-change", "architecture.md=two-phase commit", cwd=dest)
    assert "commit the brief, its result and the promoted context with the work: git add" in r.stderr
    assert f"docs/refocus/{rid}.md" in r.stderr and "docs/context/architecture.md" in r.stderr
    assert "(or complete with --commit)" in r.stderr


def test_complete_commit_leaves_nothing_of_the_round_trip_untracked(initialized):
    from tests.gitrepo import git
    from tests.runner import spawn_args

    src, dest = initialized
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "set up")
    rid = refocus(*spawn_args(dest), "--commit", cwd=src).json["id"]
    refocus("start", rid, cwd=dest)
    r = refocus("complete", "--summary", "done", "--dod", "1", "--dod", "2", "--material-change",
                "architecture.md=two-phase commit", "--commit", cwd=dest)
    assert "commit the brief" not in r.stderr
    assert git(dest, "status", "--porcelain", "--untracked-files=all", "--", "docs").strip() == "", \
        "the brief, its result and the promoted context are committed"


def test_from_json_reads_dod_as_the_flags_do_and_help_names_every_status(started, tmp_path):
    src, dest, rid = started
    obj = tmp_path / "result.json"
    obj.write_text(json.dumps({"status": "completed", "summary": "Wrote it.", "artifacts": [],
                               "dod": [1], "dod_unmet": ["2=review is next week"],
                               "material_changes": "N/A — docs only"}))
    r = refocus("complete", "--from-json", obj, "--json", cwd=dest)
    dod = r.json["result"]["dod"]
    assert [(d["met"], d["note"]) for d in dod] == [(True, None), (False, "not met: review is next week")], dod
    assert not r.json["warnings"], "every criterion was stated"
    text = " ".join(refocus("complete", "--help", cwd=dest).stdout.split())
    assert "failed and partial, both recorded as blocked" in text and "docs/using.md" in text
    assert "recorded as not stated" in text, "the help says what completed without --dod records"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"status": "completed", "summary": "x", "artifacts": [], "dod": [True]}))
    assert "'dod' must be a list" in refocus("complete", rid, "--from-json", bad, cwd=dest, check=False).stderr
