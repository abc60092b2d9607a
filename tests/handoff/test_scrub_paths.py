"""Every path a transcript takes is scrubbed first: the CLI's saved transcript, the spine, the
brief (quotes cut after scrubbing, never before), its vocabulary, and what --json reports."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from gitrefocus.handoff import prepare, transcript_paths
from tests.handoff.transcript import REFUSED_SAID, Session, text, tool_use
from tests.runner import refocus

GHP = "ghp_" + "c3j27xdcg2lMLzgeonyLGcTJFiz4soCmZ9cp"
PROJ = "sk-proj-" + "Q4vX-8Lr2_p7Wz9-d1Hf3_g5Nb0-xZm6Y_8Ue2R-4" + "T3BlbkFJ" + "Mn7P_1Rs3-u5Vw7_y9Za2-c4De6_g8Hi0-k"
PYPI = "pypi-AgEIcHlwaS5vcmc" + "CJDk3NzRhYjE0LTdlNzgtNDg5OS1hYTk1LTRiZjgxMzVhNTcyOQACKlsz" + "W1sicHJvamVjdCJd"
DOCKER_AUTH = base64.b64encode(b"robot:Lantern03*QUAR3D9").decode()
PASSWORD = "Lantern03*QUAR3D9"


def _tools_session(cwd: Path) -> Session:
    s = Session(cwd=str(cwd))
    s.user("Wire the deploy credentials.")
    s.bash(f"export GITHUB_TOKEN={GHP} && ./deploy.sh", "deployed")
    tid = "toolu_01" + "7" * 20
    s.assistant(tool_use("mcp__db__connect", {"host": "db.internal", "password": PASSWORD}, tid))
    s.tool_result(tid, "connected")
    s.bash("cat ~/.docker/config.json", json.dumps({"auths": {"ghcr.io": {"auth": DOCKER_AUTH}}}, indent=2))
    s.bash("cat .env", f"APP_ENV=prod\n{PROJ}\nPYPI_TOKEN=\n{PYPI}\n")
    s.assistant(text("Done."))
    return s


def test_complete_save_transcript_keeps_no_secret_and_reports_kinds(spawned, hermetic):
    src, dest, out = spawned
    sid = out["child_session_id"]
    from gitrefocus.store.transcripts import encode_project_dir

    refocus("start", out["id"], "--session-id", sid, cwd=dest)
    project = hermetic / ".claude/projects" / encode_project_dir(str(dest.resolve()))
    _tools_session(dest).write(project / f"{sid}.jsonl")
    done = refocus("complete", "--summary", "x", "--no-material-changes", "n/a", "--save-transcript", "--json",
                   cwd=dest, env={"CLAUDE_CODE_SESSION_ID": sid}).json
    saved = (dest / "docs/refocus/transcripts" / f"{out['id']}.jsonl").read_text()
    for secret in (GHP, PROJ, PYPI, DOCKER_AUTH, PASSWORD):
        assert secret not in saved and secret not in json.dumps(done), secret[:12]
    assert all(json.loads(line) for line in saved.splitlines())
    assert done["redacted"]["github-token"] >= 1 and done["redacted"]["openai-key"] >= 2
    assert {"pypi-token", "password", "auth"} <= set(done["redacted"])
    assert sum(done["redacted"].values()) == len(done["redactions"])
    assert all(set(r) == {"kind", "line"} for r in done["redactions"])


def test_handoff_json_counts_redactions_by_kind_and_shows_none(tmp_path):
    s = _tools_session(tmp_path)
    s.bash(f"PGPASSWORD={PASSWORD} psql -h db.internal app", "")
    path = s.write(tmp_path / "t.jsonl")
    result = refocus("handoff", path, "--json", "--no-cache", cwd=tmp_path)
    doc = result.json
    # counted where the handoff reads: the commands, not the MCP call's input fields it never reads
    assert doc["redacted"]["github-token"] >= 1 and doc["redacted"]["password"] == 1
    for secret in (GHP, PROJ, PYPI, DOCKER_AUTH, PASSWORD):
        assert secret not in result.stdout and secret not in result.stderr
    assert "github-token" in result.stderr, "the warning names the kinds"


def test_records_are_scrubbed_as_they_are_decoded(tmp_path):
    """prepare never holds a secret: not in a message, a tool summary, a title."""
    s = _tools_session(tmp_path)
    s.user(f"by `{PROJ}` I mean the eval key")
    s.summary(f"Deploy with {GHP}")
    plan = prepare.prepare(transcript_paths.resolve(str(s.write(tmp_path / "t.jsonl"))))
    held = json.dumps([[b.text for b in m.blocks] for m in plan.messages]) + str(plan.title)
    for secret in (GHP, PROJ, PASSWORD):
        assert secret not in held
    assert plan.redactions["github-token"] >= 2 and plan.redactions["openai-key"] >= 1


def test_a_quote_cut_never_prints_the_rest_of_a_key(tmp_path):
    """The brief's quotes are cut to a window around the cue; cutting first dropped the key's
    recognisable prefix (``sk-proj-``, ``pypi-``, a JWT header) and printed the rest."""
    s = Session(cwd=str(tmp_path))
    s.user("Set up the nightly evaluation job.")
    s.assistant(text("I'll read the key from the config file."))
    for secret in (PROJ, PYPI):
        for pad in range(150, 230, 9):
            s.user(f"No, that's wrong: {'the nightly evaluation job needs the other one ' * 8}"[:pad]
                   + f" {secret} and never the config file.")
            s.assistant(text("Understood."))
    path = s.write(tmp_path / "t.jsonl")
    brief = refocus("handoff", path, "--no-cache", cwd=tmp_path).stdout
    assert "User corrections" in brief
    for secret in (PROJ, PYPI):
        body = secret[20:]
        for i in range(0, len(body) - 10):
            assert body[i:i + 10] not in brief, (secret[:8], brief)


def test_a_long_message_cut_in_the_middle_never_shows_the_rest_of_a_key(tmp_path):
    """A user message past 6,000 characters keeps its head and tail; the cut can fall inside a
    key. Scrubbed before the cut, nothing of the key is left to show."""
    s = Session(cwd=str(tmp_path))
    s.user("Set up the nightly evaluation job.")
    for shift in range(4, 60, 7):
        # the head (4,000 characters) ends `shift` characters into the key ...
        s.user("w" * (4000 - shift) + " " + PROJ + " " + "tail words " * 300)
        s.assistant(text("Understood."))
        # ... or the tail (the last 2,000) starts `shift` characters into it, past `sk-proj-`
        lead = "w" * 5000 + " "
        s.user(lead + PROJ + " " + "t" * (2000 - len(PROJ) - 1 + shift))
        s.assistant(text("Understood."))
    out = refocus("handoff", s.write(tmp_path / "t.jsonl"), "--spine", cwd=tmp_path).stdout
    assert out.count("chars cut") == 16
    body = PROJ[8:]
    for i in range(0, len(body) - 8):
        assert body[i:i + 8] not in out, body[i:i + 8]


def test_the_vocabulary_never_lists_a_credential(tmp_path):
    short_auth = base64.b64encode(b"ci:Pw9x!kQ2").decode()
    s = Session(cwd=str(tmp_path))
    s.user(f'The registry entry is `{{"auth": "{short_auth}"}}` and by `{GHP}` I mean the bot token.')
    s.assistant(text("Noted."))
    brief = refocus("handoff", s.write(tmp_path / "t.jsonl"), "--no-cache", cwd=tmp_path).stdout
    assert short_auth not in brief and GHP not in brief and GHP[4:20] not in brief
    vocabulary = brief.split("### Vocabulary", 1)[1].split("###", 1)[0] if "### Vocabulary" in brief else ""
    assert "redacted" not in vocabulary, "a redaction is not a term"


def test_a_huge_line_is_scrubbed_too(tmp_path):
    """A line past the reader's piece size is reduced to a skeleton; what it keeps is scrubbed."""
    s = Session(cwd=str(tmp_path))
    s.user(f"Here is the log; the token is {GHP}.\n" + "x" * (2 << 20))
    s.assistant(text("Read it."))
    out = refocus("handoff", s.write(tmp_path / "t.jsonl"), "--spine", cwd=tmp_path).stdout
    assert "the token is [redacted: github-token]" in out and GHP not in out


