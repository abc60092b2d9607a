"""store/fastjson: msgspec where it can, json.loads for the rest, and the caller cannot tell."""

from __future__ import annotations

import codecs
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitrefocus.store import fastjson

ODD = [
    b'{"a":1,"a":2,"b":3}',  # a key twice: the last wins, in the first one's place
    b'{"s":"\\ud800"}', b'{"s":"\\udfff\\ud800"}',  # lone surrogate escapes (msgspec refuses)
    b'{"s":"\\ud83d\\ude00"}',  # a pair: one character
    b'{"n":123456789012345678901234567890,"m":-9223372036854775809}',
    b'{"x":NaN,"y":-Infinity}', b'{"f":1e400}', b'{"big":1.7976931348623157e309}',
    b'{"f":-0.0,"g":1.5e-310,"h":1E2,"i":0.1}',
    codecs.BOM_UTF8 + b'{"a":1}',
    '{"a":"é"}'.encode("utf-16"), '{"a":"é"}'.encode("utf-32-le"),
    b'{"s":"\\u0000x","t":"\\/"}', b'  {"a":[1,2,{"b":null}]}\n',
    b'{"a":1} x', b'{"a":1,}', b'{"a":"\t"}', b'{"\xff":1}', b'{"a":"\xed\xa0\x80"}', b"",
    b"[" * 5000 + b"]" * 5000, b'"\x00"', b'{"a":"\x7f"}',
]


def _outcome(data: bytes, decode) -> tuple:
    try:
        value, text = fastjson.loads_text(data, decode)
    except (ValueError, RecursionError) as exc:
        return ("error", type(exc).__name__ if not isinstance(exc, ValueError) else "ValueError")
    return repr(value), text


@pytest.mark.parametrize("data", ODD, ids=range(len(ODD)))
def test_msgspec_gives_what_json_gives_on_odd_documents(data):
    decode = fastjson.make_decoder()
    assert decode is not None  # a dependency: the fast path is what runs
    assert _outcome(data, decode) == _outcome(data, None)


def test_json_alone_is_json_loads():
    for data in ODD:
        try:
            expected = repr(json.loads(data))
        except (ValueError, RecursionError):
            continue
        assert _outcome(data, None)[0] == expected


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(value=_json, ascii_only=st.booleans())
def test_msgspec_gives_what_json_gives_on_any_document(value, ascii_only):
    data = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    assert _outcome(data, fastjson.make_decoder()) == _outcome(data, None)
