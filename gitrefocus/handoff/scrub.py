"""Redact secrets from transcript text before it is read, quoted, saved or shown.

Where it runs (docs/secrets.md has the whole picture):

* :func:`scrub_decoded` — on every record as it is decoded (``handoff/jsonl.py``), so
  the handoff's spine, brief, vocabulary, extractor input and cache only ever see
  scrubbed text, and no cut or quote can separate a secret from the prefix that
  identifies it;
* :func:`scrub_jsonl` — a transcript saved with ``complete --save-transcript``: each
  line's JSON-escaped form, then its decoded strings (re-encoded only when they
  changed);
* :func:`scrub_transcript` — any other text (the finished brief, the spine handed
  to an extractor command): a second line of defence, idempotent.

How: the rules (``secret_rules.py``) name literal triggers. One Aho-Corasick pass
(leftmost-first, which lets the automaton skip ahead with a SIMD prefilter) finds
them all; each rule's regex is tried only where one of its triggers is. A decoded
record is walked only when its raw line holds a trigger, or an escaped printable
character (``\\u0041``) that could hide one, so a line without any costs one scan of
its bytes.

A redaction reads ``[redacted: <kind>]``: it contains no quote and no backslash and
never starts or ends inside a JSON escape, so JSON stays JSON. Reports carry the
kind and the line, never any part of the secret.
"""

from __future__ import annotations

import bisect
import functools
import json
import os
import re
import threading
from collections import Counter
from collections.abc import Callable

import ahocorasick_rs

from gitrefocus.handoff import secret_rules
from gitrefocus.handoff.secret_rules import RULES, Rule

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Iterable
    from types import ModuleType
    from typing import Any

    from ahocorasick_rs import AhoCorasick, BytesAhoCorasick

MARK = "[redacted: %s]"
_MARK_PREFIX = "[redacted: "
# escaped printable ASCII (\u0020-\u007f): a writer that escapes letters could hide a trigger
_ASCII_ESCAPES = tuple(f"\\u00{d}" for d in "234567")
_BACK_LIMIT = 200


def _build() -> tuple[list[str], list[tuple[Rule, ...]], AhoCorasick, BytesAhoCorasick, AhoCorasick, int,
                    frozenset[int]]:
    """Every trigger once, with the rules it starts. A trigger that is a prefix of another
    gets that one's rules too: leftmost-first matching reports only one of them."""
    by_trigger: dict[str, list[int]] = {}
    for index, rule in enumerate(RULES):
        for trigger in rule.triggers:
            by_trigger.setdefault(trigger, []).append(index)
    triggers = sorted(by_trigger)
    for i, short in enumerate(triggers):
        j = i + 1
        while j < len(triggers) and triggers[j].startswith(short):
            merged = sorted(set(by_trigger[short]) | set(by_trigger[triggers[j]]))
            by_trigger[short] = by_trigger[triggers[j]] = merged
            j += 1
    rules = [tuple(RULES[k] for k in by_trigger[t]) for t in triggers]
    kind = ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
    impl = ahocorasick_rs.Implementation.DFA
    text_ac = ahocorasick_rs.AhoCorasick(triggers, matchkind=kind, implementation=impl)
    raw = [t.encode() for t in triggers] + [e.encode() for e in _ASCII_ESCAPES]
    raw_ac = ahocorasick_rs.BytesAhoCorasick(raw, matchkind=kind, implementation=impl)
    # leftmost-first skips a trigger that starts inside another one (`pass:` in `sshpass:`):
    # around each hit, this one finds them all
    every_ac = ahocorasick_rs.AhoCorasick(triggers, implementation=impl)
    starts = {t[:n] for t in triggers for n in range(1, len(t) + 1)}
    may_hide = frozenset(i for i, t in enumerate(triggers) if any(t[k:] in starts for k in range(1, len(t))))
    return triggers, rules, text_ac, raw_ac, every_ac, max(map(len, triggers)), may_hide


_TRIGGERS, _RULES_AT, _TEXT_AC, _RAW_AC, _EVERY_AC, _LONGEST, _MAY_HIDE = _build()
_ORDER = {id(rule): n for n, rule in enumerate(RULES)}


