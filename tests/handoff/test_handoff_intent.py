"""Stated intent checked against what git recorded during the session: the diffs of the
session's commits (added lines, pickaxe-style), removals, and files the session deleted."""

from __future__ import annotations

from gitrefocus.handoff import extract, gitstate, transcript_paths
from gitrefocus.handoff import prepare as prep
from tests.gitrepo import git
from tests.handoff.conftest import repo_before_session
from tests.handoff.transcript import Session, text


def flags(tmp_path, monkeypatch, intents: list[str], work) -> str:
    repo = repo_before_session(tmp_path / "proj", monkeypatch, "config.py",
                               "LEGACY_MODE = True\n\ndef parse_config(text):\n    return dict()\n")
    s = Session(cwd=repo)
    s.user("Tidy up the config module.")
    for intent in intents:
        s.assistant(text(intent))
    work(repo, s)
    path = s.write(tmp_path / f"{s.session_id}.jsonl")
    plan = prep.prepare(transcript_paths.resolve(str(path)))
    state = gitstate.snapshot([plan.cwd], plan.first_timestamp)
    section = extract.open_threads(extract.Analysis(plan), state)
    return section.content


def test_intent_met_by_a_commits_added_lines_is_not_flagged(tmp_path, monkeypatch):
    def work(repo, s):
        (repo / "config.py").write_text("LEGACY_MODE = True\n\ndef parse_config(text):\n"
                                        "    if not text.strip():\n        return {}\n    return dict()\n"
                                        "\ndef validate_schema(data):\n    return True\n")
        git(repo, "commit", "-qam", "Tidy")  # the subject says nothing useful
    body = flags(tmp_path, monkeypatch, [
        "I'll handle empty input in `parse_config` next.",
        "I will add validate_schema to check the loaded data.",
        "We should rename the environment loader to load_env.",
    ], work)
    assert "parse_config" not in body, body
    assert "validate_schema" not in body, body
    assert "load_env" in body, "an intent git has no trace of is still flagged"


def test_a_removal_is_met_by_removed_lines(tmp_path, monkeypatch):
    def work(repo, s):
        (repo / "config.py").write_text("def parse_config(text):\n    return dict()\n")
        git(repo, "commit", "-qam", "Tidy")
    body = flags(tmp_path, monkeypatch, ["I'll remove the LEGACY_MODE switch."], work)
    # (the transcript ends on that announcement: Open threads says the session stopped there)
    assert "no matching change in git" not in body, body


def test_a_file_the_session_created_and_deleted_is_not_flagged(tmp_path, monkeypatch):
    def work(repo, s):
        s.edit(str(repo / "scratch.py"))
        s.edit(str(repo / "config.py"))  # edited, but the edit did not survive: flagged
    body = flags(tmp_path, monkeypatch, [], work)
    assert "scratch.py" not in body, body
    assert "edited `config.py`" in body
