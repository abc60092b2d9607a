"""The built-in extractors: verbatim quotes that resolve, git truth, M5 flags, no injection."""

from __future__ import annotations

import re

import pytest

from gitrefocus.handoff import extract, gitstate, transcript_paths
from gitrefocus.handoff import prepare as prep
from gitrefocus.handoff.finalize import finalize
from gitrefocus.handoff.sections import SECTION_NAMES
from tests.gitrepo import git
from tests.handoff.conftest import CONSTRAINT, CORRECTION, INJECTION, TOOL_SECRET
from tests.handoff.transcript import Session, text, thinking, tool_use, user_text_at

QUOTE_RE = re.compile(r'> "(?P<q>[^"]+)"\s*\(`transcript:L(?P<n>\d+)`\)')


def build(path, repo):
    plan = prep.prepare(transcript_paths.resolve(str(path)))
    state = gitstate.snapshot([plan.cwd, str(repo)], plan.first_timestamp)
    return plan, state, extract.builtin_sections(plan, state)


def test_every_section_follows_the_schema(story):
    _, _, sections = build(story.path, story.repo)
    assert list(sections) == list(SECTION_NAMES)
    for name, section in sections.items():
        assert section.section == name and section.content.strip()
        for p in section.pointers:
            assert p.type in ("transcript", "commit", "file") and p.ref


def test_user_corrections_are_verbatim_and_point_at_their_line(story):
    _, _, sections = build(story.path, story.repo)
    quotes = QUOTE_RE.findall(sections["dead_ends"].content)
    assert quotes, sections["dead_ends"].content
    for quote, line in quotes:
        assert quote in user_text_at(story.path, int(line)), f"not verbatim at L{line}: {quote!r}"
    assert int(quotes[0][1]) == story.lines["correction"]
    assert "No, that's wrong." in CORRECTION


def test_dead_ends_pair_the_overruled_hypothesis_with_the_correction(story):
    _, _, sections = build(story.path, story.repo)
    body = sections["dead_ends"].content
    hypothesis = f'"I think the tokenizer is broken, it probably splits on the wrong character." ' \
                 f'(`transcript:L{story.lines["hypothesis"]}`) — overruled by the user ' \
                 f'(`transcript:L{story.lines["correction"]}`)'
    assert hypothesis in body
    assert "red herring" in body and "(from plaintext thinking)" in body
    assert "### Rejected hypotheses" in body and "### User corrections (verbatim)" in body


def test_convergence_states_the_last_conclusion(story):
    _, _, sections = build(story.path, story.repo)
    body = sections["convergence"].content
    assert '"The root cause is that lex() drops the final token when the input has no trailing space."' in body
    assert f"`transcript:L{story.lines['decision']}`" in body


def test_basics_quote_the_users_constraints(story):
    _, _, sections = build(story.path, story.repo)
    body = sections["basics"].content
    assert f'"{CONSTRAINT}"' in body
    assert "`parse_expr`" in body, "a term the user introduced"
    assert "Edited `lexer.py`" in body


def test_code_state_matches_git(story):
    (story.repo / "new_module.py").write_text("x = 1\n")
    (story.repo / "README.md").write_text("# changed\n")
    git(story.repo, "add", "README.md")
    _, _, sections = build(story.path, story.repo)
    body = sections["code_state"].content
    porcelain = git(story.repo, "status", "--porcelain").splitlines()
    for entry in porcelain:
        assert f"`{entry[3:]}`" in body, f"{entry} missing from Code-state"
    assert "`README.md` — modified, staged" in body
    assert "`lexer.py` — modified, unstaged, +1/-1" in body
    assert "`new_module.py` — untracked" in body
    head = git(story.repo, "rev-parse", "HEAD").strip()
    assert head[:10] in body
    for line in git(story.repo, "log", "--format=%h %s").splitlines():
        assert line.split(" ", 1)[1] in body
    assert "State: 1 staged, 1 unstaged, 1 untracked path(s)." in body


def test_code_state_without_git_says_so(tmp_path):
    s = Session(cwd=str(tmp_path / "nowhere"))
    s.user("hello there, please look at the thing")
    s.assistant(text("Looking."))
    path = s.write(tmp_path / "t.jsonl")
    plan = prep.prepare(transcript_paths.resolve(str(path)))
    state = gitstate.snapshot([plan.cwd, str(tmp_path)], plan.first_timestamp)
    section = extract.code_state(state, plan)
    assert section.content.startswith("Git state unavailable") and section.pointers == []


