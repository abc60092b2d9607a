"""prepare: dedupe, merge, forks, sidechains, stripping, skipping, numbering, chunking."""

from __future__ import annotations

import io
import json
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitrefocus.errors import RefocusError
from gitrefocus.handoff import jsonl, transcript_paths
from gitrefocus.handoff import prepare as prep
from gitrefocus.handoff import spine as sp
from tests.handoff.conftest import RESULT_SECRET, TOOL_SECRET
from tests.handoff.transcript import (
    REFUSED_SAID,
    Session,
    new_uuid,
    project_dir,
    text,
    thinking,
    tool_use,
)

LABEL_RE = re.compile(r"^(?:(?P<file>[\w.-]+\.jsonl):)?L(?P<n>\d+) ")


def plan_of(path, **kw):
    return prep.prepare(transcript_paths.resolve(str(path)), **kw)


def spine_of(path, **kw):
    return plan_of(path, **kw).spine_text()


def test_story_spine_keeps_conversation_and_strips_tool_output(story):
    plan = plan_of(story.path)
    spine = plan.spine_text()
    assert TOOL_SECRET not in spine and RESULT_SECRET not in spine
    assert "tokenizer is fine" in spine, "user text is kept"
    assert "red herring" in spine, "plaintext thinking is kept"
    assert "tool error (Bash)" in spine
    assert plan.stats["thinking_without_text"] == 1, "a signature-only thinking block is counted, not kept"
    assert plan.stats["tool_results_stripped"] >= 2
    assert plan.leaf_uuid and plan.session_id == story.session.session_id


def test_every_spine_label_names_the_transcript_line_it_came_from(story):
    plan = plan_of(story.path)
    raw = story.path.read_bytes().split(b"\n")
    for line in plan.spine_text().splitlines():
        m = LABEL_RE.match(line)
        if not m:
            continue
        n = int(m.group("n"))
        title, _, body = line[m.end():].partition(": ")
        if title in ("user", "assistant", "assistant thinking") and body:
            probe = body[:40].replace('"', '\\"')
            assert probe in raw[n - 1].decode(), f"L{n} does not hold {body[:40]!r}"


def test_resume_replay_duplicates_keep_the_earliest_copy(tmp_path):
    s = Session()
    s.user("first question")
    uid = s.assistant(text("first answer"))[0]
    replay = list(s.lines)  # a resume writes earlier records again, same uuids
    s.lines.extend(replay)
    s.user("second question", parent=uid)
    s.assistant(text("second answer"))
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    spine = plan.spine_text()
    assert spine.count("first question") == 1 and spine.count("first answer") == 1
    assert plan.stats["duplicate_records"] == 2
    assert re.search(r"^L\d+ user: first question$", spine, re.M).group().startswith("L2 ")


def test_assistant_lines_sharing_message_id_are_merged(tmp_path):
    s = Session()
    s.user("go")
    s.assistant(thinking("plan it"), text("Doing it."), tool_use("Read", {"file_path": "/p/a.py"}))
    # the client sometimes writes the same block twice for one message
    s.assistant(text("Doing it."), msg_id=json.loads(s.lines[-1])["message"]["id"])
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    assistant = [m for m in plan.messages if m.role == sp.ASSISTANT]
    assert len(assistant) == 1
    assert [b.kind for b in assistant[0].blocks] == [sp.THINKING, sp.TEXT, sp.TOOL_USE]
    assert plan.stats["merged_assistant_lines"] == 3 and plan.stats["duplicate_blocks"] == 1


def test_non_conversation_records_are_skipped_but_keep_the_chain(tmp_path):
    s = Session()
    s.attachment()
    s.user("hello")
    s.progress()
    s.queue_operation()
    s.queue_operation("next thing", "popAll")  # put back into the input box: not delivered
    s.system()
    s.assistant(text("hi"))
    s.summary("A title")
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    assert [m.role for m in plan.messages] == [sp.USER, sp.ASSISTANT]
    for kind in ("attachment", "progress", "queue_operation", "system", "file_history_snapshot", "summary"):
        assert plan.stats[f"skipped_{kind}"] >= 1, kind
    assert plan.title == "A title"


