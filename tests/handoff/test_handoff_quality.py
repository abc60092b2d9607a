"""Each cue family's precision and recall on the labelled corpus in tests/data/; the spine
shown or handed to a model command is scrubbed."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from tests.handoff import quality, secret_corpus
from tests.handoff.transcript import Session, text
from tests.runner import refocus

SECRETS = secret_corpus.kinds("tune")


def test_the_cue_corpus_is_big_enough():
    scores, _ = quality.cue_families()
    assert sum(s.tp + s.fp + s.fn + s.tn for s in scores.values()) >= 150
    assert all(s.tp and s.tn for s in scores.values()), "each family has positives and negatives"


def test_cue_precision_meets_the_target():
    scores, wrong = quality.cue_families()
    for family in ("correction", "dead-end"):
        assert scores[family].precision >= 0.9, (family, wrong)
    for family, score in scores.items():
        assert score.precision >= 0.8 and score.recall >= 0.8, (family, score, wrong)


def _secret_session(tmp_path: Path) -> tuple[Path, list[str]]:
    picked = [s for s in SECRETS if s["kind"] in ("github-pat", "postgres-url", "json-password",
                                                    "generic-api-key-env", "pgp-private-key")]
    texts = [s["plain"].format(secret=s["secret"]) if s["plain"] else s["secret"] for s in picked]
    s = Session(cwd=str(tmp_path))
    s.user("Set up the deploy. " + " ".join(texts))
    s.assistant(text("I'll configure it with " + texts[0]))
    return s.write(tmp_path / "t.jsonl"), [p["secret"] for p in picked]


def test_handoff_spine_prints_scrubbed_text(tmp_path):
    path, secrets = _secret_session(tmp_path)
    out = refocus("handoff", path, "--spine", cwd=tmp_path).stdout
    assert "Set up the deploy" in out and "[redacted: github-token]" in out
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
