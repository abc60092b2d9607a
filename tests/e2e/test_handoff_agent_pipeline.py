"""/handoff through the real client, both pinned releases, in the default permission mode (no
--allowedTools: the command runs under its own allowed-tools).

The mock plays every model the pipeline has: the orchestrating session (which runs what
commands/handoff.md asks for) and each extractor subagent (which reads its prompt file and
writes its answer). So these tests prove the command's text reaches the model, the five
extractors are spawned in one assistant message and run as subagents of the real client, and
finalize checks what they wrote: a bad or missing answer falls back with its placeholder, an
answer whose pointers do not resolve is marked, not trusted. A session too large to read whole
goes through the chunk summarizers (one per chunk, in one message) and ``reduce`` first.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import threading
import uuid
from pathlib import Path

import pytest

from gitrefocus.handoff import prompts
from gitrefocus.handoff.sections import PLACEHOLDER, SECTION_NAMES
from tests.e2e import conftest as e2e
from tests.e2e.claude_mock import (
    Bash,
    Calls,
    Text,
    ToolUse,
    describe,
    read_jsonl,
    tool_result_text,
    tool_results,
)
from tests.e2e.conftest import client_env
from tests.gitrepo import git
from tests.handoff.transcript import Session, text
from tests.runner import refocus

pytestmark = pytest.mark.claude
BOTH_CLIENTS = True  # every test here runs against both client releases (tests/e2e/conftest.py)

COMMAND_SENTENCE = "Extract: five subagents in ONE message"  # from commands/handoff.md
SECTION_RE = re.compile(r"\(section (\w+)\)")
CORRECTION = "No, the tokenizer is fine; the issue is actually the lexer dropping the last token."


def run_default_mode(claude_bin, env, cwd, prompt, *, session_id=None, resume=None, timeout=180):
    """`claude -p PROMPT` with no --allowedTools: what runs, runs under the command's own rules."""
    session = ["--resume", resume] if resume else ["--session-id", session_id or str(uuid.uuid4())]
    args = [str(claude_bin), "-p", prompt, *session]
    return e2e._run_bounded(args, Path(cwd), env, timeout)


def first_user_text(body: dict) -> str:
    messages = body.get("messages") or []
    return json.dumps(messages[0]) if messages else ""


class Extractors:
    """Plays the orchestrating session of /handoff and its extractor subagents.

    ``answers[section]`` is the JSON text an extractor writes to its section file, or None for
    one that writes nothing and only replies."""

    def __init__(self, prepare: str, answers: dict[str, str | None]):
        self.prepare = prepare
        self.answers = answers
        self.plan: dict | None = None
        self.prompt_read: dict[str, str] = {}
        self.subagent_first: dict[str, str] = {}
        self.finalized: str | None = None
        self.lock = threading.Lock()

    def __call__(self, body: dict):
        found = SECTION_RE.search(first_user_text(body))
        return self.extractor(found.group(1), body) if found else self.orchestrator(body)

    def orchestrator(self, body: dict):
        results = [tool_result_text(r) for r in tool_results(body)]
        if not results:
            return Bash(self.prepare)
        if len(results) == 1 and '"kind": "handoff-plan"' in results[0]:
            self.plan = json.loads(results[0])
            return Calls(tuple(ToolUse("Agent", {"description": f"handoff: {name}", "prompt": self.plan["launch"][name],
                                                 "subagent_type": "general-purpose", "run_in_background": False})
                               for name in SECTION_NAMES))
        if len(results) == len(SECTION_NAMES):
            assert self.plan is not None
            return Bash(f"git refocus handoff finalize --sections {self.plan['sections_dir']}")
        self.finalized = results[-1]
        return Text("Here is the brief.")

    def extractor(self, name: str, body: dict):
        assert self.plan is not None
        results = [tool_result_text(r) for r in tool_results(body)]
        with self.lock:
            self.subagent_first.setdefault(name, first_user_text(body))
        if not results:
            return Calls((ToolUse("Read", {"file_path": self.plan["prompts"][name]}),))
        if name not in self.prompt_read:
            self.prompt_read[name] = results[0]
            answer = self.answers.get(name)
            if answer is not None:
                return Calls((ToolUse("Write", {"file_path": self.plan["answers"][name], "content": answer}),))
        return Text(self.answers.get(name) or "I could not finish.")


