"""The user's words wherever a client records them: messages typed while the assistant worked
(queue operations in 2.1.39-2.1.42, queued_command attachments in 2.1.2xx), answers to the
assistant's multiple-choice questions (tool results), and custom slash-command arguments."""

from __future__ import annotations

import json

from gitrefocus.handoff import extract, gitstate, transcript_paths
from gitrefocus.handoff import prepare as prep
from gitrefocus.handoff import spine as sp
from tests.handoff.transcript import Session, text, tool_use
from tests.runner import refocus

ONE_WAY = "there should be only _one_ way for us to get the git author in this codebase"


def plan_and_sections(tmp_path, s: Session, name: str = "t.jsonl"):
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / name))))
    return plan, extract.builtin_sections(plan, gitstate.snapshot([str(tmp_path)]))


def user_words(plan) -> list[str]:
    return [m.text for m in plan.messages if m.is_user_turn]


def test_a_message_typed_while_the_assistant_worked_2_1_42(tmp_path):
    """2.1.42 records it only as enqueue + remove: the words exist nowhere else."""
    s = Session()
    s.user("Fix the author lookup in UpdateCommitted.")
    s.assistant(text("I'll make the private getGitAuthorFromRepo read the global config too."))
    s.bash("grep -rn getGitAuthor .", "two hits")
    enqueued = s.queue_operation(ONE_WAY)
    s.bash("grep -rn LoadConfig .", "one hit")
    s.queue_operation(None, "remove")
    s.assistant(text("Good point: one canonical function. I'll consolidate both into gitutil."))
    plan, out = plan_and_sections(tmp_path, s)
    queued = [m for m in plan.messages if m.blocks and m.blocks[0].kind == sp.QUEUED]
    assert len(queued) == 1 and queued[0].text == ONE_WAY
    assert queued[0].label() == f"L{enqueued}", "the pointer names the line that holds the words"
    assert ONE_WAY in user_words(plan)
    spine = plan.spine_text()
    assert f"L{enqueued} user typed while the assistant worked: {ONE_WAY}" in spine
    assert plan.stats["queued_messages"] == 1
    # its place in the conversation: after the tool call it interrupted, before the answer to it
    texts = [m.text for m in plan.messages if m.text]
    assert texts.index(ONE_WAY) == len(texts) - 2


def test_queue_bookkeeping_never_duplicates_or_invents_words(tmp_path):
    s = Session()
    s.user("Start the refactor.")
    s.assistant(text("Starting."))
    s.queue_operation("can we do this in a subagent?")
    s.queue_operation("can we do this in a subagent?", "popAll")  # pulled back to edit
    s.queue_operation("can we do this in a subagent? - also WRITE TESTS")
    s.queue_operation(None, "remove")
    s.queue_operation("I like that the prompt structure is documented.")
    s.queue_operation(None, "dequeue")  # taken as the next turn: a user record follows
    s.user("I like that the prompt structure is documented.")
    s.assistant(text("Thanks."))
    s.queue_operation("/ide")
    s.queue_operation(None, "remove")
    s.queue_operation("<task-notification><summary>Agent finished</summary></task-notification>")
    s.queue_operation(None, "remove")
    plan, _ = plan_and_sections(tmp_path, s)
    words = user_words(plan)
    assert words == ["Start the refactor.", "can we do this in a subagent? - also WRITE TESTS",
                     "I like that the prompt structure is documented."]
    commands = [m.text for m in plan.messages if m.role == sp.COMMAND]
    assert commands == ["/ide"], "a slash command typed into the queue is a command, not a request"


