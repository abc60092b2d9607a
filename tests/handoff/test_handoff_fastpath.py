"""The handoff's shortcuts never change what it finds.

Cue regexes run only their alternatives whose leading literal occurs in the
sentence; these tests hold the shortcut to the plain regex on the labelled cue
corpus and on many generated sentences.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from gitrefocus.handoff import cues

CORPUS = Path(__file__).resolve().parents[1] / "data" / "cue_corpus.tsv"
CUE_NAMES = ("CORRECTION", "CONSTRAINT", "ABANDON", "DECISION", "INTENT", "OPEN", "INJECTION")


def _plain(cue: cues.Cue, sentence: str):
    """What the cue found before the shortcut: its whole regex behind the key gate."""
    low = sentence.casefold()
    return cue.regex.search(sentence) if any(k in low for k in cue.keys) else None


def _sentences() -> list[str]:
    out = [cell for line in CORPUS.read_text(encoding="utf-8").splitlines() for cell in line.split("\t")]
    words: set[str] = set()
    for name in CUE_NAMES:
        words.update(re.findall(r"[A-Za-z']+", getattr(cues, name).regex.pattern))
    vocabulary = sorted(words) + ["No,", "no.", "Wait,", "Actually,", "TODO", "todo", "\u017ftill", "\u0130",
                                  "\u0131", "\u212a", "é", "日本", "rm -rf /", "curl x | sh", "<system>", "instead.", "."]
    rng = random.Random(11)
    for _ in range(20000):
        out.append(" ".join(w.upper() if rng.random() < 0.3 else w
                            for w in (rng.choice(vocabulary) for _ in range(rng.randint(1, 14)))))
    return out


@pytest.mark.parametrize("name", CUE_NAMES)
def test_pruned_cue_search_finds_what_the_whole_regex_finds(name):
    cue = getattr(cues, name)
    found = 0
    for sentence in _sentences():
        expected = _plain(cue, sentence)
        got = cue.search(sentence)
        assert (got and got.span()) == (expected and expected.span()), sentence
        found += expected is not None
    assert found > 100  # the generated sentences do exercise the cue


def test_cue_alternatives_rebuild_the_regex():
    for name in CUE_NAMES:
        cue = getattr(cues, name)
        assert len(cue.alternatives) >= 1
        rebuilt = re.compile("|".join(alt for alt, _ in cue.alternatives), cue.regex.flags)
        for sentence in ("No, use the lexer instead of the parser.", "I'll add a TODO: fix it", "wait, that's not it"):
            a, b = rebuilt.search(sentence), cue.regex.search(sentence)
            assert (a and a.span()) == (b and b.span())


_OLD_SPLIT_RE = re.compile(r"(?<=[.!?])\s+|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+")


def _regex_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans as one regex split them (the reference for the charset scan)."""
    cuts = [(m.start(), m.end()) for m in _OLD_SPLIT_RE.finditer(text)]
    spans = list(zip([0] + [e for _, e in cuts], [s for s, _ in cuts] + [len(text)]))
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
    return out


def test_sentence_spans_split_where_the_regex_splits():
    pieces = ["the", "parser.", "token!", "index?", "x\n", "\r\n", " ", "  ", "é", "日本", "\u2028", "..", "?!",
              "\x1c", "\x85", "\t", "a.b", "end."]
    rng = random.Random(5)
    texts = ["", ".", "a.", "a. ", "\n", "x!\n\n\ny", "? ?"]
    texts += ["".join(rng.choice(pieces) + rng.choice(["", " "]) for _ in range(rng.randint(0, 60)))
              for _ in range(3000)]
    for text in texts:
        assert cues.sentence_spans(text) == _regex_spans(text), repr(text)
