"""A hostile transcript line costs that line, never the whole handoff."""

from __future__ import annotations

from tests.runner import refocus


def test_a_deeply_nested_transcript_line_does_not_abort_the_handoff(story):
    with open(story.path, "a", encoding="utf-8") as fh:
        fh.write("[" * 200000 + "]" * 200000 + "\n")
    r = refocus("handoff", story.path, cwd=story.repo, check=False)
    assert r.returncode == 0 and "## " in r.stdout and "Traceback" not in r.stderr, r
