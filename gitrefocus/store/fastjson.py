"""``json.loads``, faster where it can be, for the readers that decode JSON by
the ten thousand (a cold catalog build, a transcript's lines).

msgspec decodes UTF-8 JSON three to four times faster than json. It refuses
some of what json.loads takes: NaN, lone surrogate escapes ("\\ud800"), a BOM,
numbers past a float, invalid UTF-8. Whatever it refuses is read by json.loads,
so a caller gets what json.loads gives, or its error (held to json.loads in
tests/store/test_fastjson.py and tests/handoff/test_handoff_fastpath.py).
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # no `typing` at run time: a hook may import this
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def make_decoder() -> Callable[[bytes], Any] | None:
    """msgspec's decoder of one JSON document (None: msgspec is not installed;
    it is a dependency, but json.loads does it all). Importing msgspec costs
    a few milliseconds: call it where thousands of documents will be read."""
    try:
        import msgspec
    except ImportError:
        return None
    return msgspec.json.Decoder().decode


def loads_text(data: bytes, decode: Callable[[bytes], Any] | None, *, text_only: bool = False) -> tuple[Any, str]:
    """(value, text) of a JSON document in ``data``, as ``json.loads(data)``
    reads it: the value, and the text it decoded (lone surrogates kept, as
    json keeps them). ``decode`` (:func:`make_decoder`) is tried first; what
    it refuses goes to json, which raises what it raises. ``text_only``: a lone
    surrogate, which no file or row can hold, is a ValueError instead — checked
    on json's path only, since msgspec refuses every way one could come in."""
    if decode is not None:
        try:
            # what it takes is UTF-8 without a BOM or a NUL, which json also decodes as UTF-8
            return decode(data), data.decode()
        except Exception:  # noqa: BLE001 - refused: json reads it, or says why not
            pass
    text = data.decode(json.detect_encoding(data), "surrogatepass")
    value = json.loads(text)
    if text_only:
        from gitrefocus.model.text import holds_lone_surrogate

        if holds_lone_surrogate(text, value):
            raise ValueError("it holds a lone surrogate, which is not text")
    return value, text