# -- finding ------------------------------------------------------------------------------
def find(text: str) -> list[tuple[int, int, str]]:
    """The secrets in ``text``: ``(start, end, kind)``, sorted, not overlapping."""
    hits = _TEXT_AC.find_matches_as_indexes(text)
    if not hits:
        return []
    spans: list[tuple[int, int, int, str]] = []
    for index, start in _every(text, hits):
        for rule in _RULES_AT[index]:
            _try(rule, text, start, spans)
    return _merged(text, spans) if spans else []


def _every(text: str, hits: Iterable[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """(trigger, start) of every trigger occurrence, given the leftmost-first hits: those,
    and any trigger starting inside one of them."""
    out = []
    for index, start, end in hits:
        out.append((index, start))
        if index in _MAY_HIDE:  # some trigger could start inside this one
            for other, s, _ in _EVERY_AC.find_matches_as_indexes(text[start + 1:end + _LONGEST], overlapping=True):
                if s < end - start - 1:
                    out.append((other, start + 1 + s))
    return out


def _try(rule: Rule, text: str, pos: int, spans: list[tuple[int, int, int, str]]) -> None:
    if rule.word_start and pos and not rule.back and _inside_word(text, pos):
        return  # inside base64 or a longer word: the regex would refuse it too
    if rule.back:
        low = max(0, pos - _BACK_LIMIT)
        while pos > low and text[pos - 1] in rule.back:
            pos -= 1
        pos = _past_escape(text, pos)
    m = rule.regex.match(text, pos)
    if m is None:
        return
    verdict = rule.check(text, m) if rule.check is not None else True
    if not verdict:
        return
    order = _ORDER[id(rule)]
    if verdict is True:
        spans.append((m.start("secret"), m.end("secret"), order, rule.kind))
    elif isinstance(verdict, tuple):  # (start, end) or (start, end, kind)
        spans.append((verdict[0], verdict[1], order, verdict[2] if len(verdict) > 2 else rule.kind))
    else:
        spans.extend((s, e, order, rule.kind) for s, e in verdict)


def _inside_word(text: str, pos: int) -> bool:
    """Does ``text[pos]`` continue a word (secret_rules.START would fail)?"""
    c = text[pos - 1]
    if not (c.isalnum() or c == "_") or not c.isascii():
        return False
    if pos >= 2 and text[pos - 2] == "\\" and c in "nrtbf":
        return False
    return not (pos >= 6 and text[pos - 6:pos - 4] == "\\u")


def _past_escape(text: str, pos: int) -> int:
    """Where a run scanned backwards really starts: not on the letter of a JSON escape
    (``\\n`` + ``AKIA…``) or inside a ``\\uXXXX``."""
    for back in (1, 2, 3, 4, 5):
        i = pos - back
        if i < 0 or text[i] != "\\":
            continue
        run = 1
        while i - run >= 0 and text[i - run] == "\\":
            run += 1
        if run % 2 == 0:
            continue
        width = 5 if text.startswith("u", i + 1) else 1
        if pos < i + 1 + width:
            return i + 1 + width
    return pos


def _merged(text: str, spans: list[tuple[int, int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping finds become one redaction, named by the most specific rule (token formats
    come first in the rule list, keyed values last)."""
    out: list[list[Any]] = []  # [start, end, order, kind], widened in place
    for start, end, order, kind in sorted(spans):
        start, end = _json_safe(text, start, end)
        if end - start < 1 or text.startswith(_MARK_PREFIX, start):
            continue
        if out and start < out[-1][1]:
            last = out[-1]
            last[1] = max(last[1], end)
            if order < last[2]:
                last[2], last[3] = order, kind
            continue
        out.append([start, end, order, kind])
    return [(s, e, k) for s, e, _, k in out]


def _json_safe(text: str, start: int, end: int) -> tuple[int, int]:
    """Keep a redaction from splitting a JSON escape: never start right after a lone
    backslash, never end on one."""
    run = 0
    while start - run - 1 >= 0 and text[start - run - 1] == "\\":
        run += 1
    if run % 2:
        start += 5 if text.startswith("u", start) else 1
    run = 0
    while end - run - 1 >= start and text[end - run - 1] == "\\":
        run += 1
    return start, end - (run % 2)


def _redacted(text: str, found: list[tuple[int, int, str]]) -> str:
    out, pos = [], 0
    for start, end, kind in found:
        out.append(text[pos:start])
        out.append(MARK % kind)
        pos = end
    out.append(text[pos:])
    return "".join(out)


# -- plain text ----------------------------------------------------------------------------
def scrub_text(text: str) -> tuple[str, list[tuple[int, int, str]]]:
    """``text`` with every secret replaced, and what was found (spans in the original)."""
    found = find(text)
    return (_redacted(text, found), found) if found else (text, found)


def scrub_transcript(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Return (scrubbed text, redactions): each redaction ``{"kind", "line"}``, ``line``
    1-based. Idempotent: a redaction is never redacted again."""
    out, found = scrub_text(text)
    if not found:
        return out, []
    starts = _line_starts(text)
    return out, [{"kind": kind, "line": bisect.bisect_right(starts, start)} for start, _, kind in found]


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def counts(redactions: Iterable[dict[str, Any]] | Counter[str]) -> dict[str, int]:
    """Redactions per kind, most frequent first: what a report shows instead of the secrets."""
    tally = Counter(r["kind"] for r in redactions) if not isinstance(redactions, Counter) else redactions
    return dict(sorted(tally.items(), key=lambda kv: (-kv[1], kv[0])))


# -- decoded records -------------------------------------------------------------------------
_ASCII_ESCAPE_RE = re.compile(r"\\u00([2-7][0-9A-Fa-f])")
_KEYED = secret_rules.KEYED


def might_hold_secret(raw: bytes) -> bool:
    """Could the value decoded from this raw JSON line hold a secret? Decided on the JSON-escaped
    form, where every rule also works: no trigger, or no rule confirming one (a keyed value
    needs only its secret-sounding name here; its value is judged on the decoded string),
    means no. An escaped printable character (``\\u0041``) is unescaped first: it could hide a
    trigger."""
    hits = _RAW_AC.find_matches_as_indexes(raw)
    if not hits:
        return False
    escapes = max(index for index, _, _ in hits) >= len(_TRIGGERS)
    if not escapes and raw.isascii():
        return _confirmed(raw.decode("ascii"), hits)
    if escapes:
        text = _ASCII_ESCAPE_RE.sub(lambda m: chr(int(m.group(1), 16)), raw.decode("utf-8", "replace"))
        return _confirmed(text, _TEXT_AC.find_matches_as_indexes(text))
    return _confirmed(raw.decode("utf-8", "replace"), _char_offsets(raw, hits))


def _char_offsets(raw: bytes, hits: Iterable[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Byte offsets of trigger hits as character offsets: a trigger starts with an ASCII
    character, so each offset is a character boundary and the text between two hits decodes
    on its own."""
    out, chars, last = [], 0, 0
    for index, start, end in hits:
        chars += len(raw[last:start].decode("utf-8", "replace"))
        last = start
        out.append((index, chars, chars + (end - start)))
    return out


def _confirmed(text: str, hits: Iterable[tuple[int, int, int]]) -> bool:
    spans: list[tuple[int, int, int, str]] = []
    for index, start in _every(text, hits):
        for rule in _RULES_AT[index]:
            if rule is _KEYED:
                m = rule.regex.match(text, start)
                if m is not None and secret_rules.secret_name(
                        secret_rules.full_name(text, m.start("name"), m.end("name"))) is not None:
                    return True
                continue
            _try(rule, text, start, spans)
            if spans:
                return True
    return False


def scrub_decoded(raw: bytes | None, value: object, tally: Counter[str] | None = None,
                  view: Callable[[object], object] | None = None) -> object:
    """``value`` (the JSON value decoded from ``raw``) with every string scrubbed: its text and,
    for a string under a secret-sounding key (``"password": "…"``), the whole value. Counts go
    to ``tally`` by kind. Returns ``value`` itself when ``raw`` holds no trigger of any rule (nor
    an escaped character that could hide one): then there is nothing to find. Otherwise
    ``view(value)``, when given, is what is scrubbed and returned: the part of the record its
    reader reads (``records.reader_view``), so what is never read is dropped, not scrubbed."""
    if raw is not None and not any_trigger(raw):
        return value
    return scrub_value(value, tally, view)


def scrub_value(value: object, tally: Counter[str] | None = None, view: Callable[[object], object] | None = None) -> object:
    """:func:`scrub_decoded` without the gate: ``view(value)`` (or ``value``), every string scrubbed."""
    if view is not None:
        value = view(value)
    return _walk(value, None, tally if tally is not None else Counter())


def any_trigger(raw: bytes) -> bool:
    """Does the raw line hold what a rule starts from (a trigger; for the rules whose triggers
    are two or three characters, the token's shape), or an escaped printable character that
    could hide one? One scan of the bytes: Hyperscan's when the ``hyperscan`` wheel is installed
    (several times faster), else the Aho-Corasick automaton's, whose hits a rule must confirm."""
    return trigger_gate()(raw)


def trigger_gate() -> Callable[[bytes], bool]:
    """:func:`any_trigger` as a function bound to this thread (a reader calls it per line)."""
    gate = _GATE if _GATE is not _UNSET else _init_gate()
    if isinstance(gate, _Hyperscan):
        return gate.bound()
    # without Hyperscan's shapes, two-letter triggers open the automaton's gate on every id and
    # base64 run: the rules confirm a trigger on the raw line first (:func:`might_hold_secret`)
    return might_hold_secret


class _Hyperscan:
    """The gate through Hyperscan: the triggers and shapes of :func:`gate_expressions`,
    stopping at the first match. A scratch space per thread (Hyperscan's is not shareable)."""

    def __init__(self, module: ModuleType) -> None:
        hs = self._hs = module
        expressions = gate_expressions()
        self._db = hs.Database(mode=hs.HS_MODE_BLOCK)
        self._db.compile(expressions=expressions, ids=list(range(len(expressions))), elements=len(expressions),
                         flags=[hs.HS_FLAG_SINGLEMATCH] * len(expressions))
        self._base = hs.Scratch(self._db)
        self._local = threading.local()

    def bound(self) -> Callable[[bytes], bool]:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._base.clone()
        scan, stopped = self._db.scan, self._hs.ScanTerminated

        def gate(raw: bytes) -> bool:
            try:
                scan(raw, match_event_handler=_stop, scratch=scratch)
            except stopped:  # the handler stopped the scan at the first match
                return True
            return False
        return gate


# A trigger of two or three characters (``AC``, ``MT``, ``://``) occurs all over base64, ids
# and URLs; for the rules that have one, the gate looks for the token's shape instead — the
# rule's regex without its word-start condition, so the gate fires wherever the rule could
# (and where a JSON escape could hide part of it: ``\\u`` escapes are gated on their own).
# A shape may be a part of the token (any match of the rule holds it), where the whole would
# cost the gate more: the Discord token's tail, from its first dot, stands in for it, since the
# nine two-letter starts before a bounded run made a third of Hyperscan's compile (10 of 25 ms)
# and slowed every scan by a quarter. tests/handoff/test_handoff_scrub.py holds each shape to
# its rule on the corpus.
GATE_SHAPES = {
    "aws-access-key-id": r"A3T[A-Z0-9]{16}",
    "api-key": r"sk-[A-Za-z0-9]{32}",
    "jwt": r"eyJ[A-Za-z0-9_-]{10,}={0,2}\.ey",
    "sendgrid-key": r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    "twilio-key": r"SK[0-9a-f]{32}",
    "twilio-account-sid": r"AC[0-9a-f]{32}",
    "mailchimp-key": r"[0-9a-f]{32}-us[0-9]",
    "telegram-bot-token": r"[0-9]{8}:AA[A-Za-z0-9_-]{33}",
    "huggingface-token": r"hf_[A-Za-z]{34}",
    "1password-secret-key": r"A3-[A-Z0-9]{6}-",
    "replicate-token": r"r8_[A-Za-z0-9]{37}",
    "discord-bot-token": r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}",
    "azure-client-secret": r"[0-9]Q~[A-Za-z0-9_~.-]{31}",
    "url-credentials": r"://[^\s/\"'<>`]*@",
}
SHORT = 3  # a trigger this short is replaced by its rules' shapes


def gate_expressions() -> list[bytes]:
    """What the Hyperscan gate looks for: every trigger longer than :data:`SHORT` as a literal,
    the shape of every rule with a shorter one, and the printable-ASCII escapes."""
    missing = {r.kind for r in RULES if any(len(t) <= SHORT for t in r.triggers)} - set(GATE_SHAPES)
    assert not missing, f"rules with short triggers need a gate shape: {sorted(missing)}"
    literals = sorted({t for t in _TRIGGERS if len(t) > SHORT} | set(_ASCII_ESCAPES))
    return [re.escape(t).encode() for t in literals] + [shape.encode() for shape in GATE_SHAPES.values()]


def _stop(*_args: object) -> bool:
    return True


_UNSET = object()
_GATE: object = _UNSET


def _init_gate() -> "_Hyperscan | None":
    """The Hyperscan gate, made on first use; None where the wheel is missing or refuses to
    compile (``GIT_REFOCUS_NO_HYPERSCAN=1`` turns it off, for measuring the pure path)."""
    global _GATE
    gate = None
    if not os.environ.get("GIT_REFOCUS_NO_HYPERSCAN"):
        try:
            import hyperscan

            gate = _Hyperscan(hyperscan)
        except Exception:  # noqa: BLE001 - no wheel for this platform, or no usable engine: the automaton does it
            gate = None
    _GATE = gate
    return gate


def _walk(value: object, key: object, tally: Counter[str]) -> object:
    if isinstance(value, str):
        return _string(value, key, tally)
    if isinstance(value, dict):
        changed = None
        for k, v in value.items():
            if isinstance(v, (str, dict, list)):
                new = _walk(v, k, tally)
                if new is not v:
                    if changed is None:
                        changed = dict(value)
                    changed[k] = new
        if any(isinstance(k, str) and _TEXT_AC.find_matches_as_indexes(k) for k in value):
            changed = {(_string(k, None, tally) if isinstance(k, str) else k): v
                       for k, v in (changed or value).items()}
        return value if changed is None else changed
    if isinstance(value, list):
        out = None
        for i, v in enumerate(value):
            if isinstance(v, (str, dict, list)):
                new = _walk(v, key, tally)
                if new is not v:
                    if out is None:
                        out = list(value)
                    out[i] = new
        return value if out is None else out
    return value


def _string(value: str, key: object, tally: Counter[str]) -> str:
    if isinstance(key, str) and value:
        kind = _key_kind(key)
        if kind is not None and secret_rules.quoted_secret(kind, value):
            tally[kind] += 1
            return MARK % kind
    found = find(value)
    if not found:
        return value
    for _, _, kind in found:
        tally[kind] += 1
    return _redacted(value, found)


@functools.lru_cache(maxsize=4096)
def _key_kind(key: str) -> str | None:
    """The kind a JSON key announces for its string value (``"password"`` -> ``password``)."""
    if len(key) > 64 or not _TEXT_AC.find_matches_as_indexes(key + '"'):
        return None
    return secret_rules.secret_name(key)


# -- saved transcripts ------------------------------------------------------------------------
def scrub_jsonl(text: str) -> tuple[str, list[dict[str, Any]]]:
    """A JSONL transcript, scrubbed line by line for ``complete --save-transcript``: the
    JSON-escaped form first, then the decoded strings of each record (a line is re-encoded
    only when that second pass changed it). Lines that are not JSON get the first pass."""
    out: list[str] = []
    report: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        body, found = scrub_text(body)
        report.extend({"kind": kind, "line": number} for _, _, kind in found)
        if might_hold_secret(body.encode("utf-8", "surrogatepass")):
            try:
                value = json.loads(body)
            except ValueError:
                value = None
            tally: Counter[str] = Counter()
            scrubbed = _walk(value, None, tally) if value is not None else None
            if scrubbed is not value:
                body = json.dumps(scrubbed, ensure_ascii=False, separators=(",", ":"))
                report.extend({"kind": kind, "line": number} for kind, n in sorted(tally.items()) for _ in range(n))
        out.append(body + ending)
    return "".join(out), report