def test_broken_lines_are_counted_never_fatal(tmp_path):
    s = Session()
    s.user("before")
    s.raw('{"type":"user","message":{"role":"user","content":"cut off by a cr')
    s.raw(b"\xff\xfe\x00garbage")
    s.raw("[1, 2, 3]")
    s.raw("42")
    s.raw("")
    s.assistant(text("after"))
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    assert [m.text for m in plan.messages] == ["before", "after"]
    assert plan.stats["invalid_json_lines"] == 2
    assert plan.stats["non_object_lines"] == 2, "JSON that is not an object is not reported as 'not JSON'"
    assert plan.stats["blank_lines"] == 1


def test_non_utf8_bytes_inside_a_record_are_replaced(tmp_path):
    s = Session()
    line_no = s.line_count
    s.user("caf\u00e9 ok")
    s.lines[-1] = s.lines[-1].replace("caf\u00e9".encode(), b"caf\xe9")
    s.assistant(text("fine"))
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    assert plan.messages[0].text == "caf\ufffd ok"
    assert plan.stats["non_utf8_lines"] == 1 and line_no >= 0


def test_no_conversation_is_one_clear_error(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"not json\n\x00\x01\x02\n")
    with pytest.raises(RefocusError, match="holds no Claude Code conversation"):
        plan_of(path)


def test_refused_tool_use_keeps_the_users_feedback(tmp_path):
    s = Session()
    s.user("refactor it")
    tid = "toolu_refused"
    s.assistant(tool_use("Bash", {"command": "rm -rf build"}, tid))
    s.tool_result(tid, REFUSED_SAID + "Don't delete build, we need the cache.", is_error=True)
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    rejected = [b for m in plan.messages for b in m.blocks if b.kind == sp.REJECTED]
    assert rejected and rejected[0].text == "Don't delete build, we need the cache." and rejected[0].tool == "Bash"
    assert "STOP" not in plan.spine_text() and "new_string was NOT" not in plan.spine_text()


def test_client_chatter_is_not_user_text(tmp_path):
    s = Session()
    s.record("user", {"message": {"role": "user", "content": "Caveat: generated by local commands"}}, isMeta=True)
    s.user("<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>")
    s.user("<local-command-stdout>Set model to opus</local-command-stdout>")
    s.user("real question <system-reminder>secret reminder</system-reminder>")
    s.user([{"type": "text", "text": "[Request interrupted by user]"}])
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    roles = [(m.role, m.text) for m in plan.messages]
    assert roles == [(sp.COMMAND, "/model opus"), (sp.USER, "real question"),
                     (sp.INTERRUPT, "[the user interrupted the assistant]")]


def _sidechain_session(tmp_path):
    s = Session()
    s.user("investigate the flaky test")
    task = "toolu_task1"
    s.assistant(tool_use("Task", {"description": "Find flake", "prompt": "Look for the flake",
                                  "subagent_type": "Explore"}, task))
    main_parent = s.parent
    side = Session(cwd=s.cwd, session_id=s.session_id, sidechain=True, agent_id="a1b2c3d", start=s.clock)
    side.user("Look for the flake")
    side.bash("grep -r sleep tests", f"tests/x.py: sleep(1) {TOOL_SECRET}")
    side.assistant(text("The flake comes from a sleep(1) race in tests/x.py."))
    s.lines.extend(side.lines)
    s.clock = side.clock
    s.parent = main_parent
    s.tool_result(task, f"The flake comes from a sleep race. {TOOL_SECRET}", extra={"agentId": "a1b2c3d"})
    s.assistant(text("The subagent found the race."))
    return s


def test_in_file_sidechain_collapses_to_one_line(tmp_path):
    s = _sidechain_session(tmp_path)
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    side = [m for m in plan.messages if m.role == sp.SIDECHAIN]
    assert len(side) == 1
    line = side[0].blocks[0].text
    assert '"Look for the flake"' in line and "sleep(1) race" in line and re.search(r"L\d+-L\d+", line)
    assert TOOL_SECRET not in plan.spine_text()
    assert plan.stats["sidechains_collapsed"] == 1


