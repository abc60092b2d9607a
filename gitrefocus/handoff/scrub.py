"""Redact secrets from transcript text before it is saved or shown (SPEC §10).

The rules are those of the well-kept detectors, not home-made entropy: the
token formats of detect-secrets' plugins (AWS, GitHub, GitLab, Slack, Stripe,
JWT, npm, PyPI, SendGrid, Twilio, Mailchimp, Telegram, Square, private keys,
basic-auth URLs) and of gitleaks' rule set (OpenAI/Anthropic, Google, Vault,
Hugging Face, Doppler, Databricks, Shopify, ...), and detect-secrets'
KeywordDetector idea — a value assigned to a secret-sounding name
(``password``, ``*_TOKEN``, ``client_secret``, ``api_key``, ``auth``) — extended
to the shapes a transcript holds: JSON-quoted keys also inside JSONL (``\\"password\\":
\\"…\\"``), ``.env`` lines, command lines (``mysql -p…``, ``curl -u user:pw``,
``sshpass -p``, ``docker login -p``, ``--password=``), ``.netrc`` entries,
``Authorization:`` headers and credentials in URLs. A generic entropy rule
flags paths, JSON key names and base64 images, so it is kept only in its
strictest form (a 32–128 character token standing alone, mixed classes, not
a path, an identifier or a hash).

Speed: the rules are not run line by line as the libraries do. Each rule names
literal triggers; one ``str.find`` sweep per trigger (on the text, or on its
lowercased copy) finds where a rule could match, and the rule's regex runs only
in a window around each hit. Text without a trigger costs a few memchr-speed
scans.

Each redaction is reported as ``{kind, line, preview}``; the preview is masked:
it never contains the secret, only its first two characters when the secret is
long enough for that to be harmless, and its length. The scrubber works on raw
JSONL as well as on plain text: a replacement never starts inside a JSON escape
sequence and contains no quote or backslash, so a valid JSON line stays valid.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter

from gitrefocus.model.records import dataclass

REDACTED = "[REDACTED:%s]"

# one value: stops at whitespace, quotes, backslashes (JSON escapes) and separators
_VALUE = r"""((?:[^\s"'\\,;&<>`|]|\\u[0-9A-Fa-f]{4}|\\\\){1,512})"""
_QUOTED = r"""([^"'\\\n]{1,512})"""  # the inside of a quoted value: spaces allowed
_PRE = r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9_]))"  # a word start, also right after a JSON \n, \r or \t
_WS = r"(?:\s|\\[nrt])+"  # whitespace, also as JSON escapes


@dataclass(frozen=True)
class Rule:
    kind: str
    regex: re.Pattern
    triggers: tuple[str, ...]
    group: int = 0                 # the group that is the secret (0: the whole match)
    lowered: bool = False          # triggers are matched against the lowercased text
    check: str = ""                # "" (always a secret) | "value" (test the value) | "keyed"


def _rule(kind, pattern, triggers, group=0, flags=0, lowered=False, check=""):
    return Rule(kind, re.compile(pattern, flags), tuple(triggers), group, lowered, check)


