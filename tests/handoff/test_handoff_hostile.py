"""A hostile transcript line costs that line, never the whole handoff."""

from __future__ import annotations

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