def handed_off_session(repo: Path, path: Path) -> dict:
    """The session to hand off (another session's transcript, in the repository's directory)."""
    s = Session(cwd=repo)
    s.user("Please fix the parser: parse_expr drops the last token. It must stay pure Python.")
    lines = {"first": s.line_count}
    s.assistant(text("I think the tokenizer is broken, it probably splits on the wrong character."))
    s.user(CORRECTION)
    lines["correction"] = s.line_count
    s.assistant(text("You're right. The root cause is that lex() drops the final token."))
    lines["root_cause"] = s.line_count
    s.write(path)
    return lines


def section(brief: str, heading: str) -> str:
    return brief.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


def answer(name: str, content: str, *refs: str) -> str:
    return json.dumps({"section": name, "content": content,
                       "pointers": [{"type": "transcript", "ref": r, "note": "n"} for r in refs]})


def test_cold_handoff_runs_five_extractor_subagents_in_one_message(
        wired, refocus_path, mock_api, claude_bin, claude_home, claude_tmpdir, tmp_path):
    repo, _ = wired
    path = tmp_path / "handed-off.jsonl"
    lines = handed_off_session(repo, path)
    first = lines["first"]
    pipeline = Extractors(f"git refocus handoff prepare {path} --json", {
        "convergence": answer("convergence", f"- MODEL-CONVERGENCE: the lexer drops the last token "
                                             f"(`transcript:L{lines['root_cause']}`)", f"L{lines['root_cause']}"),
        "dead_ends": "I could not read the spine, sorry.",             # not JSON: placeholder + built-in
        "code_state": None,                                             # writes nothing: placeholder + built-in
        "open_threads": answer("open_threads", "- MODEL-OPEN: the regression test is still not written "
                                               "(`transcript:L9999`)", "L9999"),  # pointers lead nowhere
        "basics": answer("basics", f'- MODEL-BASICS: the user said "It must stay pure Python." '
                                   f"(`transcript:L{first}`)", f"L{first}"),
    })
    mock_api.add(*[pipeline] * 30)
    env = client_env(claude_bin, claude_home, mock_api, claude_tmpdir, refocus_path)
    sid = str(uuid.uuid4())
    done = run_default_mode(claude_bin, env, repo, f"/handoff {path}", session_id=sid)
    assert done.returncode == 0, describe(done)
    assert COMMAND_SENTENCE in json.dumps(mock_api.turn_requests[0]), "the /handoff command reached the model"
    assert pipeline.plan is not None, f"prepare did not run: {mock_api.errors}"

    # five Agent calls in ONE assistant message, each started as a subagent with its launch prompt
    records = read_jsonl(e2e.find_transcript(claude_home, sid))
    agent_calls: dict[str, list[dict]] = {}
    for record in records:
        message = record.get("message") or {}
        for block in message.get("content") or [] if record.get("type") == "assistant" else []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == "Agent":
                agent_calls.setdefault(message["id"], []).append(block)
    assert [len(calls) for calls in agent_calls.values()] == [5], "the five extractors were spawned in one message"
    assert set(pipeline.subagent_first) == set(SECTION_NAMES), "each ran as a subagent of the real client"
    for name in SECTION_NAMES:
        assert json.dumps(pipeline.plan["launch"][name])[1:-1] in pipeline.subagent_first[name], \
            f"the {name} subagent was started with its launch prompt"
        assert prompts.SECURITY.splitlines()[2] in pipeline.prompt_read[name], \
            f"the {name} subagent read its prompt, SECURITY block included (its Read was allowed)"
    written = sorted(os.listdir(pipeline.plan["sections_dir"]))
    assert written == ["basics.json", "convergence.json", "dead_ends.json", "open_threads.json"], \
        "the subagents' Write calls were allowed by the command's rules"

    brief = pipeline.finalized or ""
    assert "MODEL-CONVERGENCE: the lexer drops the last token" in section(brief, "Convergence")
    for heading in ("Dead-ends", "Code-state"):
        body = section(brief, heading)
        assert body.startswith(PLACEHOLDER + "\n_(the extractor's answer was rejected: "), (heading, brief)
    assert "the issue is actually the lexer" in section(brief, "Dead-ends"), "the built-in extractor took over"
    threads = section(brief, "Open-threads & conflicts")
    assert threads.startswith("_(the extractor's section was not trusted: none of its 1 pointer(s) resolve"), brief
    assert "MODEL-OPEN" not in threads
    assert f'MODEL-BASICS: the user said "It must stay pure Python." (`transcript:L{first}`)' in brief
    assert not mock_api.errors, mock_api.errors


