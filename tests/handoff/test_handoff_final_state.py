"""The built-in extractors on the shapes real sessions take: a conclusion stands only if nothing
later reverses it, a correction overrules the claim it follows and targets, what the user asked
is every request (an approval names what it approved), and open threads come from the session's
final state — the last todo or task list, a plan nothing was done after, the closing question."""

from __future__ import annotations

import json

from gitrefocus.handoff import extract, gitstate, transcript_paths
from gitrefocus.handoff import prepare as prep
from tests.handoff.transcript import REFUSED_SAID, Session, text, thinking, tool_use


def sections(tmp_path, s: Session):
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / "t.jsonl"))))
    return plan, extract.builtin_sections(plan, gitstate.snapshot([str(tmp_path)]))


def line_of(s: Session, uid: str) -> int:
    return s.line_of(uid)


def test_a_conclusion_a_later_failure_report_reverses_is_not_concluded(tmp_path):
    s = Session()
    s.user("Fix the flaky parser test.")
    s.assistant(text("The fix is to sort the keys before comparing."))
    claimed = s.assistant(text("All tests pass now."))[0]
    report = s.user("it still fails on CI with the same error")
    s.assistant(text("Looking at the CI log."))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert 'Concluded: "All tests pass now."' not in convergence
    assert (f'Superseded, not concluded: "All tests pass now." (`transcript:L{line_of(s, claimed)}`) — the user '
            f'then reported a failure (`transcript:L{line_of(s, report)}`)') in convergence
    assert 'Concluded: "The fix is to sort the keys before comparing."' in convergence


def test_a_repeated_outcome_is_reported_once_at_its_latest(tmp_path):
    s = Session()
    s.user("Rename the helper.")
    first = s.assistant(text("All tests pass."))[0]
    s.user("now also rename its test")
    last = s.assistant(text("All tests pass again."))[0]
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert f"`transcript:L{line_of(s, first)}`" not in convergence
    assert f'Concluded: "All tests pass again." (`transcript:L{line_of(s, last)}`)' in convergence


def test_a_correction_overrules_the_claim_it_targets_not_its_neighbours(tmp_path):
    s = Session()
    s.user("Why does the banner not show?")
    reply = s.assistant(text("The lint passes, so the nolint removals are safe. It may be that your terminal "
                             "filters the banner from the visible output."))[0]
    correction = s.user("No, the banner was visible before this session started.")
    s.assistant(text("Let me check the start hook."))
    _, out = sections(tmp_path, s)
    dead = out["dead_ends"].content
    assert (f'- "It may be that your terminal filters the banner from the visible output." '
            f'(`transcript:L{line_of(s, reply)}`) — overruled by the user (`transcript:L{line_of(s, correction)}`)'
            ) in dead
    convergence = out["convergence"].content
    assert "Superseded" not in convergence, "the lint claim was not what the user corrected"
    assert 'Concluded: "The lint passes, so the nolint removals are safe."' in convergence


def test_a_concession_makes_the_users_turn_a_correction_of_the_claim_before_it(tmp_path):
    s = Session()
    s.user("Add the logs folder to the gitignore.")
    claim = s.assistant(text("The logs entry is already in the gitignore file."))[0]
    pushback = s.user("the enable command writes its own gitignore file and the logs entry is missing there")
    s.assistant(thinking("Good point from the user!"), text("Good point. I'll add it to the enable command."))
    _, out = sections(tmp_path, s)
    dead = out["dead_ends"].content
    assert (f'- "The logs entry is already in the gitignore file." (`transcript:L{line_of(s, claim)}`) — '
            f'overruled by the user (`transcript:L{line_of(s, pushback)}`)') in dead
    assert "Good point" not in dead, "the concession is not a hypothesis of its own"
    assert "> \"the enable command writes its own gitignore file" in dead


def test_musing_in_thinking_is_not_a_dead_end(tmp_path):
    s = Session()
    s.user("Tidy the imports.")
    s.assistant(thinking("Actually, looking at this more carefully, the order is alphabetical."),
                text("Done: the imports are sorted."))
    _, out = sections(tmp_path, s)
    assert "Actually" not in out["dead_ends"].content


def test_what_the_user_asked_lists_every_request_and_what_an_approval_approved(tmp_path):
    s = Session()
    s.user("<ide_opened_file>The user opened the file /src/a.go in the IDE.</ide_opened_file>")
    s.user("print the branch only when there is one")
    s.assistant(text("Done."))
    middle = s.user("is there any way to not repeat the whole message?")
    proposal = s.assistant(text("I can build the line separately. Want me to make that change?"))[0]
    approval = s.user("yes please")
    _, out = sections(tmp_path, s)
    basics, convergence = out["basics"].content, out["convergence"].content
    assert '**What this is:** "print the branch only when there is one"' in basics
    assert "ide_opened_file" not in basics + convergence, "what the IDE adds is not the user's words"
    assert f'- "is there any way to not repeat the whole message?" (`transcript:L{line_of(s, middle)}`)' in basics
    assert (f'Final request: approved "yes please" (`transcript:L{line_of(s, approval)}`) — the assistant\'s '
            f'proposal: "Want me to make that change?" (`transcript:L{line_of(s, proposal)}`)') in convergence
    assert 'The user decided: "yes please"' not in convergence


