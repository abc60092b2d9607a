"""A sentence's cue families read where it stands (classify.py): the user's words that overrule
the assistant without a correction phrase — answered by a concession, opening by pushing back,
typed when refusing a tool use — reach the brief's corrections, and the same rules decide the
real-session corpus's cue-family figures."""

from __future__ import annotations

from gitrefocus.handoff import classify
from tests.handoff.transcript import REFUSED_SAID, Session, text, tool_use


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
    refused = s.tool_result(tid, REFUSED_SAID + "can you use a switch case instead of linked ifelse?", is_error=True)
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


# -- the sixth round: rules tuned on the 108 tuning sessions (docs/handoff.md) ------------------------
REFUSED = REFUSED_SAID


def test_a_message_that_opens_by_agreeing_is_no_correction_though_the_reply_says_youre_right(tmp_path):
    """"okay, let's go with the queue approach" — "You're right, …": the reply agrees back; nothing of
    the assistant's was overruled (a "yes, but …" still pushes back, and a correction phrase still counts)."""
    claim = "Result: the retry loop can create duplicate rows in the audit table."
    agreed = classify.Context("user", classify.TYPED, first=True, prior=claim, reply="You're right, let me add it.")
    for said in ("okay, let's go with the queue approach (it is MIT licensed so fine)",
                 "Yeah I think we need this, every retry must reuse the same row id",
                 "yes, can you also check the worker for the same thing?"):
        assert "correction" not in classify.families(said, agreed), said
    assert "correction" in classify.families("yes, but the retry loop never runs twice", agreed)
    assert "correction" in classify.families("ok, that's wrong: the table has a unique key", agreed)
    assert "correction" not in classify.families("Right, let's keep it", agreed)
    assert "correction" in classify.families("Right now it fails on every second run, can you check?", agreed)
    s = Session()
    s.user("Would the retry loop duplicate rows?")
    made = s.assistant(text("Result: the retry loop can create duplicate rows in the audit table."))
    turn = s.user("Yeah I think we need this, every retry must reuse the same row id")
    s.assistant(text("You're right. I'll add an idempotency key."))
    sections = s.sections(tmp_path)
    assert f"`transcript:L{s.line_of(turn)}`" not in corrections_of(tmp_path, s)
    assert f"`transcript:L{s.line_of(made[0])}`" not in sections["dead_ends"].content


def test_a_pick_may_open_with_a_yes_and_name_several_options():
    offered = classify.Context("user", classify.TYPED, first=True, prior=MENU)
    for pick in ("yeah 2 and 3", "okay now let's do 1,3,4", "let's implement options 1-3 first", "ok 4"):
        assert "decision" in classify.families(pick, offered), pick
    for said in ("yeah 2 tests fail", "okay now let's look at 3 of them?", "yes 10 files changed"):
        assert "decision" not in classify.families(said, offered), said


def test_never_sets_a_rule_only_when_it_commands():
    user = classify.Context("user", classify.TYPED, first=True, prior="I added the hook.")
    for rule in ("Never commit the generated files.", "we never push to main directly",
                 "you must never log the token", "Please, never rename the public flags."):
        assert "constraint" in classify.families(rule, user), rule
    for described in ("The cleanup hook never fires on Windows.", "Edits made before the first prompt are never recorded.",
                      "The action is queued but never dispatched.", "never mind, we will look at it later."):
        assert "constraint" not in classify.families(described, user), described


def test_an_inference_the_assistant_draws_with_so_is_a_decision(tmp_path):
    assistant = classify.Context("assistant")
    for said in ("So the webhook does send the signature — we just never read it.",
                 "So Option B is correct: match the trailer, not the hash.",
                 "**So the cache only fills on the second call** because the key is built late."):
        assert "decision" in classify.families(said, assistant), said
    for said in ("So I'll add a test for it.", "So let's check the logs.", "So if the key is empty we crash?",
                 "So the resulting payload would be:", "So maybe the cache is stale."):
        assert "decision" not in classify.families(said, assistant), said
    assert "decision" not in classify.families("so the webhook is broken again",
                                               classify.Context("user", classify.TYPED, first=True, prior="Done."))
    s = Session()
    s.user("Why is the signature check skipped?")
    found = s.assistant(text("Let me look at the handler. So the webhook does send the signature — we just never read it."))
    s.user("ok")
    s.assistant(text("Understood."))
    assert f"`transcript:L{s.line_of(found[0])}`" in s.sections(tmp_path)["convergence"].content


def test_a_text_that_opens_by_reporting_work_done_is_a_decision_in_the_cue_families(tmp_path):
    """The extractors list it (Concluded); the cue families say the same of it. "Created `X`." names
    what was done in two words; a bare "Done." names nothing."""
    s = Session()
    s.user("Write a changelog.")
    made = s.assistant(text("Created `CHANGELOG.md`."))
    s.user("thanks")
    s.assistant(text("You're welcome."))
    assert f'Concluded: "Created `CHANGELOG.md`." (`transcript:L{s.line_of(made[0])}`)' in \
        s.sections(tmp_path)["convergence"].content
    first = classify.Context("assistant", first=True)
    for said in ("Created `CHANGELOG.md`.", "Done - removed the dead flag from `config.go`.",
                 "Merged origin/main and resolved the conflict in `hooks.go`."):
        assert "decision" in classify.families(said, first), said
    assert "decision" not in classify.families("Done.", first)
    assert "decision" not in classify.families("Created `CHANGELOG.md`.", classify.Context("assistant"))


