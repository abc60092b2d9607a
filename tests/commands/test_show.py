"""`git refocus show`: by full id, id suffix or slug, in either repo."""

from __future__ import annotations

from tests.runner import refocus


def test_show_by_id_suffix_and_by_slug(spawned):
    src, dest, out = spawned
    rid = out["id"]
    shown = refocus("show", rid[-6:], "--json", cwd=dest).json
    assert shown["id"] == rid and shown["events"][0]["kind"] == "spawned"
    assert shown["brief"].startswith("---\n")
    text = refocus("show", "mcp-standard", cwd=src).stdout
    assert "# Events (outgoing" in text


def test_unknown_id_is_one_clear_error(repos):
    src, _ = repos
    r = refocus("show", "nope", cwd=src, check=False)
    assert r.returncode == 1 and r.stderr == "error: unknown refocus id 'nope' (see `git refocus list`).\n"