def test_open_threads_from_the_last_task_list(tmp_path):
    """Newer clients keep the todo list as tasks (TaskCreate, TaskUpdate); the last state counts."""
    s = Session()
    s.user("Implement the export.")
    ids = []
    for n, subject in enumerate(["Write the exporter", "Add a test", "Drop the old flag"], 1):
        tid = f"toolu_task{n}"
        s.assistant(tool_use("TaskCreate", {"subject": subject, "description": subject, "activeForm": subject}, tid))
        s.tool_result(tid, f"Task #{n} created successfully: {subject}", extra={"task": {"id": str(n)}})
        ids.append(tid)
    for n, status in ((1, "completed"), (2, "in_progress"), (3, "deleted")):
        tid = f"toolu_upd{n}"
        s.assistant(tool_use("TaskUpdate", {"taskId": str(n), "status": status}, tid))
        s.tool_result(tid, "Updated task", extra={"success": True})
    s.assistant(text("The exporter is written."))
    plan, out = sections(tmp_path, s)
    assert [(status, subject) for status, subject, _ in plan.todos] == [("completed", "Write the exporter"),
                                                                        ("in_progress", "Add a test")]
    threads = out["open_threads"].content
    assert 'Todo [in_progress]: "Add a test"' in threads
    assert "Write the exporter" not in threads and "Drop the old flag" not in threads


def test_a_todo_list_written_just_before_the_closing_question_waits_on_its_answer(tmp_path):
    """A session whose last turn writes a todo list and then, with nothing done after it, puts a
    question to the user while a step of it is under way is waiting on that answer: the list's
    steps are the assistant's plan for after it, so the open thread is the question, not each
    step. A list the assistant worked from before asking is still open item by item (and one with
    no step under way is work left over: tests/handoff/test_handoff_extract.py's story)."""
    def session(work_after_the_list: bool) -> Session:
        s = Session()
        s.user("Design the retry policy for the uploader.")
        s.assistant(text("I read the uploader; it never retries."))
        s.user("keep it simple, no jitter")
        s.assistant(tool_use("TodoWrite", {"todos": [
            {"content": "Read the uploader", "status": "completed", "activeForm": "Reading"},
            {"content": "Sketch the policy", "status": "in_progress", "activeForm": "Sketching"},
            {"content": "Write the policy doc", "status": "pending", "activeForm": "Writing"}]}, "toolu_03a"))
        s.tool_result("toolu_03a", "Todos have been modified successfully.")
        if work_after_the_list:
            s.bash("grep -rn retry uploader/", "no hits")
        s.assistant(text("## Policy\n\nThree attempts, doubling the wait each time.\n\n"
                         "Does this shape look right before I write the doc?"))
        return s
    _, out = sections(tmp_path, session(False))
    threads = out["open_threads"].content
    assert "Does this shape look right before I write the doc?" in threads
    assert "Todo [" not in threads, "the steps wait on the answer"
    _, out = sections(tmp_path, session(True))
    threads = out["open_threads"].content
    assert 'Todo [pending]: "Write the policy doc"' in threads and "Does this shape look right" in threads


def test_a_plan_nothing_was_done_after_is_open_and_a_refused_one_is_not(tmp_path):
    plan_text = "# Plan\n\n### 1. Parse the header\n\n### 2. Validate the rows\n\nNotes."
    s = Session()
    s.user("Plan the importer.")
    s.assistant(tool_use("ExitPlanMode", {"plan": plan_text}, "toolu_plan"))
    s.tool_result("toolu_plan", "User has approved your plan.")
    s.assistant(text("Starting with the header."))
    _, out = sections(tmp_path, s)
    threads = out["open_threads"].content
    assert 'Plan step not carried out (nothing was edited after the plan): "1. Parse the header"' in threads
    assert '"2. Validate the rows"' in threads

    s.edit("/home/dev/project/importer.go")
    _, out = sections(tmp_path / "edited", s)
    assert "Plan step" not in out["open_threads"].content, "edits after the plan: its steps may be done"

    r = Session()
    r.user("Plan the importer.")
    r.assistant(tool_use("ExitPlanMode", {"plan": plan_text}, "toolu_plan"))
    r.tool_result("toolu_plan", "The user doesn't want to proceed with this tool use. The tool use was rejected.",
                  is_error=True)
    _, out = sections(tmp_path / "refused", r)
    assert "Plan step" not in out["open_threads"].content


