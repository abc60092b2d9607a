"""The scrubber itself: what is redacted and how it is named, what is left alone, and that
JSON stays JSON. The corpus over every path is tests/handoff/test_scrub_corpus.py."""

from __future__ import annotations

import json
import string
from collections import Counter

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gitrefocus.handoff import scrub_transcript, secret_rules
from gitrefocus.handoff.scrub import scrub_decoded, scrub_jsonl, scrub_text
from gitrefocus.handoff.scrub import scrub_transcript as direct

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GLPAT = "glpat-" + "xnV1SYEEFNloPAmXXndI"
PROJ = "sk-proj-" + "Zx9Qm2Lr7Tp4Wv8Ys1Kd6Hf3Jg5Nb0Cx-q" * 3
PYPI = "pypi-AgEIcHlwaS5vcmc" + "CJDk3NzRhYjE0LTdlNzgtNDg5OS1hYTk1LTRiZjgxMzVhNTcyOQACKlsz"


@pytest.mark.parametrize("text, secret, kind", [
    (f"export GITHUB_TOKEN={GHP}", GHP, "github-token"),
    (f"use {PROJ} for the eval", PROJ, "openai-key"),
    ("curl -H 'Authorization: Bearer Zx9Qm2Lr7Tp4Wv8Ys1Kd6Hf3Jg5Nb0C'", "Zx9Qm2Lr7Tp4Wv8Ys1Kd6Hf3Jg5Nb0C",
     "authorization-header"),
    ("redis://:Vq7#pLm2xR9k@cache.internal:6379/0", "Vq7#pLm2xR9k", "url-credentials"),
    ("mysql -h db -u root -pHunter2Hunter2 app", "Hunter2Hunter2", "mysql-password"),
    ("curl -u admin:Hunter2Hunter2 https://x", "Hunter2Hunter2", "curl-credentials"),
    ("docker login -u ci -p Hunter2Hunter2 registry.example.com", "Hunter2Hunter2", "registry-password"),
    ("sshpass -p 'Hunter2Hunter2' ssh deploy@host", "Hunter2Hunter2", "sshpass-password"),
    ('{"auths": {"ghcr.io": {"auth": "cm9ib3Q6SHVudGVyMkh1bnRlcjI="}}}', "cm9ib3Q6SHVudGVyMkh1bnRlcjI=", "auth"),
    ("    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB",
     "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB", "private-key"),
    ('"private_key_id": "8f2c51d0a9e44b1f6c3d7e8a9b0c1d2e3f4a5b6c",', "8f2c51d0a9e44b1f6c3d7e8a9b0c1d2e3f4a5b6c",
     "gcp-private-key-id"),
    ("TWILIO key SK" + "8f2c51d0a9e44b1f6c3d7e8a9b0c1d2e", "SK8f2c51d0a9e44b1f6c3d7e8a9b0c1d2e", "twilio-key"),
    ("MAILGUN_API_KEY=key-" + "8f2c51d0a9e44b1f6c3d7e8a9b0c1d2e", "key-8f2c51d0a9e44b1f6c3d7e8a9b0c1d2e",
     "mailgun-key"),
    ("DB_PASSWORD=Lantern03*QUAR3D9", "Lantern03*QUAR3D9", "password"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
     "b3BlbnNzaC1rZXktdjEAAAAA", "private-key"),
])
def test_a_redaction_names_its_kind_and_the_report_never_holds_the_secret(text, secret, kind):
    out, report = scrub_transcript(text)
    assert secret not in out, out
    assert f"[redacted: {kind}]" in out, out
    assert [r["kind"] for r in report] == [kind]
    assert secret not in json.dumps(report) and set(report[0]) == {"kind", "line"}


@pytest.mark.parametrize("secret", [GHP, GLPAT, PYPI, "SG." + "ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
                                    "hvs." + "CAESIJlU7tyB1bcdefghijk0123456789abQ2xvZ1p", "dop_v1_" + "8f2c51d0a9e44b1f6c3d7e8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c"])
def test_a_token_at_the_start_of_a_json_escaped_line_is_found(secret):
    """Most token rules began with a word-boundary check that failed right after ``\\n``."""
    for line in (json.dumps({"content": f"cat .env\n{secret}\nmore"}),
                 json.dumps({"content": json.dumps({"stdout": f"KEY:\n{secret}\n"})})):
        out, report = scrub_transcript(line)
        assert secret not in out and report, line
        assert json.loads(out)


