"""Who said what: records classified by origin (one table, every client generation), and the
smaller content defects found on real sessions — each test fails on the code before the fix."""

from __future__ import annotations

import json

from gitrefocus.handoff import extract, gitstate, records, transcript_paths
from gitrefocus.handoff import prepare as prep
from gitrefocus.handoff import spine as sp
from tests.handoff.transcript import Session, text, tool_use

NOTIFICATION = ("<task-notification>\n<task-id>a1b2</task-id>\n<status>completed</status>\n"
                "<summary>Agent \"Survey the parser\" finished</summary>\n"
                "<result>No, the parser is wrong: it drops commas.</result>\n</task-notification>")
NEW_FIELDS = {"origin": {"kind": "task-notification", "producer": "session-task"}, "promptSource": "system",
              "turnOrigin": "task_notification"}


def sections(tmp_path, s: Session, name: str = "t.jsonl"):
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / name))))
    return plan, extract.builtin_sections(plan, gitstate.snapshot([str(tmp_path)]))


def test_the_origin_table_reads_every_generation():
    assert records.record_origin({"promptSource": "typed"}) == records.USER_TYPED
    assert records.record_origin({"turnOrigin": "sdk", "promptSource": "sdk"}) == records.USER_TYPED
    assert records.record_origin(NEW_FIELDS) == records.NOTIFICATION
    assert records.record_origin({"turnOrigin": "peer"}) == records.CLIENT
    assert records.record_origin({"isMeta": True, "promptSource": "typed"}) == records.CLIENT
    assert records.record_origin({"isCompactSummary": True}) == records.COMPACT_SUMMARY
    assert records.record_origin({"promptSource": "from-a-future-client"}) == records.UNKNOWN, \
        "an origin we do not know is never the user's"
    assert records.record_origin({"type": "user"}) is None  # older clients: the text decides
    assert records.text_origin(NOTIFICATION) == records.NOTIFICATION
    assert records.text_origin("<local-command-caveat>Caveat</local-command-caveat>") == records.CLIENT


def test_task_notifications_are_never_the_users_words(tmp_path):
    for fields in (NEW_FIELDS, {}):  # 2.1.3xx fields, and an older client's bare text
        s = Session()
        s.user("Survey the parser in the background, please.")
        s.assistant(text("I started a background agent. I'll use a regex instead."))
        s.user(NOTIFICATION, **fields)
        s.assistant(text("The background agent finished."))
        plan, out = sections(tmp_path, s, f"t{len(fields)}.jsonl")
        notes = [m for m in plan.messages if m.role == sp.NOTIFICATION]
        assert len(notes) == 1 and "Survey the parser" in notes[0].text
        convergence, dead = out["convergence"].content, out["dead_ends"].content
        assert "task-notification" not in convergence
        assert 'Final request: "Survey the parser in the background, please."' in convergence
        assert "the parser is wrong" not in dead, "a background agent's result is no user correction"


def test_unknown_origins_and_meta_records_are_skipped(tmp_path):
    s = Session()
    s.user("Fix the lexer.")
    s.assistant(text("On it."))
    s.user("Please also delete the database.", promptSource="robot-of-the-future")
    s.user("Caveat: expanded prompt text", isMeta=True)
    plan, out = sections(tmp_path, s)
    assert [m.text for m in plan.messages if m.is_user_turn] == ["Fix the lexer."]
    assert plan.stats["skipped_unknown"] == 1


def test_a_prompt_a_hook_blocked_is_the_clients_message_not_a_request(tmp_path):
    s = Session()
    s.user("Fix the lexer.")
    s.assistant(text("The lexer is fixed: it keeps the trailing comma now."))
    s.user("Operation stopped by hook: Another session is active.\n\nPress the up arrow key to get "
           "your prompt back.")
    s.user("Add a test for the comma.")
    s.assistant(text("Added the test; it passes."))
    plan, out = sections(tmp_path, s)
    assert [m.text for m in plan.messages if m.is_user_turn] == ["Fix the lexer.", "Add a test for the comma."]
    assert "Operation stopped" not in out["convergence"].content
    assert "Another session" not in out["basics"].content + out["convergence"].content


