"""model/brief.py: a brief renders and parses back the same; bad frontmatter is one clear error."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitrefocus.errors import RefocusError
from gitrefocus.model import frontmatter
from gitrefocus.model.brief import Brief, BriefContent, render_body, validate_meta
from tests.model.strategies import text


def _meta(**over):
    sid = str(uuid.uuid4())
    meta = {"id": f"2026-04-26-mcp-standard-{sid[:6]}", "status": "reserved", "child_session_id": sid,
            "spawn_mode": "manual", "spawned_at": "2026-04-26T19:23:00Z", "source_dir": "/src dir/with 'quotes'",
            "dest_dir": "/dest", "slug": "mcp-standard", "done_when": ["a: b", "2026-01-01"]}
    meta.update(over)
    return validate_meta(meta, "t")


@given(st.lists(text, max_size=5), text)
def test_brief_round_trip(items, reason):
    meta = _meta(out_of_scope=items)
    doc = Brief(meta=meta, body=render_body(meta, BriefContent(reason or "r", items)))
    again = Brief.parse(doc.render().encode(), "t")
    assert again.meta == doc.meta and again.body == doc.body


@pytest.mark.parametrize("yaml_text,needle", [
    ("id: [unclosed", "malformed frontmatter"),
    ("done_when: 3", "must be a list of strings"),
    ("status: finished", "unknown status"),
    ("launched_at: yesterday", "UTC timestamp"),
])
def test_bad_frontmatter_types(yaml_text, needle):
    meta = _meta()
    text_ = frontmatter.render(meta).replace("---\n", "", 1)
    key = yaml_text.split(":")[0]
    lines = [ln for ln in text_.splitlines() if not ln.startswith(key + ":") and not (ln.startswith("  - ") and key == "done_when")]
    doc = "---\n" + yaml_text + "\n" + "\n".join(lines) + "\n"
    with pytest.raises(RefocusError, match=needle):
        Brief.parse(doc.encode(), "t")


def test_non_utf8_frontmatter_is_refused():
    with pytest.raises(RefocusError, match="UTF-8"):
        Brief.parse(b"---\nid: \xff\n---\n", "t")