def test_the_closing_question_is_open_wherever_it_stands(tmp_path):
    s = Session()
    s.user("Fix the typo in the README.")
    closing = s.assistant(text("Fixed the typo. Want me to commit this? The diff is one line."))[0]
    _, out = sections(tmp_path, s)
    assert (f'The assistant\'s last question went unanswered: "Want me to commit this?" '
            f'(`transcript:L{line_of(s, closing)}`)') in out["open_threads"].content
    r = Session()
    r.user("Explain the cache.")
    r.assistant(text("Why a cache? Because reads repeat. It keeps the last 64 entries."))
    _, out = sections(tmp_path / "rhetorical", r)
    assert "last question" not in out["open_threads"].content, "a rhetorical question mid-text asks nothing"


def test_ide_tags_are_not_the_users_words(tmp_path):
    s = Session()
    s.user([{"type": "text", "text": "<ide_selection>The user selected lines 3-4: x := 1</ide_selection>"},
            {"type": "text", "text": "why is this variable unused?"}])
    s.assistant(text("It is shadowed."))
    plan, _ = sections(tmp_path, s)
    said = [m.text for m in plan.messages if m.is_user_turn]
    assert said == ["why is this variable unused?"]
    assert json.dumps(said).count("ide_") == 0


def test_a_session_that_stops_on_an_announcement_is_open_there(tmp_path):
    s = Session()
    s.user("Fix the test, the code is right.")
    s.edit("/home/dev/project/parser_test.go")
    last = s.assistant(text("Now let me run the tests to verify the fixes:"))[0]
    s.bash("go test ./...", "running")
    _, out = sections(tmp_path, s)
    assert (f'The session stopped while the assistant was working; its last words: "Now let me run the tests to '
            f'verify the fixes:" (`transcript:L{line_of(s, last)}`)') in out["open_threads"].content
    r = Session()
    r.user("Fix the test.")
    r.assistant(text("Fixed: the test now expects the new error."))
    _, out = sections(tmp_path / "done", r)
    assert "stopped while" not in out["open_threads"].content


def test_only_a_said_refutation_is_a_dead_end_of_the_assistants_own(tmp_path):
    s = Session()
    s.user("Why is the cache stale?")
    s.assistant(thinking("Actually, let me look at the loader first. Wait, the TTL is set."),
                text("Let me try a different approach and read the logs."))
    refuted = s.assistant(text("So the TTL isn't the cause: entries expire on time."))[0]
    _, out = sections(tmp_path, s)
    dead = out["dead_ends"].content
    assert f'"So the TTL isn\'t the cause: entries expire on time." (`transcript:L{line_of(s, refuted)}`)' in dead
    assert "different approach" not in dead and "Actually" not in dead and "Wait" not in dead


def test_declining_a_question_menu_to_type_an_answer_is_no_refusal_or_correction(tmp_path):
    s = Session()
    s.user("Set up the export.")
    s.assistant(tool_use("AskUserQuestion", {"questions": [{"question": "Which format?", "header": "Format",
                                                            "options": [{"label": "CSV"}, {"label": "JSON"}],
                                                            "multiSelect": False}]}, "toolu_ask"))
    s.tool_result("toolu_ask", REFUSED_SAID + "parquet, but only for the nightly job", is_error=True)
    s.assistant(text("Parquet for the nightly job then."))
    _, out = sections(tmp_path, s)
    dead = out["dead_ends"].content
    assert "refused" not in dead and "parquet" not in dead


def test_a_correction_targets_no_claim_written_after_it_and_no_question(tmp_path):
    s = Session()
    s.user("Which shell runs the hook?")
    s.assistant(text("Which shell do you use? The hook may be running under sh."), msg_id="msg_01split")
    correction = s.user("no, the hook runs under bash")
    s.assistant(text("The hook runs under bash then, and the shebang agrees."), msg_id="msg_01split")
    _, out = sections(tmp_path, s)
    dead = out["dead_ends"].content
    assert '"The hook may be running under sh." (`transcript:L' in dead
    assert f"overruled by the user (`transcript:L{line_of(s, correction)}`)" in dead
    assert "Which shell do you use" not in dead and "shebang agrees" not in dead


