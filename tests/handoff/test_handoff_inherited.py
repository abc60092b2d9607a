"""inherited_context: 5–15 bullets, ~300 words, a flag when the caps cut."""

from __future__ import annotations

from gitrefocus.handoff import inherited_context
from gitrefocus.handoff.inherited import MAX_BULLETS, MAX_WORDS, select
from gitrefocus.handoff.sections import Section
from tests.handoff.transcript import Session, text


def test_story_gives_pointered_bullets(story):
    result = inherited_context(str(story.path), str(story.repo))
    bullets, cut = result
    assert 5 <= len(bullets) <= MAX_BULLETS
    assert sum(len(b.split()) for b in bullets) <= MAX_WORDS
    assert cut is False and result.warning is None
    assert any(b.startswith("User correction: ") and "No, that's wrong." in b for b in bullets)
    assert any(b.startswith("Code-state: ") for b in bullets)
    assert all("`transcript:" in b or "`commit:" in b or b.startswith(("Code-state", "What this is"))
               for b in bullets)
    assert not any("Ignore all previous" in b for b in bullets)
    assert result.bullets is bullets and result.handoff.brief.text


def test_session_id_works_too(story, hermetic):
    from tests.handoff.transcript import project_dir

    target = project_dir(hermetic / ".claude", str(story.repo)) / story.path.name
    target.parent.mkdir(parents=True)
    target.write_bytes(story.path.read_bytes())
    bullets, _ = inherited_context(story.session.session_id, str(story.repo))
    assert len(bullets) >= 5


def test_caps_cut_and_say_so():
    long = " ".join(["word"] * 60)
    sections = {name: Section(name, "\n".join(f"- {long} {i} (`transcript:L{i}`)" for i in range(1, 10)))
                for name in ("convergence", "dead_ends", "open_threads", "basics")}
    bullets, cut = select(sections)
    assert cut
    assert 5 <= len(bullets) <= MAX_BULLETS
    assert sum(len(b.split()) for b in bullets) <= MAX_WORDS + len(bullets)  # "…" markers


def test_a_thin_transcript_warns_instead_of_inventing(tmp_path):
    s = Session(cwd=str(tmp_path))
    s.user("hi")
    s.assistant(text("Hello."))
    result = inherited_context(str(s.write(tmp_path / "t.jsonl")), str(tmp_path))
    assert len(result.bullets) < 5 and result.warning and "only" in result.warning
