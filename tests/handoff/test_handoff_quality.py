"""Issue 11/14: the scrubber's precision and recall, and each cue family's, on the labelled
corpora in tests/data/; the spine shown or handed to a model command is scrubbed."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from gitrefocus.handoff.scrub import scrub_transcript
from tests.handoff import quality
from tests.handoff.transcript import Session, text
from tests.runner import refocus

SECRETS = quality._jsonl("scrub_secrets.jsonl")


def test_the_corpora_are_big_enough():
    assert len(quality._jsonl("scrub_ordinary.jsonl")) >= 300
    assert len({s["kind"] for s in SECRETS}) >= 30
    scores, _ = quality.cue_families()
    assert sum(s.tp + s.fp + s.fn + s.tn for s in scores.values()) >= 150
    assert all(s.tp and s.tn for s in scores.values()), "each family has positives and negatives"


def test_the_scrubber_catches_every_secret_and_changes_no_ordinary_string():
    score, missed, changed = quality.scrubber()
    assert missed == [], missed
    assert changed == [], changed
    assert score.precision == 1.0 and score.recall == 1.0


def test_scrubbed_jsonl_stays_the_same_records():
    """A saved transcript keeps every field: only secret values change, lines stay JSON."""
    for item in SECRETS + quality._jsonl("scrub_ordinary.jsonl"):
        line = quality.as_record(item["text"])
        out, _ = scrub_transcript(line)
        record = json.loads(out)
        assert set(record) == {"type", "message"} and record["type"] == "user"


def test_cue_precision_meets_the_target():
    scores, wrong = quality.cue_families()
    for family in ("correction", "dead-end"):
        assert scores[family].precision >= 0.9, (family, wrong)
    for family, score in scores.items():
        assert score.precision >= 0.8 and score.recall >= 0.8, (family, score, wrong)


def _secret_session(tmp_path: Path) -> tuple[Path, list[str]]:
    picked = [s for s in SECRETS if s["kind"] in ("github-token", "postgres-url-credentials", "json-password",
                                                    "env-bare-api-key", "pgp-private-key")]
    s = Session(cwd=str(tmp_path))
    s.user("Set up the deploy. " + " ".join(p["text"] for p in picked))
    s.assistant(text("I'll configure it with " + picked[0]["text"]))
    return s.write(tmp_path / "t.jsonl"), [p["secret"] for p in picked]


def test_handoff_spine_prints_scrubbed_text(tmp_path):
    path, secrets = _secret_session(tmp_path)
    out = refocus("handoff", path, "--spine", cwd=tmp_path).stdout
    assert "Set up the deploy" in out and "[REDACTED:" in out
    for secret in secrets:
        assert secret not in out


def test_the_extractor_command_receives_the_scrubbed_spine(tmp_path):
    path, secrets = _secret_session(tmp_path)
    copy = tmp_path / "seen.txt"
    cmd = f"cat \"$REFOCUS_HANDOFF_SPINE\" >> {shlex.quote(str(copy))}; cat >> {shlex.quote(str(copy))}; exit 3"
    refocus("handoff", path, "--no-cache", "--extractor-cmd", cmd, cwd=tmp_path)
    seen = copy.read_text()
    assert "Set up the deploy" in seen
    for secret in secrets:
        assert secret not in seen


if __name__ == "__main__":  # pragma: no cover
    quality.main()
    sys.exit(0)
