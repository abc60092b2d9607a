"""A sentence's cue families read where it stands (classify.py): the user's words that overrule
the assistant without a correction phrase — answered by a concession, opening by pushing back,
typed when refusing a tool use — reach the brief's corrections, and the same rules decide the
real-session corpus's cue-family figures."""

from __future__ import annotations

from gitrefocus.handoff import classify, extract, gitstate, transcript_paths
from gitrefocus.handoff import prepare as prep
from tests.handoff.transcript import Session, text, tool_use


def corrections_of(tmp_path, s: Session) -> str:
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / "t.jsonl"))))
    body = extract.builtin_sections(plan, gitstate.snapshot([str(tmp_path)]))["dead_ends"].content
    return body.split("### User corrections (verbatim)", 1)[1] if "### User corrections" in body else ""


def test_a_turn_the_assistant_concedes_to_is_a_correction_whatever_its_words(tmp_path):
    s = Session()
    s.user("Add validation for the session id.")
    s.assistant(text("I'll write a regex that checks the UUID format."))
    turn = s.user("could we use the uuid package we already depend on?")
    s.assistant(text("Good idea. The google/uuid package parses it; I'll use uuid.Parse instead."))
    assert f'"could we use the uuid package we already depend on?" (`transcript:L{s.line_of(turn)}`)' \
        in corrections_of(tmp_path, s)


def test_a_concession_deep_in_a_long_reply_is_not_one(tmp_path):
    s = Session()
    s.user("Add validation for the session id.")
    s.assistant(text("I'll write a regex that checks the UUID format."))
    s.user("could we use the uuid package we already depend on?")
    s.assistant(text("Let me look at the dependencies first. " * 12 + "Good idea to check them."))
    assert "uuid package" not in corrections_of(tmp_path, s)


def test_a_message_that_opens_by_pushing_back_is_a_correction_a_question_is_not(tmp_path):
    s = Session()
    s.user("Why does the hook not see the ignored file?")
    s.assistant(text("The local .gitignore is not read by go-git."))
    pushback = s.user("hmm, the local gitignore was already covered and working, the issue is the global one")
    s.assistant(text("Let me look at how go-git reads the excludes file."))
    s.user("but does go-git read core.excludesfile at all?")
    s.assistant(text("It reads it only when the path is absolute."))
    body = corrections_of(tmp_path, s)
    assert f"`transcript:L{s.line_of(pushback)}`" in body
    assert "does go-git read" not in body


def test_the_first_words_of_a_session_correct_nothing(tmp_path):
    s = Session()
    s.user("but first, rename the package to gitutil.")
    s.assistant(text("Renaming it now."))
    assert "rename the package" not in corrections_of(tmp_path, s)


def test_words_typed_when_refusing_a_tool_use_correct_it(tmp_path):
    s = Session()
    s.user("Fix the error handling in main.go.")
    tid = "toolu_01refuse"
    s.assistant(tool_use("ExitPlanMode", {"plan": "an if/else chain"}, tid))
    refused = s.tool_result(tid, "The user doesn't want to proceed with this tool use. The tool use was rejected "
                                 "(eg. if it was a file edit, the new_string was NOT written to the file). "
                                 "To tell you how to proceed, the user said:\ncan you use a switch case instead "
                                 "of linked ifelse?", is_error=True)
    s.assistant(text("Good point. I'll update the plan to use a switch statement."))
    assert f"`transcript:L{s.line_of(refused)}`" in corrections_of(tmp_path, s)


def test_a_correction_that_states_a_rule_is_shown_once(tmp_path):
    s = Session()
    s.user("Fix the author lookup.")
    s.assistant(text("I'll make the private getGitAuthorFromRepo read the global config too."))
    s.user("No, there should only be one way to get the git author in this codebase.")
    s.assistant(text("You're right. I'll consolidate both into one function."))
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / "t.jsonl"))))
    sections = extract.builtin_sections(plan, gitstate.snapshot([str(tmp_path)]))
    everywhere = sections["dead_ends"].content + sections["basics"].content
    assert everywhere.count("there should only be one way") == 1


def test_the_rules_as_the_corpus_applies_them():
    after_claim = "The local .gitignore is not read by go-git."
    conceded = classify.Context("user", classify.TYPED, first=True, prior=after_claim, reply="You're right, ...")
    assert classify.families("could we use the id package's regexp?", conceded) == {"correction"}
    assert "correction" not in classify.families(
        "could we use the id package's regexp?", classify.Context("user", classify.TYPED, first=True,
                                                                   prior=after_claim, reply="Let me check."))
    pushing = classify.Context("user", classify.TYPED, first=True, prior=after_claim)
    assert "correction" in classify.families("hmm, that was already working", pushing)
    assert "correction" not in classify.families("hmm, does it read the global one?", pushing)
    assert "correction" not in classify.families("hmm, that was already working",
                                                 classify.Context("user", classify.ANSWER, first=True,
                                                                  prior=after_claim))
    assert "correction" not in classify.families("(No answer provided)",
                                                 classify.Context("user", classify.REFUSAL, first=True))
    # a correction is no decision of the user's; the families of the assistant's words are their cues
    assert classify.families("No, the root cause is the global ignore file.", pushing) == {"correction"}
    assert "decision" in classify.families("The root cause is the global ignore file.",
                                           classify.Context("assistant"))


def test_a_question_is_no_decision(tmp_path):
    """"Are all tests passing?" names an outcome but settles nothing: no decision of the user's,
    in the cue families and in Convergence alike (nor an assistant's "…, right?")."""
    user = classify.Context("user", classify.TYPED, first=True, prior="Implemented the hook.")
    assert "decision" not in classify.families("Are all tests passing?", user)
    assert "decision" in classify.families("All tests pass now.", classify.Context("assistant"))
    assert "decision" not in classify.families("So all tests pass now, right?", classify.Context("assistant"))
    s = Session()
    s.user("Add the review hook.")
    s.assistant(text("I added the hook and its test."))
    asked = s.user("Are all tests passing?")
    s.assistant(text("Let me run them."))
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / "t.jsonl"))))
    convergence = extract.builtin_sections(plan, gitstate.snapshot([str(tmp_path)]))["convergence"].content
    assert "decided" not in convergence and f"`transcript:L{s.line_of(asked)}`" in convergence  # the final request