class Warm:
    """Plays the session for a warm /handoff (or the warm step of /refocus): prepare --warm, then
    five Write calls in one message from 'its own context', then finalize (and, for /refocus, a
    spawn built from finalize's for_spawn)."""

    def __init__(self, answers: dict[str, str], finalize_args: str = "", then=None):
        self.answers = answers
        self.finalize_args = finalize_args
        self.then = then
        self.sections_dir: str | None = None
        self.finalized: str | None = None
        self.spawned: str | None = None

    def __call__(self, body: dict):
        results = [tool_result_text(r) for r in tool_results(body)]
        if not results:
            return Bash("git refocus handoff prepare --warm")
        if self.sections_dir is None:
            self.sections_dir = re.search(r"^sections:\s+(\S+)$", results[0], re.M).group(1)
            return Calls(tuple(ToolUse("Write", {"file_path": f"{self.sections_dir}/{name}.json",
                                                 "content": self.answers[name]}) for name in SECTION_NAMES))
        if len(results) == len(SECTION_NAMES):
            return Bash(f"git refocus handoff finalize --sections {self.sections_dir}{self.finalize_args}")
        if self.finalized is None:
            self.finalized = results[0]
            if self.then is not None:
                return Bash(self.then(json.loads(results[0])))
            return Text("Brief written.")
        self.spawned = results[0]
        return Text("Spawned.")


def warm_answers(extra_dead: str = "") -> dict[str, str]:
    return {
        "convergence": answer("convergence", '- The root cause: "the lexer drops the last token" (we agreed).'),
        "dead_ends": answer("dead_ends", "### Rejected hypotheses\n"
                                         f'- The tokenizer theory — overruled by the user: "{CORRECTION}"{extra_dead}\n'
                                         "### User corrections (verbatim)\n"
                                         f'- > "{CORRECTION}"'),
        "code_state": answer("code_state", "- Nothing changed in git yet; the working tree is clean."),
        "open_threads": answer("open_threads", '- Add the regression test the user asked for: "Please add a '
                                               'regression test for the lexer."'),
        "basics": answer("basics", '- Constraint, verbatim: "It must stay pure Python."'),
    }


def earlier_turns(mock_api, claude_bin, env, repo, sid):
    """A real conversation in SID first, so the warm mode has a transcript to check against."""
    mock_api.add(Text("I think the tokenizer is broken."), Text("You're right: the lexer drops the last token."),
                 Text("Noted."))
    said = ("Please fix the parser: parse_expr drops the last token. It must stay pure Python.",
            CORRECTION, "Please add a regression test for the lexer.")
    for i, words in enumerate(said):
        done = run_default_mode(claude_bin, env, repo, words, **({"resume": sid} if i else {"session_id": sid}))
        assert done.returncode == 0, describe(done)


