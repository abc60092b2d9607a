"""Read a JSONL transcript line by line in bounded memory.

Ordinary lines are parsed whole. A line longer than ``PIECE`` bytes (a 50 MB
tool result, a pasted log) is never held in memory: it is read in pieces and
reduced to a *skeleton* in which every JSON string longer than
``STRING_CAP`` bytes is cut (at a safe escape boundary) and marked, so the
record's keys and the beginnings of its texts survive while its payload does
not. Lines that are not JSON, or not UTF-8, never stop the reader.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, BinaryIO, Iterator

from gitrefocus.handoff.scrub import scrub_decoded, scrub_value, trigger_gate
from gitrefocus.model.records import dataclass
from gitrefocus.model.text import without_surrogates

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable

PIECE = 1 << 20            # lines longer than this are read in pieces and skeletonized
STRING_CAP = 64 * 1024     # bytes of any one string kept in a skeleton
SKELETON_CAP = 8 << 20     # a skeleton larger than this (millions of tiny values) is given up
CUT_MARK = " [... %d bytes cut]"

_STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_HEX4 = re.compile(rb"[0-9A-Fa-f]{4}")
_HIGH_SURROGATE = re.compile(rb"[dD][89abAB][0-9A-Fa-f]{2}")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# a surrogate written out as UTF-8 bytes (CESU-8): strict UTF-8 refuses it, but json.loads decodes
# bytes with "surrogatepass" and would hand on a lone surrogate. A valid UTF-8 character never
# holds these two bytes (after 0xED its next byte is 0x80-0x9F).
_SURROGATE_BYTES = re.compile(rb"\xed[\xa0-\xbf]")


@dataclass
class Line:
    """One physical line: its number, the parsed record or why there is none."""

    number: int
    record: object = None
    size: int = 0
    problem: str | None = None  # "invalid-json" | "oversized" | "blank"
    lossy_utf8: bool = False
    skeleton: bool = False


def safe_cut(body: bytes) -> bytes:
    """``body`` (escaped JSON string content) shortened so it ends on an escape boundary,
    and never between the two halves of a surrogate pair."""
    while True:
        cut = _cut_once(body)
        if cut == body:
            return body
        body = cut


def _cut_once(body: bytes) -> bytes:
    end = len(body)
    i = body.rfind(b"\\", max(0, end - 6))
    if i < 0:
        return body
    start = i
    while start > 0 and body[start - 1] == 0x5C:
        start -= 1
    if (i - start + 1) % 2 == 0:  # the last backslash is itself escaped: complete
        return body
    need = 6 if body[i + 1:i + 2] == b"u" else 2
    if i + need > end or (need == 6 and not _HEX4.fullmatch(body[i + 2:i + 6])):
        return body[:i]
    if need == 6 and i + 6 == end and _HIGH_SURROGATE.fullmatch(body[i + 2:i + 6]):
        return body[:i]
    return body


class _Skeleton:
    """Incrementally reduce one JSON document, fed in pieces, to its skeleton."""

    def __init__(self, cap: int | None = None) -> None:
        self.cap = STRING_CAP if cap is None else cap
        self.out = bytearray()
        self.in_string = False
        self.carry = b""   # an escape sequence split between two pieces
        self.kept = 0
        self.total = 0
        self.given_up = False

    def _keep(self, body: bytes) -> None:
        self.total += len(body)
        room = self.cap - self.kept
        if room <= 0:
            return
        if len(body) <= room:
            self.out += body
            self.kept += len(body)
        else:
            self.out += safe_cut(body[:room])
            self.kept = self.cap

    def feed(self, piece: bytes) -> None:
        if self.given_up:
            return
        if self.carry:
            piece, self.carry = self.carry + piece, b""
        pos, n = 0, len(piece)
        while pos < n:
            if not self.in_string:
                q = piece.find(b'"', pos)
                if q < 0:
                    self.out += piece[pos:]
                    break
                self.out += piece[pos:q + 1]
                pos = q + 1
                self.in_string, self.kept, self.total = True, 0, 0
                continue
            # the body runs to a closing quote, or to the end of the piece (perhaps
            # stopping just before a lone backslash whose escaped char comes next)
            end = _STRING_BODY.match(piece, pos).end()  # type: ignore[union-attr]  # matches "" at worst
            if end >= n - 1 and (end == n or piece[end] == 0x5C):
                body = safe_cut(piece[pos:n])
                self.carry = piece[pos + len(body):n]
                self._keep(body)
                break
            self._keep(piece[pos:end])
            if self.total > self.kept:
                self.out += (CUT_MARK % (self.total - self.kept)).encode()
            self.out += b'"'
            self.in_string = False
            pos = end + 1
        if len(self.out) > SKELETON_CAP:
            self.given_up = True
            self.out = bytearray()

    def result(self) -> bytes | None:
        if self.given_up or self.in_string:
            return None
        return bytes(self.out)


def _parse(data: bytes, decode: Callable[[bytes], object] | None = None, tally: Counter[str] | None = None,
           view: Callable[[object], object] | None = None) -> tuple[object, bool]:
    """Parse one JSON document and scrub it (:func:`scrub.scrub_decoded`, ``view`` as there);
    returns (record, lossy_utf8). Raises ValueError."""
    record, lossy = _decode(data, decode)
    return scrub_decoded(data, record, tally, view), lossy


def _decode(data: bytes, decode: Callable[[bytes], object] | None = None) -> tuple[object, bool]:
    """Parse one JSON document; returns (record, lossy_utf8). Raises ValueError.

    ``decode(data)``, when given, is tried first (a faster decoder giving what
    ``json.loads`` gives); whatever it cannot take (any exception) is parsed by ``json.loads``."""
    if decode is not None:
        try:
            # it never gives a lone surrogate: it refuses "\ud800" escapes and invalid UTF-8
            # in what it keeps (held to json.loads in tests/handoff/test_handoff_fastpath.py)
            return decode(data), False
        except Exception:  # noqa: BLE001 - invalid UTF-8 or JSON, or a shape the decoder does not take
            pass
    lossy = False
    try:
        try:
            record = json.loads(data)
        except UnicodeDecodeError:
            record, lossy = json.loads(data.decode("utf-8", "replace")), True
    except RecursionError:  # one hostile line must not abort the whole handoff
        raise ValueError("nested deeper than a transcript record goes") from None
    if _SURROGATE_ESCAPE.search(data):
        # "\ud800" escapes parse to lone surrogates, which cannot be written out as UTF-8
        record = without_surrogates(record)
    if not lossy and _SURROGATE_BYTES.search(data):
        # ... and so do surrogates encoded as bytes: invalid UTF-8, read as any other is
        record, lossy = without_surrogates(record), True
    return record, lossy


def read_lines(fh: BinaryIO, *, decode: Callable[[bytes], object] | None = None, tally: Counter[str] | None = None,
               view: Callable[[object], object] | None = None) -> Iterator[Line]:
    """Yield every line of ``fh``. ``decode(raw: bytes)`` may parse a whole line faster
    (see :func:`_parse`); ``tally`` counts the secrets redacted, by kind; ``view`` is the part of a
    record its reader reads (a record that may hold a secret is cut down to it, then scrubbed)."""
    number = 0
    while True:
        piece = fh.readline(PIECE)
        if not piece:
            return
        number += 1
        if piece.endswith(b"\n") or len(piece) < PIECE:
            yield _whole(number, piece, decode, tally, view)
            continue
        yield _pieced(number, fh, piece, tally, view)


def each(fh: BinaryIO, decode: Callable[[bytes], object], take: Callable[[dict[str, Any], int], None],
         take_line: Callable[[Line], None], tally: Counter[str] | None = None,
         view: Callable[[object], object] | None = None,
         gated: Callable[[bytes, object], bytes | None] | None = None) -> int:
    """Read every line of ``fh`` as :func:`read_lines` does, handing each over rather than
    yielding it (the reader's loop is the hottest there is): ``take(record, number)`` when
    ``decode`` takes the whole line as it is (JSON ignores the whitespace around it) and gives
    an object; ``take_line(line)`` for any other line (blank, not JSON, not an object, huge,
    lossy UTF-8, or one ``decode`` refuses), read exactly as :func:`read_lines` reads it.
    Returns the number of lines.

    ``gated(line, value)``: what of the line the secret gate must scan to know whether ``value``
    holds a secret (the line itself when not given); None: nothing, ``value`` is handed over
    unscrubbed (see ``records.gated_bytes``)."""
    number = 0
    readline = fh.readline
    gate = trigger_gate()
    while True:
        piece = readline(PIECE)
        if not piece:
            return number
        number += 1
        if piece.endswith(b"\n") or len(piece) < PIECE:
            try:
                value = decode(piece)
            except Exception:  # noqa: BLE001 - see _parse: json.loads gets its turn
                take_line(_whole(number, piece, decode, tally, view))
                continue
            scanned = piece if gated is None else gated(piece, value)
            if scanned is not None and gate(scanned):  # scrub_decoded, inlined: most lines cost one scan
                value = scrub_value(value, tally, view)
            if value.__class__ is dict:
                take(value, number)
            else:
                take_line(Line(number, value, size=len(piece)))
            continue
        take_line(_pieced(number, fh, piece, tally, view))


def _whole(number: int, data: bytes, decode: Callable[[bytes], object] | None = None, tally: Counter[str] | None = None,
           view: Callable[[object], object] | None = None) -> Line:
    size = len(data)
    stripped = data.strip()
    if not stripped:
        return Line(number, size=size, problem="blank")
    try:
        record, lossy = _parse(stripped, decode, tally, view)
    except ValueError:
        return Line(number, size=size, problem="invalid-json")
    return Line(number, record, size=size, lossy_utf8=lossy)


def _pieced(number: int, fh: BinaryIO, first: bytes, tally: Counter[str] | None = None,
            view: Callable[[object], object] | None = None) -> Line:
    skeleton = _Skeleton()
    skeleton.feed(first)
    size = len(first)
    while True:
        piece = fh.readline(PIECE)
        if not piece:
            break
        size += len(piece)
        skeleton.feed(piece)
        if piece.endswith(b"\n"):
            break
    data = skeleton.result()
    if data is None:
        return Line(number, size=size, problem="oversized")
    try:
        record, lossy = _parse(data.strip(), tally=tally, view=view)
    except ValueError:
        return Line(number, size=size, problem="invalid-json")
    return Line(number, record, size=size, lossy_utf8=lossy, skeleton=True)