def test_a_failure_report_after_a_claimed_outcome_is_a_correction_and_a_why_question_is_neither(tmp_path):
    s = Session()
    s.user("Remove the start command.")
    claimed = s.assistant(text("Done. Build, tests, and lint all pass."))[0]
    report = s.user('"mise run test:ci" fails')
    fixed = s.assistant(text("All tests pass now. The helper was defined in the deleted file."))[0]
    s.user("can you explain why they fail now?")
    s.assistant(text("The deleted file defined a helper another test used."))
    _, out = sections(tmp_path, s)
    dead_ends, convergence = out["dead_ends"].content, out["convergence"].content
    assert f'> "\\"mise run test:ci\\" fails" (`transcript:L{line_of(s, report)}`) — overruled the assistant' \
        in dead_ends or f'`transcript:L{line_of(s, report)}`) — overruled the assistant' in dead_ends
    assert 'Concluded: "All tests pass now.' in convergence and f"`transcript:L{line_of(s, fixed)}`" in convergence
    assert "then reported a failure (`transcript:L" + str(line_of(s, fixed) + 1) not in convergence, \
        "a question asking why is no failure report"
    assert f"`transcript:L{line_of(s, claimed)}`" not in convergence, "reversed, then reached again: said once"


def test_announcing_a_check_concludes_nothing(tmp_path):
    s = Session()
    s.user("Make the export honour --quiet.")
    s.assistant(text("Now let me verify the build passes."))
    s.assistant(text("Let me look at how the git user is resolved elsewhere."))
    done = s.assistant(text("Works. The export now prints nothing with --quiet."))[0]
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert "let me verify" not in convergence.lower() and "is resolved elsewhere" not in convergence
    assert f'Concluded: "Works. The export now prints nothing with --quiet." (`transcript:L{line_of(s, done)}`)' \
        in convergence, "a two-word outcome is quoted with the sentence that says what works"


def test_an_option_judged_and_dropped_is_a_dead_end(tmp_path):
    s = Session()
    s.user("Address the review comments.")
    dropped = s.assistant(text("The suggestion for a custom UnmarshalJSON is overkill — a simpler approach is to "
                               "normalize after load."))[0]
    s.user("could we check this inside OpenRepository instead?")
    risky = s.assistant(text("That would be risky. OpenRepository is called by every command."))[0]
    _, out = sections(tmp_path, s)
    dead_ends = out["dead_ends"].content
    assert f"`transcript:L{line_of(s, dropped)}`) — abandoned by the assistant" in dead_ends
    assert f"`transcript:L{line_of(s, risky)}`) — abandoned by the assistant" in dead_ends


def test_an_approval_is_not_listed_as_a_decision_of_its_own(tmp_path):
    s = Session()
    s.user("Simplify the hook installer.")
    proposal = s.assistant(text("I can flatten the branching and drop the scan. Should I do both?"))[0]
    approval = s.user("yes, go for it")
    s.assistant(text("Merge committed: `5457fb4`"))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert "The user decided: \"yes, go for it\"" not in convergence
    assert 'Concluded: "Merge committed: `5457fb4`"' in convergence
    assert (f'Final request: approved "yes, go for it" (`transcript:L{line_of(s, approval)}`) — the assistant\'s '
            f'proposal: "Should I do both?" (`transcript:L{line_of(s, proposal)}`)') in convergence


def test_each_turn_lands_once_on_its_latest_conclusion(tmp_path):
    s = Session()
    s.user("Why is the cache stale?")
    s.assistant(text("The root cause is that the cache key ignores the locale."))
    s.user("ok, fix it and keep the old API")
    early = s.assistant(text("The fix is to add the locale to the key."))[0]
    late = s.assistant(text("I decided to keep the old signature and add an optional parameter."))[0]
    s.user("and the docs?")
    s.assistant(text("The docs are in place; all tests pass."))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert 'Concluded: "The root cause is that the cache key ignores the locale."' in convergence, "the first"
    assert f"`transcript:L{line_of(s, late)}`" in convergence
    assert f"`transcript:L{line_of(s, early)}`" not in convergence, "the turn's earlier step, not where it landed"
    assert 'Concluded: "The docs are in place; all tests pass."' in convergence


def test_the_opening_message_describes_the_task_it_decides_nothing(tmp_path):
    s = Session()
    s.user("We decided to use sqlite for the cache. Please add it.")
    s.assistant(text("Should the database file live in .cache or in the repository?"))
    answer = s.user("let's go with .cache")
    s.assistant(text("Adding it under .cache."))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert "We decided to use sqlite" not in convergence
    assert f'The user decided: "let\'s go with .cache" (`transcript:L{line_of(s, answer)}`)' in convergence


