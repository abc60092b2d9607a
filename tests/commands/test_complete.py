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
