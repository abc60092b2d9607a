"""`handoff --extractor claude`: the installed Claude Code binary answers the five extractor
prompts (-p, JSON output) through the loopback mock; a section whose answer fails validation
falls back to the built-in extractor, per section."""

from __future__ import annotations

import json
import os
import re

import pytest

from tests.e2e.claude_mock import MockAnthropic, Text, last_user_content
from tests.e2e.conftest import claude_env
from tests.gitrepo import make_repo
from tests.handoff.transcript import Session, text
from tests.runner import refocus

pytestmark = pytest.mark.claude

SECTION_RE = re.compile(r'"section":"(\w+)"')


FIRST_PROMPT = 2  # the transcript line of the session's first user message (line 1 is a file snapshot)


def _answer(body: dict) -> Text:
    prompt = " ".join(b.get("text", "") for b in last_user_content(body) if b.get("type") == "text")
    found = SECTION_RE.search(prompt)
    section = found.group(1) if found else "?"
    if section == "dead_ends":
        return Text("I could not read the spine, sorry.")  # fails validation: built-in fallback
    ref = f"L{FIRST_PROMPT}"
    return Text(json.dumps({"section": section, "pointers": [{"type": "transcript", "ref": ref, "note": "start"}],
                            "content": f"- MODEL-CLAUDE says the {section} is settled (`transcript:{ref}`)"}))


def test_extractor_claude_runs_the_installed_binary(tmp_path, claude_bin, claude_home, claude_tmpdir):
    repo = make_repo(tmp_path / "proj")
    s = Session(cwd=repo)
    s.user("Make the parser keep trailing commas.")
    s.assistant(text("I think the tokenizer drops them."))
    s.user("No, the tokenizer is fine; the lexer drops them.")
    s.assistant(text("You're right. The root cause is the lexer."))
    path = s.write(tmp_path / f"{s.session_id}.jsonl")
    assert '"type":"user"' in s.lines[FIRST_PROMPT - 1].decode()
    with MockAnthropic() as mock:
        mock.add(*[_answer] * 5)
        env = claude_env(claude_home, mock.url, claude_tmpdir)
        env = {**{k: None for k in os.environ if k.startswith(("CLAUDE", "ANTHROPIC"))}, **env,
               "GIT_REFOCUS_CLAUDE_BIN": str(claude_bin)}
        doc = refocus("handoff", path, "--json", "--no-cache", "--extractor", "claude", cwd=repo, env=env).json
        assert len(mock.turn_requests) == 5, "one -p call per section"
        assert all(r["messages"] for r in mock.turn_requests)
    got = {s["section"]: s for s in doc["sections"]}
    for name in ("convergence", "code_state", "open_threads", "basics"):
        assert got[name]["origin"] == "extractor-cmd", name
        assert f"MODEL-CLAUDE says the {name} is settled" in got[name]["content"]
    assert got["dead_ends"]["origin"] == "builtin"
    assert "No, the tokenizer is fine; the lexer drops them." in got["dead_ends"]["content"]
    assert "dead_ends" in doc["fallbacks"]
    assert doc["brief"].split("## Dead-ends\n", 1)[1].startswith("_(extraction failed — not available)_"), \
        "the rejected section shows its placeholder, then the built-in one"


def test_extractor_claude_without_the_binary_says_what_to_do(tmp_path):
    s = Session(cwd=tmp_path)
    s.user("hello there")
    path = s.write(tmp_path / "t.jsonl")
    out = refocus("handoff", path, "--extractor", "claude", cwd=tmp_path, check=False,
                  env={"GIT_REFOCUS_CLAUDE_BIN": None, "PATH": "/usr/bin:/bin"})
    assert out.returncode != 0 and "--extractor claude: no `claude`" in out.stderr
