"""A hostile transcript line costs that line, never the whole handoff."""

from __future__ import annotations

import json

from tests.handoff.transcript import Session, text
from tests.runner import refocus


def test_a_deeply_nested_transcript_line_does_not_abort_the_handoff(story):
    with open(story.path, "a", encoding="utf-8") as fh:
        fh.write("[" * 200000 + "]" * 200000 + "\n")
    r = refocus("handoff", story.path, cwd=story.repo, check=False)
    assert r.returncode == 0 and "## " in r.stdout and "Traceback" not in r.stderr, r



def test_a_surrogate_written_as_bytes_reads_as_invalid_utf8_whether_or_not_a_secret_is_near(tmp_path):
    """json.loads decodes bytes with "surrogatepass": a surrogate encoded as UTF-8 bytes came through
    as a lone surrogate, and beside a secret-sounding word the scrubber refused it, so the whole
    line was called invalid JSON and the user's request was lost; it is invalid UTF-8, read with a
    replacement character like any other."""
    for n, extra in enumerate(("", " The password is SURR.")):
        s = Session(cwd=tmp_path)
        s.user("Fix the lexer.")
        s.assistant(text("The lexer is fixed."))
        s.user("Also rename the SURR module." + extra)
        path = s.write(tmp_path / f"t{n}.jsonl")
        path.write_bytes(path.read_bytes().replace(b"SURR", b"\xed\xa0\x80"))
        r = refocus("handoff", str(path), cwd=tmp_path, check=False)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r
        assert "Also rename the \ufffd module." in r.stdout, r.stdout


def test_a_lone_surrogate_escape_in_an_old_gemini_chat_does_not_abort_the_handoff(tmp_path):
    """An old Gemini chat (one pretty-printed JSON object) was parsed with json.loads, which takes
    the escape "\\ud800" as a lone surrogate: the scrubber could not encode it and the handoff
    failed. It reads as U+FFFD, as in a JSONL transcript."""
    chat = {"sessionId": "abcdef12-0000", "projectHash": "h", "messages": [
        {"type": "user", "id": "1", "timestamp": "2026-01-01T00:00:00Z", "content": "Please fix the SURR lexer."},
        {"type": "gemini", "id": "2", "timestamp": "2026-01-01T00:00:01Z", "content": "The lexer is fixed."}]}
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat, indent=2).replace("SURR", "\\ud800"))
    r = refocus("handoff", str(path), cwd=tmp_path, check=False)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r
    assert "Please fix the \ufffd lexer." in r.stdout, r.stdout