def test_subagent_files_collapse_with_pointers_to_their_file(tmp_path):
    config = tmp_path / "claude"
    s = Session(cwd="/work/proj")
    s.user("look around")
    s.assistant(text("Spawning an agent."))
    main = s.write(project_dir(config, s.cwd) / f"{s.session_id}.jsonl")
    agent = Session(cwd=s.cwd, session_id=s.session_id, sidechain=True, agent_id="abc123")
    agent.user("Search the docs")
    agent.assistant(text("Found nothing relevant."))
    agent.write(main.parent / s.session_id / "subagents" / "agent-abc123.jsonl")
    failed = Session(cwd=s.cwd, session_id=s.session_id, sidechain=True, agent_id="dead01")
    failed.user("Try the other thing")
    failed.bash("make", "boom", is_error=True)
    failed.write(main.parent / s.session_id / "subagents" / "agent-dead01.jsonl")
    plan = plan_of(main)
    assert len(plan.source.subagents) == 2
    side = {m.source: m for m in plan.messages if m.role == sp.SIDECHAIN}
    assert set(side) == {"agent-abc123.jsonl", "agent-dead01.jsonl"}
    assert "Found nothing relevant." in side["agent-abc123.jsonl"].blocks[0].text
    assert "agent-abc123.jsonl:L2-L3" in side["agent-abc123.jsonl"].blocks[0].text  # L1: a file snapshot
    assert side["agent-dead01.jsonl"].failed
    assert re.search(r"^agent-abc123\.jsonl:L2 sidechain: ", plan.spine_text(), re.M)


def test_real_rewind_keeps_the_new_branch_and_marks_the_old(tmp_path):
    s = Session()
    s.user("set up the project")
    root = s.assistant(text("Done."))[-1]
    s.attachment()
    s.user("use postgres for storage")
    s.assistant(text("Switching to postgres."))
    s.parent = root  # the user went back (Esc Esc) and typed a different prompt
    s.attachment()
    s.user("use sqlite for storage")
    s.assistant(text("Using sqlite."))
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    spine = plan.spine_text()
    assert "Using sqlite." in spine and "Switching to postgres." not in spine
    marker = [m for m in plan.messages if m.role == sp.REWIND]
    assert len(marker) == 1 and '"use postgres for storage"' in marker[0].blocks[0].text
    assert plan.stats["rewinds"] == 1 and plan.stats["rewound_messages"] == 2
    assert spine.index("rewind") < spine.index("use sqlite"), "the marker stands before the replacement"


def test_recording_artifact_forks_are_linearized(tmp_path):
    """Parallel tool calls: results hang off different assistant lines at the same instant."""
    s = Session()
    s.user("read both files")
    stamp = s.tick()
    a1 = s.assistant(tool_use("Read", {"file_path": "/p/a.py"}, "toolu_a"), timestamp=stamp)[0]
    a2 = s.assistant(tool_use("Read", {"file_path": "/p/b.py"}, "toolu_b"), timestamp=stamp,
                     msg_id=json.loads(s.lines[-1])["message"]["id"])[0]
    s.tool_result("toolu_a", "A", parent=a1, timestamp=stamp, is_error=True)
    s.tool_result("toolu_b", "B", parent=a2, timestamp=stamp, is_error=True)
    s.assistant(text("Both read."))
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    errors = [b for m in plan.messages for b in m.blocks if b.kind == sp.TOOL_ERROR]
    assert len(errors) == 2, "both sibling results stay in the spine"
    assert plan.stats["rewinds"] == 0 and plan.stats["forks_linearized"] >= 1


def test_a_fork_between_a_prompt_and_tool_results_is_not_a_rewind(tmp_path):
    s = Session()
    s.user("a")
    root = s.assistant(tool_use("Bash", {"command": "ls"}, "toolu_1"))[0]
    s.tool_result("toolu_1", "x", is_error=True)
    s.parent = root
    s.user("b")
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    assert plan.stats["rewinds"] == 0
    assert any(b.kind == sp.TOOL_ERROR for m in plan.messages for b in m.blocks)


def test_parent_cycles_do_not_hang(tmp_path):
    s = Session()
    a = new_uuid()
    b = new_uuid()
    s.record("user", {"message": {"role": "user", "content": "one"}}, uid=a, parent=b)
    s.record("user", {"message": {"role": "user", "content": "two"}}, uid=b, parent=a)
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    assert [m.text for m in plan.messages] == ["one", "two"]