@pytest.mark.parametrize("text", [
    "commit 0123456789abcdef0123456789abcdef01234567 fixed it",
    "session 123e4567-e89b-12d3-a456-426614174000 resumed",
    "see gitrefocus/handoff/transcript_paths.py and tests/handoff/test_handoff_scrub.py",
    "password=$DB_PASSWORD and GITHUB_TOKEN=${GITHUB_TOKEN}",
    "Authorization: Bearer <your-token>",
    "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "pk_live_" + "51H8dkLAbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG and bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    '<input type="hidden" name="csrfmiddlewaretoken" value="kP9sT2vX8qL4mN7bR1cW6yZ3hJ5fD0gA">',
    "X-CSRF-Token: kP9sT2vX8qL4mN7bR1cW6yZ3hJ5fD0gA",
    'token := os.Getenv("GITHUB_TOKEN")',
    "password = getpass.getpass()",
    "client = Client(api_key=settings.API_KEY)",
    "login(username=user, password=password)",
    "token: Optional[str] = None",
    '"max_tokens": 4096',
    "valueFrom:\n  secretKeyRef:\n    name: db-credentials\n    key: password",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUGv\n-----END CERTIFICATE-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGv4pQ2Lr7Tp4Wv8Ys1Kd6Hf3Jg5Nb0CxZx9Qm2Lr7T dev@laptop",
    '{"id":"msg_01ABCDEFGHIJKLMNOPQRSTUV","signature":"EqQBCkYIBRABGAIiQGxy7Zq9vT3pQmW8"}',
    "The password must be at least 12 characters long.",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
])
def test_ordinary_text_is_left_alone(text):
    for form in (text, json.dumps({"content": text})):
        out, report = scrub_transcript(form)
        assert out == form and report == [], out


def test_lines_are_counted_from_one_and_kept():
    text = "a\nb\nPASSWORD: s3cret-pass\nc\nAPI_TOKEN=Xk29vLq8Rt7p\n"
    out, report = scrub_transcript(text)
    assert [(r["kind"], r["line"]) for r in report] == [("password", 3), ("token", 5)]
    assert out.count("\n") == text.count("\n")


def test_scrubbing_twice_changes_nothing_more():
    text = f"export GITHUB_TOKEN={GHP}\npassword: Lantern03*QUAR3D9\n"
    once, _ = scrub_transcript(text)
    twice, report = scrub_transcript(once)
    assert twice == once and report == []


def test_the_package_level_name_is_the_scrubber():
    assert scrub_transcript is direct


def test_a_decoded_record_is_scrubbed_in_every_string_and_under_secret_keys():
    record = {"type": "assistant", "message": {"content": [
        {"type": "tool_use", "name": "mcp__db__connect", "input": {"host": "db", "password": "Lantern03*QUAR3D9"}},
        {"type": "text", "text": f"pushed with\n{GHP}"}]}, "toolUseResult": {"stdout": f"token {GLPAT}"}}
    raw = json.dumps(record).encode()
    tally: Counter = Counter()
    out = scrub_decoded(raw, record, tally)
    text = json.dumps(out)
    for secret in ("Lantern03*QUAR3D9", GHP, GLPAT):
        assert secret not in text
    assert tally == Counter({"password": 1, "github-token": 1, "gitlab-token": 1})
    assert record["message"]["content"][1]["text"].endswith(GHP), "the input is not mutated"


def test_a_record_without_a_trigger_is_returned_as_it_is():
    record = {"type": "user", "message": {"content": "run the tests again"}}
    assert scrub_decoded(json.dumps(record).encode(), record) is record


def test_an_escaped_letter_cannot_hide_a_trigger():
    """``\\u0067hp_`` is ``ghp_``: a line holding escaped printable characters is decoded and walked."""
    record = {"content": f"key {GHP}"}
    raw = json.dumps(record).replace("ghp_", "\\u0067hp_").encode()
    assert GHP not in json.dumps(scrub_decoded(raw, json.loads(raw)))


def test_a_saved_transcript_keeps_its_bytes_except_the_secrets():
    lines = [json.dumps({"type": "user", "message": {"content": "hello"}}, separators=(",", ":")),
             json.dumps({"type": "user", "message": {"content": f"x\n{GHP}"}}, separators=(",", ":")),
             json.dumps({"type": "assistant", "input": {"password": "Lantern03*QUAR3D9"}}),
             "not json at all " + GLPAT]
    out, report = scrub_jsonl("\n".join(lines) + "\n")
    kept = out.splitlines()
    assert kept[0] == lines[0]
    assert GHP not in out and "Lantern03*QUAR3D9" not in out and GLPAT not in out
    assert all(json.loads(line) for line in kept[:3])
    assert sorted((r["kind"], r["line"]) for r in report) == [("github-token", 2), ("gitlab-token", 4),
                                                                ("password", 3)]