def test_the_vocabulary_never_lists_a_redaction_as_a_term(tmp_path):
    s = Session(cwd=str(tmp_path))
    s.user(f"Use `{GHP}` for the deploy. The `spine` job reads `PGPASSWORD={PASSWORD}` and the `loader`.")
    s.assistant(text("I'll wire both."))
    path = s.write(tmp_path / "t.jsonl")
    brief = refocus("handoff", path, "--no-cache", cwd=tmp_path).stdout
    vocabulary = brief.split("### Vocabulary", 1)[1].split("###", 1)[0]
    assert "`spine`" in vocabulary and "`loader`" in vocabulary
    assert "redacted" not in vocabulary, vocabulary


# -- tool output: never decoded with its record, scrubbed where the spine quotes it -------------
REFUSAL = REFUSED_SAID


def _quoting_session(cwd: Path) -> Session:
    """Every place the spine quotes a tool's output, each holding a secret: a refusal's feedback
    (a string, a list of items, a first letter written as an escape), the answers to a question
    recorded only in the result's text; and a secret in output nobody quotes."""
    s = Session(cwd=str(cwd))
    s.user("Deploy the service.")
    for n, content in enumerate([REFUSAL + f"use {GHP} instead of the old one",
                                 [{"type": "text", "text": REFUSAL + f"no, export OPENAI_API_KEY={PROJ}"}],
                                 "\x00" + REFUSAL + f"run it with PGPASSWORD={PASSWORD} set"]):
        tid = f"toolu_01refused{n:012d}"
        s.assistant(tool_use("Bash", {"command": "./deploy.sh", "description": "deploy"}, tid))
        s.tool_result(tid, content, is_error=True)  # type: ignore[arg-type]
        if n == 2:  # the first letter escaped: `\u0054he user doesn't ...`
            s.lines[-1] = s.lines[-1].replace(b"\\u0000The user", b"\\u0054he user")
    tid = "toolu_01asked000000000000000"
    s.assistant(tool_use("AskUserQuestion", {"questions": [{"question": "Which token?"}]}, tid))
    s.tool_result(tid, f'User has answered your questions: "Which token?"="{GHP}". You can now continue.',
                  extra={"questions": []})
    s.bash("cat .env", f"PYPI_TOKEN={PYPI}\n")  # tool output the spine never quotes
    s.assistant(text("Done."))
    return s