def test_a_claim_taken_back_or_an_option_judged_useless_is_a_dead_end(tmp_path):
    assistant = classify.Context("assistant")
    for said in ("The wrappers are actually needed — the local variables shadow the package name.",
                 "That defeats the purpose of the cache.", "The extra layer buys us nothing here."):
        assert "dead-end" in classify.families(said, assistant), said
    for said in ("Let me check if this helper is actually used:", "Let me see how the config is actually used there.",
                 "Are the wrappers actually needed?"):
        assert "dead-end" not in classify.families(said, assistant), said
    s = Session()
    s.user("Clean up the settings package.")
    s.assistant(text("The wrappers in `setup.go` look unused, so I'll delete them."))
    taken_back = s.assistant(text("The wrappers are actually needed — the local variables shadow the package name."))
    s.user("ok")
    s.assistant(text("Restored them."))
    assert f"`transcript:L{s.line_of(taken_back[0])}`" in s.sections(tmp_path)["dead_ends"].content


def test_words_typed_when_refusing_that_ask_for_something_else_are_a_request(tmp_path):
    """"any way for us to pass a function in?" typed when refusing an edit asks for other work: it is
    listed among the requests (and still as the correction it is); a question about what is known
    ("do we know what the prompt looks like?") or a prohibition asks for no work."""
    s = Session()
    s.user("Make the prompt test drive the real binary.")
    refused = []
    for n, said in enumerate(("any way for us to pass a function in to do the input?",
                              "do we know what the prompt actually looks like?",
                              "don't run the integration tests, too slow.",
                              "given we have the handle...can we read it instead of sleeping?")):
        tid = f"toolu_01refuse{n}"
        s.assistant(tool_use("Edit", {"file_path": "env.go", "old_string": "a", "new_string": "b"}, tid))
        refused.append(s.tool_result(tid, REFUSED + said, is_error=True))
        s.assistant(text("Let me look at that."))
    s.user("thanks, that's all")
    s.assistant(text("Done."))
    basics = s.sections(tmp_path)["basics"].content
    asked = basics.split("### What the user asked since", 1)[1].split("###", 1)[0] if "### What the user" in basics \
        else ""
    assert f'"any way for us to pass a function in to do the input?" (`transcript:L{s.line_of(refused[0])}`)' in asked
    assert f"`transcript:L{s.line_of(refused[3])}`" in asked
    assert f"`transcript:L{s.line_of(refused[1])}`" not in asked
    assert f"`transcript:L{s.line_of(refused[2])}`" not in asked


def test_words_typed_when_refusing_that_ask_for_more_overrule_no_claim(tmp_path):
    """Refusing an edit to ask that it go further ("even more, can the switch logic also be shared?")
    keeps the claim before it: it is not listed as overruled (the refused edit still is a dead end)."""
    s = Session()
    s.user("Share the transcript formatting between the two commands.")
    claim = s.assistant(text("The formatSection helper I created should be reused here."))
    tid = "toolu_01extend"
    s.assistant(tool_use("Edit", {"file_path": "explain.go", "old_string": "a", "new_string": "b"}, tid))
    more = s.tool_result(tid, REFUSED + "even more, can the switch logic also be shared?", is_error=True)
    s.assistant(text("Good idea. Let me share the switch too."))
    dead = s.sections(tmp_path)["dead_ends"].content
    assert f"`transcript:L{s.line_of(claim[0])}`) — overruled" not in dead
    assert f"tool use was refused by the user (`transcript:L{s.line_of(more)}`)" in dead


def test_nothing_is_overruled_before_the_assistant_has_spoken(tmp_path):
    """A session's opening words describe the task: a correction phrase in them ("… instead", "No,
    …") overrules nothing, as the words typed when refusing the assistant's first action still do."""
    opening = classify.Context("user", classify.TYPED, first=True)
    assert "correction" not in classify.families("The parser calls the old tokenizer directly instead.", opening)
    assert "correction" not in classify.families("could the importer read the file lazily instead?", opening)
    assert "correction" in classify.families("The parser calls the old tokenizer directly instead.",
                                             classify.Context("user", classify.TYPED, first=True,
                                                              prior="I routed the parser through the new tokenizer."))
    assert "correction" in classify.families("no, keep the config where it is",
                                             classify.Context("user", classify.REFUSAL, first=True))
    s = Session()
    s.user("The exporter writes every row twice. Review item: the writer flushes on close instead.")
    s.assistant(text("I'll look at the writer."))
    assert "flushes on close instead" not in corrections_of(tmp_path, s)