def test_chunks_cut_before_user_turns_and_respect_the_bound(tmp_path):
    s = Session()
    for i in range(40):
        s.user(f"question {i} " + "word " * 40)
        s.assistant(text(f"answer {i} " + "word " * 60))
    plan = plan_of(s.write(tmp_path / "t.jsonl"), direct_bound=2000, chunk_bound=1500)
    assert plan.mode == "chunked" and len(plan.chunks) > 5
    assert plan.chunks[0][0] == 0 and plan.chunks[-1][1] == len(plan.messages)
    for (a, b), (c, _) in zip(plan.chunks, plan.chunks[1:]):
        assert b == c, "chunks are contiguous"
    for start, end in plan.chunks[1:]:
        assert plan.messages[start].is_user_turn, "each chunk starts at a user turn"
    for start, end in plan.chunks:
        size = sum(len(x) + 1 for m in plan.messages[start:end] for x in sp.render_message(m))
        assert size <= 1500 or end - start == 1


def test_long_texts_are_capped_with_a_marker(tmp_path):
    s = Session()
    s.user("x" * 50_000)
    s.assistant(text("y" * 50_000))
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    assert len(plan.messages[0].text) < prep.USER_CAP + 100 and "chars cut" in plan.messages[0].text
    assert len(plan.messages[1].text) < prep.ASSISTANT_CAP + 100


@pytest.mark.slow
def test_a_50_mb_single_line_is_read_in_bounded_memory(tmp_path):
    """A 50 MB tool result on one line (and a 30 MB user paste) are reduced, never held whole."""
    import subprocess
    import sys

    s = Session()
    s.user("start: " + "p" * 30_000_000)
    s.bash("cat big.log", f"{TOOL_SECRET} " + "log line\\n" * 5_000_000)
    s.assistant(text("Read it."))
    path = s.write(tmp_path / "t.jsonl")
    assert max(len(x) for x in s.lines) > 50_000_000
    # VmHWM is the peak of this process's own address space; ru_maxrss would also count
    # the (large) test process it was forked from, since Linux keeps it across exec
    code = ("import re, sys\nfrom gitrefocus.handoff import prepare, transcript_paths\n"
            "plan = prepare.prepare(transcript_paths.resolve(sys.argv[1]))\n"
            "hwm = int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)) // 1024\n"
            "print(plan.stats['huge_lines'], TOOL in plan.spine_text(), plan.messages[0].text[:6], hwm)\n"
            ).replace("TOOL", repr(TOOL_SECRET))
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs /proc to measure peak memory")
    del s
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    huge, leaked, head, rss_mb = out.stdout.split()
    assert huge == "2" and leaked == "False" and head == "start:"
    assert int(rss_mb) < 150, f"peak RSS {rss_mb} MB"


# -- the bounded-memory reader ----------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=80),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@given(st.text(max_size=300), st.integers(min_value=0, max_value=400))
def test_safe_cut_never_splits_an_escape(value, cut):
    body = json.dumps(value)[1:-1].encode()
    piece = jsonl.safe_cut(body[:cut])
    assert body.startswith(piece) and len(piece) >= min(cut, len(body)) - 12  # at most a surrogate pair
    assert value.startswith(json.loads(b'"' + piece + b'"'))


def _escaped_len(value: str, ascii_only: bool) -> int:
    return len(json.dumps(value, ensure_ascii=ascii_only)[1:-1].encode())


def _same_shape(original, reduced, cap, ascii_only):
    """Strings that fit the cap are exact; longer ones are a marked prefix; structure is kept."""
    if isinstance(original, str):
        assert isinstance(reduced, str)
        if _escaped_len(original, ascii_only) <= cap:
            assert reduced == original
        else:
            head, _, _ = reduced.partition(" [... ")
            assert "bytes cut]" in reduced and original.startswith(head.rstrip("\ufffd"))
    elif isinstance(original, dict):
        assert isinstance(reduced, dict)
        for key, value in original.items():
            if _escaped_len(key, ascii_only) <= cap:
                assert key in reduced
                _same_shape(value, reduced[key], cap, ascii_only)
    elif isinstance(original, list):
        assert isinstance(reduced, list) and len(reduced) == len(original)
        for x, y in zip(original, reduced):
            _same_shape(x, y, cap, ascii_only)
    else:
        assert reduced == original


@settings(max_examples=200)
@given(json_values, st.integers(min_value=1, max_value=64), st.integers(min_value=4, max_value=50),
       st.booleans())
def test_skeleton_keeps_structure_and_cuts_long_strings(value, piece, cap, ascii_only):
    doc = {"type": "user", "payload": value}
    raw = json.dumps(doc, ensure_ascii=ascii_only).encode()
    skel = jsonl._Skeleton(cap=cap)
    for i in range(0, len(raw), piece):
        skel.feed(raw[i:i + piece])
    out = skel.result()
    assert out is not None
    _same_shape(doc, json.loads(out.decode("utf-8", "replace")), cap, ascii_only)


