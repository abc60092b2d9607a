"""Parsing what a child returns: follow-ups (DIR:SLUG:REASON) and their slugs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitrefocus.errors import RefocusError
from gitrefocus.model.result import from_return_object, parse_follow_up

slugs = st.from_regex(r"[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}", fullmatch=True)
dirs = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=":"), min_size=1,
               max_size=40).filter(lambda d: d.strip() == d and d)
reasons = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=80).filter(
    lambda r: r.strip() == r and r)


@given(dirs, slugs, reasons)
def test_follow_up_round_trip_keeps_colons_in_the_reason(directory, slug, reason):
    got = parse_follow_up(f"{directory}:{slug}:{reason}")
    assert (got.dir, got.slug, got.reason) == (directory, slug, reason)


def test_a_reason_with_colons_stays_whole():
    got = parse_follow_up("../ce:migrate:adopt it: step 2, then: step 3")
    assert (got.dir, got.slug, got.reason) == ("../ce", "migrate", "adopt it: step 2, then: step 3")


@pytest.mark.parametrize("spec", ["../ce:Migrate Now:reason", "../ce:migrate--it:reason", "../ce:-x:reason",
                                  "../ce:" + "a" * 49 + ":reason"])
def test_a_bad_slug_is_refused(spec):
    with pytest.raises(RefocusError, match="is not a slug"):
        parse_follow_up(spec)


@pytest.mark.parametrize("spec", ["../ce::reason", "../ce:slug", "../ce:slug: ", "no colons"])
def test_a_missing_part_is_refused(spec):
    with pytest.raises(RefocusError, match="expected DIR:SLUG:REASON"):
        parse_follow_up(spec)


def test_return_object_follow_ups_are_checked_the_same_way():
    obj = {"status": "completed", "summary": "s", "artifacts": [],
           "follow_ups": [{"dir": "../ce", "slug": "Not A Slug", "reason": "r"}]}
    with pytest.raises(RefocusError, match=r"follow_ups\[0\]: 'Not A Slug' is not a slug"):
        from_return_object(obj, "result.json")
    obj["follow_ups"] = ["../ce:migrate:why: because"]
    assert from_return_object(obj, "result.json").follow_ups[0].reason == "why: because"
