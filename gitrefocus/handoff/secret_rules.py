"""The rules the scrubber applies: which strings are secrets, and which only look like one.

Written from the rule sets of the well-kept scanners (gitleaks' default config,
detect-secrets' plugins and filters, the secrets-patterns-db lists), adapted to
text that may be JSON-escaped: a word boundary also holds right after a ``\\n``,
``\\t`` or ``\\uXXXX`` escape, and no value runs into a backslash or a quote, so a
redaction never breaks a JSON string.

Every rule names *triggers*: literal, case-sensitive substrings that every match
contains (for a keyword, each of its usual spellings: ``password``, ``Password``,
``PASSWORD``). The scrubber finds all triggers in one Aho-Corasick pass and tries
a rule only where one of its triggers is. Three families:

* **token formats** — a vendor's own prefix and shape (``ghp_``, ``sk-proj-``,
  ``AKIA``, a JWT's ``eyJ…`` header): a match is a secret once its body is not a
  placeholder (``xxxx``, ``<token>``, a run of one character);
* **context rules** — a credential's position: ``Authorization:`` headers, URLs
  with a password (``redis://:pw@host`` too), ``mysql -p…``, ``curl -u user:pw``,
  ``docker login -p``, ``sshpass -p``, ``.netrc``, cookies, private-key blocks;
* **keyed values** — a secret-sounding name given a value (detect-secrets'
  KeywordDetector and gitleaks' generic-api-key) in JSON, YAML, ``.env``, INI,
  TOML, XML, code and query strings; the value must be a literal (not a
  reference, an expression, a type or a placeholder) and the name must not be
  one of the look-alikes (``csrf_token``, ``max_tokens``, ``public_key``, …).

To add a rule: append it to the right list below with its kind (shown in the
redaction, ``[redacted: <kind>]``), its triggers and its pattern; add a fake
example of it to ``tests/data/secrets_corpus.py``, and a look-alike if it has
one; run ``python -m tests.handoff.scrub_table``.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


# a word starts here: after a non-word character, or right after a JSON escape (\n, \t, \u0009)
START = r"(?:(?<![A-Za-z0-9_])|(?<=\\[nrtbf])|(?<=\\u[0-9A-Fa-f]{4}))"
END = r"(?![A-Za-z0-9_])"
END_DASH = r"(?![A-Za-z0-9_-])"
END_DOT = r"(?![A-Za-z0-9_-])(?!\.[A-Za-z0-9_-])"   # a body that may hold dots; a sentence's full stop may follow


class Rule:
    """A secret's shape. ``regex`` is tried with ``match`` at the trigger's position, or
    further left over the characters in ``back`` (for a trigger inside the secret);
    the group named ``secret`` is what is redacted; ``check(text, match)`` may still
    refuse the match (a placeholder, a reference, a public value). The regex is compiled
    the first time a trigger of the rule is seen (most rules never are)."""

    __slots__ = ("kind", "triggers", "pattern", "flags", "check", "back", "word_start", "_regex")

    def __init__(self, kind: str, triggers: Iterable[str], pattern: str,
                 check: Callable[[str, re.Match[str]], Any] | None = None, back: str = "", flags: int = 0) -> None:
        self.kind = kind
        self.triggers: tuple[str, ...] = tuple(triggers)
        self.pattern = pattern
        self.flags = flags
        # check(text, match) -> False | True (the group "secret") | (start, end[, kind]) | [(start, end), ...]
        self.check: Callable[[str, re.Match[str]], Any] | None = check
        self.back = back
        self.word_start = pattern.startswith(START)  # the match starts at a word start: a cheap test first
        self._regex: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            self._regex = re.compile(self.pattern, self.flags)
        return self._regex

    def __repr__(self) -> str:
        return f"Rule({self.kind!r}, {self.triggers[:3]!r}…)"


def _rule(kind: str, triggers: Iterable[str], pattern: str, check: Callable[[str, re.Match[str]], Any] | None = None,
          back: str = "", flags: int = 0) -> Rule:
    return Rule(kind, triggers, pattern, check, back, flags)


def spellings(*words: str) -> list[str]:
    """A keyword as code spells it: lower, Capitalized and UPPER."""
    out: list[str] = []
    for word in words:
        for form in (word.lower(), word[:1].upper() + word[1:].lower(), word.upper()):
            if form not in out:
                out.append(form)
    return out


# -- what a value must look like -----------------------------------------------------
def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(text)
    if not n:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


_PLACEHOLDER_WORDS = frozenset("your here placeholder redacted changeme dummy sample example fake insert replace "
                                "xxx".split())
_COUNTING_RE = re.compile(r"^[A-Za-z]{0,10}(?:0123|1234|2345|3456|4567|5678|6789)\d*$")
_SEQUENCES = ("abcdefghijklmnopqrstuvwxyz", "0123456789", "qwertyuiop", "asdfghjkl")


def placeholder_body(body: str) -> bool:
    """A token's body that is filler, not a key: ``xxxx``, ``0000``, ``abcdef…``, ``EXAMPLE``,
    ``your_token_here``, ``<...>``, a run of few characters."""
    core = body.strip("=")
    if not core:
        return True
    low = core.lower()
    if len(set(low)) <= 3 or core.endswith(("EXAMPLE", "example")) or any(
            run in core for run in ("xxxx", "XXXX", "****", "....", "…")):
        return True
    # a filler word standing as a word (`your_token_here`, `YOUR-API-KEY`, `myFakeToken`): random
    # bodies hold such letters too (`…XXxq…`), but not as a word of their own
    if not _PLACEHOLDER_WORDS.isdisjoint(name_words(core)):
        return True
    if len(core) >= 12 and any(low[:12] in s * 3 for s in _SEQUENCES):
        return True
    if _COUNTING_RE.match(re.sub(r"[^A-Za-z0-9]", "", core)):
        return True  # sk-1234…, pass1234: a short word and a count
    return len(core) >= 16 and entropy(core) < 2.5


def token_check(min_entropy: float = 3.0) -> Callable[[str, re.Match[str]], bool]:
    def check(_text: str, m: re.Match[str]) -> bool:
        body = m.group("body") if "body" in m.re.groupindex and m.group("body") else m.group("secret")
        return not placeholder_body(body) and entropy(body) >= min_entropy

    return check


TOKEN = token_check()


def _b64(text: str) -> bytes | None:
    text = text.strip()
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_" if ("-" in text or "_" in text)
                                else None, validate=True)
    except (binascii.Error, ValueError):
        return None


def _jwt(_text: str, m: re.Match[str]) -> bool:
    """Three segments whose header decodes to a JSON object naming ``alg`` or ``typ``."""
    header = _b64(m.group("header"))
    return header is not None and header[:1] == b"{" and (b'"alg"' in header or b'"typ"' in header)


def _b64_private_key(_text: str, m: re.Match[str]) -> bool:
    head = _b64(m.group("secret")[:88])
    return head is not None and b"PRIVATE KEY" in head


# -- token formats ------------------------------------------------------------------
def _token(kind: str, prefixes: Iterable[str], body: str, end: str = END,
           check: Callable[[str, re.Match[str]], Any] | None = TOKEN, flags: int = 0) -> Rule:
    """A token that starts with one of ``prefixes`` (its triggers) and goes on as ``body``."""
    alternatives = "|".join(re.escape(p) for p in prefixes)
    return _rule(kind, prefixes, START + rf"(?P<secret>(?:{alternatives})(?P<body>{body})){end}", check,
                 flags=flags)


TOKENS: list[Rule] = [
    _token("aws-access-key-id", ["AKIA", "ASIA", "ABIA", "ACCA", "A3T"], r"[A-Z2-7]{16}|[A-Z0-9]{17}"),
    _token("aws-bedrock-key", ["ABSK"], r"[A-Za-z0-9+/]{109,269}={0,2}"),
    _token("github-token", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], r"[A-Za-z0-9]{36,255}"),
    _token("github-token", ["github_pat_"], r"[A-Za-z0-9_]{22,255}"),
    _token("gitlab-token", ["glpat-", "gldt-", "glrt-", "glft-", "glsoat-", "glimt-", "glffct-", "glagent-",
                            "gloas-", "glptt-"], r"[A-Za-z0-9_-]{20,300}(?:\.[0-9a-z]{2}[0-9a-z]{7})?", END_DASH),
    _token("gitlab-token", ["glcbt-"], r"(?:[0-9a-fA-F]{1,5}_)?[A-Za-z0-9_-]{20,300}", END_DASH),
    _token("gitlab-token", ["GR1348941"], r"[A-Za-z0-9_-]{20,300}", END_DASH),
    _token("gitlab-session-cookie", ["_gitlab_session="], r"[0-9a-z]{32}"),
    _token("slack-token", ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe-", "xoxe.xox"],
           r"[A-Za-z0-9-]{10,250}", END_DASH),
    _token("slack-token", ["xapp-"], r"\d-[A-Z0-9]{6,}-\d{6,}-[a-z0-9]{20,}", END_DASH),
    _rule("slack-webhook", ["hooks.slack.com/"],
          r"hooks\.slack\.com/(?P<secret>(?:services|workflows|triggers)/[A-Za-z0-9_]{6,}/[A-Za-z0-9_]{6,}"
          r"(?:/[A-Za-z0-9_]{12,})?)", TOKEN),
    _token("stripe-key", ["sk_live_", "sk_test_", "rk_live_", "rk_test_", "sk_prod_"], r"[A-Za-z0-9]{10,247}"),
    _token("stripe-key", ["whsec_"], r"[A-Za-z0-9+/=]{24,}"),
    _token("anthropic-key", ["sk-ant-api03-", "sk-ant-admin01-", "sk-ant-oat01-", "sk-ant-ort01-", "sk-ant-sid01-"],
           r"[A-Za-z0-9_-]{32,200}", END_DASH),
    _token("openai-key", ["sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"], r"[A-Za-z0-9_-]{20,250}", END_DASH),
    _token("openrouter-key", ["sk-or-v1-"], r"[a-f0-9]{64}"),
    # sk-<48 alnum> (OpenAI's older keys, most "OpenAI-compatible" services), sk-<32 hex> (DeepSeek)
    _token("api-key", ["sk-"], r"(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{32,100}", END_DASH,
           token_check(3.5)),
    _token("google-api-key", ["AIza"], r"[0-9A-Za-z_-]{35}", END_DASH),
    _token("google-oauth-secret", ["GOCSPX-"], r"[A-Za-z0-9_-]{28}", END_DASH),
    _token("google-oauth-token", ["ya29."], r"[A-Za-z0-9_-]{30,}", END_DASH),
    _token("google-refresh-token", ["1//0"], r"[A-Za-z0-9_-]{40,}", END_DASH),
    _rule("jwt", ["eyJ"], START + r"(?P<secret>(?P<header>eyJ[A-Za-z0-9_-]{10,})={0,2}\.ey[A-Za-z0-9_-]{10,}={0,2}"
          r"\.(?:[A-Za-z0-9_-]{8,}={0,2})?)" + END_DOT, _jwt),
    _token("grafana-token", ["eyJrIjoi"], r"[A-Za-z0-9]{70,400}={0,3}"),
    _token("grafana-token", ["glc_"], r"[A-Za-z0-9+/]{32,400}={0,3}"),
    _token("grafana-token", ["glsa_"], r"[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    _token("npm-token", ["npm_"], r"[A-Za-z0-9]{36}"),
    _token("pypi-token", ["pypi-AgE"], r"[A-Za-z0-9_-]{50,}", END_DASH),
    _token("sendgrid-key", ["SG."], r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", END_DASH),
    _token("sendinblue-key", ["xkeysib-", "xsmtpsib-"], r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _token("twilio-key", ["SK"], r"[0-9a-f]{32}"),
    _token("twilio-account-sid", ["AC"], r"[0-9a-f]{32}"),
    _rule("mailchimp-key", ["-us"], START + r"(?P<secret>(?P<body>[0-9a-f]{32})-us\d{1,2})" + END, TOKEN,
          back="0123456789abcdef"),
    _token("mailgun-key", ["key-"], r"[0-9a-f]{32}", END_DASH),
    _rule("telegram-bot-token", [":AA"], r"(?<![0-9])(?P<secret>\d{8,10}:AA(?P<body>[A-Za-z0-9_-]{33}))" + END_DASH,
          TOKEN, back="0123456789"),
    _token("square-token", ["sq0atp-", "sq0csp-"], r"[A-Za-z0-9_-]{22,43}", END_DASH),
    _token("square-token", ["EAAA"], r"[A-Za-z0-9_-]{60}", END_DASH),
    _token("facebook-token", ["EAAC", "EAAM"], r"[A-Za-z0-9]{100,}"),
    _token("shopify-token", ["shpat_", "shpca_", "shppa_", "shpss_"], r"[a-fA-F0-9]{32}"),
    _token("vault-token", ["hvs.", "hvb.", "hvr."], r"[A-Za-z0-9_-]{24,300}", END_DASH),
    _token("digitalocean-token", ["dop_v1_", "doo_v1_", "dor_v1_"], r"[a-f0-9]{64}"),
    _token("huggingface-token", ["hf_"], r"[A-Za-z]{34,40}"),
    _token("huggingface-token", ["api_org_"], r"[A-Za-z]{34}"),
    _token("atlassian-token", ["ATATT3"], r"[A-Za-z0-9_=-]{50,300}", END_DASH),
    _token("bitbucket-app-password", ["ATBB"], r"[A-Za-z0-9_=.-]{28,40}", END_DASH),
    _token("doppler-token", ["dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."], r"[A-Za-z0-9_.-]{40,}",
           END_DASH),
    _token("databricks-token", ["dapi"], r"[a-f0-9]{32}(?:-\d)?"),
    _token("linear-key", ["lin_api_", "lin_oauth_"], r"[A-Za-z0-9]{40}"),
    _token("planetscale-token", ["pscale_tkn_", "pscale_pw_", "pscale_oauth_"], r"[A-Za-z0-9_.=-]{32,64}", END_DASH),
    _token("sentry-token", ["sntrys_", "sntryu_", "sntrya_"], r"[A-Za-z0-9+/=_]{40,400}"),
    _token("newrelic-key", ["NRAK-", "NRII-", "NRJS-", "NRRA-"], r"[A-Za-z0-9-]{19,40}", END_DASH),
    _token("postman-key", ["PMAK-"], r"[a-f0-9]{24}-[a-f0-9]{34}"),
    _token("docker-token", ["dckr_pat_", "dckr_oat_"], r"[A-Za-z0-9_-]{27,}", END_DASH),
    _token("age-secret-key", ["AGE-SECRET-KEY-1"], r"[0-9A-Z]{58}"),
    _token("1password-token", ["ops_eyJ"], r"[A-Za-z0-9+/]{250,}={0,3}"),
    _token("1password-secret-key", ["A3-"], r"[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-"
           r"[A-Z0-9]{5}-[A-Z0-9]{5}"),
    _token("adobe-client-secret", ["p8e-"], r"[A-Za-z0-9]{32}"),
    _token("alibaba-access-key", ["LTAI"], r"[A-Za-z0-9]{20}"),
    _token("artifactory-token", ["AKCp"], r"[A-Za-z0-9]{69}"),
    _token("artifactory-token", ["cmVmdGtu"], r"[A-Za-z0-9]{56}"),
    _token("clickhouse-key", ["4b1d"], r"[A-Za-z0-9]{38}"),
    _token("clojars-token", ["CLOJARS_"], r"[a-z0-9]{60}"),
    _token("cloudflare-origin-key", ["v1.0-"], r"[a-f0-9]{24}-[a-f0-9]{146}"),
    _token("contentful-token", ["CFPAT-"], r"[A-Za-z0-9_-]{43}", END_DASH),
    _token("duffel-token", ["duffel_live_", "duffel_test_"], r"[A-Za-z0-9_=-]{43}", END_DASH),
    _token("dynatrace-token", ["dt0c01."], r"[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    _token("easypost-key", ["EZAK", "EZTK"], r"[A-Za-z0-9]{54}"),
    _token("figma-token", ["figd_"], r"[A-Za-z0-9_-]{40,}", END_DASH),
    _token("flutterwave-key", ["FLWSECK_TEST-", "FLWSECK-"], r"[a-hA-H0-9]{32}-X"),
    _token("flyio-token", ["fo1_"], r"[A-Za-z0-9_-]{43}", END_DASH),
    _token("flyio-token", ["fm1a_", "fm1r_", "fm2_"], r"[A-Za-z0-9+/]{100,}={0,3}"),
    _token("frameio-token", ["fio-u-"], r"[A-Za-z0-9_=-]{64}", END_DASH),
    _token("groq-key", ["gsk_"], r"[A-Za-z0-9]{52}"),
    _token("heroku-key", ["HRKU-AA"], r"[0-9A-Za-z_-]{58}", END_DASH),
    _token("infracost-token", ["ico-"], r"[A-Za-z0-9]{32}"),
    _token("intra42-secret", ["s-s4t2ud-", "s-s4t2af-"], r"[a-f0-9]{64}"),
    _token("langsmith-key", ["lsv2_pt_", "lsv2_sk_"], r"[a-f0-9]{32}_[a-f0-9]{10}"),
    _token("mapbox-secret-token", ["sk.eyJ"], r"[A-Za-z0-9_-]{30,}\.[A-Za-z0-9_-]{20,}", END_DASH),
    _rule("maxmind-license-key", ["_mmk"], START + r"(?P<secret>(?P<body>[A-Za-z0-9]{6}_[A-Za-z0-9]{29})_mmk)" + END,
          TOKEN, back="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"),
    _token("netlify-token", ["nfp_"], r"[A-Za-z0-9]{36}"),
    _token("notion-token", ["ntn_"], r"[0-9]{11}[A-Za-z0-9]{35}"),
    _token("notion-token", ["secret_"], r"[A-Za-z0-9]{43}"),
    _token("octopus-key", ["API-"], r"[A-Z0-9]{26}", check=token_check(3.5)),
    _token("openshift-token", ["sha256~"], r"[A-Za-z0-9_-]{43}", END_DASH),
    _token("perplexity-key", ["pplx-"], r"[A-Za-z0-9]{48}"),
    _token("pinecone-key", ["pcsk_"], r"[A-Za-z0-9_]{40,120}"),
    _token("prefect-token", ["pnu_"], r"[A-Za-z0-9]{36}"),
    _token("pulumi-token", ["pul-"], r"[a-f0-9]{40}"),
    _token("readme-token", ["rdme_"], r"[a-z0-9]{70}"),
    _token("render-key", ["rnd_"], r"[A-Za-z0-9]{32}"),
    _token("replicate-token", ["r8_"], r"[A-Za-z0-9]{37}"),
    _token("rubygems-token", ["rubygems_"], r"[a-f0-9]{48}"),
    _token("scalingo-token", ["tk-us-"], r"[A-Za-z0-9_-]{48}", END_DASH),
    _token("settlemint-token", ["sm_aat_", "sm_pat_", "sm_sat_"], r"[A-Za-z0-9]{16}"),
    _token("shippo-token", ["shippo_live_", "shippo_test_"], r"[a-fA-F0-9]{40}"),
    _token("sonarqube-token", ["squ_", "sqp_", "sqa_"], r"[a-f0-9]{40}"),
    _token("sourcegraph-token", ["sgp_"], r"(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}"),
    _token("supabase-token", ["sbp_"], r"[a-f0-9]{40}"),
    _token("tailscale-key", ["tskey-"], r"(?:auth|api|client|webhook|scim)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}",
           END_DASH),
    _token("typeform-token", ["tfp_"], r"[A-Za-z0-9_.=-]{59}", END_DASH),
    _token("buildkite-token", ["bkua_"], r"[a-f0-9]{40}"),
    _token("circleci-token", ["CCIPAT_"], r"[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    _token("xai-key", ["xai-"], r"[A-Za-z0-9]{70,90}"),
    _token("yandex-key", ["AQVN"], r"[A-Za-z0-9_-]{35,38}", END_DASH),
    _token("yandex-key", ["t1.9euelZ"], r"[A-Za-z0-9_=-]{80,}\.[A-Za-z0-9_=-]{86}", END_DASH),
    _token("amazon-mws-token", ["amzn.mws."], r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    _token("aws-appsync-key", ["da2-"], r"[a-z0-9]{26}"),
    _token("braintree-token", ["access_token$production$", "access_token$sandbox$"], r"[0-9a-z]{16}\$[0-9a-f]{32}"),
    _token("plaid-token", ["access-sandbox-", "access-development-", "access-production-"],
           r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    _token("twitter-bearer-token", ["AAAAAAAAAAAAAAAAAAAAA"], r"[A-Za-z0-9%]{60,120}", r"(?![A-Za-z0-9_+/=%])"),
    _rule("aws-presigned-url", ["X-Amz-Signature=", "X-Amz-Security-Token=", "X-Goog-Signature="],
          r"X-(?:Amz-Signature|Amz-Security-Token|Goog-Signature)=(?P<secret>[A-Za-z0-9%+/=_-]{40,})", TOKEN),
    # a Discord bot token starts with the base64 of the bot's numeric id: M, N or O and a digit's second sextet
    _token("discord-bot-token", ["MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"],
           r"[A-Za-z0-9_-]{21,23}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}", END_DASH),
    _rule("discord-webhook", ["/api/webhooks/"],
          r"/api/webhooks/(?P<secret>\d{17,20}/[A-Za-z0-9_-]{60,80})" + END_DASH, TOKEN),
    _rule("teams-webhook", [".webhook.office.com/"],
          r"\.webhook\.office\.com/(?P<secret>webhookb2/[A-Za-z0-9@/-]{80,})", TOKEN),
    _rule("azure-storage-key", ["AccountKey=", "SharedAccessKey="],
          r"(?:Account|SharedAccess)Key=(?P<secret>[A-Za-z0-9+/]{40,}={0,2})", TOKEN),
    _rule("azure-sas-signature", ["sig="], r"(?<=[?&;])sig=(?P<secret>[A-Za-z0-9%+/=]{30,})", token_check(3.5)),
    _rule("azure-client-secret", ["Q~"], START + r"(?P<secret>(?P<body>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}))"
          r"(?![A-Za-z0-9_~-])(?!\.[A-Za-z0-9_~-])", token_check(3.5), back="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~."),
    _rule("private-key", ["LS0tLS1CRUdJTi"], START + r"(?P<secret>LS0tLS1CRUdJTi[A-Za-z0-9+/=]{60,})",
          _b64_private_key),
]


# -- values in a credential's position --------------------------------------------------
# what a value is when it is not a secret
_TYPE_WORDS = frozenset("""
    str string strings text bytes byte int integer number float double bool boolean any object dict map list array
    none null nil undefined void true false yes no on off required optional sensitive secret secrets password
    passwords passwd token tokens key keys apikey value values auth credential credentials pass pwd uuid date
    datetime email url uri redacted hidden masked omitted empty default unset unknown env environ config settings
    self this cls it the a an and or not in is of to for with from your my our their some example sample dummy fake
    oauth oauth2 oidc saml jwt ldap kerberos session cookie header negotiate ntlm apikey api_key none
    test testing foo bar baz qux changeme change_me placeholder todo tbd fixme xxx xxxx bearer basic digest bot
    token_here secret_here password_here letmein prompt ask interactive stdin file path option options type
    secretstr optional[str] str|none
