"""model/frontmatter.py: any YAML frontmatter we render reads back the same."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gitrefocus.model import frontmatter
from tests.model.strategies import text

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