# token formats (detect-secrets plugins, gitleaks rules): a match is a secret
_TOKENS = [
    _rule("aws-access-key-id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b", ["AKIA", "ASIA", "ABIA", "ACCA"]),
    _rule("github-token", r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]),
    _rule("github-token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}", ["github_pat_"]),
    _rule("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|ft|cbt|imt|oas|soat)-[A-Za-z0-9_-]{20,}",
          ["glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "glimt-", "gloas-", "glsoat-"]),
    _rule("gitlab-token", r"\bGR1348941[A-Za-z0-9_-]{20,}", ["GR1348941"]),
    _rule("slack-token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}", ["xox"]),
    _rule("slack-token", r"\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{20,}", ["xapp-"]),
    _rule("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
          ["hooks.slack.com"]),
    _rule("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}", ["sk_live_", "sk_test_", "rk_live_", "rk_test_"]),
    _rule("stripe-key", r"\bwhsec_[A-Za-z0-9]{24,}", ["whsec_"]),
    _rule("model-api-key", r"\bsk-(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", ["sk-"]),
    _rule("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}", ["AIza"]),
    _rule("google-oauth", r"\bGOCSPX-[A-Za-z0-9_-]{28}", ["GOCSPX-"]),
    _rule("google-oauth", r"\bya29\.[A-Za-z0-9_-]{30,}", ["ya29."]),
    _rule("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}", ["eyJ"]),
    _rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", ["npm_"]),
    _rule("pypi-token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", ["pypi-AgE"]),
    _rule("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", ["SG."]),
    _rule("twilio-key", r"\bSK[0-9a-fA-F]{32}\b", ["SK"]),
    _rule("mailchimp-key", r"\b[0-9a-f]{32}-us\d{1,2}\b", ["-us"]),
    _rule("telegram-bot-token", r"(?<![0-9])\d{8,10}:AA[A-Za-z0-9_-]{33}\b", [":AA"]),
    _rule("square-token", r"\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}", ["sq0"]),
    _rule("square-token", r"\bEAAA[A-Za-z0-9_-]{60}", ["EAAA"]),
    _rule("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", ["shpat_", "shpca_", "shppa_", "shpss_"]),
    _rule("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", ["hvs.", "hvb.", "hvr."]),
    _rule("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}", ["_v1_"]),
    _rule("huggingface-token", r"\bhf_[A-Za-z0-9]{34,}", ["hf_"]),
    _rule("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{50,}", ["ATATT3"]),
    _rule("doppler-token", r"\bdp\.(?:st|pt|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}", ["dp."]),
    _rule("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ["dapi"]),
    _rule("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}", ["lin_api_", "lin_oauth_"]),
    _rule("planetscale-token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}", ["pscale_"]),
    _rule("grafana-token", r"\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})", ["glc_", "glsa_"]),
    _rule("sentry-token", r"\bsntr[ysu]_[A-Za-z0-9+/=_-]{30,}", ["sntr"]),
    _rule("newrelic-key", r"\bNRAK-[A-Z0-9]{27}", ["NRAK-"]),
    _rule("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}", ["PMAK-"]),
    _rule("docker-token", r"\bdckr_pat_[A-Za-z0-9_-]{27,}", ["dckr_pat_"]),
    _rule("age-secret-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}", ["AGE-SECRET-KEY-"]),
    _rule("azure-storage-key", r"AccountKey=([A-Za-z0-9+/]{40,}={0,2})", ["AccountKey="], 1),
    _rule("azure-sas", r"[?&]sig=([A-Za-z0-9%+/=]{30,})", ["sig="], 1),
]

# credentials in context: the value is a secret unless it is a placeholder or a reference
_CONTEXT = [
    _rule("url-credentials", r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s/?#@:\"'\\<>]{1,256}:([^\s/?#@\"'\\<>]{1,512})@",
          ["://"], 1, check="value"),
    _rule("authorization-header",
          _PRE + r"""(?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?(?:(?:bearer|basic|token|digest|bot)\s+)?"""
          + _VALUE, ["authorization"], 1, re.I, lowered=True, check="value"),
    _rule("api-key-header", _PRE + r"""x-(?:api|auth)-(?:key|token)\\?["']?\s*:\s*\\?["']?""" + _VALUE,
          ["x-api-", "x-auth-"], 1, re.I, lowered=True, check="value"),
    _rule("cli-password", r"(?<![\w-])--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|"
          r"access-token|auth-token|http-password)(?:=|\s+)['\"]?" + _VALUE,
          ["--pass", "--token", "--api", "--secret", "--client-secret", "--access-token", "--auth-token",
           "--http-password"], 1, re.I, lowered=True, check="value"),
    _rule("mysql-password", r"\bmysql(?:dump|admin|sh|import)?\b[^\n\"]{0,300}?\s-p['\"]?" + _VALUE,
          ["mysql"], 1, check="value"),
    _rule("sshpass-password", r"\bsshpass\s+(?:-[a-oq-zA-Z]\s+\S+\s+)*-p\s*['\"]?" + _VALUE, ["sshpass"], 1,
          check="value"),
    _rule("docker-password", r"\bdocker\s+login\b[^\n\"]{0,300}?\s-p\s*['\"]?" + _VALUE, ["docker"], 1,
          check="value"),
    _rule("curl-credentials", r"\b(?:curl|wget)\b[^\n\"]{0,400}?\s(?:-u|--user)(?:=|\s*)['\"]?"
          r"[^\s:'\"\\]{1,128}:" + _VALUE, ["curl", "wget"], 1, check="value"),
    _rule("netrc-password", r"\blogin" + _WS + r"[^\s\\]+" + _WS + r"password" + _WS + _VALUE, ["login"], 1,
          check="value"),
]

# a secret-sounding name given a value (detect-secrets' KeywordDetector, in transcript shapes)
_SECRET_NAME = (r"[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|"
                r"access[_-]?key|private[_-]?key|auth[_-]?key|(?:secret|signing|encryption|master|session)[_-]?key|"
                r"client[_-]?secret|credentials?)|auth")
_KEYED = _rule(
    "secret-assignment",
    _PRE + r"(" + _SECRET_NAME + r")(?![A-Za-z0-9_])(\\{0,7}[\"'])?\]?\s*(?::=|=|:)\s*"
    r"(?:(\\{0,7}[\"'])" + _QUOTED + r"|" + _VALUE + r")",
    ["pass", "pwd", "secret", "token", "key", "credential", "auth"], 0, re.I, lowered=True, check="keyed")

_NAME_WORD_RE = re.compile(r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|"
                           r"private[_-]?key|auth[_-]?key|[a-z]*[_-]?key|credentials?|auth)$", re.I)
_PRIVATE_KEY_RE = re.compile(r"-----BEGIN[ A-Z0-9]{0,40} PRIVATE KEY(?: BLOCK)?-----")
_PRIVATE_KEY_END_RE = re.compile(r"-----END[ A-Z0-9]{0,40} PRIVATE KEY(?: BLOCK)?-----")
_PRIVATE_KEY_SPAN = 16_000

_PLACEHOLDERS = frozenset(
    "xxx xxxx xxxxx xxxxxxxx **** ***** ******** changeme change_me redacted none null nil undefined example "
    "... true false string str text bytes int number secret password passwd token pass pwd value values "
    "required optional placeholder dummy fake test sample foo bar baz yes no on off env default "
    "your_token your-token <token> <password> <secret> mypassword my_password password123 "
    "string? object bool boolean any self this it the a an bearer basic digest bot".split()
)
_PLACEHOLDER_RE = re.compile(r"^(?:<[^>]*>|\{\{.*\}\}|\$\{?.*|%[A-Za-z_].*|\*+|x+|X+|\.+|(?:your|my|some|example|"
                             r"sample|dummy|fake|insert|replace|put)[-_ ].*|.*[-_]goes[-_]here)$", re.I)
_REFERENCE_RE = re.compile(r"^(?:[A-Za-z_][\w]*\.)+[A-Za-z_]\w*$|^[a-z_]+$|.*[()\[\]{}].*")
_UPPER_NAME_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_BASE64ISH_RE = re.compile(r"^[A-Za-z0-9+/=_-]{12,}$")
_DIGIT_OR_SYMBOL_RE = re.compile(r"[0-9!@#%^*+=~?]")


def _placeholder(value: str) -> bool:
    low = value.lower()
    return low in _PLACEHOLDERS or bool(_PLACEHOLDER_RE.match(value)) or value.startswith("[REDACTED")


def _secret_value(value: str) -> bool:
    """A value in a credential context that is not a placeholder or a reference."""
    return len(value) >= 3 and not _placeholder(value) and not value.startswith(("$", "%"))


def _keyed_secret(name: str, quoted: bool, value: str) -> bool:
    """detect-secrets' keyword idea with its false-positive filters, for unknown file types."""
    if not _secret_value(value) or len(value) < 4:
        return False
    if value.isdigit() and len(value) < 6:
        return False
    if name.lower() == "auth":  # docker config.json "auth": base64(user:password)
        return bool(_BASE64ISH_RE.match(value))
    if quoted or _UPPER_NAME_RE.match(name):  # a quoted value, or a .env / shell variable
        return not _REFERENCE_RE.match(value) or bool(_DIGIT_OR_SYMBOL_RE.search(value))
    # unquoted code or prose: `password = get_password()`, `token: str` are not secrets
    return bool(_DIGIT_OR_SYMBOL_RE.search(value)) and not _REFERENCE_RE.match(value)


# the strict high-entropy rule: a lone 32-128 character token
_CANDIDATE_RE = re.compile(r"(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/=_-]{32,128}(?![A-Za-z0-9+/=_.-])")
_HEX_RE = re.compile(r"^[0-9a-fA-F]+$")
_PART_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+|[_-]")
# values of these transcript keys are identifiers or signatures, not secrets
_STRUCTURAL_KEY_RE = re.compile(
    r'\\*"(?:signature|id|tool_use_id|toolUseID|parentToolUseID|requestId|uuid|parentUuid|logicalParentUuid|'
    r'sessionId|messageId|leafUuid|agentId|promptId|sourceToolAssistantUUID|hash|shapeHash|requestRef)\\*"\s*:\s*\\*"$')
# ids of the transcript's own structure, ssh public keys (AAAA...), subresource-integrity hashes
_STRUCTURAL_PREFIXES = ("msg_", "toolu_", "srvtoolu_", "req_", "call_", "file_", "AAAA", "sha256-", "sha384-",
                        "sha512-")


def entropy(text: str) -> float:
    counts = Counter(text)
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _identifier(token: str) -> bool:
    """Made of words (camelCase, snake_case) with few short pieces and small numbers."""
    parts = _PART_RE.findall(token)
    words = [p for p in parts if p.isalpha()]
    digits = [p for p in parts if p.isdigit()]
    short = sum(1 for w in words if len(w) < 3)
    return (short <= 1 + len(words) // 4 and all(len(d) <= 4 for d in digits)
            and len(digits) <= len(words) // 2 + 1)


def _high_entropy(token: str) -> bool:
    core = token.rstrip("=")
    if len(core) < 32 or _HEX_RE.match(core) or token.startswith(_STRUCTURAL_PREFIXES):
        return False  # hashes and object ids are everywhere in a git tool's transcripts
    if "/" in core or "+" in core:
        return False  # base64 data (images, signatures) and paths, not credentials
    if _identifier(core):
        return False  # identifiers: cacheCreationEphemeral5mInputTokens, snake_case_names
    if not (re.search(r"[a-z]", core) and re.search(r"[A-Z]", core) and re.search(r"[0-9]", core)):
        return False
    if core.count("-") + core.count("_") > len(core) // 8:
        return False  # slugs and uuids-with-words
    return entropy(core) >= 4.3


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
        self.spans: list[tuple[int, int, int, str, str]] = []  # start, end, rule order, kind, preview

    def add(self, start: int, end: int, kind: str, label: str = "") -> None:
        start = _escape_safe_start(self.text, start, end)
        if end - start < 3:
            return
        secret = self.text[start:end]
        if secret.startswith("[REDACTED"):
            return
        self.spans.append((start, end, len(self.spans), kind, (label + _mask(secret)).strip()))

    def _settled(self) -> list[tuple[int, int, int, str, str]]:
        kept: list[tuple[int, int, int, str, str]] = []
        for span in sorted(self.spans):
            if kept and span[0] < kept[-1][1]:
                if span[2] < kept[-1][2]:
                    kept[-1] = span  # an earlier rule (more specific) claims the overlap
                elif span[1] > kept[-1][1] and span[2] > kept[-1][2]:
                    continue
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


_WINDOW_BEFORE, _WINDOW_AFTER = 80, 700


class _Hits:
    """Trigger positions, found once per trigger and shared by every rule that names it."""

    def __init__(self, text: str):
        self.text = text
        self._lowered: str | None = None
        self._found: dict[tuple[str, bool], list[int]] = {}

    def lowered(self) -> str:
        if self._lowered is None:
            self._lowered = self.text.lower()
        return self._lowered

    def positions(self, trigger: str, lowered: bool) -> list[int]:
        key = (trigger, lowered)
        found = self._found.get(key)
        if found is None:
            hay = self.lowered() if lowered else self.text
            found = []
            pos = hay.find(trigger)
            while pos != -1:
                found.append(pos)
                pos = hay.find(trigger, pos + 1)
            self._found[key] = found
        return found

    def windows(self, rule: Rule) -> list[tuple[int, int]]:
        n = len(self.text)
        hits = sorted(p for t in rule.triggers for p in self.positions(t, rule.lowered))
        merged: list[tuple[int, int]] = []
        for pos in hits:
            start, end = max(0, pos - _WINDOW_BEFORE), min(n, pos + _WINDOW_AFTER)
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        return merged


def _matches(rule: Rule, hits: _Hits):
    seen = set()
    for start, end in hits.windows(rule):
        for m in rule.regex.finditer(hits.text, start, end):
            if m.span() not in seen:
                seen.add(m.span())
                yield m


def _private_keys(text: str, r: _Redactor) -> None:
    if "PRIVATE KEY" not in text:
        return
    for m in _PRIVATE_KEY_RE.finditer(text):
        end_m = _PRIVATE_KEY_END_RE.search(text, m.end(), m.end() + _PRIVATE_KEY_SPAN)
        if end_m is not None:
            end = end_m.end()
        else:  # no end marker nearby: to the end of the JSON string or the paragraph
            stop = [i for i in (text.find('"', m.end()), text.find("\n\n", m.end())) if i != -1]
            end = min([*stop, m.end() + 4000, len(text)])
        r.add(m.start(), end, "private-key")


def scrub_transcript(text: str) -> tuple[str, list[dict]]:
    """Return (scrubbed text, redactions). Each redaction: ``{"kind", "line", "preview"}``,
    ``line`` 1-based; the preview is masked and never contains the secret."""
    r = _Redactor(text)
    hits = _Hits(text)
    _private_keys(text, r)
    for rule in _TOKENS:
        for m in _matches(rule, hits):
            r.add(m.start(rule.group), m.end(rule.group), rule.kind)
    for rule in _CONTEXT:
        for m in _matches(rule, hits):
            if _secret_value(m.group(rule.group)):
                r.add(m.start(rule.group), m.end(rule.group), rule.kind)
    for m in _matches(_KEYED, hits):
        name, quote = m.group(1), m.group(3)
        group = 4 if quote else 5
        value = m.group(group)
        if value and _keyed_secret(name, bool(quote or m.group(2)), value):
            word = _NAME_WORD_RE.search(name)  # the label names the kind, never text around it
            r.add(m.start(group), m.end(group), "secret-assignment", (word.group() if word else "secret") + "=")
    for m in _CANDIDATE_RE.finditer(text):
        if not _high_entropy(m.group()):
            continue
        if text[m.start() - 1:m.start()] == '"' and _STRUCTURAL_KEY_RE.search(text, max(0, m.start() - 40), m.start()):
            continue  # a signature or an id in the transcript's own structure
        r.add(m.start(), m.end(), "high-entropy")
    return r.result()