safe_text = st.text(alphabet=string.ascii_letters + string.digits + " =:_-/.\"'\\\n\té日→", max_size=120)
secrets = st.sampled_from([
    "password=hunter2xx", "MY_TOKEN=abc123def456", "Authorization: Bearer Zx9Qm2Lr7Tp4Wv8Ys1Kd", GHP, GLPAT, PROJ,
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n", "redis://:pw@h", "curl -u a:b ", "mysql -pX1y2Z3 ",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(safe_text, secrets), max_size=6))
@example(parts=["Private-Lines:"])  # a cut-off PuTTY key once ran past the string's closing quote
def test_a_jsonl_line_stays_valid_json(parts):
    value = "".join(parts)
    for ascii_only in (True, False):
        for inner in (value, json.dumps({"stdout": value}, ensure_ascii=ascii_only)):
            line = json.dumps({"type": "user", "message": {"role": "user", "content": inner}}, ensure_ascii=ascii_only)
            out, report = scrub_transcript(line)
            assert json.loads(out)["type"] == "user"
            saved, _ = scrub_jsonl(line + "\n")
            assert json.loads(saved)["type"] == "user"


@settings(max_examples=200, deadline=None)
@given(safe_text, st.sampled_from([GHP, GLPAT, PROJ, PYPI]), safe_text)
def test_no_cut_around_a_secret_can_bring_it_back(before, secret, after):
    """Whatever surrounds a token, the scrubbed text never holds it."""
    text = before + " " + secret + " " + after
    out, found = scrub_text(text)
    assert secret not in out


def test_every_rule_names_a_kind_and_triggers():
    for rule in secret_rules.RULES:
        assert rule.kind and rule.triggers and all(rule.triggers), rule


# -- the gate: which raw lines are decoded-and-scrubbed at all ---------------------------------------
@pytest.fixture(scope="module")
def corpus_lines(tmp_path_factory) -> list[bytes]:
    """Every secret of the corpus placed every way, as transcript lines."""
    from tests.handoff import scrub_table, secret_corpus

    tmp = tmp_path_factory.mktemp("gate")
    path = scrub_table.transcript(scrub_table.placements(secret_corpus.kinds()), tmp / "t.jsonl", str(tmp))
    return path.read_bytes().splitlines()


@pytest.mark.parametrize("which", ["hyperscan", "automaton"])
def test_the_gate_opens_wherever_the_scrubber_would_redact(which, corpus_lines, monkeypatch):
    """A line the gate lets through unscrubbed must hold nothing the scrubber finds: over every
    secret of the corpus placed every way, each line whose decoded value the scrubber changes is
    one the gate opens for — with the Hyperscan shapes and without them."""
    from gitrefocus.handoff import scrub

    if which == "hyperscan":
        pytest.importorskip("hyperscan")
        monkeypatch.setattr(scrub, "_GATE", scrub._UNSET)
        monkeypatch.delenv("GIT_REFOCUS_NO_HYPERSCAN", raising=False)
        assert scrub.trigger_gate().__name__ == "gate", "the Hyperscan gate is in use"
    else:
        monkeypatch.setattr(scrub, "_GATE", None)
    gate = scrub.trigger_gate()
    changed = 0
    for raw in corpus_lines:
        if not gate(raw):
            value = json.loads(raw)
            assert scrub.scrub_value(value) == value, raw[:300]
        else:
            changed += 1
    assert changed > 2000, "the corpus exercises the gate"


@pytest.mark.parametrize("which", ["hyperscan", "automaton"])
def test_the_readers_gate_opens_wherever_its_view_holds_a_secret(which, corpus_lines, monkeypatch):
    """The handoff's reader gates less than the line: nothing of a record of a type it never
    quotes, and of a record of tool results only its view without the tools' output
    (``records.gated_bytes``). Over the corpus, each record whose view (tool output aside, which
    is scrubbed where it is quoted) the scrubber changes is one the gate opens for."""
    from gitrefocus.handoff import records, scrub

    if which == "hyperscan":
        pytest.importorskip("hyperscan")
        monkeypatch.setattr(scrub, "_GATE", scrub._UNSET)
        monkeypatch.delenv("GIT_REFOCUS_NO_HYPERSCAN", raising=False)
    else:
        monkeypatch.setattr(scrub, "_GATE", None)
    gate = scrub.trigger_gate()
    probed = opened = 0
    for raw in corpus_lines:
        value = records.decode_record(raw)
        scanned = records.gated_bytes(raw, value)
        probed += scanned is not None and scanned != raw
        if scanned is None or not gate(scanned):
            assert scrub.scrub_value(value) == value, raw[:300]
        else:
            opened += 1
    assert probed > 500 and opened > 1000, "the corpus exercises the tool-result probe and the gate"


def test_the_gate_shapes_keep_it_shut_on_ids_base64_and_urls(monkeypatch):
    """Two- and three-character triggers occur everywhere; their shapes do not."""
    from gitrefocus.handoff import scrub

    pytest.importorskip("hyperscan")
    monkeypatch.setattr(scrub, "_GATE", scrub._UNSET)
    monkeypatch.delenv("GIT_REFOCUS_NO_HYPERSCAN", raising=False)
    gate = scrub.trigger_gate()
    for raw in (b'{"id":"toolu_01ACMTODNDSKNTOTNjNzMjMz","url":"https://example.com/a","sig":"AC0fMTx/OD+SK9"}',
                b'{"message":{"id":"msg_01XYZ","content":[{"type":"text","text":"see http://localhost:8080/"}]}}'):
        assert not gate(raw)
    assert gate(b'{"x":"postgres://app:hunter2@db:5432"}')


def test_every_short_trigger_rule_has_a_gate_shape():
    """No trigger of two or three characters is looked for as such: its rules' shapes stand in."""
    import re

    from gitrefocus.handoff import scrub

    short = {re.escape(t).encode() for t in scrub._TRIGGERS if len(t) <= scrub.SHORT}
    assert short and not short & set(scrub.gate_expressions())
