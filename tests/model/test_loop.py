"""Loop values: the stop rule and the stored form (round trip, rejection of bad input)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitrefocus.model import loop as lp
from gitrefocus.model.loop import Loop, SessionLoops

T = "2026-01-01T00:00:00Z"


def make(**kw) -> Loop:
    base = dict(id="0123abcd", session_id="s1", status=lp.ACTIVE, iteration=0, max_iterations=3, promise="DONE",
                prompt="go on", created_at=T, updated_at=T)
    base.update(kw)
    return Loop(**base)


loops = st.builds(
    make, id=st.from_regex(r"[0-9a-f]{8}", fullmatch=True), status=st.sampled_from(lp.STATUSES),
    iteration=st.integers(0, lp.MAX_ITERATIONS), max_iterations=st.integers(1, lp.MAX_ITERATIONS),
    promise=st.text(min_size=1, max_size=50), prompt=st.text(max_size=200),
    refocus_id=st.none() | st.just("2026-01-01-x-abcdef"),
    ended=st.none() | st.sampled_from([lp.BY_MAX, lp.BY_PROMISE, lp.BY_CAP, lp.BY_CLIENT]),
    blocks=st.integers(0, lp.MAX_ITERATIONS),
)


@given(st.lists(loops, max_size=5, unique_by=lambda x: x.id))
def test_session_state_round_trips(items):
    state = SessionLoops("s1", items[0].id if items else None, tuple(items))
    assert SessionLoops.from_json(state.to_json(), "s1") == state


@pytest.mark.parametrize("raw", [
    None, [], {"schema": 1, "session_id": "s2", "loops": []}, {"schema": 9, "session_id": "s1", "loops": []},
    {"schema": 1, "session_id": "s1", "loops": [{"id": "../x"}]},
    {"schema": 1, "session_id": "s1", "loops": [make(iteration=-1).to_json()]},
    {"schema": 1, "session_id": "s1", "loops": [make(status="running").to_json()]},
    {"schema": 1, "session_id": "s1", "loops": [make(session_id="s2").to_json()]},
    {"schema": 1, "session_id": "s1", "loops": [make(prompt="x" * (lp.MAX_PROMPT + 1)).to_json()]},
    {"schema": 1, "session_id": "s1", "loops": [make().to_json()] * (lp.MAX_LOOPS + 1)},
])
def test_bad_state_is_rejected(raw):
    with pytest.raises(ValueError):
        SessionLoops.from_json(raw, "s1")


def test_the_stop_rule():
    d = lp.on_stop(make(), "working", False, T)
    assert d.block and d.loop.iteration == 1 and "iteration 2 of 3" in (d.reason or "")
    d = lp.on_stop(d.loop, "<promise>DONE</promise>", True, T)
    assert not d.block and (d.loop.status, d.outcome) == (lp.DONE, lp.BY_PROMISE)
    d = lp.on_stop(make(iteration=2), "working", True, T)
    assert not d.block and d.outcome == lp.BY_MAX and d.loop.iteration == 3
    first = lp.on_stop(make(), "same", False, T)
    again = lp.on_stop(first.loop, "same", True, T)
    assert not again.block and (again.loop.status, again.outcome) == (lp.PAUSED, lp.BY_STALL)
    new_turn = lp.on_stop(first.loop, "same", False, T)
    assert not new_turn.block and (new_turn.loop.status, new_turn.outcome) == (lp.PAUSED, lp.BY_CLIENT), \
        "a stop without stop_hook_active after a block is a turn the client ended: the loop pauses, not a stall"


def test_the_clients_cap_of_blocks_in_a_row():
    long = make(max_iterations=20, blocks=8, iteration=8)
    capped = lp.on_stop(long, "working", True, T)
    assert not capped.block and (capped.loop.status, capped.outcome, capped.loop.iteration) == (lp.PAUSED, lp.BY_CAP, 9)
    assert lp.on_stop(long, "working", True, T, cap=0).block, "no cap, no pause"
    assert lp.on_stop(long, "working", True, T, cap=9).block
    assert lp.block_cap(None) == lp.block_cap("x") == 8 and lp.block_cap("0") == lp.block_cap("-1") == 0
    assert lp.iterations_per_turn(8) == 9 and lp.iterations_per_turn(0) is None
    assert Loop.from_json({k: v for k, v in make().to_json().items() if k != "blocks"}) == make(), \
        "a loop stored before `blocks` existed reads back"


@given(st.text(st.characters(blacklist_characters="<>"), max_size=300))
def test_promise_inside_tags_always_counts(noise):
    assert lp.promise_met(f"{noise}<promise>DONE</promise>{noise}", "DONE")
    assert not lp.promise_met(f"{noise}<promise>DONE!</promise>", "DONE") or noise.strip() == "DONE" \
        or "DONE" in [line.strip() for line in noise.splitlines()]
