"""Inputs as users type them: ids by any unique prefix or slug, slugs from any script,
oversized reasons, pickup of finished work, the demo's output."""

from __future__ import annotations

import pytest

from gitrefocus.model.ids import derive_slug
from tests.runner import refocus, spawn_args


@pytest.mark.parametrize("text,slug", [
    ("Écrire la spécification", "ecrire-la-specification"),
    ("Straße für Ölförderung", "strasse-fur-olforderung"),
    ("Москва проект", "moskva-proekt"),
    ("✨ naïve café", "naive-cafe"),
    ("Ærø søknad", "aero-soknad"),
])
def test_slugs_are_transliterated_not_mangled(text, slug):
    assert derive_slug(text) == slug


def test_spawn_derives_a_transliterated_slug(tmp_path, repos):
    src, _ = repos
    from tests.gitrepo import make_repo

    dest = make_repo(tmp_path / "spécification")
    out = refocus("spawn", dest, "--reason", "Écrire la spécification", "--done-when", "x", "--json", cwd=src).json
    assert "-specification-ecrire-la-specification-" in out["id"], out["id"]


def test_any_unique_prefix_of_an_id_or_slug_names_it(repos):
    src, dest = repos
    a = refocus(*spawn_args(dest, "mcp-standard"), cwd=src).json["id"]
    b = refocus(*spawn_args(dest, "memory-layout"), cwd=src).json["id"]
    assert refocus("show", "mcp", "--json", cwd=src).json["id"] == a, "a slug prefix"
    assert refocus("show", "memory-l", "--json", cwd=src).json["id"] == b
    assert refocus("show", a[:-3], "--json", cwd=src).json["id"] == a, "an id prefix"
    assert refocus("show", a[-6:], "--json", cwd=src).json["id"] == a, "the 6-hex suffix"
    r = refocus("show", "m", cwd=src, check=False)
    assert r.returncode == 1 and "ambiguous" in r.stderr and a in r.stderr and b in r.stderr
    assert refocus("pickup", "memory", cwd=dest).stdout.startswith(f"Refocus {b}")


def test_a_related_id_may_be_a_slug(repos):
    src, dest = repos
    a = refocus(*spawn_args(dest, "mcp-standard"), cwd=src).json["id"]
    out = refocus(*spawn_args(dest, "follow-on", "--related-id", "mcp-std"[:3]), cwd=src).json
    shown = refocus("show", out["id"], "--json", cwd=src).json
    assert a in shown["brief"], shown["brief"][:400]


def test_an_oversized_reason_is_warned_about(repos):
    src, dest = repos
    reason = "word " * 20_000
    out = refocus("spawn", dest, "--slug", "huge", "--reason", reason, "--done-when", "x", "--json", cwd=src).json
    assert any("--reason is 20000 words" in w for w in out["warnings"]), out["warnings"]
    ok = refocus(*spawn_args(dest), cwd=src).json
    assert not any("--reason" in w for w in ok["warnings"])


def test_pickup_of_a_finished_refocus_says_it_is_finished(started):
    src, dest, rid = started
    refocus("complete", rid, "--summary", "done", "--dod", "1", "--no-material-changes", "test", cwd=dest)
    r = refocus("pickup", rid, cwd=dest, check=False)
    assert r.returncode == 1 and r.stdout == ""
    assert f"{rid} is already completed (" in r.stderr and "nothing to pick up" in r.stderr


def test_demo_mentions_keep_and_prints_no_deleted_paths(tmp_path):
    r = refocus("demo", cwd=tmp_path)
    assert "--keep" in r.stdout
    assert "/tmp" not in r.stdout and "refocus-demo-" not in r.stdout, r.stdout
    kept = refocus("demo", "--dir", tmp_path / "kept", cwd=tmp_path)
    assert str(tmp_path / "kept") in kept.stdout
