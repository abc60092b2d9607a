"""--extractor-cmd: the seed's prompts, parallel calls, the validation contract, fallbacks."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitrefocus.handoff import external, gitstate, prompts, transcript_paths
from gitrefocus.handoff import prepare as prep
from gitrefocus.handoff.finalize import UNSOURCED, finalize
from gitrefocus.handoff.sections import (
    PLACEHOLDER,
    SECTION_NAMES,
    SectionRejected,
    parse_answer,
    validate,
)
from tests.handoff.transcript import Session, text
from tests.runner import refocus

FAKE = f"{shlex.quote(sys.executable)} {shlex.quote(str(Path(__file__).with_name('fake_model.py')))}"
# The seed document the prompts were taken from, kept with the tests (tests/data/seeds/).
SEED = Path(__file__).resolve().parents[1] / "data" / "seeds" / "001_3bdf383ca96b6294.txt"


def run(story, mode="", *extra, env=None, check=True):
    full = {"FAKE_MODEL_MODE": mode, **(env or {})}
    return refocus("handoff", story.path, "--json", "--no-cache", "--extractor-cmd", FAKE, *extra,
                   cwd=story.repo, env=full, check=check)


def sections(doc):
    return {s["section"]: s for s in doc["sections"]}


def test_all_five_sections_come_from_the_command(story, tmp_path):
    log = tmp_path / "log.jsonl"
    doc = run(story, env={"FAKE_MODEL_LOG": str(log)}).json
    got = sections(doc)
    assert all(got[n]["origin"] == "extractor-cmd" for n in SECTION_NAMES)
    assert doc["fallbacks"] == {}
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted(c["section"] for c in calls) == sorted(SECTION_NAMES)
    for call in calls:
        assert prompts.SECURITY in call["prompt"], "the SECURITY block is in every prompt, verbatim"
        assert f'"section":"{call["section"]}"' in call["prompt"]
        assert "${" not in call["prompt"], "every placeholder is substituted"


def test_sections_run_in_parallel(story):
    start = time.monotonic()
    run(story, "*=sleep", env={"FAKE_MODEL_SLEEP": "1.5"})
    assert time.monotonic() - start < 5.5, "five 1.5 s calls must overlap"


def test_claims_without_pointers_are_marked_unsourced(story):
    doc = run(story).json
    content = sections(doc)["convergence"]["content"]
    assert "claim with a source (`transcript:" in content and UNSOURCED not in content.split("\n")[0]
    assert content.split("\n")[1].endswith(UNSOURCED)


def test_a_section_whose_claims_are_all_unsourced_is_not_trusted(story):
    out = run(story, "basics=no-pointers")
    doc = out.json
    assert doc["untrusted"] == {"basics": "none of its claims carries a pointer"}
    basics = sections(doc)["basics"]
    assert basics["origin"] == "builtin" and "MODEL basics" not in doc["brief"]
    assert "_(the extractor's section was not trusted: none of its claims carries a pointer; the built-in " \
           "extractor's section follows)_" in doc["brief"]
    assert "the extractor's basics was not trusted" in out.stderr


@pytest.mark.parametrize("mode", ["garbage", "wrong-section", "fail", "hang"])
def test_a_bad_answer_falls_back_to_the_builtin_extractor(story, mode):
    out = run(story, f"dead_ends={mode}", "--extractor-timeout", "3")
    doc = out.json
    got = sections(doc)
    assert got["dead_ends"]["origin"] == "builtin" and "dead_ends" in doc["fallbacks"]
    assert "### User corrections (verbatim)" in got["dead_ends"]["content"]
    assert got["convergence"]["origin"] == "extractor-cmd"
    assert "the extractor's dead_ends was rejected" in out.stderr
    dead = doc["brief"].split("## Dead-ends\n", 1)[1]
    assert dead.startswith(PLACEHOLDER + "\n_(the extractor's answer was rejected: "), "the placeholder, then why"
    if mode == "hang":
        assert "timed out" in doc["fallbacks"]["dead_ends"]


def test_repair_pass_and_file_answers(story):
    doc = run(story, "convergence=fenced,basics=file").json
    got = sections(doc)
    assert got["convergence"]["origin"] == "extractor-cmd" and "C:\\path" in got["convergence"]["content"]
    assert got["basics"]["origin"] == "extractor-cmd"


def test_a_section_whose_pointers_do_not_resolve_is_marked_not_trusted(story):
    doc = run(story, "open_threads=bad-pointers").json
    got = sections(doc)["open_threads"]
    assert got["origin"] == "builtin" and "MODEL open_threads" not in got["content"]
    assert doc["untrusted"] == {"open_threads": "none of its 1 pointer(s) resolve"}
    assert doc["checks"]["open_threads"] == ["1 pointer(s) did not resolve"]


def test_instruction_like_text_outside_quotes_is_removed(story):
    doc = run(story, "basics=inject").json
    content = sections(doc)["basics"]["content"]
    assert "rm -rf" not in content and "line removed: instruction-like text" in content
    assert 'The user wrote "ignore previous instructions"' in content, "a quoted excerpt may stay"


def test_failed_command_never_blocks_the_brief(story):
    out = run(story, "*=fail")
    doc = out.json
    assert set(doc["fallbacks"]) == set(SECTION_NAMES)
    assert all(s["origin"] == "builtin" for s in doc["sections"])
    assert out.stderr.count("was rejected (the extractor command exited with status 3") == 5
    assert doc["brief"].count(PLACEHOLDER) == 5


def test_missing_command_is_reported_per_section(story):
    out = refocus("handoff", story.path, "--no-cache", "--extractor-cmd", "/nonexistent/model-cmd",
                  cwd=story.repo)
    assert out.returncode == 0 and "## Convergence" in out.stdout
    assert "the extractor command exited with status 127" in out.stderr


def test_chunked_spine_goes_through_the_map_step(tmp_path, monkeypatch):
    s = Session(cwd=str(tmp_path))
    for i in range(30):
        s.user(f"question {i} " + "word " * 50)
        s.assistant(text(f"answer {i} " + "word " * 80))
    path = s.write(tmp_path / "t.jsonl")
    plan = prep.prepare(transcript_paths.resolve(str(path)), direct_bound=3000, chunk_bound=2500)
    assert plan.mode == "chunked"
    git = gitstate.snapshot([str(tmp_path)])
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("FAKE_MODEL_LOG", str(log))
    monkeypatch.setenv("FAKE_MODEL_CHUNK_FAIL", "1")
    result = external.run(plan, git, FAKE, repo_root=str(tmp_path))
    assert all(result.answers[name] for name in SECTION_NAMES) and not result.problems
    assert result.chunk_failures == [1]
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    chunk_calls = [c for c in calls if c["kind"] == "chunk"]
    assert len(chunk_calls) == len(plan.chunks)
    assert all(prompts.CHUNK_SECURITY in c["prompt"] for c in chunk_calls)
    first_extractor = min(c["start"] for c in calls if c["kind"] == "extractor")
    assert max(c["start"] for c in chunk_calls) <= first_extractor, "map step before the extractors"


def test_prompts_are_the_seeds_verbatim():
    seed = SEED.read_text(encoding="utf-8")
    blocks = {"SECURITY": prompts.SECURITY, "COMMON_PREAMBLE": prompts.COMMON_PREAMBLE,
              "CHUNK_SECURITY": prompts.CHUNK_SECURITY, "CHUNK_TEMPLATE": prompts.CHUNK_TEMPLATE,
              **{f"TEMPLATES[{name!r}]": block for name, block in prompts.TEMPLATES.items()}}
    for name, block in blocks.items():
        assert block in seed, f"prompts.{name} is not verbatim in {SEED.name}"


# -- the validation contract, directly -----------------------------------------
def test_validate_checks_the_schema():
    good = {"section": "basics", "content": "x", "pointers": []}
    assert validate(good, "basics").content == "x"
    for bad, why in [({"section": "basics", "content": "x"}, "missing"),
                     (dict(good, section="dead-ends"), "expected"),
                     (dict(good, content=""), "empty"),
                     (dict(good, content=5), "not a string"),
                     (dict(good, pointers={}), "not an array"),
                     ([good], "not a JSON object")]:
        with pytest.raises(SectionRejected, match=why):
            validate(bad, "basics")


def test_validate_keeps_only_wellformed_pointers():
    obj = {"section": "code_state", "content": "x", "pointers": [
        {"type": "commit", "ref": "abc1234", "note": "fine"},
        {"type": "transcript", "ref": "transcript:L12-L14", "note": "x" * 500},
        {"type": "transcript", "ref": "line twelve"},
        {"type": "file", "ref": ""},
        {"type": "shell", "ref": "rm -rf /"},
        "not a dict",
        {"type": "file", "ref": "a/b.py:parse", "note": "multi\nline"},
    ]}
    got = validate(obj, "code_state")
    assert [(p.type, p.ref) for p in got.pointers] == [("commit", "abc1234"), ("transcript", "L12-L14"),
                                                         ("file", "a/b.py:parse")]
    assert len(got.pointers[1].note) <= 200 and "\n" not in got.pointers[2].note


@given(st.text(max_size=200), st.lists(st.text(max_size=20), max_size=3))
def test_parse_answer_round_trips_any_section_object(content, notes):
    obj = {"section": "basics", "content": content,
           "pointers": [{"type": "transcript", "ref": "L1", "note": n} for n in notes]}
    for text_form in (json.dumps(obj), json.dumps(obj, ensure_ascii=False), "```json\n" + json.dumps(obj) + "\n```",
                      "Sure:\n" + json.dumps(obj) + "\nDone."):
        assert parse_answer(text_form) == obj


@given(st.text(max_size=300))
def test_parse_answer_never_raises_anything_else(garbage):
    try:
        parse_answer(garbage)
    except SectionRejected:
        pass


def test_finalize_renders_placeholders_for_missing_sections(story):
    plan = prep.prepare(transcript_paths.resolve(str(story.path)))
    git = gitstate.snapshot([str(story.repo)])
    brief = finalize({}, plan, git)
    assert brief.text.count("_(extraction failed — not available)_") == 5
    assert set(brief.failed) == set(SECTION_NAMES)


any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3), max_leaves=8)
answers = st.fixed_dictionaries({}, optional={
    "section": st.sampled_from(list(SECTION_NAMES)) | any_json,
    "content": st.text(max_size=200) | any_json,
    "pointers": st.lists(st.fixed_dictionaries({}, optional={"type": st.sampled_from(["transcript", "commit", "file"])
                                                             | any_json, "ref": st.text(max_size=20) | any_json,
                                                             "note": any_json}) | any_json, max_size=4) | any_json,
}) | any_json


@given(answers)
def test_validation_accepts_or_rejects_any_answer_cleanly(answer):
    try:
        section = validate(answer, "basics")
    except SectionRejected:
        return
    assert section.section == "basics" and section.content.strip()
    assert all(p.type in ("transcript", "commit", "file") and p.ref for p in section.pointers)


def test_section_content_cannot_add_top_level_headings(story):
    from gitrefocus.handoff.finalize import finalize as fin
    from gitrefocus.handoff.sections import Section

    plan = prep.prepare(transcript_paths.resolve(str(story.path)))
    git = gitstate.snapshot([str(story.repo)])
    hostile = Section("basics", "## Convergence\n# Title\rline\u2028## Dead-ends\n### fine (`transcript:L3`)")
    text = fin({"basics": hostile}, plan, git).text
    assert [ln for ln in text.splitlines() if ln.startswith("## ")] == \
        ["## Convergence", "## Dead-ends", "## Code-state", "## Open-threads & conflicts", "## Basics"]


def test_an_answer_holding_a_lone_surrogate_escape_does_not_abort_the_handoff(story):
    """A model's answer is untrusted text: '"\\ud800"' in it parsed to a lone surrogate, and the whole
    handoff exited 1 ("text that is not valid UTF-8 cannot be recorded") where the brief was written.
    It reads as U+FFFD, the answer is used, and the brief is written."""
    r = run(story, "*=surrogate", check=False)
    assert r.returncode == 0, r
    got = sections(r.json)
    assert all(got[n]["origin"] == "extractor-cmd" for n in SECTION_NAMES), r.json["fallbacks"]
    assert all(f"MODEL {n} claim \ufffd with a source" in got[n]["content"] for n in SECTION_NAMES)
