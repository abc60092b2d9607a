"""ops/promote.py: material changes are promoted into docs/context/ once."""

from __future__ import annotations

from gitrefocus.model.result import MaterialChange
from gitrefocus.ops import promote
from gitrefocus.store.workspace import Workspace


def test_promotion_never_duplicates(spawned):
    src, dest, out = spawned
    (dest / "docs/context").mkdir(parents=True)
    (dest / "docs/context/gotchas.md").write_text("# Gotchas\n- old\n")
    ws = Workspace.open(str(dest))
    change = [MaterialChange("gotchas.md", "webhooks arrive out of order")]
    promote.promote(ws, out["id"], change, "2026-04-26")
    promote.promote(ws, out["id"], change, "2026-04-26")
    assert (dest / "docs/context/gotchas.md").read_text().count("webhooks arrive out of order") == 1
