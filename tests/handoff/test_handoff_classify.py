"""A sentence's cue families read where it stands (classify.py): the user's words that overrule
the assistant without a correction phrase — answered by a concession, opening by pushing back,
typed when refusing a tool use — reach the brief's corrections, and the same rules decide the
real-session corpus's cue-family figures."""

from __future__ import annotations

from gitrefocus.handoff import classify
from tests.handoff.transcript import Session, text, tool_use


def corrections_of(tmp_path, s: Session) -> str:
    body = s.sections(tmp_path)["dead_ends"].content
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
    sections = s.sections(tmp_path)
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
    convergence = s.sections(tmp_path)["convergence"].content
    assert "decided" not in convergence and f"`transcript:L{s.line_of(asked)}`" in convergence  # the final request


MENU = ("How should the skill know what to search for?\n\n1. **From the plan** - parse it\n"
        "2. **Explicit input** - keywords\n3. **From the conversation**\n4. **Combination** - infer, allow override")


def test_a_users_pick_from_the_options_the_assistant_just_offered_is_a_decision(tmp_path):
    """"4 seems like what I would do manually", "I like Option C", "B) I want this as a separate
    feature": the user choosing among the options just put to them settles the choice."""
    offered = classify.Context("user", classify.TYPED, first=True, prior=MENU)
    for pick in ("4 seems like what I would do manually...", "I like Option C", "option 3",
                 "B) I want to implement this as a separate feature (lastInteraction)",
                 "3 and I would even consider cleaning up independent of the strategy"):
        assert "decision" in classify.families(pick, offered), pick
    # no options offered, or not the message's first sentence, or a number that picks nothing
    plain = classify.Context("user", classify.TYPED, first=True, prior="I added the hook and its test.")
    assert "decision" not in classify.families("4 seems like what I would do manually...", plain)
    assert "decision" not in classify.families("I like Option C",
                                               classify.Context("user", classify.TYPED, prior=MENU))
    assert "decision" not in classify.families("4 tests fail on CI with the new hook.", offered)
    assert "decision" not in classify.families("3 of them?", offered)
    assert "decision" not in classify.families("4", offered), "a bare number says nothing without its option"
    s = Session()
    s.user("Brainstorm a discovery skill.")
    s.assistant(text(MENU))
    pick = s.user("4 seems like what I would do manually...")
    s.assistant(text("Makes sense - infer from context, allow explicit keywords."))
    convergence = s.sections(tmp_path)["convergence"].content
    assert f'"4 seems like what I would do manually..." (`transcript:L{s.line_of(pick)}`)' in convergence


def test_announcing_a_skill_or_agent_to_use_concludes_nothing(tmp_path):
    assistant = classify.Context("assistant")
    for said in ("I'll use the brainstorming skill to explore this properly.",
                 "I'll use the systematic-debugging skill to investigate this issue.",
                 "I'll use the Explore agent to map the hooks."):
        assert "decision" not in classify.families(said, assistant), said
    assert "decision" in classify.families("I'll use the uuid package instead of the regex.", assistant)
    s = Session()
    s.user("brainstorm: how do we detect code duplication?")
    s.assistant(text("I'll use the brainstorming skill to explore this properly."))
    s.user("go on")
    s.assistant(text("Here are four options."))
    convergence = s.sections(tmp_path)["convergence"].content
    assert "brainstorming skill" not in convergence


def test_outcomes_said_plainly_are_decisions():
    assistant = classify.Context("assistant")
    for said in ("No conflicts to resolve.", "No new duplication from our changes.",
                 "No unaddressed threads remain.", "The actual build and lint both pass.",
                 "Tests fail as expected - confirming the bug.", "Correct approach, consistent with the workaround.",
                 "Compiles clean.", "Conflicts resolved — both changes are combined:"):
        assert "decision" in classify.families(said, assistant), said
    for said in ("No checkpoint found yet, let me look again.", "| No checkpoint found | Display a hint |",
                 "Is lint clean and do both pass?"):
        assert "decision" not in classify.families(said, assistant), said


def test_an_objection_the_reply_calls_a_good_point_overrules_even_with_an_also(tmp_path):
    """"this means tests would *also* fail on my machine … can you check for a better solution?",
    answered "Good point.": an objection to the recommendation, not an addition — it reverses
    the recommendation and is no decision of the user's."""
    s = Session()
    s.user("can you review pr 227 for me?")
    claim = s.assistant(text("Verdict: approve. The fix is the CI stub binaries, so tests pass everywhere."))
    turn = s.user("Right now to make CI work it fakes binaries, this means tests would also fail on my machine "
                  "if I hadn't gemini or claude installed. can you check for a better solution?")
    s.assistant(text("Good point. The current approach doesn't scale. Let me explore better solutions."))
    sections = s.sections(tmp_path)
    assert "The user decided" not in sections["convergence"].content
    dead = sections["dead_ends"].content
    assert f"`transcript:L{s.line_of(claim[0])}`" in dead and f"`transcript:L{s.line_of(turn)}`" in dead


def test_a_question_about_an_omission_answered_good_catch_reverses_nothing(tmp_path):
    """"are we missing some integration tests for this (and the started info as well?)" — "Good
    catch on the integration tests.": the user adds work; the assistant's finding before it stands.
    (Nor does "Now verify it builds and passes tests." conclude anything: it announces a check.)"""
    assert "decision" not in classify.families("Now verify it builds and passes tests.", classify.Context("assistant"))
    assert classify.asks("are we missing some integration tests for this (and the 'started' info as well?)")
    s = Session()
    s.user("Why is last_interaction_at never written?")
    s.assistant(text("Found the bug. The converter drops LastInteractionAt, so the field is lost on save."))
    s.assistant(text("Now verify it builds and passes tests."))
    s.queue_operation("are we missing some integration tests for this (and probably the 'started' info as well?)")
    s.queue_operation(None, "remove")
    s.assistant(text("Good catch on the integration tests. Let me check what exists."))
    sections = s.sections(tmp_path)
    assert "Superseded" not in sections["convergence"].content
    assert "overruled by the user" not in sections["dead_ends"].content
