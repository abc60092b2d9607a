"""Redact secrets from transcript text before it is saved or shown (SPEC §10).

What is redacted: ``Authorization:`` header values, ``password=``/``passwd:``
values, ``*_TOKEN=`` (and ``*_SECRET=``, ``*_API_KEY=``, ``*_PASSWORD=``)
values, private-key blocks, well-known token formats, and other high-entropy
strings. Each redaction is reported as ``{kind, line, preview}`` where the
preview is masked: it never contains the secret, only its first two
characters when the secret is long enough for that to be harmless, and its
length.

The scrubber works on raw JSONL as well as on plain text: a replacement never
starts inside a JSON escape sequence and contains no quote or backslash, so a
valid JSON line stays valid.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter

REDACTED = "[REDACTED:%s]"

_PRIVATE_KEY_RE = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)", re.S)
# the value after the key; stops at whitespace, quotes, backslashes (JSON escapes) and separators
_VALUE = r"""((?:[^\s"'\\,;&<>`]|\\u[0-9A-Fa-f]{4}|\\\\){1,512})"""
_PRE = r"(?:(?<=\\[nrt])|\b)"  # a word start, also right after a JSON \n, \r or \t escape
_AUTH_RE = re.compile(r"""(?i)""" + _PRE + r"""(?:proxy-)?authorization\b["']?\s*[:=]\s*["']?((?:bearer|basic|token|digest|bot)\s+)?""" + _VALUE)
_PASSWORD_RE = re.compile(r"""(?i)""" + _PRE + r"""(?:password|passwd|pwd)\b["']?\s*[:=]\s*["']?""" + _VALUE)
_ENV_SECRET_RE = re.compile(_PRE + r"""([A-Z][A-Z0-9_]*_(?:TOKEN|SECRET|API_KEY|APIKEY|PASSWORD|ACCESS_KEY))\b["']?\s*[:=]\s*["']?""" + _VALUE)
_KNOWN_RE = re.compile(
    r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,}"
    r"|npm_[A-Za-z0-9]{36}|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})")
_CANDIDATE_RE = re.compile(r"[A-Za-z0-9+/=_-]{24,}")
_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEX_RE = re.compile(r"^[0-9a-fA-F]+$")
# values of these transcript keys are identifiers or signatures, not secrets
_STRUCTURAL_KEY_RE = re.compile(
    r'"(?:signature|id|tool_use_id|toolUseID|parentToolUseID|requestId|uuid|parentUuid|logicalParentUuid|'
    r'sessionId|messageId|leafUuid|agentId|promptId|sourceToolAssistantUUID)"\s*:\s*"$')
_STRUCTURAL_PREFIXES = ("msg_", "toolu_", "srvtoolu_", "req_", "call_")
_PLACEHOLDER_VALUES = {"xxx", "xxxx", "****", "changeme", "redacted", "none", "null", "example", "...",
                       "your_token", "<token>", "true", "false"}


def entropy(text: str) -> float:
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _high_entropy(token: str) -> bool:
    token = token.strip("=")
    if len(token) < 24 or _UUID_RE.match(token):
        return False
    if _HEX_RE.match(token):
        # git object ids (40/64 hex) are everywhere in a git tool's transcripts
        return len(token) >= 32 and len(token) not in (40, 64) and entropy(token) >= 3.0
    classes = sum(bool(re.search(p, token)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    if classes < 3 or token.count("-") + token.count("_") > len(token) // 6:
        return False  # words-and-dashes identifiers, paths, slugs
    return entropy(token) >= 4.0


def _mask(secret: str) -> str:
    if len(secret) >= 16:
        return f"{secret[:2]}…({len(secret)} chars)"
    return f"…({len(secret)} chars)"


def _escape_safe_start(text: str, start: int, end: int) -> int:
    """Move ``start`` past a JSON escape the match would otherwise split."""
    run = 0
    i = start - 1
    while i >= 0 and text[i] == "\\":
        run += 1
        i -= 1
    if run % 2 == 1:
        if text[start:start + 1] == "u" and re.match(r"u[0-9A-Fa-f]{4}", text[start:start + 5]):
            return min(end, start + 5)
        return min(end, start + 1)
    return start


class _Redactor:
    """Collects candidate spans; overlaps are settled once, earlier rules winning."""

    def __init__(self, text: str):
        self.text = text
        self.spans: list[tuple[int, int, int, str, str]] = []  # start, end, rule, kind, preview

    def add(self, start: int, end: int, kind: str, label: str = "") -> None:
        start = _escape_safe_start(self.text, start, end)
        secret = self.text[start:end]
        if end - start < 4 or secret.lower() in _PLACEHOLDER_VALUES:
            return
        if secret.startswith(("$", "%", "[REDACTED")):
            return  # a variable reference, or already redacted
        self.spans.append((start, end, len(self.spans), kind, (label + _mask(secret)).strip()))

    def _settled(self) -> list[tuple[int, int, int, str, str]]:
        kept: list[tuple[int, int, int, str, str]] = []
        for span in sorted(self.spans):
            if kept and span[0] < kept[-1][1]:
                if span[2] < kept[-1][2]:
                    kept[-1] = span  # an earlier rule (more specific) claims the overlap
                continue
            kept.append(span)
        return kept

    def result(self) -> tuple[str, list[dict]]:
        out, pos, report = [], 0, []
        line_starts = _line_index(self.text)
        for start, end, _, kind, preview in self._settled():
            out.append(self.text[pos:start])
            out.append(REDACTED % kind)
            pos = end
            report.append({"kind": kind, "line": _line_of(line_starts, start), "preview": preview})
        out.append(self.text[pos:])
        return "".join(out), report


def _line_index(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset)


# literal triggers: the keyed patterns are only tried near one of these (str.find is
# far faster than a case-insensitive regex over a 100 MB transcript)
_KEYED_TRIGGERS = ("uthorization", "UTHORIZATION", "assword", "ASSWORD", "asswd", "ASSWD", "pwd", "PWD",
                   "_TOKEN", "_SECRET", "_API_KEY", "_APIKEY", "_PASSWORD", "_ACCESS_KEY")
_KNOWN_TRIGGERS = ("sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AKIA", "AIza",
                   "glpat-", "npm_", "eyJ")
_WINDOW_BEFORE, _WINDOW_AFTER = 80, 700


def _windows(text: str, triggers: tuple[str, ...]) -> list[tuple[int, int]]:
    hits = []
    for trigger in triggers:
        pos = text.find(trigger)
        while pos != -1:
            hits.append((max(0, pos - _WINDOW_BEFORE), min(len(text), pos + _WINDOW_AFTER)))
            pos = text.find(trigger, pos + 1)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(hits):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _near(pattern, text: str, windows: list[tuple[int, int]]):
    seen = set()
    for start, end in windows:
        for m in pattern.finditer(text, start, end):
            if m.span() not in seen:
                seen.add(m.span())
                yield m


def scrub_transcript(text: str) -> tuple[str, list[dict]]:
    """Return (scrubbed text, redactions). Each redaction: ``{"kind", "line", "preview"}``,
    ``line`` 1-based; the preview is masked and never contains the secret."""
    r = _Redactor(text)
    if "PRIVATE KEY-----" in text:
        for m in _PRIVATE_KEY_RE.finditer(text):
            r.add(m.start(), m.end(), "private-key")
    keyed = _windows(text, _KEYED_TRIGGERS)
    for m in _near(_AUTH_RE, text, keyed):
        r.add(m.start(2), m.end(2), "authorization-header", "Authorization: ")
    for m in _near(_ENV_SECRET_RE, text, keyed):
        r.add(m.start(2), m.end(2), "token-assignment", m.group(1) + "=")
    for m in _near(_PASSWORD_RE, text, keyed):
        r.add(m.start(1), m.end(1), "password", "password=")
    for m in _near(_KNOWN_RE, text, _windows(text, _KNOWN_TRIGGERS)):
        r.add(m.start(), m.end(), "known-token")
    for m in _CANDIDATE_RE.finditer(text):
        token = m.group()
        if token.startswith(_STRUCTURAL_PREFIXES) or not _high_entropy(token):
            continue
        if text[m.start() - 1:m.start()] == '"' and _STRUCTURAL_KEY_RE.search(text, max(0, m.start() - 40), m.start()):
            continue
        r.add(m.start(), m.end(), "high-entropy")
    return r.result()
