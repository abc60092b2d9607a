"""Hypothesis strategies shared by the model's property tests."""

from __future__ import annotations

from hypothesis import strategies as st

# any text without lone surrogates (which no file or JSON can hold)
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)
