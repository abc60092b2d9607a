"""Property tests for every parser/serializer round trip, and the status machine."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitrefocus.errors import RefocusError
from gitrefocus.model import events as ev
from gitrefocus.model import frontmatter, lifecycle, note_line
from gitrefocus.model.brief import Brief, BriefContent, render_body, validate_meta
from gitrefocus.model.ids import RefocusId, derive_slug, slug_problem

slug_words = st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True)
slugs = st.lists(slug_words, min_size=1, max_size=4).map("-".join).filter(lambda s: len(s) <= 48)
dates = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2999, 12, 31))
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)


@given(dates, slugs, st.uuids(version=4))
def test_id_round_trip(date, slug, sid):
    rid = RefocusId.build(date, slug, str(sid))
    again = RefocusId(rid.value)
    assert (again.date, again.slug, again.hex6) == (date.isoformat(), slug, str(sid)[:6])


@pytest.mark.parametrize("bad", ["", "../x", "Upper", "a--b", "-a", "a-", "a b", "x" * 49, "a/b", "é"])
def test_bad_slugs_are_refused(bad):
    assert slug_problem(bad)


@given(text)
def test_derived_slugs_are_valid(t):
    assert slug_problem(derive_slug(t)) is None


@pytest.mark.parametrize("bad", ["2026-13-01-x-abcdef", "2026-01-01-x-abcde", "2026-01-01--abcdef", "x", "2026-01-01-X-abcdef"])
def test_bad_ids_are_refused(bad):
    with pytest.raises(RefocusError):
        RefocusId(bad)


scalars = st.one_of(st.none(), st.booleans(), text)
fm = st.dictionaries(st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
                     st.one_of(scalars, st.lists(text, max_size=4)), max_size=6)


@settings(max_examples=300)
@given(fm)
def test_frontmatter_round_trip(data):
    rendered = frontmatter.render(data)
    yaml_text, body = frontmatter.split(rendered + "body", "t")
    assert body == "body"
    assert frontmatter.load(yaml_text, "t") == data


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


events_st = st.builds(
    ev.Event, refocus_id=st.just("2026-04-26-x-abcdef"), kind=st.sampled_from(ev.KINDS),
    at=st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2999, 1, 1)).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")),
    actor=st.dictionaries(st.sampled_from(["name", "role"]), text, max_size=2),
    data=st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.one_of(text, st.integers(), st.lists(text, max_size=3)), max_size=3),
)


@given(events_st)
def test_event_round_trip(event):
    assert ev.Event.from_json(event.to_json()) == event


@given(st.lists(events_st, max_size=6, unique_by=lambda e: e.event_id),
       st.lists(events_st, max_size=6, unique_by=lambda e: e.event_id), st.integers(0, 3))
def test_event_merge_is_symmetric_and_lossless(a, b, shared):
    prefix = a[:shared]
    ours, theirs = a, prefix + b
    m1, m2 = ev.merge(ours, theirs), ev.merge(theirs, ours)
    assert [e.event_id for e in m1] == [e.event_id for e in m2]
    assert {e.event_id for e in m1} == {e.event_id for e in ours + theirs}
    assert [e.event_id for e in ev.merge(m1, ours)] == [e.event_id for e in m1]


note_values = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=30)


@given(st.dictionaries(st.from_regex(r"[a-z_-]{1,8}", fullmatch=True), note_values, max_size=4))
def test_note_line_round_trip(fields):
    rec = note_line.NoteRecord(at="2026-04-26T19:23:00Z", refocus_id="2026-04-26-x-abcdef", event="spawned", fields=fields)
    line = rec.format()
    assert "\n" not in line
    assert note_line.parse_line(line) == rec


def test_status_machine_matches_spec():
    legal = {(a, b) for a in lifecycle.STATUSES for b in lifecycle.STATUSES if lifecycle.is_legal(a, b)}
    assert legal == {
        ("reserved", "brief"), ("reserved", "in-progress"), ("reserved", "abandoned"),
        ("brief", "in-progress"), ("brief", "abandoned"),
        ("in-progress", "result"), ("in-progress", "blocked"), ("in-progress", "abandoned"),
        ("blocked", "abandoned"),
    }
    with pytest.raises(RefocusError, match="from result"):
        lifecycle.require_transition("x", "result", "abandoned")
