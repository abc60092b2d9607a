"""Precision and recall of each cue family on the labelled corpus in tests/data/. Run
``.venv/bin/python -m tests.handoff.quality`` to print them; the tests in
test_handoff_quality.py hold the targets. (The scrubber's corpus and table are
tests/handoff/secret_corpus.py and tests/handoff/scrub_table.py.)"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gitrefocus.handoff import cues

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
    scores, wrong = cue_families()
    print(f"cue corpus: {sum(s.tp + s.fp + s.fn + s.tn for s in scores.values())} labelled sentences")
    for name, s in scores.items():
        print(s.row(name))
    for w in wrong:
        print("  ", w)