def test_warm_handoff_through_the_plugin_renders_the_sessions_own_brief(
        repos, refocus_path, mock_api, claude_bin, claude_home, claude_tmpdir):
    repo, _ = repos
    env = client_env(claude_bin, claude_home, mock_api, claude_tmpdir, refocus_path)
    installed = refocus("init", "--claude", "--plugin", cwd=repo, env=env)
    assert "refocus@git-refocus" in installed.stdout
    sid = str(uuid.uuid4())
    earlier_turns(mock_api, claude_bin, env, repo, sid)
    warm = Warm(warm_answers())
    mock_api.add(*[warm] * 6)
    before = len(mock_api.turn_requests)
    done = run_default_mode(claude_bin, env, repo, "/refocus:handoff", resume=sid)
    assert done.returncode == 0, describe(done)
    assert "Warm mode: no argument" in json.dumps(mock_api.turn_requests[before]), "the plugin's command ran"
    brief = warm.finalized or ""
    assert "Written by the session itself (warm), checked against its transcript and git." in brief, \
        (brief, mock_api.errors)
    transcript = read_jsonl(e2e.find_transcript(claude_home, sid))
    typed = {r["message"]["content"]: n for n, r in enumerate(transcript, 1)
             if r.get("type") == "user" and isinstance((r.get("message") or {}).get("content"), str)}
    assert f'"{CORRECTION}" (`transcript:L{typed[CORRECTION]}`)' in section(brief, "Dead-ends"), \
        "finalize found the line the session's verbatim quote came from"
    assert f"(`transcript:L{typed['Please add a regression test for the lexer.']}`)" in brief
    for heading in ("Convergence", "Dead-ends", "Open-threads & conflicts", "Basics"):
        assert "not trusted" not in section(brief, heading) and PLACEHOLDER not in section(brief, heading), heading
    assert not mock_api.errors, mock_api.errors


def test_refocus_carries_the_warm_dead_ends_into_the_brief(
        wired, refocus_path, mock_api, claude_bin, claude_home, claude_tmpdir):
    src, dest = wired
    env = client_env(claude_bin, claude_home, mock_api, claude_tmpdir, refocus_path)
    sid = str(uuid.uuid4())
    earlier_turns(mock_api, claude_bin, env, src, sid)

    def spawn(doc: dict) -> str:  # what the model does with finalize's for_spawn, as /refocus asks
        quoted = lambda flag, items: " ".join(f"{flag} {shlex.quote(i)}" for i in items)  # noqa: E731
        spawn_with = doc["for_spawn"]
        return (f"git refocus spawn {dest} --slug lexer --reason 'The lexer lives in dest.' "
                f"--done-when 'The last token survives' {quoted('--alternative', spawn_with['alternatives_considered'])} "
                f"{quoted('--pushback', spawn_with['reviewer_pushback'])} --json")

    warm = Warm(warm_answers(), finalize_args=" --json", then=spawn)
    mock_api.add(*[warm] * 8)
    before = len(mock_api.turn_requests)
    done = run_default_mode(claude_bin, env, src, f"/refocus {dest} --slug lexer", resume=sid)
    assert done.returncode == 0, describe(done)
    assert "What this session already learned goes with the brief" in json.dumps(mock_api.turn_requests[before])
    spawned = json.loads(warm.spawned or "{}")
    assert spawned.get("id"), (warm.spawned, warm.finalized, mock_api.errors)
    brief = (dest / "docs" / "refocus" / f"{spawned['id']}.md").read_text()
    context = brief.split("## Inherited context\n", 1)[1].split("\n## ", 1)[0]
    assert "Already considered and rejected (do not re-propose): The tokenizer theory" in context, brief
    assert f"The user pushed back: \"{CORRECTION}\"" in context, brief
    import yaml

    meta = yaml.safe_load(brief.split("---\n")[1])
    assert any("The tokenizer theory" in a for a in meta["alternatives_considered"])
    assert any(CORRECTION in p for p in meta["reviewer_pushback"])
    assert not mock_api.errors, mock_api.errors
    git(src, "status")  # the source repository is untouched by the warm step (the plan lives in ~/.cache)
    assert not (src / "sections").exists()