def test_praise_for_an_extension_does_not_reverse_what_was_concluded(tmp_path):
    """"Great point!" after a user's follow-up ("can we also tell the two cases apart?") takes the
    turn as a redirect of the assistant (a correction), but it reverses no conclusion: the work
    it builds on stands. A concession of error ("you're right") still reverses."""
    s = Session()
    s.user("Fix the resume command after a merge.")
    done = s.assistant(text("All tests pass and the resume command finds checkpoints after a merge."))[0]
    follow = s.user("Can we tell apart newer commits from main and newer commits on the branch for the resume?")
    s.assistant(text("Great point! Let me think about how the two cases differ."))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert "Superseded" not in convergence
    assert f'Concluded: "All tests pass and the resume command finds checkpoints after a merge." ' \
           f'(`transcript:L{line_of(s, done)}`)' in convergence
    assert f"`transcript:L{line_of(s, follow)}`) — overruled the assistant" in out["dead_ends"].content
    assert "overruled by the user" not in out["dead_ends"].content, "the claim it builds on is no dead end"
    assert "### Conflicts" not in out["open_threads"].content

    s = Session()
    s.user("Fix the resume command after a merge.")
    done = s.assistant(text("All tests pass and the resume command finds checkpoints after a merge."))[0]
    s.user("The resume command still misses checkpoints after a merge of main into the branch.")
    s.assistant(text("You're right, I only looked at the first parent."))
    _, out = sections(tmp_path, s)
    assert f'Superseded, not concluded: "All tests pass and the resume command finds checkpoints after a merge." ' \
           f'(`transcript:L{line_of(s, done)}`)' in out["convergence"].content


def test_a_word_inside_a_name_reports_no_failure(tmp_path):
    """A branch called ``…-cmd-fails`` in a pasted shell prompt is no report that something failed."""
    s = Session()
    s.user("Show a suggestion for unknown commands.")
    done = s.assistant(text("All tests pass: unknown commands exit with code 1 and a clean message."))[0]
    s.user('please update our suggestion with this example:\n"""\nme@laptop ~/w/cli (me/do-not-suggest-if-cmd-fails) '
           '[1]> brew aaaa\nError: Invalid usage: Unknown command: brew aaaa\n"""')
    s.assistant(text("I'll update the suggestion to follow that style."))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert "Superseded" not in convergence
    assert f"`transcript:L{line_of(s, done)}`" in convergence


def test_the_last_turn_lands_two_conclusions(tmp_path):
    """Older turns land their latest conclusion only; the session's last turn lands two (a review's
    verdict and the fix after it)."""
    s = Session()
    s.user("Rename the helper.")
    s.assistant(text("All tests pass after the rename."))
    s.user("Now review the branch.")
    verdict = s.assistant(text("The review found no blocking issues in the branch."))[0]
    fixed = s.assistant(text("Renamed the variable; lint is clean and the tests pass."))[0]
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert f"`transcript:L{line_of(s, verdict)}`" in convergence and f"`transcript:L{line_of(s, fixed)}`" in convergence


def test_a_failure_report_speaks_to_the_latest_outcome_before_it(tmp_path):
    """"the CI task fails" reverses the outcome claimed just before it, not an earlier one a later
    claim already stood over."""
    s = Session()
    s.user("Hide the start command.")
    early = s.assistant(text("Build passes. The start command is hidden from help."))[0]
    s.user("thinking again: remove the start command completely")
    late = s.assistant(text("Removed it. Build, tests, and lint all pass."))[0]
    report = s.user('"mise run test:ci" fails')
    s.assistant(text("Let me look at the failing test."))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert f"Superseded, not concluded: \"Build, tests, and lint all pass.\" (`transcript:L{line_of(s, late)}`)" \
        in convergence and f"(`transcript:L{line_of(s, report)}`)" in convergence
    assert "Superseded, not concluded: \"Build passes." not in convergence
    assert f"`transcript:L{line_of(s, early)}`" in convergence  # it stands: nothing reversed it


def test_a_correction_turns_later_needs_more_than_the_sessions_topic_in_common(tmp_path):
    """A correction several turns after a claim reverses it only when it is about the same things
    (three words in common); "git" and "working" are what the whole session is about."""
    s = Session()
    s.user("Check why the settings file is not ignored.")
    claim = s.assistant(text("The git status shows the working tree is clean."))[0]
    s.user("Add a test for the ignore rule.")
    s.assistant(text("Added the test for the ignore rule."))
    s.user("but the issue was with the global git ignore, the local one was already working")
    s.assistant(text("Let me look at the global ignore file."))
    _, out = sections(tmp_path, s)
    assert "Superseded" not in out["convergence"].content
    assert f"`transcript:L{line_of(s, claim)}`) was contradicted" not in out["open_threads"].content