def test_a_background_task_queued_as_json_is_no_users_words(tmp_path):
    """Clients of 2.1.4x enqueue a background task's report as a JSON object (task_id,
    task_type, tool_use_id, description); taken off the queue mid-turn it is the client's
    bookkeeping, never something the user typed."""
    s = Session()
    s.user("Run the slow test suite in the background and fix what fails.")
    s.assistant(text("Started the suite in the background."))
    s.queue_operation(json.dumps({"task_id": "b7a1", "task_type": "local_bash", "tool_use_id": "toolu_01x",
                                  "description": "run the slow test suite"}))
    s.queue_operation(None, "remove")
    s.queue_operation("{not json, but typed by the user}")
    s.queue_operation(None, "remove")
    s.assistant(text("The suite passed."))
    plan, _ = plan_and_sections(tmp_path, s)
    assert user_words(plan) == ["Run the slow test suite in the background and fix what fails.",
                                "{not json, but typed by the user}"]
    assert "task_id" not in plan.spine_text()

def test_queued_command_attachments_2_1_2xx_with_their_queue_copies(tmp_path):
    s = Session()
    s.user("Convert the prices.")
    s.assistant(text("Converting to dollars."))
    s.queue_operation("and convert the prices to euros")
    s.queue_operation("and convert the prices to euros", "remove", reason="absorbed_mid_turn")
    s.queued_command("and convert the prices to euros")
    s.queued_command("TASKNOTICE the build finished", mode="task-notification", origin="task-notification")
    s.queued_command([{"type": "text", "text": "also round to cents"}, {"type": "image", "source": {}}])
    s.assistant(text("Done."))
    plan, _ = plan_and_sections(tmp_path, s)
    assert user_words(plan) == ["Convert the prices.", "and convert the prices to euros",
                                "also round to cents\n[image attached]"]
    assert plan.stats["queued_copies"] == 1 and plan.stats["skipped_queued_not_user"] == 1


def test_a_prompt_left_in_the_queue_when_the_transcript_ends_is_the_users_last_word(tmp_path):
    s = Session()
    s.user("Run the e2e tests.")
    s.assistant(text("Running them now."))
    s.queue_operation("try again now")
    plan, out = plan_and_sections(tmp_path, s)
    assert user_words(plan)[-1] == "try again now"
    assert "The last user message was never answered" in out["open_threads"].content


def ask(s: Session, questions: list[dict], answers: dict, content: str) -> int:
    tid = "toolu_ask_" + str(len(s.lines))
    s.assistant(tool_use("AskUserQuestion", {"questions": questions}, tid))
    s.tool_result(tid, content, extra={"questions": questions, "answers": answers})
    return s.line_count


def test_answers_to_the_assistants_questions_reach_the_brief(tmp_path):
    s = Session()
    s.user("Set up the e2e tests.")
    questions = [{"question": "Where should the E2E tests live?", "header": "Directory",
                  "options": [{"label": "Separate e2e_test/", "description": "own build tag"},
                              {"label": "Inside integration_test/", "description": "shared setup"}]}]
    line = ask(s, questions, {"Where should the E2E tests live?": "Separate e2e_test/"},
               'User has answered your questions: "Where should the E2E tests live?"="Separate e2e_test/". '
               "You can now continue with the user's answers in mind.")
    s.assistant(text("Creating cmd/e2e_test/."))
    plan, out = plan_and_sections(tmp_path, s)
    answer = [b for m in plan.messages for b in m.blocks if b.kind == sp.ANSWER]
    assert [(b.text, b.note) for b in answer] == [("Separate e2e_test/", "Where should the E2E tests live?")]
    assert f'L{line} user answered the assistant\'s question "Where should the E2E tests live?": ' \
           "Separate e2e_test/" in plan.spine_text()
    convergence = out["convergence"].content
    assert ('The user chose "Separate e2e_test/" when asked "Where should the E2E tests live?" '
            f"(`transcript:L{line}`)") in convergence
    assert 'Final request: "Set up the e2e tests."' in convergence, "an answer is not a new request"