CHUNK_RE = re.compile(r"\(section chunk (\d+)\)")


class Chunked:
    """Plays a cold /handoff of a session too large to read whole: prepare (chunked), one
    summarizer subagent per chunk in ONE message, reduce, the five extractors in ONE message,
    finalize. Chunk 1's summarizer writes something that is not a summary."""

    def __init__(self, prepare: str):
        self.prepare = prepare
        self.plan: dict | None = None
        self.step = "prepare"
        self.reduced: str | None = None
        self.finalized: str | None = None
        self.chunk_first: dict[int, str] = {}
        self.extractor_spine: dict[str, str] = {}
        self.lock = threading.Lock()

    def __call__(self, body: dict):
        first = first_user_text(body)
        chunk = CHUNK_RE.search(first)
        if chunk:
            return self.summarizer(int(chunk.group(1)), body)
        found = SECTION_RE.search(first)
        return self.extractor(found.group(1), body) if found else self.orchestrator(body)

    def orchestrator(self, body: dict):
        results = [tool_result_text(r) for r in tool_results(body)]
        if self.step == "prepare":
            self.step = "plan"
            return Bash(self.prepare)
        if self.step == "plan":
            self.plan = json.loads(results[0])
            assert self.plan["mode"] == "chunked", self.plan["mode"]
            self.step = "summarize"
            return Calls(tuple(ToolUse("Agent", {"description": f"handoff: chunk {c['index']}", "prompt": c["launch"],
                                                 "subagent_type": "general-purpose", "run_in_background": False})
                               for c in self.plan["chunks"]))
        if self.step == "summarize":
            assert self.plan is not None and len(results) == len(self.plan["chunks"]), results
            self.step = "reduce"
            return Bash(f"git refocus handoff reduce {self.plan['directory']}")
        if self.step == "reduce":
            assert self.plan is not None
            self.reduced = results[0]
            self.step = "extract"
            return Calls(tuple(ToolUse("Agent", {"description": f"handoff: {name}", "prompt": self.plan["launch"][name],
                                                 "subagent_type": "general-purpose", "run_in_background": False})
                               for name in SECTION_NAMES))
        if self.step == "extract":
            assert self.plan is not None
            self.step = "finalize"
            return Bash(f"git refocus handoff finalize --sections {self.plan['sections_dir']}")
        self.finalized = results[-1] if results else ""
        return Text("Here is the brief.")

    def summarizer(self, index: int, body: dict):
        assert self.plan is not None
        chunk = self.plan["chunks"][index]
        results = [tool_result_text(r) for r in tool_results(body)]
        with self.lock:
            if index in self.chunk_first:
                first_call = False
            else:
                self.chunk_first[index] = first_user_text(body)
                first_call = True
        if first_call:
            return Calls((ToolUse("Read", {"file_path": chunk["prompt"]}),))
        if "CHUNK-SUMMARIZER" in (results[0] if results else "") or "chunk_index" in (results[0] if results else ""):
            summary = "not a summary at all" if index == 1 else json.dumps({
                "chunk_index": index, "summary": f"CHUNK-{index}-SUMMARY: the parser work of this stretch",
                "key_pointers": [{"type": "transcript", "ref": "L2", "note": "the request"}]})
            return Calls((ToolUse("Write", {"file_path": chunk["summary"], "content": summary}),))
        return Text("summarized")

    def extractor(self, name: str, body: dict):
        assert self.plan is not None
        results = [tool_result_text(r) for r in tool_results(body)]
        with self.lock:
            step = self.extractor_spine.setdefault(name, "")
        if not step:
            with self.lock:
                self.extractor_spine[name] = "asked"
            return Calls((ToolUse("Read", {"file_path": self.plan["spine"]}),))
        if step == "asked":
            with self.lock:
                self.extractor_spine[name] = results[0] if results else "(nothing)"
            if name == "convergence":
                return Calls((ToolUse("Write", {"file_path": self.plan["answers"][name], "content": answer(
                    name, "- MODEL-CONVERGENCE from the reduced spine (`transcript:L2`)", "L2")}),))
        return Text("done")