def test_reader_reads_long_lines_in_pieces(monkeypatch):
    monkeypatch.setattr(jsonl, "PIECE", 64)
    monkeypatch.setattr(jsonl, "STRING_CAP", 16)
    big = {"type": "user", "message": {"role": "user", "content": "é" * 500 + "tail"}, "uuid": "u"}
    data = (json.dumps(big, ensure_ascii=False) + "\n" + '{"a":1}\n').encode()
    lines = list(jsonl.read_lines(io.BytesIO(data)))
    assert lines[0].skeleton and lines[0].record["uuid"] == "u"
    assert "bytes cut" in lines[0].record["message"]["content"]
    assert lines[1].record == {"a": 1} and lines[1].number == 2


# -- locating transcripts ---------------------------------------------------
def test_session_id_resolves_under_claude_config_dir(tmp_path, monkeypatch):
    config = tmp_path / "cfg"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    work = tmp_path / "my work.dir"
    work.mkdir()
    s = Session(cwd=str(work))
    s.user("hi")
    path = s.write(project_dir(config, str(work)) / f"{s.session_id}.jsonl")
    assert transcript_paths.encode_cwd("/a/b c.d_e") == "-a-b-c-d-e"
    found = transcript_paths.resolve(s.session_id, str(work))
    assert found.main == str(path.resolve()) and found.session_id == s.session_id


def test_session_id_found_in_another_project_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    s = Session(cwd="/elsewhere")
    s.user("hi")
    path = s.write(project_dir(tmp_path / "cfg", "/elsewhere") / f"{s.session_id}.jsonl")
    assert transcript_paths.resolve(s.session_id, str(tmp_path)).main == str(path.resolve())


def test_default_config_dir_is_home_dot_claude(hermetic, tmp_path):
    s = Session(cwd=str(tmp_path))
    s.user("hi")
    path = s.write(project_dir(hermetic / ".claude", str(tmp_path)) / f"{s.session_id}.jsonl")
    assert transcript_paths.resolve(s.session_id, str(tmp_path)).main == str(path.resolve())


@pytest.mark.parametrize("source, message", [
    ("0b7a2f4e-1111-4222-8333-944445555666", "no transcript for session"),
    ("missing.jsonl", "does not exist"),
    ("", "no transcript given"),
])
def test_unresolvable_sources_are_clear_errors(tmp_path, monkeypatch, source, message):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RefocusError, match=message):
        transcript_paths.resolve(source, str(tmp_path))


# -- serializers: the spine's labels and the section objects ----------------
from gitrefocus.handoff.sections import Pointer, Section, parse_answer, validate  # noqa: E402

line_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)


@given(st.lists(st.tuples(st.sampled_from([sp.USER, sp.ASSISTANT, sp.TOOL]),
                          st.sampled_from([sp.TEXT, sp.THINKING, sp.TOOL_ERROR]),
                          line_text, st.integers(min_value=1, max_value=10**6),
                          st.sampled_from(["", "agent-a1.jsonl"])), max_size=8))
def test_every_rendered_spine_line_starts_with_its_label(items):
    messages = [sp.Message(role, n, source=src, blocks=[sp.Block(kind, body, n)]) for role, kind, body, n, src in items]
    rendered = sp.render(messages).splitlines()
    labelled = [line for line in rendered if LABEL_RE.match(line)]
    assert len(labelled) == len(items), "one labelled line per block; continuation lines are not labelled"
    for line, (_, _, _, n, src) in zip(labelled, items):
        m = LABEL_RE.match(line)
        assert int(m.group("n")) == n and (m.group("file") or "") == src


pointers = st.builds(Pointer, st.sampled_from(["transcript"]), st.integers(1, 9999).map(lambda n: f"L{n}"),
                     line_text.map(lambda t: " ".join(t.split())[:200]))


@given(st.sampled_from(["convergence", "dead_ends", "code_state", "open_threads", "basics"]),
       line_text.filter(lambda t: t.strip()), st.lists(pointers, max_size=4, unique=True))
def test_section_objects_round_trip(name, content, ptrs):
    section = Section(name, content.strip(), ptrs)
    again = validate(parse_answer(json.dumps(section.to_json())), name)
    assert again.to_json() == section.to_json()


