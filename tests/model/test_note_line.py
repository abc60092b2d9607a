"""model/note_line.py: an audit note line is one line and parses back to the same record."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gitrefocus.model import note_line

note_values = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=30)


@given(st.dictionaries(st.from_regex(r"[a-z_-]{1,8}", fullmatch=True), note_values, max_size=4))
def test_note_line_round_trip(fields):
    rec = note_line.NoteRecord(at="2026-04-26T19:23:00Z", refocus_id="2026-04-26-x-abcdef", event="spawned", fields=fields)
    line = rec.format()
    assert "\n" not in line
    assert note_line.parse_line(line) == rec