def chunked_session(repo: Path, path: Path) -> None:
    """A session whose spine is well over the direct bound: long assistant texts across turns."""
    s = Session(cwd=repo)
    filler = ("The parser keeps a cursor into the token list and each rule consumes what it matches; "
              "this paragraph walks through one more rule of the grammar in detail. ") * 18
    for turn in range(12):
        s.user(f"Request {turn}: continue with the parser, step {turn}.")
        for n in range(10):
            s.assistant(text(f"Step {turn}.{n}. {filler}"))
    s.write(path)


def test_chunked_handoff_summarizes_each_chunk_then_extracts_from_the_reduced_spine(
        wired, refocus_path, mock_api, claude_bin, claude_home, claude_tmpdir, tmp_path):
    repo, _ = wired
    path = tmp_path / "long-session.jsonl"
    chunked_session(repo, path)
    pipeline = Chunked(f"git refocus handoff prepare {path} --json")
    mock_api.add(*[pipeline] * 60)
    env = client_env(claude_bin, claude_home, mock_api, claude_tmpdir, refocus_path)
    sid = str(uuid.uuid4())
    done = run_default_mode(claude_bin, env, repo, f"/handoff {path}", session_id=sid, timeout=300)
    assert done.returncode == 0, describe(done)
    assert pipeline.plan is not None, f"prepare did not run: {mock_api.errors}"
    chunks = pipeline.plan["chunks"]
    assert len(chunks) >= 3

    # the summarizers in ONE message, then the extractors in ONE message
    records = read_jsonl(e2e.find_transcript(claude_home, sid))
    by_message: dict[str, int] = {}
    for record in records:
        message = record.get("message") or {}
        if record.get("type") == "assistant":
            n = sum(1 for b in message.get("content") or []
                    if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Agent")
            if n:
                by_message[message["id"]] = by_message.get(message["id"], 0) + n
    assert list(by_message.values()) == [len(chunks), 5], by_message
    assert set(pipeline.chunk_first) == {c["index"] for c in chunks}, "each chunk ran as a subagent"
    for c in chunks:
        assert json.dumps(c["launch"])[1:-1] in pipeline.chunk_first[c["index"]]

    # reduce kept the good summaries and the failed chunk's raw text, and the extractors read that
    reduced = Path(pipeline.plan["spine"]).read_text()
    assert "CHUNK-0-SUMMARY" in reduced and "CHUNK-2-SUMMARY" in reduced
    assert "[chunk 1 summarization failed — raw text follows]" in reduced
    assert f"reduced spine: {pipeline.plan['spine']}" in (pipeline.reduced or ""), pipeline.reduced
    for name in SECTION_NAMES:
        assert "CHUNK-0-SUMMARY" in pipeline.extractor_spine[name], f"the {name} extractor read the reduced spine"

    brief = pipeline.finalized or ""
    assert "MODEL-CONVERGENCE from the reduced spine" in section(brief, "Convergence")
    assert section(brief, "Dead-ends").startswith(PLACEHOLDER), "no answer: placeholder, then the built-in section"
    assert '"Request 7: continue with the parser, step 7."' in section(brief, "Basics"), \
        "the built-in extractor, filling in for the missing basics, read the whole transcript"
    assert not mock_api.errors, mock_api.errors
