"""The session-start hook works in proportion to what it shows (docs/ARCHITECTURE.md): of many
open refocuses, only the advisories it prints are written (their relaunch commands, places)."""

from __future__ import annotations

import json

from tests.runner import refocus, spawn_args


def test_only_the_advisories_shown_are_written(wired, monkeypatch):
    src, dest = wired
    for n in range(12):
        refocus(*spawn_args(dest, f"open-{n}"), cwd=src)
    from gitrefocus.claude import session_start
    from gitrefocus.ops import places

    written = []
    real = places.relaunch

    def counting(ws, state, **kw):
        written.append(state.id)
        return real(ws, state, **kw)

    monkeypatch.setattr(places, "relaunch", counting)
    monkeypatch.chdir(dest)
    reply = session_start.handle({"session_id": "a-stranger", "cwd": str(dest), "source": "startup"}, env={})
    context = json.loads(reply.text)["hookSpecificOutput"]["additionalContext"]
    shown = context.count("Incoming brief ")
    assert shown == 8 and "(up to 4 more: git refocus status)" in context, context
    assert len(written) == shown, "a relaunch command is written only for an advisory shown"


def test_a_start_loads_what_it_shows_not_every_open_refocus(wired, monkeypatch):
    """Forty briefs wait here; the hook shows eight and loads about a chunk of them, not all
    forty (at 100k refocuses a history holds two thousand open ones)."""
    src, dest = wired
    for n in range(40):
        refocus(*spawn_args(dest, f"open-{n}"), cwd=src)
    from gitrefocus.claude import session_start
    from gitrefocus.store import catalog

    loaded: list[str] = []
    real = catalog.Catalog.load_ids

    def counting(self, ids):
        loaded.extend(ids)
        return real(self, ids)

    monkeypatch.setattr(catalog.Catalog, "load_ids", counting)
    monkeypatch.chdir(dest)
    reply = session_start.handle({"session_id": "a-stranger", "cwd": str(dest), "source": "startup"}, env={})
    context = json.loads(reply.text)["hookSpecificOutput"]["additionalContext"]
    assert context.count("Incoming brief ") == 8 and "(up to 32 more: git refocus status)" in context, context
    assert len(loaded) <= 16, f"{len(loaded)} entries loaded to show 8"