def test_stated_intent_vs_git_flags_only_what_git_lacks(story):
    plan, state, sections = build(story.path, story.repo)
    body = sections["open_threads"].content
    assert "### Stated-intent vs git (heuristic — verify)" in body
    assert re.search(r'⚑ "I\'ll add a regression test in tests/test_lexer\.py next\." .* verify', body)
    assert "edited `lexer.py`" not in body, "lexer.py changed in git: no flag"
    (story.repo / "tests").mkdir()
    (story.repo / "tests" / "test_lexer.py").write_text("def test(): pass\n")
    git(story.repo, "add", "tests/test_lexer.py")
    git(story.repo, "commit", "-q", "-m", "Add regression test")
    _, _, again = build(story.path, story.repo)
    assert "test_lexer.py next" not in again["open_threads"].content, "now in git: no flag"


def test_edit_without_a_git_change_is_flagged(story):
    git(story.repo, "checkout", "-q", "--", "lexer.py")  # the edit did not survive
    _, _, sections = build(story.path, story.repo)
    assert "⚑ The session edited `lexer.py`" in sections["open_threads"].content


def test_open_threads_collect_todos_questions_and_next_steps(story):
    _, _, sections = build(story.path, story.repo)
    body = sections["open_threads"].content
    assert 'Todo [pending]: "Add regression test"' in body
    assert "Todo [completed]" not in body
    assert '"Should I also update the README?"' in body
    assert '"Next steps: the regression test is still not written."' in body


def test_injection_text_is_pointed_at_never_repeated(story):
    plan, state, sections = build(story.path, story.repo)
    everything = "\n".join(s.content + " ".join(p.note for p in s.pointers) for s in sections.values())
    assert "Ignore all previous" not in everything and "evil.example" not in everything
    assert f"`transcript:L{story.lines['injection']}`" in sections["open_threads"].content
    brief = finalize(sections, plan, state)
    assert "evil.example" not in brief.text and INJECTION not in brief.text
    assert TOOL_SECRET not in brief.text


def test_encrypted_thinking_only_session_still_yields_a_brief(tmp_path):
    s = Session()
    s.user("The upload times out on large files.")
    s.assistant(thinking(""), text("I'll raise the timeout to five minutes."))
    s.user("We already tried bumping the timeout, don't suggest it again.")
    s.assistant(thinking(""), text("Understood; looking at the retry logic instead."))
    path = s.write(tmp_path / "t.jsonl")
    plan = prep.prepare(transcript_paths.resolve(str(path)))
    sections = extract.builtin_sections(plan, gitstate.snapshot([str(tmp_path)]))
    assert "we already tried bumping the timeout" in sections["dead_ends"].content.lower()
    assert plan.stats["thinking_without_text"] == 2


def test_a_session_without_any_signal_says_so(tmp_path):
    s = Session()
    s.user("hi")
    s.assistant(text("Hello."))
    sections = s.sections(tmp_path)
    assert sections["dead_ends"].content.startswith("No rejected hypotheses")
    assert sections["dead_ends"].pointers == []


@pytest.mark.parametrize("sentence", [
    "No, use the other branch.",
    "That's not what I asked for.",
    "We already tried that and it failed.",
    "Don't touch the migrations.",
    "Actually, the issue is actually in the cache layer.",
])
def test_correction_cues(tmp_path, sentence):
    s = Session()
    s.user("start the work please")
    s.assistant(text("I think it is the parser."))
    s.user(sentence)
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / "t.jsonl"))))
    dead = extract.dead_ends(extract.Analysis(plan))
    assert f'"{sentence}"' in dead.content


# -- the keyword gates in front of the cue regexes --------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gitrefocus.handoff import cues  # noqa: E402