def test_a_typed_answer_found_only_in_the_result_text_is_read_as_the_users_words(tmp_path):
    """Older clients keep no ``answers`` object: the pairs are read from the result's text. A typed
    answer that overrules the plan is a correction like any other."""
    s = Session()
    s.user("Add an option to silence the warning.")
    s.assistant(text("I think an interactive prompt is best."))
    q = "Plan ready. What would you like to do next?"
    typed = "No, the only way to suppress this warning is via flag, not an interactive prompt"
    line = ask(s, [{"question": q, "header": "Next", "options": []}], {},
               f'User has answered your questions: "{q}"="{typed}". You can now continue.')
    s.assistant(text("Understood, a flag only."))
    plan, out = plan_and_sections(tmp_path, s)
    assert [b.text for m in plan.messages for b in m.blocks if b.kind == sp.ANSWER] == [typed]
    dead = out["dead_ends"].content
    assert f"`transcript:L{line}`" in dead and "the only way to suppress this warning" in dead


def test_a_refused_question_is_no_answer(tmp_path):
    s = Session()
    s.user("Go.")
    tid = "toolu_ask_refused"
    s.assistant(tool_use("AskUserQuestion", {"questions": []}, tid))
    s.tool_result(tid, "The user doesn't want to proceed with this tool use.", is_error=True)
    plan, _ = plan_and_sections(tmp_path, s)
    assert not [b for m in plan.messages for b in m.blocks if b.kind == sp.ANSWER]


def test_a_question_menu_the_user_chose_to_clarify_carries_no_words_of_theirs(tmp_path):
    """Newer clients record "clarify" on a question menu as a refusal whose feedback is the
    client's own note (what the user chose, how to go on, the questions left unanswered): the
    user typed nothing there, so nothing of it is their decision or correction."""
    s = Session()
    s.user("Lay out the dashboard.")
    s.assistant(text("I moved the chart to the left column."))
    tid = "toolu_ask_clarify"
    q = "Which panel should sit on top?"
    s.assistant(tool_use("AskUserQuestion", {"questions": [{"question": q, "header": "Top", "options": []}]}, tid))
    note = ("The user wants to clarify these questions.\n    They may want to add some context first.\n"
            "    Ask them what they would like to clarify.\n\n    Questions asked:\n"
            f'- "{q}"\n  (No answer provided)')
    s.tool_result(tid, "The user doesn't want to proceed with this tool use. To tell you how to proceed, "
                  "the user said:\n" + note, is_error=True)
    s.assistant(text("What would you like to clarify about the panels?"))
    plan, out = plan_and_sections(tmp_path, s)
    refused = [b for m in plan.messages for b in m.blocks if b.kind == sp.REJECTED]
    assert [b.text for b in refused] == [""], "the client's note is no feedback of the user's"
    brief = "\n".join(section.content for section in out.values())
    assert "add some context" not in brief and "clarify these questions" not in brief
    assert "What would you like to clarify" in out["open_threads"].content


def test_custom_slash_command_arguments_are_the_users_request(tmp_path):
    s = Session()
    s.user("<command-message>workflows:plan</command-message>\n<command-name>/workflows:plan</command-name>\n"
           "<command-args>disable the multi-session warning by flag</command-args>")
    s.user("<command-name>/compact</command-name>\n<command-args>keep the plan</command-args>")
    s.assistant(text("Planning."))
    plan, out = plan_and_sections(tmp_path, s)
    assert user_words(plan) == ["/workflows:plan disable the multi-session warning by flag"]
    assert "disable the multi-session warning by flag" in out["basics"].content


def test_the_cli_brief_quotes_a_queued_correction(tmp_path):
    s = Session(cwd=str(tmp_path))
    s.user("Fix the author lookup.")
    s.assistant(text("I'll patch the private helper to read the global config."))
    line = s.queue_operation("No, don't patch it: there should be only one way to get the git author.")
    s.queue_operation(None, "remove")
    s.assistant(text("You're right. I'll consolidate into one function."))
    doc = refocus("handoff", s.write(tmp_path / "t.jsonl"), "--json", "--no-cache", cwd=tmp_path).json
    dead = {x["section"]: x for x in doc["sections"]}["dead_ends"]["content"]
    assert f"there should be only one way to get the git author.\" (`transcript:L{line}`)" in dead
    assert json.dumps(doc).count("there should be only one way") >= 1
