"""``--extractor-cmd``: the seed's five prompts through an external model command.

The command is the user's own (like ``core.editor``), run through ``sh -c``
once per section, all five at once. It gets the prompt on stdin and answers
with the section's JSON object on stdout (or writes ``<SECTIONS_DIR>/<section>.json``,
as the seed's prompt asks). Nothing from the transcript ever reaches the
command line: the spine is a file named in the prompt (the plan directory is the
one ``handoff prepare`` writes for the agent, made in a temporary directory). Each
answer goes through the same checks as the agent's (``checks.judge``); a section
that fails is reported and left to the built-in extractor.

An oversized spine is first mapped through the seed's chunk-summarizer prompt
(all chunks at once); a chunk whose summary fails is kept as raw text under a
warning header, as the seed prescribes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

from gitrefocus.handoff import plandir
from gitrefocus.handoff.gitstate import GitState
from gitrefocus.handoff.prepare import Plan
from gitrefocus.handoff.sections import SECTION_NAMES, SectionRejected
from gitrefocus.model.records import dataclass, field
from gitrefocus.model.text import without_surrogates

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

ANSWER_CAP = 4 << 20        # bytes of an answer read at most
DEFAULT_TIMEOUT = 600.0     # seconds per call
MAX_PARALLEL_CHUNKS = 8


@dataclass
class ExternalRun:
    answers: dict[str, list[str]] = field(default_factory=dict)  # section -> what the command left
    problems: dict[str, str] = field(default_factory=dict)       # section -> why the call gave nothing
    chunk_failures: list[int] = field(default_factory=list)


@dataclass
class _Call:
    stdout: str
    stderr: str
    returncode: int | None
    timed_out: bool = False


def _run(cmd: str, prompt: str, *, cwd: str, env: dict[str, Any], timeout: float) -> _Call:
    """Run ``cmd`` with ``prompt`` on stdin; output is read through files, capped."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryFile() as stdin:
        stdin.write(prompt.encode("utf-8"))
        stdin.seek(0)
        try:
            proc = subprocess.Popen(["/bin/sh", "-c", cmd], stdin=stdin, stdout=out, stderr=err, cwd=cwd,
                                    env=env, start_new_session=True)
        except OSError as exc:
            return _Call("", f"cannot start the command: {exc.strerror}", None)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the group we started, by its id
            except ProcessLookupError:
                pass
            proc.wait()
        out.seek(0)
        err.seek(0)
        return _Call(out.read(ANSWER_CAP).decode("utf-8", "replace"),
                     err.read(64 * 1024).decode("utf-8", "replace"), proc.returncode, timed_out)


def _why(call: _Call, what: str) -> str:
    if call.timed_out:
        return f"{what} timed out"
    last = call.stderr.strip().splitlines()[-1:] if call.stderr.strip() else []
    detail = f": {last[0][:200]}" if last else ""
    if call.returncode is None:
        return f"{what} could not be started{detail}"
    return f"{what} exited with status {call.returncode}{detail}"


def run(plan: Plan, git: GitState, cmd: str, *, repo_root: str, timeout: float = DEFAULT_TIMEOUT) -> ExternalRun:
    """Run the five extractors (after the chunk map step, if needed) through ``cmd``, from a plan
    directory like the one ``handoff prepare`` writes for the agent; the answers are checked by
    the caller (``pipeline.checked_brief``), like the agent's."""
    result = ExternalRun()
    with tempfile.TemporaryDirectory(prefix="refocus-handoff-") as work:
        doc = plandir.write(plan, git, work, repo_root=repo_root)
        if doc["mode"] == "chunked":
            _map_chunks(doc, cmd, work, timeout)
            _, result.chunk_failures = plandir.reduce(doc)
        base_env = _env(work)

        def one(section: str) -> tuple[str, _Call]:
            with open(doc["prompts"][section], encoding="utf-8") as fh:
                prompt = fh.read()
            env = dict(base_env, REFOCUS_HANDOFF_KIND="extractor", REFOCUS_HANDOFF_SECTION=section,
                       REFOCUS_HANDOFF_SPINE=doc["spine"], REFOCUS_HANDOFF_SECTIONS_DIR=doc["sections_dir"])
            return section, _run(cmd, prompt, cwd=work, env=env, timeout=timeout)

        with ThreadPoolExecutor(max_workers=len(SECTION_NAMES)) as pool:
            calls = list(pool.map(one, SECTION_NAMES))
        for section, call in calls:
            answers, problem = _answers(section, call, doc["sections_dir"])
            result.answers[section] = answers
            if problem:
                result.problems[section] = problem
    return result