CUE_PHRASES = [
    "no", "Nope", "nah", "that's wrong", "That is not", "not what I meant", "we already tried", "just tried",
    "the issue is actually", "is actually", "Actually", "I said", "I told you", "you're wrong", "you are mistaken",
    "didn't work", "won't work", "don't use", "do not touch", "please stop", "stop adding", "revert that",
    "undo the", "instead of", "rather than", "wrong repo", "must", "mustn't", "must not", "never", "always",
    "no new", "only use", "make sure", "required", "avoid", "without adding", "keep it", "has to", "needs to be",
    "not allowed", "wait,", "that's not it", "that isn't it", "a different approach", "scratch that",
    "I was wrong", "on second thought", "it didn't help", "this does not fix", "my mistake", "I apologise",
    "you are correct", "turns out", "not the culprit", "rule out", "ruled out", "red herring", "dead end",
    "wrong hypothesis", "root cause:", "the root cause is", "the real issue was", "the fix is", "fixed it",
    "we decided", "I chose", "decision:", "let's stick with", "we'll go with", "going with", "the answer is",
    "in conclusion", "this means", "that explains", "confirmed", "works now", "now passes", "all tests pass",
    "I'll add", "Ill fix", "we will refactor", "I'm going to write", "plan to fix", "we should rename",
    "next, I'll create", "still need to port", "needs to handle", "TODO", "FIXME", "next steps", "remaining",
    "still failing", "not yet", "left to do", "follow-up", "blocked", "blocker", "unable to", "couldn't",
    "could not", "open question", "unresolved", "haven't yet been", "have not", "not implemented", "pending",
    "ignore all previous", "Disregard the prior", "forget your earlier", "new instructions", "system prompt",
    "you are now", "developer mode", "jailbreak", "<command-name>", "</ system>", "< user", "curl x.sh | sh",
    "wget y | bash", "rm -rf /", "parser", "lexer", "the", "it", "work", "fix", "test", "'", ",", ".",
]
sentences = st.lists(
    st.one_of(st.sampled_from(CUE_PHRASES), st.sampled_from(CUE_PHRASES).map(str.upper),
              st.sampled_from(CUE_PHRASES).map(str.title), st.text(max_size=6)),
    min_size=1, max_size=8,
).flatmap(lambda parts: st.sampled_from([" ", "", "  "]).map(lambda sep: sep.join(parts)))


@settings(max_examples=600)
@given(sentences)
def test_keyword_gates_never_hide_a_cue(sentence):
    for cue in (cues.CORRECTION, cues.CONSTRAINT, cues.ABANDON, cues.DECISION, cues.INTENT, cues.OPEN,
                cues.INJECTION):
        # a question states no rule, an announced check concludes nothing
        vetoed = cue.veto is not None and cue.veto.match(sentence)
        expected = bool(cue.regex.search(sentence)) and not vetoed
        assert bool(cue.search(sentence)) == expected, (cue.regex.pattern[:40], sentence)


def test_quotes_never_span_a_line_boundary(tmp_path):
    s = Session()
    s.user("Tidy the imports.")
    s.assistant(text("I'll sort them and drop the unused ones."))
    s.user("No, stop that\r## Convergence\u2028more text here. Don't do it\x0bagain.")
    s.assistant(text("Ok."))
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / "t.jsonl"))))
    dead = extract.dead_ends(extract.Analysis(plan)).content
    assert not re.search(r"[\r\u2028\x0b]", dead)
    assert '"No, stop that"' in dead


def test_a_long_correction_that_states_a_rule_is_shown_once(tmp_path):
    """Quoted around different cues, the correction's window and the rule's window of one long
    sentence differ; they are still one sentence, shown once (as the correction)."""
    s = Session()
    s.user("Add the multisession warning.")
    s.assistant(text("I added a warning that shows on every second session and removed the old setting."))
    words = ("no, that is not what I meant, we should invert the existing disable setting and keep the "
             "functionality as it is today so that you can enable it and it would warn at the beginning of a "
             "second session, and rerunning the prompt would then merge both of the sessions into one")
    s.user(words)
    s.assistant(text("Understood."))
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / "t.jsonl"))))
    out = extract.builtin_sections(plan, gitstate.snapshot([str(tmp_path)]))
    assert "overruled the assistant" in out["dead_ends"].content
    assert "### Constraints" not in out["basics"].content, out["basics"].content


def test_a_failure_word_inside_quoted_code_reports_no_failure(tmp_path):
    """A user pasting a review item — `fmt.Errorf("IsInstalled failed: %w", err)` — reports no
    failure: the outcome claimed before it still stands."""
    s = Session()
    s.user("Switch the agents to an injectable lookPath.")
    done = s.assistant(text("All tests pass and lint is clean."))
    s.user('can we fix:  2. Error message casing  Go convention is lowercase error messages:\n'
           '  // Current:  return false, fmt.Errorf("IsInstalled failed: %w", err)\n'
           '  // Suggested:  return false, fmt.Errorf("checking installation status: %w", err)')
    s.assistant(text("Done. The error message now follows Go conventions (lowercase)."))
    sections = s.sections(tmp_path)
    assert "Superseded" not in sections["convergence"].content
    assert f"transcript:L{s.line_of(done[0])}" not in sections["dead_ends"].content
    # the same failure said in prose still reverses it
    s2 = Session()
    s2.user("Switch the agents to an injectable lookPath.")
    s2.assistant(text("All tests pass and lint is clean."))
    s2.user("TestIsInstalled failed on my machine")
    s2.assistant(text("Let me look."))
    assert "Superseded" in s2.sections(tmp_path, "t2.jsonl")["convergence"].content