def test_no_opening_a_statement_is_no_pushback_no_as_an_answer_is(tmp_path):
    """"No" as a determiner opens a statement ("No error message reaches the log"); as an answer it is
    followed by a pause or a new clause ("No, use the other branch.", "no wait, …", "no that's old")."""
    after_claim = classify.Context("user", classify.TYPED, first=True, prior="The retry loop now logs each failure.")
    for statement in ("No error message reaches the log when the retry gives up.",
                      "No network calls happen during the dry run."):
        assert "correction" not in classify.families(statement, after_claim), statement
    for answer in ("No, the retry loop should give up after three tries.", "no wait, the loop is in the client",
                   "No - the retries belong in the client.", "no that's the old loop", "No."):
        assert "correction" in classify.families(answer, after_claim), answer
    s = Session()
    s.user("Make the retry loop log its failures.")
    s.assistant(text("The retry loop now logs each failure."))
    s.user("Also check this. No error message reaches the log when the retry gives up.")
    s.assistant(text("Let me look."))
    assert "No error message" not in corrections_of(tmp_path, s)


def test_now_and_a_subject_states_how_things_stand_now_and_a_verb_is_a_next_step():
    """"Now" opening a sentence with a subject says how things stand after the change ("Now it
    returns the cached value.", "Now the rows are grouped by day."); with a verb it is the step the
    assistant tells itself to take ("Now add the helper.", "Now let me run the tests.")."""
    said = classify.Context("assistant", first=True)
    for state in ("Now it returns the cached value instead of reading the file again.",
                  "Now the rows are grouped by day:", "Now `export` writes one file per day.",
                  "Now there's one place that knows the default path."):
        assert "decision" in classify.families(state, said), state
    for step in ("Now add the helper at the end of the file.", "Now let me run the tests.",
                 "Now update the docs to match.", "Now, what should the default be?"):
        assert "decision" not in classify.families(step, said), step
    assert "decision" not in classify.families("Now it returns the cached value.", classify.Context("user"))


# -- the learned model compared with the rules (tests/handoff/cue_model.py) ------------------------------
def _synthetic(repos: int = 4, per_repo: int = 24):
    """Sentences from several repositories: those with the made-up verb "zorble" state an intent
    (no cue of the rules knows the word), the rest say nothing of the kind."""
    from tests.handoff import cue_model

    data, groups = [], {}
    for r in range(repos):
        path = f"repo{r}/session.jsonl"
        groups[path] = cue_model.group_of(path, f"owner/repo{r}")
        for i in range(per_repo):
            ctx = classify.Context("assistant")
            if i % 3 == 0:
                data.append((path, f"Next we zorble the widget number {i}.", ctx, {"intent"}))
            else:
                data.append((path, f"The widget number {i} has a blue handle.", ctx, set()))
    return data, groups


def test_the_learned_models_folds_keep_each_repository_whole():
    from tests.handoff import cue_model

    assert {cue_model.group_of(f"{i:02d}/abc/0/full.jsonl", "owner/other") for i in range(40)} == {"owner/other"}
    main = {cue_model.group_of(f"{i:02d}/abc/0/full.jsonl", cue_model.MAIN_REPO) for i in range(200)}
    assert len(main) == cue_model.MAIN_GROUPS and all(g.startswith(cue_model.MAIN_REPO + "#") for g in main)
    assert cue_model.group_of("07/abc/0/full.jsonl", cue_model.MAIN_REPO) == \
        cue_model.group_of("07/abc/0/full.jsonl", cue_model.MAIN_REPO)


def test_the_learned_model_takes_a_word_the_rules_do_not_know_in_a_repository_it_never_saw():
    from tests.handoff import cue_model

    data, groups = _synthetic()
    unseen = "Then we zorble the gadget."
    assert "intent" not in classify.families(unseen, classify.Context("assistant"))
    first = cue_model.train(data, groups, 0.8)
    again = cue_model.train(data, groups, 0.8)
    assert first.weights == again.weights and first.thresholds == again.thresholds  # deterministic
    p = first.probabilities(unseen, classify.Context("assistant"))["intent"]
    assert p >= first.thresholds["intent"]["model"]
    assert first.probabilities("The widget number 99 has a blue handle.", classify.Context("assistant"))["intent"] < \
        first.thresholds["intent"]["model"]
    # grouped by repository, every fold's model is fitted without the repository it is tested on
    per_session: dict = {}
    scores, other, _ = cue_model.cross_validate(data, groups, 0.8, per_session=per_session)
    assert scores["rules"]["intent"].tp == 0
    assert scores["model"]["intent"].tp == scores["model"]["intent"].tp + scores["model"]["intent"].fn == 32
    assert scores["model"]["intent"].fp == 0 and scores["rules ∪ model"]["intent"].tp == 32
    assert other["model"]["intent"].tp == 32  # none of these is the main repository
    # drawn again session by session, the model's gain over the rules holds in every draw
    assert sorted(per_session) == sorted(groups)
    assert "| model | +1.000 … +1.000 | +1.000 … +1.000 | 1.00 |" in cue_model.bootstrap(per_session, 50)