def test_a_turn_concludes_with_its_final_report_not_a_step_narrated_before_it(tmp_path):
    """The text that ends a turn of work is its report, and its opening is the turn's conclusion
    whatever its words ("All three items are handled."); a step the assistant narrated on the way
    ("The fix is to …") concludes nothing once the turn reports. A lead-in to a list, a heading or
    a bare word says nothing yet, and a turn that ends on a tool use made no report."""
    s = Session()
    s.user("Why is the build slow?")
    s.assistant(text("The root cause is that every job downloads the dependencies again."))
    s.user("Please clean up the config loader.")
    s.assistant(tool_use("Read", {"file_path": "config.py"}, "toolu_01a"))
    s.tool_result("toolu_01a", "def load(): ...")
    step = s.assistant(text("The fix is to fall back to the defaults when the file is empty."))[0]
    s.assistant(tool_use("Edit", {"file_path": "config.py", "old_string": "a", "new_string": "b"}, "toolu_01b"))
    s.tool_result("toolu_01b", "ok")
    report = s.assistant(text("All three items are handled. The loader reads the file once and caches it."))[0]
    s.user("Now check the CLI entry point.")
    s.assistant(tool_use("Read", {"file_path": "cli.py"}, "toolu_01c"))
    s.tool_result("toolu_01c", "def main(): ...")
    s.assistant(text("Here's what I found:\n\n- the flag parser is built twice\n- the help text is stale"))
    s.user("And the logging setup?")
    s.assistant(text("I'll look at it next."))
    s.assistant(tool_use("Read", {"file_path": "log.py"}, "toolu_01d"))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert f'Concluded: "All three items are handled." (`transcript:L{line_of(s, report)}`)' in convergence
    assert f"`transcript:L{line_of(s, step)}`" not in convergence, "a step on the way, not where the turn landed"
    assert "Here's what I found" not in convergence and "I'll look at it next" not in convergence.split("Last word")[0]


def test_a_question_menu_ends_a_turn_of_work_like_the_users_next_message(tmp_path):
    """A multiple-choice question put to the user (AskUserQuestion) hands the turn over just as a
    closing question would: the text the assistant wrote before it is the report of the work
    done, its opening the turn's conclusion, however the user then answers the menu."""
    s = Session()
    s.user("Shrink the header and then tidy the footer.")
    s.assistant(tool_use("Edit", {"file_path": "page.css", "old_string": "a", "new_string": "b"}, "toolu_02a"))
    s.tool_result("toolu_02a", "ok")
    s.assistant(text("The header is half as tall now and the build is green."))
    s.assistant(tool_use("Edit", {"file_path": "page.css", "old_string": "c", "new_string": "d"}, "toolu_02b"))
    s.tool_result("toolu_02b", "ok")
    report = s.assistant(text("Footer tidied: the three link rows are one row now.\n\n"
                              "One open choice about the footer's logo."))[0]
    q = "Where should the logo go?"
    s.assistant(tool_use("AskUserQuestion", {"questions": [{"question": q, "header": "Logo", "options": []}]},
                         "toolu_02c"))
    s.tool_result("toolu_02c", "The user doesn't want to proceed with this tool use.", is_error=True)
    s.assistant(text("What would you like to change about the logo options?"))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert f'Concluded: "Footer tidied: the three link rows are one row now." (`transcript:L{line_of(s, report)}`)' \
        in convergence


def test_a_session_that_ends_on_a_refused_action_leaves_that_action_open(tmp_path):
    """When the last thing that happened is the user refusing a tool use that acts (then perhaps
    an interrupt), what it carried is undone: an open thread at the refusal, not "stopped while
    the assistant was working" on the words before it. Refusing a look (Read) leaves nothing open."""
    plan_text = "# Plan\n\n### 1. Nest the context under the hook output\n\n### 2. Print the warning"
    s = Session()
    s.user("The injected context never shows up. Plan a fix.")
    s.assistant(text("Let me write up the plan for both changes."))
    s.assistant(tool_use("ExitPlanMode", {"plan": plan_text}, "toolu_plan"))
    refusal = s.tool_result("toolu_plan", "The user doesn't want to proceed with this tool use. "
                                          "The tool use was rejected.", is_error=True)
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    _, out = sections(tmp_path, s)
    threads = out["open_threads"].content
    assert f"The session ended on a refused `ExitPlanMode`: what it would have done was not done " \
           f"(`transcript:L{line_of(s, refusal)}`)" in threads
    assert "stopped while the assistant was working" not in threads

    r = Session()
    r.user("Look at the config loader.")
    r.assistant(tool_use("Read", {"file_path": "config.py"}, "toolu_read"))
    r.tool_result("toolu_read", "The user doesn't want to proceed with this tool use. The tool use was rejected.",
                  is_error=True)
    _, out = sections(tmp_path / "read", r)
    assert "refused" not in out["open_threads"].content


