"""handoff on transcripts the real Claude Code client wrote (tests/data/):
tool calls, a resume, a verbatim user correction, tool output that must not leak."""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e.claude_mock import Bash, Text, describe
from tests.gitrepo import git, make_repo
from tests.runner import refocus

pytestmark = pytest.mark.claude

HEADINGS = ["## Convergence", "## Dead-ends", "## Code-state", "## Open-threads & conflicts", "## Basics"]
CORRECTION = "No, don't use regex here. Use the tokenizer instead."
LEAK = "TOOL-OUTPUT-MARKER-7f3a9c"


@pytest.fixture
def real_transcript(tmp_path, run_claude, mock_api, transcript):
    repo = make_repo(tmp_path / "parser")
    mock_api.add(
        Bash(f"echo {LEAK}; printf 'import re\\n' > parser.py && git add parser.py && git commit -q -m 'Add parser skeleton'"),
        Text("I decided to write the parser with regular expressions. Next step: add tests for the parser."),
    )
    first = run_claude(repo, "Build a parser for the config format. It must stay dependency-free.")
    assert first.returncode == 0, describe(first)
    mock_api.add(
        Bash("printf 'class Tokenizer: pass\\n' > tokenizer.py && git add tokenizer.py && git commit -q -m 'Add tokenizer'"),
        Text("Understood, switching to the tokenizer. TODO: wire the tokenizer into the CLI."),
    )
    second = run_claude(repo, CORRECTION, resume=first.session_id)
    assert second.returncode == 0, describe(second)
    return repo, first.session_id, transcript(first.session_id)


def test_handoff_of_a_real_transcript(real_transcript, claude_home):
    repo, sid, path = real_transcript
    lines = path.read_text().splitlines()
    assert any('"type":"assistant"' in ln.replace(" ", "") for ln in lines), "a real transcript with assistant turns"

    text = refocus("handoff", path, "--no-cache", cwd=repo).stdout
    assert [ln for ln in text.splitlines() if ln.startswith("## ")] == HEADINGS
    assert LEAK not in text, "tool output never reaches the brief"
    # the user's correction is quoted verbatim with a pointer that resolves to that line
    assert CORRECTION in text
    pointers = [int(n) for n in re.findall(r"transcript:L(\d+)", text)]
    assert pointers and all(1 <= n <= len(lines) for n in pointers)
    correction_line = next(ln for ln in text.splitlines() if CORRECTION in ln)
    n = int(re.search(r"transcript:L(\d+)", correction_line).group(1))
    assert json.loads(lines[n - 1])["type"] == "user" and CORRECTION in lines[n - 1]
    # Code-state matches git
    code_state = text.split("## Code-state", 1)[1].split("## Open-threads", 1)[0]
    head = git(repo, "rev-parse", "--short", "HEAD").strip()
    assert head in code_state and "Add tokenizer" in code_state

    # the same brief by session id, resolved under HOME/.claude/projects/<encoded cwd>
    by_id = refocus("handoff", sid, "--json", "--no-cache", cwd=repo, env={"HOME": str(claude_home)}).json
    assert by_id  # a JSON object with the sections
    assert LEAK not in json.dumps(by_id)


def test_spawn_from_a_real_transcript_fills_inherited_context(real_transcript, tmp_path):
    repo, sid, path = real_transcript
    dest = make_repo(tmp_path / "cli")
    out = refocus("spawn", dest, "--slug", "wire-tokenizer", "--reason", "The CLI work belongs in the cli repo.",
                  "--done-when", "CLI uses the tokenizer", "--from-transcript", path, "--json", cwd=repo).json
    brief = (dest / "docs/refocus" / f"{out['id']}.md").read_text()
    inherited = brief.split("## Inherited context", 1)[1].split("## Open questions", 1)[0]
    bullets = [ln for ln in inherited.splitlines() if ln.startswith("- ")]
    assert 1 <= len(bullets) <= 15 and "(none recorded)" not in inherited
    assert LEAK not in brief
