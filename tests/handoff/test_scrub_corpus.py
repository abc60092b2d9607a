"""The scrubber's corpus through every path: no fake secret survives, almost no look-alike
is redacted. ``python -m tests.handoff.scrub_table`` prints the same measurement as a table
(through the CLI); here the save and spine paths call what those commands call."""

from __future__ import annotations

import json

import pytest

from gitrefocus.handoff.scrub import scrub_jsonl, scrub_transcript
from tests.handoff import scrub_table, secret_corpus
from tests.handoff.quality import _jsonl

LOOKALIKE_CEILING = 0.01


def test_the_corpus_is_big_enough_and_split():
    kinds = secret_corpus.kinds()
    assert len({k["kind"] for k in kinds}) >= 100
    assert {k["split"] for k in kinds} == {"tune", "held"}
    assert all(len([k for k in kinds if k["kind"] == kind]) == 2 for kind in {k["kind"] for k in kinds})
    looks = {item["text"] for item in secret_corpus.lookalikes()}
    assert len(looks) >= 1000
    hows = {p.how for p in scrub_table.placements(kinds[:1])}
    assert {"plain", "json-escaped", "line-start", "env-file", "yaml", "kubeconfig", "command", "tool-use-input",
            "first-message", "correction", "constraint", "cut-quote", "cut-long-message"} <= hows


def test_no_whole_token_sits_in_the_committed_corpus_file():
    """The fake values are stored in two halves, so no scanner trips over the repository."""
    text = secret_corpus.KINDS_FILE.read_text(encoding="utf-8")
    for item in secret_corpus.kinds():
        if "\n" not in item["secret"]:
            assert item["secret"] not in text, item["kind"]


@pytest.fixture(scope="module")
def measured():
    return scrub_table.measure(in_process=True)


@pytest.mark.parametrize("path", list(scrub_table.PATHS))
@pytest.mark.parametrize("split", secret_corpus.SPLITS)
def test_no_secret_survives_and_few_look_alikes_are_redacted(measured, path, split):
    secrets = measured[(path, split, "secrets")]
    looks = measured[(path, split, "look-alikes")]
    assert secrets.shown > 200 and looks.shown > 1000, "the path shows enough of the corpus to measure"
    assert secrets.bad == 0, secrets.examples[:10]
    assert looks.bad <= LOOKALIKE_CEILING * looks.shown, looks.examples[:10]


def test_the_ordinary_strings_of_earlier_transcripts_are_left_alone():
    """Lines and values written by Claude Code 2.1.330, paths, hashes, code and prose."""
    for item in _jsonl("scrub_ordinary.jsonl"):
        assert scrub_transcript(item["text"]) == (item["text"], []), item
        line = json.dumps({"type": "user", "message": {"role": "user", "content": item["text"]}})
        assert scrub_jsonl(line + "\n") == (line + "\n", []), item