def test_size_caps_give_one_clear_error(tmp_path, monkeypatch):
    s = Session()
    for i in range(30):
        s.user(f"q{i}")
        s.assistant(text(f"a{i}"))
    path = s.write(tmp_path / "t.jsonl")
    monkeypatch.setattr(prep, "MAX_MESSAGES", 20)
    with pytest.raises(RefocusError, match="too large to distill"):
        plan_of(path)


def test_text_budget_keeps_memory_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(prep, "TEXT_BUDGET", 5_000)
    s = Session()
    for i in range(10):
        s.user(f"{i} " + "x" * 4000)
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    sizes = [len(m.text) for m in plan.messages]
    assert sizes[0] == 4002 and max(sizes[3:]) <= prep.OVER_BUDGET_CAP + 40


def test_merging_state_is_only_kept_for_recent_messages(tmp_path):
    s = Session()
    s.user("go")
    first = s.assistant(text("part one"))
    msg_id = json.loads(s.lines[-1])["message"]["id"]
    for i in range(prep.OPEN_MESSAGES + 5):
        s.assistant(text(f"other {i}"))
    s.assistant(text("part two"), msg_id=msg_id)  # far too late to be the same response
    plan = plan_of(s.write(tmp_path / "t.jsonl"))
    assert first and "part two" in plan.spine_text()


def _same_session(layout: str, tmp_path):
    s = Session(layout=layout, session_id="0b7a2f4e-1111-4222-8333-944445555666")
    s.attachment()
    s.user("Fix the parser; it must stay pure Python.")
    s.assistant(thinking(""), text("I think the tokenizer is broken."))
    s.bash("pytest", TOOL_SECRET, is_error=True)
    s.user("No, the lexer is the problem.")
    s.assistant(text("Right: the lexer drops the last token."))
    return plan_of(s.write(tmp_path / f"{layout}.jsonl"))


def test_both_record_layouts_give_the_same_spine(tmp_path):
    """Key order changed between client versions; prepare must not care (or take fast paths wrongly)."""
    new, old = _same_session("2.1", tmp_path), _same_session("legacy", tmp_path)
    assert new.spine_text().split("\n", 3)[3] == old.spine_text().split("\n", 3)[3]
    assert new.stats["skipped_attachment"] == old.stats["skipped_attachment"] == 1
    assert new.stats["skipped_progress"] == old.stats["skipped_progress"] == 1


# -- hostile records: any JSON in any known field --------------------------------
any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3), max_leaves=6)
field_values = {
    "type": st.sampled_from(["user", "assistant", "progress", "attachment", "system", "summary"]) | any_json,
    "uuid": st.sampled_from(["u1", "u2", "u3"]) | any_json,
    "parentUuid": st.sampled_from(["u1", "u2", "u3", None]) | any_json,
    "logicalParentUuid": any_json, "isSidechain": st.booleans() | any_json, "isMeta": any_json,
    "isCompactSummary": any_json, "timestamp": st.sampled_from(["2026-01-01T00:00:00Z"]) | any_json,
    "agentId": any_json, "cwd": any_json, "sessionId": any_json, "gitBranch": any_json, "version": any_json,
    "toolUseResult": any_json, "summary": any_json, "isApiErrorMessage": any_json,
}
blocks = st.fixed_dictionaries({"type": st.sampled_from(["text", "thinking", "tool_use", "tool_result",
                                                         "image", "redacted_thinking"]) | any_json},
                               optional={"text": any_json, "thinking": any_json, "name": any_json, "id": any_json,
                                         "input": st.fixed_dictionaries({}, optional={
                                             "file_path": any_json, "command": any_json, "todos": any_json,
                                             "description": any_json, "subagent_type": any_json}) | any_json,
                                         "tool_use_id": any_json, "content": any_json, "is_error": any_json})
messages = st.fixed_dictionaries({}, optional={"role": any_json, "id": any_json, "model": any_json,
                                               "content": st.lists(blocks, max_size=3) | any_json}) | any_json
records_st = st.fixed_dictionaries({}, optional={**field_values, "message": messages})


@settings(max_examples=300, deadline=None)
@given(st.lists(records_st, min_size=1, max_size=8))
def test_hostile_records_never_crash_the_pipeline(tmp_path_factory, records_list):
    path = tmp_path_factory.mktemp("fuzz") / "t.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records_list) + "\n")
    _a_brief_or_a_refusal(path)