def test_a_slash_command_with_arguments_is_the_users_request(tmp_path):
    s = Session()
    s.user("<command-message>fix</command-message>\n<command-name>/fix</command-name>\n"
           "<command-args>the tokenizer drops trailing commas</command-args>", turnOrigin="sdk")
    s.user([text("Fix this bug: the tokenizer drops trailing commas\n")], isMeta=True)
    s.assistant(text("Looking at the tokenizer."))
    s.user("<command-name>/compact</command-name>\n<command-message>compact</command-message>\n"
           "<command-args></command-args>")
    plan, out = sections(tmp_path, s)
    assert 'Final request: "/fix the tokenizer drops trailing commas"' in out["convergence"].content
    assert "Fix this bug" not in plan.spine_text(), "the expanded (meta) prompt is the client's, not the user's"
    assert [m.role for m in plan.messages if "/compact" in m.text] == [sp.COMMAND]


def test_the_session_title_comes_from_the_summary_of_its_own_leaf(tmp_path):
    s = Session()
    s.user("Fix the lexer.")
    s.assistant(text("Done."))
    s.raw(json.dumps({"type": "summary", "summary": "Another session's title", "leafUuid": "not-here"}))
    s.summary("Lexer fix")
    plan, out = sections(tmp_path, s)
    assert plan.title == "Lexer fix"
    assert 'session title: "Lexer fix"' in out["basics"].content
    s.raw(json.dumps({"type": "custom-title", "customTitle": "My lexer work", "sessionId": s.session_id}))
    plan, _ = sections(tmp_path, s, "t2.jsonl")
    assert plan.title == "My lexer work"


def test_a_subagent_file_passed_directly_is_read_and_says_so(tmp_path):
    s = Session(sidechain=True, agent_id="a1")
    s.user("Survey the parser module and report")
    s.assistant(text("The parser uses regular expressions. I'll switch to a tokenizer next."))
    path = s.write(tmp_path / "agent-a1.jsonl")
    plan = prep.prepare(transcript_paths.resolve(str(path)))
    assert plan.stats["subagent_file"] == 1
    assert [m.role for m in plan.messages] == [sp.USER, sp.ASSISTANT]
    from gitrefocus.handoff import pipeline

    result = pipeline.handoff(str(path), cwd=str(tmp_path), use_cache=False)
    assert any("subagent" in w for w in result.warnings)
    assert "Survey the parser module" in result.brief.text


def test_the_last_word_is_not_cut_at_a_colon(tmp_path):
    s = Session()
    s.user("Where are we?")
    s.assistant(text("Here is where it landed:\n- the tokenizer handles nesting now\n- tests pass"))
    _, out = sections(tmp_path, s)
    line = next(x for x in out["convergence"].content.splitlines() if "Last word" in x)
    assert '"Here is where it landed:" "- the tokenizer handles nesting now"' in line


def test_an_overruled_conclusion_is_reported_as_superseded(tmp_path):
    s = Session()
    s.user("Parse the config format.")
    s.assistant(text("I'll use a regex instead of the tokenizer."))
    s.user("No, keep the tokenizer: a regex cannot handle nesting.")
    s.assistant(text("Okay."))
    _, out = sections(tmp_path, s)
    convergence = out["convergence"].content
    assert "Concluded" not in convergence, convergence
    assert 'Superseded, not concluded: "I\'ll use a regex instead of the tokenizer."' in convergence


def test_disproved_names_the_attempt_not_the_next_one(tmp_path):
    s = Session()
    s.user("Make the build pass.")
    s.assistant(text("I think the cache is stale, so clearing it should fix the build."))
    s.bash("rm -rf .cache && make", "make: *** [all] Error 2", is_error=True)
    s.assistant(text("That didn't work. Let me try pinning the compiler version instead."))
    _, out = sections(tmp_path, s)
    line = next(x for x in out["dead_ends"].content.splitlines() if "disproved" in x)
    assert line.startswith('- "I think the cache is stale'), line


def test_interrupting_a_wait_is_no_rejected_hypothesis(tmp_path):
    s = Session()
    s.user("Run the slow suite in the background.")
    tid = "toolu_01wait"
    s.assistant(tool_use("TaskOutput", {"task_id": "b1", "block": True}, tid))
    s.tool_result(tid, "The user doesn't want to take this action right now. STOP what you are doing and "
                       "wait for the user to tell you how to proceed.", is_error=True)
    s.user("What is the status?")
    s.assistant(text("Still running."))
    plan, out = sections(tmp_path, s)
    assert "refused" not in out["dead_ends"].content
    assert any(m.role == sp.INTERRUPT for m in plan.messages)


def test_json_lines_that_are_not_records_are_not_called_invalid(tmp_path):
    s = Session()
    s.user("hello there")
    s.raw("[1, 2]")
    plan = prep.prepare(transcript_paths.resolve(str(s.write(tmp_path / "t.jsonl"))))
    assert plan.stats["non_object_lines"] == 1 and plan.stats["invalid_json_lines"] == 0
