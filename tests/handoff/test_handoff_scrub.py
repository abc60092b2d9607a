"""scrub_transcript: what is redacted, how it is reported, and that JSONL stays JSONL."""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitrefocus.handoff import scrub_transcript
from gitrefocus.handoff.scrub import scrub_transcript as direct


@pytest.mark.parametrize("text, secret, kind", [
    ("export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJklmnop", "ghp_0123456789abcdefghijABCDEFGHIJklmnop",
     "github-token"),
    ("curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def'", "eyJhbGciOiJIUzI1NiJ9.abc.def",
     "authorization-header"),
    ('{"headers": {"Authorization": "token s3cr3t-value-here"}}', "s3cr3t-value-here", "authorization-header"),
    ("psql postgres://u@h --password=hunter2hunter2", "hunter2hunter2", "cli-password"),
    ('config: {"password": "correct horse"}', "correct", "secret-assignment"),
    ("SLACK_API_KEY=xoxb-1234-abcd-efgh", "xoxb-1234-abcd-efgh", "slack-token"),
    ("key is sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123",
     "model-api-key"),
    ("aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE", "aws-access-key-id"),
    ("blob Zx9Qm2Lr7Tp4Wv8Ys1Kd6Hf3Jg5Nb0Cx", "Zx9Qm2Lr7Tp4Wv8Ys1Kd6Hf3Jg5Nb0Cx", "high-entropy"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "MIIEow", "private-key"),
])
def test_secrets_are_redacted_and_reported_masked(text, secret, kind):
    out, report = scrub_transcript(text)
    assert secret not in out
    assert [r["kind"] for r in report] == [kind]
    entry = report[0]
    assert entry["line"] == 1
    assert secret not in entry["preview"] and secret[2:10] not in entry["preview"]
    assert f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize("text", [
    "commit 0123456789abcdef0123456789abcdef01234567 fixed it",
    "session 123e4567-e89b-12d3-a456-426614174000 resumed",
    "see gitrefocus/handoff/transcript_paths.py and tests/handoff/test_handoff_scrub.py",
    "the function build_inherited_context_bullets_for_spawn is long",
    "password=$DB_PASSWORD and GITHUB_TOKEN=${GITHUB_TOKEN}",
    '{"id":"msg_01ABCDEFGHIJKLMNOPQRSTUV","signature":"EqQBCkYIBRABGAIiQGxy7Zq9vT3pQmW8"}',
    '{"tool_use_id":"toolu_01AbCdEfGhIjKlMnOpQrStUv"}',
])
def test_ordinary_identifiers_are_left_alone(text):
    out, report = scrub_transcript(text)
    assert out == text and report == []


def test_lines_are_counted_from_one():
    text = "a\nb\nPASSWORD: s3cret-pass\nc\nAPI_TOKEN=abcdef123456\n"
    out, report = scrub_transcript(text)
    assert [(r["kind"], r["line"]) for r in report] == [("secret-assignment", 3), ("secret-assignment", 5)]
    assert out.count("\n") == text.count("\n")


def test_the_package_level_name_is_the_scrubber():
    assert scrub_transcript is direct


safe_text = st.text(alphabet=string.ascii_letters + string.digits + " =:_-/.\"'\\\n\té日", max_size=120)
secrets = st.sampled_from([
    "password=hunter2xx", "MY_TOKEN=abc123def456", "Authorization: Bearer Zx9Qm2Lr7Tp4Wv8Ys1Kd",
    "ghp_0123456789abcdefghijABCDEFGHIJklmnop", "Zx9Qm2Lr7Tp4Wv8Ys1Kd6Hf3Jg5Nb0Cx",
])


@settings(max_examples=300)
@given(st.lists(st.one_of(safe_text, secrets), max_size=6))
def test_a_jsonl_line_stays_valid_json(parts):
    value = "".join(parts)
    for ascii_only in (True, False):
        line = json.dumps({"type": "user", "message": {"role": "user", "content": value}}, ensure_ascii=ascii_only)
        out, report = scrub_transcript(line)
        parsed = json.loads(out)
        assert parsed["type"] == "user"
        for r in report:
            assert r["line"] == 1


@given(st.lists(secrets, min_size=1, max_size=4), safe_text)
def test_previews_never_hold_the_secret(found, filler):
    text = filler.join(found)
    out, report = scrub_transcript(text)
    for entry in report:
        for s in found:
            value = s.split("=", 1)[-1].split(" ")[-1]
            assert value not in entry["preview"]