def test_an_offer_closing_the_session_is_open_though_it_asks_nothing(tmp_path):
    """An offer put as a statement, waiting on the user's word ("… if you'd like.", "Let me know
    if …"), ends the session as open as a question does; a plain closing statement does not."""
    for closing in ("The migration is written. Happy to run it against staging if you would like.",
                    "The migration is written. Let me know whether the old table should be dropped too."):
        s = Session()
        s.user("Write the migration for the new column.")
        said = s.assistant(text(closing))[0]
        _, out = sections(tmp_path / str(len(closing)), s)
        last = closing.split(". ", 1)[1]
        assert f'The assistant\'s last offer went unanswered: "{last}" (`transcript:L{line_of(s, said)}`)' \
            in out["open_threads"].content, closing
    s = Session()
    s.user("Write the migration for the new column.")
    s.assistant(text("The migration is written. It adds the column with a default of zero."))
    _, out = sections(tmp_path / "plain", s)
    assert "went unanswered" not in out["open_threads"].content


def test_a_report_whose_conclusions_are_list_items_is_stated_by_its_opening(tmp_path):
    """A list in a report gives its details; when the only conclusion the cues find in the report
    is one of its items, the report's opening states what the turn concluded."""
    s = Session()
    s.user("Why is the build slow?")
    s.assistant(text("The root cause is that every job downloads the dependencies again."))
    s.user("Let empty paths through the loader.")
    s.assistant(tool_use("Edit", {"file_path": "loader.py", "old_string": "a", "new_string": "b"}, "toolu_01e"))
    s.tool_result("toolu_01e", "ok")
    report = s.assistant(text("Done. I made two changes:\n\n"
                              "- Changed the loader test to expect an empty path is now allowed\n"
                              "- Dropped the early return from the loader"))[0]
    s.user("Thanks, that is all.")
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert f'Concluded: "Done. I made two changes:" (`transcript:L{line_of(s, report)}`)' in convergence
    assert 'Concluded: "- Changed the loader test' not in convergence


def test_a_turn_is_listed_where_it_landed_not_at_a_step_it_went_on_from(tmp_path):
    """Each turn lands in Concluded with its latest conclusion that stands: a step the assistant
    narrated and then went on from in the same turn ("Tests fail as expected.") is not listed, the
    turn's later conclusion is."""
    s = Session()
    s.user("Add the empty-input case to the parser, test first.")
    s.assistant(tool_use("Bash", {"command": "go test ./parser"}, "toolu_01f"))
    s.tool_result("toolu_01f", "FAIL")
    step = s.assistant(text("Tests fail as expected before the change."))[0]
    s.assistant(tool_use("Edit", {"file_path": "parser.go", "old_string": "a", "new_string": "b"}, "toolu_01g"))
    s.tool_result("toolu_01g", "ok")
    landed = s.assistant(text("All six parser tests pass with the empty-input case."))[0]
    s.user("Now update the changelog.")
    s.assistant(tool_use("Edit", {"file_path": "CHANGELOG.md", "old_string": "a", "new_string": "b"}, "toolu_01h"))
    s.tool_result("toolu_01h", "ok")
    s.assistant(text("The changelog lists the empty-input case under Fixed."))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert f"`transcript:L{line_of(s, landed)}`" in convergence
    assert f"`transcript:L{line_of(s, step)}`" not in convergence


def test_a_last_word_that_only_announces_a_step_concludes_nothing(tmp_path):
    """The session's last text is shown as where it landed only when it says something; when it
    announces a step ("Let me check the plan for anything left.") the session stopped before it,
    an open thread, not a conclusion."""
    s = Session()
    s.user("Wire the new flag through the CLI.")
    s.assistant(tool_use("Edit", {"file_path": "cli.go", "old_string": "a", "new_string": "b"}, "toolu_01i"))
    s.tool_result("toolu_01i", "ok")
    s.assistant(text("Let me check the plan for anything left to wire."))
    s.assistant(tool_use("Read", {"file_path": "PLAN.md"}, "toolu_01j"))
    _, out = sections(tmp_path, s)
    assert "Last word from the assistant" not in out["convergence"].content
    assert "Let me check the plan" in out["open_threads"].content


def test_a_last_word_that_opens_with_a_question_concludes_nothing(tmp_path):
    """A closing text that opens by asking the user ("Which of the two do you prefer? Happy to
    …") waits on the user's word, whatever follows the question: not where the session landed."""
    s = Session()
    s.user("Pick a colour scheme for the charts.")
    s.assistant(tool_use("Read", {"file_path": "charts.css"}, "toolu_01k"))
    s.tool_result("toolu_01k", "body {}")
    s.assistant(text("Which of the two palettes should the charts use? Happy to mock up both side by side, "
                     "or to start from the brand colours instead."))
    _, out = sections(tmp_path, s)
    assert "Last word from the assistant" not in out["convergence"].content
    assert "Which of the two palettes" not in out["convergence"].content


