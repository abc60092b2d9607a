"""Precision and recall of the scrubber and of each cue family on the labelled corpora in
tests/data/ (issue 11). Run ``.venv/bin/python -m tests.handoff.quality`` to print them; the
tests in test_handoff_quality.py hold the targets."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gitrefocus.handoff import cues
from gitrefocus.handoff.scrub import scrub_transcript

DATA = Path(__file__).resolve().parent.parent / "data"


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def row(self, name: str) -> str:
        return (f"{name:<14} precision {self.precision:5.3f}  recall {self.recall:5.3f}  "
                f"(tp {self.tp}, fp {self.fp}, fn {self.fn}, tn {self.tn})")


def _jsonl(name: str) -> list[dict]:
    with open(DATA / name, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def as_record(text: str) -> str:
    """``text`` as it sits in a transcript: a JSON string inside a JSONL record."""
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}})


def scrubber() -> tuple[Score, list[str], list[str]]:
    """(score, secrets missed, ordinary strings changed). A secret counts as caught when it
    survives neither as plain text nor inside a JSONL record; an ordinary string is a false
    positive when either form changes."""
    score, missed, changed = Score(), [], []
    for item in _jsonl("scrub_secrets.jsonl"):
        out, _ = scrub_transcript(item["text"])
        record, _ = scrub_transcript(as_record(item["text"]))
        escaped = json.dumps(item["secret"])[1:-1]
        if item["secret"] in out or item["secret"] in record or escaped in record:
            score.fn += 1
            missed.append(f"{item['kind']}: {item['text'][:120]}")
        else:
            score.tp += 1
    for item in _jsonl("scrub_ordinary.jsonl"):
        out, report = scrub_transcript(item["text"])
        record, in_record = scrub_transcript(as_record(item["text"]))
        if out != item["text"] or record != as_record(item["text"]):
            report = report or in_record
            score.fp += 1
            changed.append(f"{item['what']}: {[r['kind'] for r in report]} {item['text'][:120]}")
        else:
            score.tn += 1
    return score, missed, changed


FAMILIES = {
    "correction": lambda s: cues.CORRECTION.search(s) is not None,
    "dead-end": lambda s: cues.ABANDON.search(s) is not None,
    "decision": lambda s: cues.DECISION.search(s) is not None,
    "intent": lambda s: cues.INTENT.search(s) is not None,
    "open-thread": lambda s: cues.OPEN.search(s) is not None,
    "constraint": lambda s: cues.CONSTRAINT.search(s) is not None,
}


def cue_families() -> tuple[dict[str, Score], list[str]]:
    """Per family: each labelled sentence either should fire the family's cue (1) or not (0)."""
    scores = {name: Score() for name in FAMILIES}
    wrong = []
    with open(DATA / "cue_corpus.tsv", encoding="utf-8") as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            family, label, sentence = line.rstrip("\n").split("\t", 2)
            fired = FAMILIES[family](sentence)
            score = scores[family]
            if label == "1":
                score.tp += fired
                score.fn += not fired
            else:
                score.fp += fired
                score.tn += not fired
            if fired != (label == "1"):
                wrong.append(f"{family} {'missed' if label == '1' else 'false'}: {sentence}")
    return scores, wrong


def main() -> None:
    score, missed, changed = scrubber()
    kinds = len({i["kind"] for i in _jsonl("scrub_secrets.jsonl")})
    print(f"scrubber: {score.tp + score.fn} secrets of {kinds} kinds, {score.fp + score.tn} ordinary strings")
    print(score.row("scrubber"))
    for m in missed:
        print("  missed", m)
    for c in changed:
        print("  changed", c)
    scores, wrong = cue_families()
    print(f"cue corpus: {sum(s.tp + s.fp + s.fn + s.tn for s in scores.values())} labelled sentences")
    for name, s in scores.items():
        print(s.row(name))
    for w in wrong:
        print("  ", w)


if __name__ == "__main__":
    main()