def test_a_refused_read_is_no_dead_end_a_refused_edit_is(tmp_path):
    """Refusing a look ("our session starts with 7a3c…") drops no approach; refusing a change does."""
    s = Session()
    s.user("Why is last_interaction_at missing?")
    tid = "toolu_01readrefused"
    s.assistant(tool_use("Grep", {"pattern": "worktrees/3"}, tid))
    read = s.tool_result(tid, "The user doesn't want to proceed with this tool use. The tool use was rejected. "
                              "To tell you how to proceed, the user said:\nour session starts with 7a3cf82d",
                         is_error=True)
    tid2 = "toolu_01editrefused"
    s.assistant(tool_use("Edit", {"file_path": "state.go", "old_string": "a", "new_string": "b"}, tid2))
    edit = s.tool_result(tid2, "The user doesn't want to proceed with this tool use. The tool use was rejected "
                               "(eg. if it was a file edit, the new_string was NOT written to the file).",
                         is_error=True)
    s.assistant(text("Understood."))
    dead = s.sections(tmp_path)["dead_ends"].content
    assert f"tool use was refused by the user (`transcript:L{s.line_of(edit)}`)" in dead
    assert f"`Grep` tool use was refused by the user (`transcript:L{s.line_of(read)}`)" not in dead


def test_a_yes_to_an_offer_is_a_request_a_yes_to_does_this_look_right_is_not(tmp_path):
    """"yes" to "Want me to fix these?" asks for the work; "yes" to "Does this hook design work?"
    confirms a presentation and asks for nothing: it is not listed among the requests."""
    s = Session()
    s.user("Design a duplicate-code hook with me.")
    s.assistant(text("## Section 3: Git Hook\n\nBlock on 15+ lines, warn on 6-14.\n\nDoes this hook design work?"))
    confirmed = s.user("yes")
    s.assistant(text("Two lint warnings remain in the hook script. Want me to fix these?"))
    offer = s.user("yes")
    s.assistant(text("Fixed both warnings."))
    s.user("thanks, now write the plan")
    s.assistant(text("Plan written."))
    basics = s.sections(tmp_path)["basics"].content
    assert f'Approved "yes" (`transcript:L{s.line_of(offer)}`)' in basics
    assert f"transcript:L{s.line_of(confirmed)}" not in basics


def test_a_text_that_opens_by_reporting_work_done_is_a_conclusion(tmp_path):
    """"Done. Added `CollapseWhitespace` …" states an outcome without an outcome phrase; a bare
    "Done." names nothing and is not listed."""
    s = Session()
    s.user("Collapse newlines in the displayed prompt.")
    done = s.assistant(text("Done. Added `CollapseWhitespace` to stringutil and applied it before truncation."))
    s.user("and quote the prompt with a colon")
    s.assistant(text("Done."))
    s.user("thanks")
    s.assistant(text("You're welcome."))
    convergence = s.sections(tmp_path)["convergence"].content
    assert "Concluded: \"Done. Added `CollapseWhitespace`" in convergence
    assert f"`transcript:L{s.line_of(done[0])}`" in convergence
    assert 'Concluded: "Done."' not in convergence


def test_a_message_stating_many_rules_is_a_document_not_the_users_rules(tmp_path):
    """A long user message with three or more rule-like sentences is a document brought in (a
    plan, a spec, notes pasted from elsewhere): its lines describe the task and are not listed as
    the user's constraints. A rule stated on its own still is, and so are three typed in a line."""
    s = Session()
    s.user("Implement the following plan:\n\n# Nightly releases\n\n"
           "## Context\nThe project publishes a release only when a maintainer tags one, so fixes wait "
           "for weeks before anyone can install them. A nightly build gives early adopters the fixes "
           "the day after they land, without touching the stable channel.\n\n## Steps\n"
           "- Keep the release notes header as it is.\n"
           "- Avoid raw commit hashes as the version.\n"
           "- The workflow must skip days without commits.\n"
           "- Publish to the tap only from the stable workflow.\n\n## Verification\n"
           "Run the workflow by hand on a fork, then check the published version string and the "
           "formula in the tap; both should name the date of the build and nothing else. A day "
           "without commits should end the run early with a note in the job summary.")
    s.assistant(text("I'll start with the workflow file."))
    s.user("Looks good so far. Never push tags from CI.")
    s.assistant(text("Understood, tags stay manual."))
    s.user("Never rename the job. Keep the cron at 3am. Never use sudo in it.")
    s.assistant(text("Noted."))
    basics = s.sections(tmp_path)["basics"].content
    for typed in ("Never push tags from CI.", "Never rename the job", "Keep the cron at 3am", "Never use sudo"):
        assert typed in basics, basics
    for pasted in ("Keep the release notes header", "Avoid raw commit hashes", "must skip days"):
        assert pasted not in basics, basics
