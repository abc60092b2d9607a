"""model/ids.py: refocus ids and slugs round-trip, and bad ones are refused."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import RefocusId, derive_slug, slug_problem
from tests.model.strategies import text

slug_words = st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True)
slugs = st.lists(slug_words, min_size=1, max_size=4).map("-".join).filter(lambda s: len(s) <= 48)
dates = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2999, 12, 31))


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