def claude_command(binary: str) -> str:
    """``--extractor claude``: the installed Claude Code client as the model command. It gets
    the prompt on stdin and answers with one JSON result (``-p --output-format json``); it may
    only read (the spine and the sections dir are files in its working directory), never run
    a command, edit, or reach the web, and leaves no session behind."""
    import shlex

    return " ".join([shlex.quote(binary), "-p", "--output-format", "json", "--tools", "Read,Glob,Grep",
                     "--disallowedTools", "Bash,Edit,Write,NotebookEdit,WebFetch,WebSearch",
                     "--no-session-persistence"])


def find_claude() -> str | None:
    """The installed ``claude`` binary: $GIT_REFOCUS_CLAUDE_BIN, else ``claude`` on PATH."""
    import shutil

    given = os.environ.get("GIT_REFOCUS_CLAUDE_BIN")
    if given and os.access(given, os.X_OK) and os.path.isfile(given):
        return given
    return shutil.which("claude")


def unwrap(stdout: str) -> str:
    """The answer inside a ``claude -p --output-format json`` result object, else ``stdout``."""
    text = stdout.strip()
    if not text.startswith("{"):
        return stdout
    try:
        obj = without_surrogates(json.loads(text))  # the answer and its error are quoted in the brief
    except ValueError:
        return stdout
    if isinstance(obj, dict) and obj.get("type") == "result" and isinstance(obj.get("result"), str):
        if obj.get("is_error") is True:
            raise SectionRejected(f"the model reported an error: {obj['result'][:200]}")
        result: str = obj["result"]
        return result
    return stdout


def _answers(section: str, call: _Call, sections_dir: str) -> tuple[list[str], str | None]:
    """What one call left: its reply and the section file it may have written; and, when it left
    nothing usable, why."""
    if call.timed_out:
        return [], _why(call, "the extractor command")
    answers = []
    if call.stdout.strip():
        try:
            answers.append(unwrap(call.stdout))
        except SectionRejected as exc:
            return [], str(exc)
    answers += plandir.answers(sections_dir, section)
    if not answers:
        return [], _why(call, "the extractor command") if call.returncode else "empty answer"
    return answers, None


def _map_chunks(doc: dict[str, Any], cmd: str, work: str, timeout: float) -> None:
    """The seed's map step: every chunk summarized at once; each answer lands in its summary file."""
    base_env = _env(work)

    def one(chunk: dict[str, Any]) -> None:
        with open(chunk["prompt"], encoding="utf-8") as fh:
            prompt = fh.read()
        env = dict(base_env, REFOCUS_HANDOFF_KIND="chunk", REFOCUS_HANDOFF_CHUNK=chunk["file"],
                   REFOCUS_HANDOFF_CHUNK_INDEX=str(chunk["index"]))
        call = _run(cmd, prompt, cwd=work, env=env, timeout=timeout)
        if call.timed_out or not call.stdout.strip() or os.path.lexists(chunk["summary"]):
            return
        try:
            answer = unwrap(call.stdout)
        except SectionRejected:
            return
        with open(chunk["summary"], "x", encoding="utf-8") as fh:
            fh.write(answer)

    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_CHUNKS, len(doc["chunks"]))) as pool:
        list(pool.map(one, doc["chunks"]))


def _env(work: str) -> dict[str, Any]:
    env = dict(os.environ)
    env["REFOCUS_HANDOFF_WORKDIR"] = work
    return env