def test_the_tool_output_the_spine_quotes_is_scrubbed(tmp_path):
    path = _quoting_session(tmp_path).write(tmp_path / "t.jsonl")
    spine = refocus("handoff", path, "--spine", cwd=tmp_path).stdout
    result = refocus("handoff", path, "--json", "--no-cache", cwd=tmp_path)
    for out in (spine, result.stdout, result.stderr):
        for secret in (GHP, PROJ, PASSWORD, PYPI):
            assert secret not in out and secret[8:24] not in out, secret[:8]
    assert "use [redacted: github-token] instead" in spine
    assert "OPENAI_API_KEY=[redacted: " in spine and "PGPASSWORD=[redacted: password] set" in spine
    assert "Which token?" in spine and spine.count("[redacted: github-token]") == 2


def test_redactions_are_counted_where_the_handoff_quotes(tmp_path):
    """Tool output is not scrubbed as it is read (only what the spine quotes of it is): a secret
    in output nobody quotes is not counted; the quoted ones are, once each."""
    plan = prepare.prepare(transcript_paths.resolve(str(_quoting_session(tmp_path).write(tmp_path / "t.jsonl"))))
    assert "pypi-token" not in plan.redactions
    assert plan.redactions["github-token"] == 2 and plan.redactions["password"] == 1
    assert "tool_output_chars_stripped" not in plan.stats


def test_records_the_reader_does_not_quote_hand_over_no_secret(tmp_path):
    """A record whose type the reader does not quote (progress, a new client's type) is not
    scrubbed: nothing of it but its uuid links and its type's count reaches the output, and the
    type is scrubbed where it is counted — even when the record looks like a conversation."""
    s = Session(cwd=str(tmp_path))
    s.user("Deploy the service.")
    s.record("progress", {"data": {"output": f"GITHUB_TOKEN={GHP}"},
                          "message": {"role": "user", "content": f"the key is {PROJ}"}})
    s.record(f"token={GHP}", {"message": {"role": "user", "content": f"the key is {PROJ}"}})
    s.assistant(text("Done."))
    path = s.write(tmp_path / "t.jsonl")
    plan = prepare.prepare(transcript_paths.resolve(str(path)))
    doc = json.dumps(plan.to_json()) + refocus("handoff", path, "--spine", cwd=tmp_path).stdout
    for secret in (GHP, PROJ):
        assert secret not in doc and secret[8:24] not in doc
    assert plan.stats["skipped_progress"] == 1 and plan.stats["skipped_token=[redacted: github_token]"] == 1
    assert [m.text for m in plan.messages] == ["Deploy the service.", "Done."]


def test_a_subagent_file_is_scrubbed_as_the_main_transcript_is(tmp_path):
    """A subagent's file (``<session>/subagents/agent-*.jsonl``) is read the main file's way: what
    its outcome quotes (the prompt it was given, its last answer) is scrubbed; its tool output is
    never quoted."""
    s = Session(cwd=str(tmp_path))
    s.user("Find the deploy token.")
    s.assistant(text("I'll ask a subagent."))
    path = s.write(tmp_path / "claude" / f"{s.session_id}.jsonl")
    sub = Session(cwd=str(tmp_path), session_id=s.session_id, sidechain=True)
    sub.user(f"Check whether GITHUB_TOKEN={GHP} still works.")
    sub.bash("cat .env", f"PYPI_TOKEN={PYPI}\n")
    sub.assistant(text(f"It works; the key OPENAI_API_KEY={PROJ} does too."))
    sub.write(tmp_path / "claude" / s.session_id / "subagents" / "agent-a1.jsonl")
    plan = prepare.prepare(transcript_paths.resolve(str(path)))
    spine = plan.spine_text()
    assert "agent-a1.jsonl asked" in spine and "GITHUB_TOKEN=[redacted: github-token]" in spine
    assert "OPENAI_API_KEY=[redacted: " in spine
    for secret in (GHP, PROJ, PYPI):
        assert secret not in spine and secret[8:24] not in spine
    assert plan.redactions["github-token"] == 1 and "pypi-token" not in plan.redactions