def test_a_last_word_leading_in_to_an_announced_step_concludes_nothing(tmp_path):
    """A closing text of one sentence and an announced step ("That covers the inputs. Let me draft
    the migration.") stopped before the step: the lead-in is not where the session landed. A longer
    closing text that ends so (a finding stated, then the step) still is."""
    def session(closing: str) -> Session:
        s = Session()
        s.user("Plan the schema change.")
        s.assistant(tool_use("Read", {"file_path": "schema.sql"}, "toolu_01m"))
        s.tool_result("toolu_01m", "create table t ();")
        s.assistant(text(closing))
        return s
    _, out = sections(tmp_path, session("That covers the inputs. Let me draft the migration."))
    assert "Last word from the assistant" not in out["convergence"].content
    _, out = sections(tmp_path, session("The column is never read by the exporter. The importer only writes it. "
                                        "Let me draft the migration."))
    assert 'Last word from the assistant: "The column is never read by the exporter.' in out["convergence"].content


def test_a_long_session_lists_where_it_stands_not_what_it_found_first(tmp_path):
    """Concluded lists the latest conclusions that stand (one per turn), up to five: in a session
    of many turns, what the first turn found ("So the cache key ignores the branch.") is a step the
    work went past, and is not listed ahead of them."""
    s = Session()
    s.user("Find out why the build cache misses on every branch switch.")
    s.assistant(tool_use("Read", {"file_path": "cache.go"}, "toolu_01c0"))
    s.tool_result("toolu_01c0", "func key() string { return hash(files) }")
    early = s.assistant(text("So the cache key ignores the branch name entirely."))[0]
    later = []
    for n, (ask, done) in enumerate([
            ("Put the branch into the key.", "Done. The key now hashes the branch with the files."),
            ("Add a test for two branches.", "Done. Added a test that switches between two branches."),
            ("Document the key format.", "Done. Documented the key format in the cache README."),
            ("Bump the cache version.", "Done. Bumped the cache version to 4."),
            ("Update the changelog.", "Done. Added the cache fix to the changelog under Fixed.")]):
        s.user(ask)
        s.assistant(tool_use("Edit", {"file_path": f"f{n}.go", "old_string": "a", "new_string": "b"}, f"toolu_01e{n}"))
        s.tool_result(f"toolu_01e{n}", "ok")
        later.append(s.assistant(text(done))[0])
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert f"`transcript:L{line_of(s, early)}`" not in convergence, convergence
    for uid in later:
        assert f"`transcript:L{line_of(s, uid)}`" in convergence, convergence


def test_saying_it_is_ready_concludes_nothing_the_report_after_it_does(tmp_path):
    """"Now I have a clear picture." or "I have enough context." says the assistant is ready, not
    what it found: it is no conclusion, and a closing report that opens with it is stated by what
    follows (or by nothing, when what follows is a lead-in to a proposal)."""
    s = Session()
    s.user("Why does the importer drop rows with empty dates?")
    s.assistant(tool_use("Read", {"file_path": "importer.py"}, "toolu_01r1"))
    s.tool_result("toolu_01r1", "def load(rows): ...")
    proposal = s.assistant(text("Now I have a clear picture. Here's my recommendation:\n\n"
                                "1. Parse empty dates as None\n2. Keep the row"))[0]
    s.user("Do it.")
    s.assistant(tool_use("Edit", {"file_path": "importer.py", "old_string": "a", "new_string": "b"}, "toolu_01r2"))
    s.tool_result("toolu_01r2", "ok")
    report = s.assistant(text("Good. I have enough context. Empty dates now load as None and the row is kept."))[0]
    s.user("Thanks.")
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert "clear picture" not in convergence and "enough context" not in convergence, convergence
    assert f'Concluded: "Empty dates now load as None and the row is kept." (`transcript:L{line_of(s, report)}`)' \
        in convergence, convergence
    assert f"`transcript:L{line_of(s, proposal)}`" not in convergence


def test_what_counts_as_saying_it_is_ready():
    """Readiness is the assistant's own understanding, its reading or a pointer to what follows, in a
    short sentence; a sentence that also says what was found is a claim."""
    from gitrefocus.handoff.analysis import ready
    for said in ("Now I have a comprehensive understanding.", "I have enough context.", "The issue is clear now.",
                 "I've reviewed the codebase.", "Here's my suggestion.", "Perfect. Now I understand the flow."):
        assert ready(said), said
    for claim in ("I see the problem: the key ignores the branch.", "I have a fix for the parser.",
                  "I've reviewed the PR and it looks good.",
                  "The cause is clear: the cache key ignores the branch name, so every switch misses."):
        assert not ready(claim), claim