def _a_brief_or_a_refusal(path) -> None:
    """The whole pipeline over ``path``: a RefocusError, or a five-section brief that is valid text."""
    from gitrefocus.handoff import extract, gitstate
    from gitrefocus.handoff.finalize import finalize

    try:
        plan = plan_of(path)
    except RefocusError:
        return
    state = gitstate.snapshot([str(path.parent)])
    brief = finalize(extract.builtin_sections(plan, state), plan, state)
    assert brief.text.count("\n## ") == 5
    brief.text.encode("utf-8")


# Codex rollout and Gemini chat lines, every field hostile (docs/agents.md): read as those agents'
codex_items = st.fixed_dictionaries({"type": st.sampled_from(["message", "function_call", "function_call_output",
                                                              "custom_tool_call", "reasoning", "local_shell_call"])
                                     | any_json},
                                    optional={"role": st.sampled_from(["user", "assistant", "developer"]) | any_json,
                                              "content": any_json, "name": st.sampled_from(["exec_command",
                                                                                            "apply_patch"]) | any_json,
                                              "arguments": any_json, "input": any_json, "call_id": any_json,
                                              "output": any_json, "summary": any_json, "action": any_json,
                                              "internal_chat_message_metadata_passthrough": any_json})
codex_lines = st.fixed_dictionaries({"type": st.sampled_from(["session_meta", "response_item", "turn_context",
                                                              "compacted", "event_msg"]),
                                     "payload": codex_items | st.dictionaries(st.text(max_size=6), any_json)},
                                    optional={"timestamp": any_json})
gemini_records = st.fixed_dictionaries({"type": st.sampled_from(["user", "gemini", "info"]) | any_json},
                                       optional={"id": any_json, "timestamp": any_json, "content": any_json,
                                                 "thoughts": any_json, "toolCalls": st.lists(
                                                     st.dictionaries(st.sampled_from(["name", "args", "id"]),
                                                                     any_json), max_size=2) | any_json})
gemini_lines = gemini_records | st.fixed_dictionaries({"$set": st.fixed_dictionaries(
    {}, optional={"messages": st.lists(gemini_records, max_size=3) | any_json}) | any_json})


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["codex", "gemini"]), st.data())
def test_hostile_codex_and_gemini_lines_never_crash_the_pipeline(tmp_path_factory, agent, data):
    first = ({"type": "session_meta", "timestamp": "2026-01-01T00:00:00Z", "payload": {"id": "s-1", "cwd": "/x"}}
             if agent == "codex" else {"sessionId": "abcdef12-0000", "projectHash": "h", "kind": "main"})
    lines = data.draw(st.lists(codex_lines if agent == "codex" else gemini_lines, min_size=1, max_size=8))
    path = tmp_path_factory.mktemp("fuzz") / "t.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [first, *lines]) + "\n")
    assert transcript_paths.resolve(str(path)).agent == agent
    _a_brief_or_a_refusal(path)


def test_subagent_files_with_odd_names_are_ignored(tmp_path):
    for name in ("agent-ok.jsonl", "agent-x\n## y.jsonl", "agent-`x`.jsonl", "other.jsonl", "agent-.jsonl"):
        (tmp_path / name).write_text("{}\n")
    os.symlink(tmp_path / "agent-ok.jsonl", tmp_path / "agent-link.jsonl")
    assert [os.path.basename(p) for p in transcript_paths._agent_files(str(tmp_path))] == ["agent-ok.jsonl"]


def test_prepare_leaves_the_cycle_collector_as_it_found_it(tmp_path, monkeypatch):
    import gc

    s = Session(cwd=tmp_path)
    s.user("Please fix the lexer.")
    s.assistant(text("I'll fix it."))
    path = s.write(tmp_path / "claude" / f"{s.session_id}.jsonl")
    assert gc.isenabled()
    prep.prepare(transcript_paths.resolve(str(path), str(tmp_path)))
    assert gc.isenabled()
    gc.disable()
    try:
        prep.prepare(transcript_paths.resolve(str(path), str(tmp_path)))
        assert not gc.isenabled()
    finally:
        gc.enable()
    monkeypatch.setattr(prep, "MAX_RECORDS", 1)
    with pytest.raises(RefocusError, match="too large"):  # a failure while reading turns it back on too
        prep.prepare(transcript_paths.resolve(str(path), str(tmp_path)))
    assert gc.isenabled()
