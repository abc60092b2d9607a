"""model/events.py: events round-trip through JSON; merging two logs is symmetric and loses nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitrefocus.model import events as ev
from tests.model import strategies
from tests.model.strategies import text

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


def test_events_of_one_second_keep_the_order_they_happened_in():
    """Two clones write events in the same second: the merge orders them by when they were
    made, so an abandon just after a completion can never sort first
    (docs/ARCHITECTURE.md, "Why wall-clock order and event ids")."""
    at = "2026-11-22T12:00:00Z"
    spawned = ev.Event(refocus_id="r", kind=ev.SPAWNED, at="2026-11-22T11:00:00Z", data={"meta": {"id": "r"}})
    for _ in range(30):
        completed = ev.Event(refocus_id="r", kind=ev.COMPLETED, at=at, data={"status": "result"})
        abandoned = ev.Event(refocus_id="r", kind=ev.ABANDONED, at=at)
        merged = ev.merge([spawned, completed], [spawned, abandoned])
        assert merged == ev.merge([spawned, abandoned], [spawned, completed])
        assert [e.kind for e in merged] == [ev.SPAWNED, ev.COMPLETED, ev.ABANDONED]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | strategies.text,
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(strategies.text, inner, max_size=3),
                     max_leaves=8)
_PARTS = {"id": st.just("2026-01-01-x-aaaaaa"), "status": _JSON, "sessions": _JSON, "conflicts": _JSON,
          "received_at": _JSON, "schema": _JSON}


def _reads_by_building(raw) -> bool:
    try:
        ev.RefocusState.from_json(raw)
    except Exception:  # noqa: BLE001 - whatever from_json refuses with
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(st.one_of(_JSON, st.fixed_dictionaries({}, optional=_PARTS),
                 st.fixed_dictionaries({"id": _PARTS["id"], "status": st.text(max_size=3)},
                                       optional={"conflicts": st.lists(_JSON, max_size=3), "sessions": _JSON})))
def test_reads_answers_as_from_json_does(raw):
    """RefocusState.reads (what a cold build checks instead of parsing) accepts exactly the
    decoded JSON values from_json reads."""
    assert ev.RefocusState.reads(raw) == _reads_by_building(raw)


@pytest.mark.parametrize("raw", [
    {"id": "x", "status": "s", "sessions": 7}, {"id": "x", "status": "s", "sessions": 0.5},
    {"id": "x", "status": "s", "sessions": True}, {"id": "x", "status": "s", "sessions": "ab"},
    {"id": "x", "status": "s", "conflicts": {"a": 1}}, {"id": "x", "status": "s", "conflicts": "ab"},
    {"id": "x", "status": "s", "conflicts": [{}, 3]}, {"id": "x", "status": "s", "conflicts": [{}]},
    {"id": "x", "status": "s", "conflicts": 0}, ["id", "status"], "id status", {"status": "s"}, 3, None,
])
def test_reads_answers_as_from_json_does_on_the_edges(raw):
    assert ev.RefocusState.reads(raw) == _reads_by_building(raw)


@pytest.mark.parametrize("at", ["yesterday-ish", "2026-05-01", "2026-05-01T10:00:00+00:00", "2026-13-01T10:00:00Z",
                                "2026-05-01T10:00:00Z\n", ""])
def test_an_event_whose_time_is_not_a_utc_timestamp_is_refused(at):
    raw = {"refocus_id": "x", "kind": "linked", "at": at, "event_id": "a" * 32, "actor": {}, "data": {}}
    with pytest.raises(ValueError, match="UTC timestamp"):
        ev.Event.from_raw(raw)


@pytest.mark.parametrize("event_id", ["", "a" * 65, "has space", "x\x1b[2J"])
def test_an_event_id_that_is_not_a_short_name_is_refused(event_id):
    raw = {"refocus_id": "x", "kind": "linked", "at": "2026-05-01T10:00:00Z", "event_id": event_id}
    with pytest.raises(ValueError, match="event id"):
        ev.Event.from_raw(raw)