""".split())
_PLACEHOLDER_RE = re.compile(
    r"""^(?:<[^<>]*>|\{\{.*\}\}|\{[^{}]*\}|\$[{(A-Za-z_].*|\#\{.*|%[\w(].*|\*+|[xX]+|\.+|-+|_+|\#+|\?+|~|0+|1234(?:5678?)?
        |(?:your|my|some|example|sample|dummy|fake|insert|replace|put|enter|add|paste|set|use|new|the)[-_ .].*
        |.*[-_ .](?:here|goes[-_ .]here|placeholder|example|redacted|changeme)|.*\.\.\.|\[redacted.*
        |(?:secret|token|password|passwd|key|value|pass|pwd|auth|test|demo|admin|example|sample|dummy|changeme|
            letmein|qwerty|foobar|hunter)[-_]?\d{0,4})$""",
    re.I | re.X)
_IDENTIFIER_RE = re.compile(r"^[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_0-9]*)*$")   # words, no digits
_DOTTED_RE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")                        # config.db.password
_PATH_RE = re.compile(r"^(?:~?/|\./|\.\./|[A-Za-z]:\\|file:)")
_CLASSES = (re.compile(r"[a-z]"), re.compile(r"[A-Z]"), re.compile(r"[0-9]"), re.compile(r"[^A-Za-z0-9]"))


def placeholder(value: str) -> bool:
    """``<your-token>``, ``${VAR}``, ``$VAR``, ``xxxx``, ``changeme``, a type name, a redaction marker."""
    low = value.lower()
    return not value or low in _TYPE_WORDS or bool(_PLACEHOLDER_RE.match(value)) or placeholder_body(value) \
        and not _strong(value)


def _strong(value: str) -> bool:
    """Random enough to be a generated credential whatever its name: long, mixed, high entropy."""
    return len(value) >= 20 and sum(1 for c in _CLASSES if c.search(value)) >= 3 and entropy(value) >= 4.0


def _classes(value: str) -> int:
    return sum(1 for c in _CLASSES if c.search(value))


def literal(value: str, min_len: int = 4, code: bool = False) -> bool:
    """A value written out, not a reference to one: neither a placeholder, a variable, a path,
    a URL nor a number too short to be a credential. ``code``: an unquoted value in code,
    where ``@x``, ``&x``, ``*x`` and ``!x`` are expressions too."""
    if len(value) < min_len or placeholder(value) or _PATH_RE.match(value) or "://" in value or _test_value(value):
        return False
    if value.isdigit() and len(value) < 8:
        return False
    return not (code and value[0] in "$%@&*!")


def looks_generated(value: str) -> bool:
    """Shaped like a generated token rather than a word or an identifier: digits and letters, or
    both cases and a digit or symbol, with some entropy."""
    if len(value) < 8 or not literal(value, 8, code=True) or _IDENTIFIER_RE.match(value) or _test_value(value):
        return False
    if value.replace(".", "").isdigit():
        return False
    if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        return entropy(value) >= 2.8
    # no digit: only a long, random-looking run (not `Entire-Session`, `my-app-name`)
    return len(value) >= 20 and _classes(value) >= 2 and entropy(value) >= 3.8


_TEST_WORDS = frozenset("test testing example sample dummy fake demo placeholder your changeme mock stub".split())


def _test_value(value: str) -> bool:
    """A value made of words one of which says it is not real: ``phc_test_key``, ``my-fake-token``."""
    words = name_words(value)
    return not _TEST_WORDS.isdisjoint(words) and not any(c.isdigit() for c in value.replace("test", ""))


# -- names ------------------------------------------------------------------------------
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
# names that hold a value which is public, or a count, or a different thing altogether
_NAME_EXCLUDED_RE = re.compile(
    r"csrf|xsrf|authenticity|nonce|captcha|public|publishable|pub_?key|primary|foreign|partition|sort_?key|"
    r"cache_?key|idempoten|dedup|i18n|translation|hotkey|keyboard|keystroke|keypress|keycode|monkey|turkey|"
    r"tokeni[sz]|max_?tokens?|_tokens|tokens_|token_?(?:count|usage|limit|budget|type)|input_?token|output_?token|"
    r"secretsmanager|secret_?manager|secret_?key_?ref|passwordless|password_?(?:reset|policy|strength|hash|field)|"
    r"author|oauth_?url|auth_?(?:url|type|method|mode|provider|domain|server|flow|scheme)|"
    r"bypass|compass|surpass|passthrough|passage|passenger|passive|passport|keychain|keyring|keystore|keytab|"
    r"secretary|signature_?key_?id|key_?(?:id|name|alias|path|file|size|length|pair|usage|spec|vault)$",
    re.I)
# words that may follow a secret's word in its name (SECRET_KEY_BASE, API_KEY_PROD, token_v2)
_TRAILING_WORDS = frozenset("""
    base prod production dev development test staging stage live local rw ro new old main backup b64 base64 raw
    value encoded plain plaintext cleartext string str hex bytes data default global secret key token header
""".split())
# the word right before "key" that makes it a credential's name (api_key, masterKey, SIGNING_KEY);
# anything else (sort_key, cache_key, primary_key, SessionTrailerKey) is not
_KEY_QUALIFIERS = frozenset("""
    api access secret private client auth master encryption encrypt decryption signing sign sending session app
    application account service db database license licence consumer webhook jwt hmac aes crypto cipher
    subscription admin write ingest integration deploy server bot partner merchant shared root storage apim
""".split())
# a service's name anywhere in the name makes its "...key" a credential (MAILGUN_SENDING_KEY)
_KEY_VENDORS = frozenset("""
    ocp openai anthropic stripe mailgun sendgrid twilio google gemini maps firebase algolia mapbox datadog dd
    newrelic sentry segment mixpanel amplitude pusher sauce browserstack cloudflare fastly heroku vercel netlify
    supabase pinecone cohere mistral groq replicate together huggingface hf azure aws gcp linode vultr openrouter
    deepseek perplexity voyage jina elevenlabs assemblyai deepgram resend postmark mailchimp mailjet brevo
    sendinblue plaid paypal braintree square shopify slack discord telegram github gitlab bitbucket npm pypi
    docker registry vault consul nomad terraform snyk sonar codecov circleci travis buildkite jenkins rapidapi
    weather openweather tmdb omdb news serp serpapi tavily exa firecrawl browserless e2b modal runpod xai
""".split())
_CAMEL_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def name_words(name: str) -> list[str]:
    return [w.lower() for part in re.split(r"[_.\-\s]+", name) for w in _CAMEL_RE.findall(part)]


def full_name(text: str, start: int, end: int) -> str:
    """The whole identifier around ``text[start:end]`` (``DB_PASSWORD`` around ``PASSWORD``)."""
    i = start
    while i > 0 and start - i < 60 and text[i - 1] in _NAME_CHARS:
        i -= 1
    return text[i:end].strip(".-")


def _secret_word(word: str) -> str | None:
    if word in ("password", "passwd", "passphrase", "pass", "pwd", "passwords") or word.endswith(("password", "pass")):
        return "password"
    if word in ("secret", "secrets") or word.endswith("secret"):
        return "secret"
    if word in ("token", "pat") or word.endswith("token"):
        return "token"
    if word in ("credential", "credentials", "creds"):
        return "credential"
    if word == "auth":
        return "auth"
    if word == "cookie":
        return "cookie"
    if word in ("apikey", "key") or word.endswith("key"):
        return "key"
    return None


def secret_name(name: str) -> str | None:
    """The kind a credential's name announces (``password``, ``token``, ``api-key``, …), or None
    for a name that only looks like one (``csrf_token``, ``max_tokens``, ``public_key``,
    ``password_hash``, ``sort_key``, ``bypass``)."""
    if _NAME_EXCLUDED_RE.search(name):
        return None
    words = name_words(name)
    for i in range(len(words) - 1, -1, -1):
        kind = _secret_word(words[i])
        if kind is None:
            continue
        tail = words[i + 1:]
        if any(w not in _TRAILING_WORDS and not w.isdigit() and not (w[:1] == "v" and w[1:].isdigit())
               for w in tail):
            return None
        if kind != "key":
            return kind
        before = words[:i]
        word = words[i]
        if word != "key":
            before = before + [word[:-3]]
        # the word right before "key" says what kind of key: api_key, SIGNING_KEY, secretKey;
        # SessionTrailerKey, sort_key, cache_key are not credentials
        if not before or (before[-1] not in _KEY_QUALIFIERS and _KEY_VENDORS.isdisjoint(before)):
            return None
        joined = " ".join(before)
        return ("api-key" if "api" in joined else "private-key" if "private" in joined
                else "access-key" if "access" in joined else "secret-key")
    return None


_STOPWORDS = frozenset("""
    the a an your enter must be is are to for of and or not please new current at least characters required
    invalid incorrect wrong confirm field here this that with will should can cannot use set reset type
""".split())


def quoted_secret(kind: str, value: str, quote: str = '"') -> bool:
    """A quoted value (a JSON or YAML string, a string literal) under a secret's name."""
    if kind == "auth":
        return _auth_value(value) or _password_like(value)
    if quote == "`":  # Markdown code, not a string literal: only a generated-looking value counts
        return looks_generated(value) and not _CALL_RE.match(value)
    if " " in value.strip():
        words = value.split()
        return (kind in ("password", "credential") and 2 <= len(words) <= 5 and len(value) <= 60
                and all(w.isalnum() and w.islower() and w not in _STOPWORDS for w in words))
    if kind in ("password", "credential"):
        return literal(value)
    if kind == "cookie":
        return looks_generated(value) and "=" not in value.rstrip("=")
    return looks_generated(value) or (len(value) >= 12 and literal(value) and not _IDENTIFIER_RE.match(value))


# -- keyed values ------------------------------------------------------------------------
_OPS = ("=", ":", '"', "'", '\\"', '\\\\', " =", " :")   # ... and a quote escaped once, or more
_KEYED_TRIGGERS = sorted(set(
    spellings("password", "passwd", "passphrase", "secret", "credential", "apikey", "api_key", "api-key",
              "access_key", "accesskey", "private_key", "privatekey") + ["apiKey", "ApiKey", "accessKey",
                                                                          "AccessKey", "privateKey", "PrivateKey"]
    + [w + op for w in spellings("token", "pass", "pwd", "auth", "creds") + ["_key", "Key", "_KEY", "-key",
                                                                             "-Key", "-KEY", "_PAT", "_pat"]
       for op in _OPS]
    + [w + op for w in ("cookie", "Cookie", "COOKIE") for op in ("=", '"', '\\"', ":")]
    + ["TOKEN_", "_KEY_", "AUTH_", "auth_"]))
_WS = r"(?:[ \t]|\\t)"   # a blank, also as a JSON escape
KEYED_PATTERN = (
    r"(?P<name>[A-Za-z0-9_.-]{2,64}?)(?P<close>\\{0,7}[\"'])?\]?" + _WS + r"{0,4}(?P<op>:=|=>|==|=|:)" + _WS
    + r"{0,8}(?:(?P<q>\\{0,7}[\"'`])(?P<qv>[^\"'`\\\r\n]{1,400})(?P=q)|(?P<uv>[^\s\"'`\\]{1,400}))")
# the start of a line, also after a JSON \n and after the Read tool's line number (`    12→`)
_LINE_START_RE = re.compile(r"(?:^|[\n\r]|\\n|\\r)(?:[ \t]*\d+(?:→|\t|\\t))?[ \t]*"
                            r"(?:export[ \t]+|set[ \t]+|ENV[ \t]+|-[ \t]+|[#;]?)?$")
_LINE_END_RE = re.compile(r"[ \t]*(?:$|[\n\r]|\\[nr]|#)")
_CODE_STOP_RE = re.compile(r"[,;&|<>(){}\[\]]")
_CALL_RE = re.compile(r"^[A-Za-z_][\w.]*[(\[{]")   # get_password(), os.environ[...], Secret{...}


_UNICODE_ESCAPE_RE = re.compile(r"(?:\\+u[0-9A-Fa-f]{4})+[^\s\"'`\\]*")   # once or twice escaped
_ONE_ESCAPE_RE = re.compile(r"\\+u([0-9A-Fa-f]{4})")


def _with_escapes(text: str, end: int, value: str) -> tuple[str, int]:
    """An unquoted value in JSON-escaped text goes on through ``\\u2026``-style escapes of
    non-ASCII characters (``sk-ant-\\u2026`` is ``sk-ant-…``, a placeholder): the value with
    them decoded, and where it ends in ``text``."""
    m = _UNICODE_ESCAPE_RE.match(text, end)
    if m is None:
        return value, end
    decoded = _ONE_ESCAPE_RE.sub(lambda e: chr(int(e.group(1), 16)), m.group())
    return value + decoded, m.end()


def keyed_check(text: str, m: re.Match[str]) -> bool | tuple[int, int, str]:
    """A secret-sounding name given a literal value: the value's span and the kind its name
    announces, or False. How a value ends and how literal it must be depends on where it sits:
    a ``.env`` or shell line, an INI/YAML/TOML line, a query string or connection string, or
    code and prose."""
    start = m.start("name")
    name = full_name(text, start, m.end("name"))
    kind = secret_name(name)
    if kind is None:
        return False
    if m.group("q"):
        value = m.group("qv")
        return quoted_secret(kind, value, m.group("q")[-1]) and (*m.span("qv"), kind)
    if name.lower() == "pass" and m.group("op") == ":":
        return False  # `--- PASS: TestX`, "tests pass: ...": a test runner's word, not a name
    if m.group("op") == "==":
        return False  # a comparison with a variable
    value_start = m.start("uv")
    value, value_end = _with_escapes(text, m.end("uv"), m.group("uv"))
    name_start = m.end("name") - len(name)
    before = text[name_start - 1:name_start]
    upper_env = name.upper() == name and m.group("op") == "=" and m.start("uv") == m.end("op")
    if before in ("?", "&", ";"):   # a query string, a connection string
        value = re.split(r"[&#;]", value, maxsplit=1)[0]
        ok = literal(value, 4 if kind in ("password", "auth") else 6)
    elif upper_env or (_LINE_START_RE.search(text, max(0, name_start - 40), name_start)
                       and _LINE_END_RE.match(text, value_end)):
        # .env, shell, INI, YAML, TOML, properties: the rest of the line is the value
        value = value.rstrip(";,")
        if kind == "auth":
            ok = _auth_value(value) or _password_like(value)
        elif kind == "cookie":
            ok = looks_generated(value) and "=" not in value.rstrip("=")
        elif upper_env:
            ok = literal(value, 4 if kind == "password" else 6)
        else:  # `password = pw` in code reads like an INI value: a bare word or a call does not count
            ok = literal(value) and not _IDENTIFIER_RE.match(value) and not _CALL_RE.match(value) and (
                kind == "password" or looks_generated(value) or len(value) >= 12)
    else:  # inline in code or prose: up to the first separator, and shaped like a generated credential
        stop = _CODE_STOP_RE.search(value)
        if stop is not None:
            if stop.group() in "([{":
                return False  # f(...), x[...]: an expression
            value = value[:stop.start()]
        value = value.rstrip(".:")
        if kind == "auth":
            ok = _auth_value(value)
        else:
            ok = looks_generated(value) and not _DOTTED_RE.match(value)
            if kind == "cookie":
                ok = ok and "=" not in value.rstrip("=")
    # the span: up to where the (possibly cut) value ends, escapes included when it kept them
    end = value_start + len(value) if len(value) <= len(m.group("uv")) else value_end
    return ok and (value_start, end, kind)


def _password_like(value: str) -> bool:
    """Written like a password: eight characters or more, not a word or an identifier, of two
    character classes at least."""
    return literal(value, 8) and not _IDENTIFIER_RE.match(value) and _classes(value) >= 2 and " " not in value


def _auth_value(value: str) -> bool:
    """``auth``: docker's base64 ``user:password``, a ``user:password`` pair, or a long random token."""
    if not literal(value):
        return False
    raw = _b64(value) if len(value) >= 8 else None
    if raw is not None and b":" in raw:
        name, _, secret = raw.partition(b":")
        return bool(name) and len(secret) >= 3 and all(32 <= c < 127 for c in raw)
    if ":" in value and "//" not in value:
        user, _, password = value.partition(":")
        return bool(user) and literal(password) and not password.isdigit()
    return _strong(value)


KEYED = Rule("secret-assignment", _KEYED_TRIGGERS, KEYED_PATTERN, keyed_check)


# -- credentials in context ----------------------------------------------------------------
_CMD_VALUE = r"""(?:\\{0,3}["'])?(?P<secret>[^\s"'`\\;&|<>()]{1,300})"""
_CMD_GAP = r"""(?:[^\n\r\\]|\\["'/])"""   # anything on the same command line, escaped quotes included


def _command_check(text: str, m: re.Match[str]) -> bool:
    value = m.group("secret")
    return literal(value, 3) and not value.startswith("-")


def _header_check(text: str, m: re.Match[str]) -> bool:
    value = m.group("secret")
    after = text[m.end("secret"):m.end("secret") + 1]
    if after and after in "([":
        return False
    scheme = m.group("scheme")
    if scheme and scheme.lower() == "basic":
        return literal(value, 8)
    return literal(value, 8) and not _IDENTIFIER_RE.match(value) and (scheme is not None or looks_generated(value))


def _url_check(text: str, m: re.Match[str]) -> bool:
    value = m.group("secret")
    return literal(value, 1) and not (value.startswith("{") or value.endswith("}")) and value not in ("*", "x")


def _netrc_check(text: str, m: re.Match[str]) -> bool:
    line_start = max(text.rfind("\n", 0, m.start()), text.rfind("\\n", 0, m.start()))
    line = text[line_start + 1:m.start()]
    return ("login" in line or "machine" in line) and literal(m.group("secret"), 3)


_SESSION_COOKIE_RE = re.compile(
    r"(?:^|;\s*)(?P<name>[\w.-]*(?:sess|sid|auth|token|jwt|remember|login)[\w.-]*)=(?P<value>[^;\s\"'\\]{8,})", re.I)


def _cookie_check(text: str, m: re.Match[str]) -> list[tuple[int, int]] | bool:
    pairs = m.group("pairs")
    base = m.start("pairs")
    spans = [(base + c.start("value"), base + c.end("value")) for c in _SESSION_COOKIE_RE.finditer(pairs)
             if not re.search(r"csrf|xsrf", c.group("name"), re.I) and literal(c.group("value"), 8)]
    return spans or False


def _pem_block(text: str, m: re.Match[str]) -> list[tuple[int, int]]:
    """From the BEGIN marker to its END marker; without one, to the end of the JSON string or
    paragraph the block sits in (a cut-off key is still a key)."""
    end = _PEM_END_RE.search(text, m.end(), m.end() + 20_000)
    if end is not None:
        return [(m.start(), end.end())]
    stops = [i for i in (_unescaped_quote(text, m.end()), text.find("\n\n", m.end()), text.find("\\n\\n", m.end()))
             if i != -1]
    return [(m.start(), min([*stops, m.end() + 8000, len(text)]))]


def _unescaped_quote(text: str, pos: int) -> int:
    while True:
        i = text.find('"', pos)
        if i == -1:
            return -1
        run = 0
        while i - run - 1 >= 0 and text[i - run - 1] == "\\":
            run += 1
        if run % 2 == 0:
            return i
        pos = i + 1


def _putty(text: str, m: re.Match[str]) -> list[tuple[int, int]]:
    end = text.find("Private-MAC:", m.end(), m.end() + 8000)
    if end == -1:  # cut off: to the end of the JSON string or paragraph, as for a PEM block
        stops = [i for i in (_unescaped_quote(text, m.end()), text.find("\n\n", m.end()),
                             text.find("\\n\\n", m.end())) if i != -1]
        return [(m.start(), min([*stops, m.end() + 2000, len(text)]))]
    line_end = min([i for i in (text.find("\n", end), text.find("\\n", end), text.find('"', end)) if i != -1]
                   or [len(text)])
    return [(m.start(), line_end)]


_PEM_END_RE = re.compile(r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PASSWORD_FLAGS = r"(?:password|passwd|pass|token|api-?key|secret|client-secret|access-token|auth-token|" \
                  r"[a-z]+-password|[a-z]+-token|[a-z]+-secret|[a-z]+-api-key)"

CONTEXT: list[Rule] = [
    _rule("private-key", ["-----BEGIN"], r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----", _pem_block),
    _rule("private-key", ["Private-Lines:"], r"Private-Lines:", _putty),
    _rule("private-key", ["client-key-data"], r"client-key-data\\?[\"']?[ \t]*:[ \t]*\\?[\"']?"
          r"(?P<secret>[A-Za-z0-9+/]{20,}={0,2})", TOKEN),
    _rule("gcp-private-key-id", ["private_key_id", "PRIVATE_KEY_ID", "privateKeyId"],
          r"(?i:private_?key_?id)\\{0,3}[\"']?[ \t]*[:=][ \t]*\\{0,3}[\"']?(?P<secret>[a-f0-9]{40})(?![a-f0-9])", TOKEN),
    # the password runs to the last @ before the host: a password may hold #, ? and @ unencoded
    _rule("url-credentials", ["://"], r"://(?P<user>[^\s/?#@:\"'\\<>`]{0,256}):(?P<secret>[^\s/\"'\\<>`]{1,512})@"
          r"(?=[A-Za-z0-9\[._-])", _url_check),
    _rule("authorization-header", ["uthorization", "UTHORIZATION"],
          r"(?:uthorization|UTHORIZATION)\\{0,7}[\"']?[ \t]*[:=][ \t]*\\{0,7}[\"']?[ \t]*"
          r"(?:(?P<scheme>Bearer|bearer|BEARER|Basic|basic|Token|token|Bot|Digest|Negotiate|NTLM|SSWS|GenieKey|"
          r"ApiKey|Api-Key|JWT|OAuth|Splunk|AWS4-HMAC-SHA256|Key)[ \t]+)?(?P<secret>[^\s\"'\\,;<>`]{6,4000})",
          _header_check),
    _rule("session-cookie", ["ookie:", "OOKIE:", "ookie\\\":", "ookie\":"],
          r"(?:ookie|OOKIE)\\{0,7}[\"']?[ \t]*:[ \t]*\\{0,7}[\"']?(?P<pairs>[^\r\n\"'\\]{1,4000})", _cookie_check),
    _rule("cli-password", ["--pass", "-password", "-passwd", "-token", "-api-key", "-apikey", "-secret"],
          r"(?<![\w-])--?" + _PASSWORD_FLAGS + r"(?:=|[ \t]+)" + _CMD_VALUE, _command_check,
          back="abcdefghijklmnopqrstuvwxyz-"),
    _rule("mysql-password", ["mysql"], r"mysql\w*\b" + _CMD_GAP + r"{0,300}?[ \t]-p" + _CMD_VALUE, _command_check),
    _rule("sshpass-password", ["sshpass"], r"sshpass\b" + _CMD_GAP + r"{0,100}?[ \t]-p[ \t]*" + _CMD_VALUE,
          _command_check),
    _rule("registry-password", ["docker", "podman", "nerdctl", "buildah", "skopeo", "helm"],
          r"(?:docker|podman|nerdctl|buildah|skopeo|helm(?:[ \t]+registry)?)[ \t]+login\b" + _CMD_GAP
          + r"{0,300}?[ \t]-p[ \t]+" + _CMD_VALUE, _command_check),
    _rule("curl-credentials", ["curl", "wget", "http "],
          r"(?:curl|wget|http)\b" + _CMD_GAP + r"{0,400}?[ \t](?:-u|--user|--http-user)(?:[ \t]+|=)(?:\\{0,3}[\"'])?"
          r"[^\s:\"'\\]{0,128}:" + r"(?P<secret>[^\s\"'`\\;&|<>()]{1,300})", _command_check),
    _rule("redis-password", ["redis-cli"], r"redis-cli\b" + _CMD_GAP + r"{0,300}?[ \t]-a[ \t]+" + _CMD_VALUE,
          _command_check),
    _rule("mongo-password", ["mongo"], r"mongo(?:sh)?\b" + _CMD_GAP + r"{0,300}?[ \t]-p[ \t]+" + _CMD_VALUE,
          _command_check),
    _rule("openssl-password", ["pass:"], r"pass:" + r"(?P<secret>[^\s\"'`\\;&|<>()]{1,300})",
          lambda text, m: bool(re.search(r"-(?:passin|passout|pass|k)[ \t]+$", text[max(0, m.start() - 12):m.start()]))
          and literal(m.group("secret"), 3)),
    _rule("netrc-password", ["password "], r"password[ \t]+(?P<secret>[^\s\"'\\]{1,200})", _netrc_check),
    _rule("nuget-password", ["Password"], r"Password\\?\"[ \t]+value=\\?\"(?P<secret>[^\"\\]{1,300})",
          lambda text, m: literal(m.group("secret"))),
    _rule("xml-secret", spellings("password>", "passwd>", "secret>", "token>", "apikey>") + ["apiKey>", "ApiKey>"],
          r"(?<=<)(?P<name>[\w.:-]{0,40}?)>(?P<secret>[^<\s\"'\\]{4,300})</",
          lambda text, m: secret_name(full_name(text, m.start("name"), m.end("name"))) is not None
          and literal(m.group("secret")), back="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-"),
]

RULES: list[Rule] = TOKENS + CONTEXT + [KEYED]
