"""``--extractor-cmd``: the seed's five prompts through an external model command.

The command is the user's own (like ``core.editor``), run through ``sh -c``
once per section, all five at once. It gets the prompt on stdin and answers
with the section's JSON object on stdout (or writes ``<SECTIONS_DIR>/<section>.json``,
as the seed's prompt asks). Nothing from the transcript ever reaches the
command line: the spine is a file named in the prompt. Each answer goes through
the validation contract; a section that fails is reported and left to the
built-in extractor.

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
from typing import Any

from gitrefocus.handoff import prompts
from gitrefocus.handoff.prepare import Plan
from gitrefocus.handoff.sections import (
    FILES,
    SECTION_NAMES,
    Section,
    SectionRejected,
    parse_answer,
    validate,
)
from gitrefocus.model.records import dataclass, field

ANSWER_CAP = 4 << 20        # bytes of an answer read at most
DEFAULT_TIMEOUT = 600.0     # seconds per call
MAX_PARALLEL_CHUNKS = 8


@dataclass
class ExternalRun:
    sections: dict[str, Section] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)   # section -> why it was not used
    chunk_failures: list[int] = field(default_factory=list)


@dataclass
class _Call:
    stdout: str
    stderr: str
    returncode: int | None
    timed_out: bool = False


def _run(cmd: str, prompt: str, *, cwd: str, env: dict, timeout: float) -> _Call:
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


def run(plan: Plan, cmd: str, *, repo_root: str, resolve, timeout: float = DEFAULT_TIMEOUT) -> ExternalRun:
    """Run the five extractors (after the chunk map step, if needed) through ``cmd``."""
    result = ExternalRun()
    with tempfile.TemporaryDirectory(prefix="refocus-handoff-") as work:
        sections_dir = os.path.join(work, "sections")
        os.mkdir(sections_dir)
        spine = os.path.join(work, "spine.txt")
        if plan.mode == "chunked":
            _write(spine, _reduced_spine(plan, cmd, work, repo_root, timeout, result))
        else:
            _write(spine, plan.spine_text())
        base_env = _env(work)
        variables: dict[str, Any] = dict(spine=spine, source_files=list(plan.source.files),
                         session_uuid=plan.session_id or "", leaf_uuid=plan.leaf_uuid or "",
                         repo_root=repo_root, sections_dir=sections_dir)

        def one(section: str):
            prompt = prompts.extractor_prompt(section, **variables)
            env = dict(base_env, REFOCUS_HANDOFF_KIND="extractor", REFOCUS_HANDOFF_SECTION=section,
                       REFOCUS_HANDOFF_SPINE=spine, REFOCUS_HANDOFF_SECTIONS_DIR=sections_dir)
            call = _run(cmd, prompt, cwd=work, env=env, timeout=timeout)
            return section, call

        with ThreadPoolExecutor(max_workers=len(SECTION_NAMES)) as pool:
            calls = list(pool.map(one, SECTION_NAMES))
        for section, call in calls:
            try:
                result.sections[section] = _accept(section, call, sections_dir, resolve)
            except SectionRejected as exc:
                result.failures[section] = str(exc)
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
        obj = json.loads(text)
    except ValueError:
        return stdout
    if isinstance(obj, dict) and obj.get("type") == "result" and isinstance(obj.get("result"), str):
        if obj.get("is_error") is True:
            raise SectionRejected(f"the model reported an error: {obj['result'][:200]}")
        return obj["result"]
    return stdout


def _accept(section: str, call: _Call, sections_dir: str, resolve) -> Section:
    if call.timed_out or (call.returncode not in (0, None) and not call.stdout.strip()):
        raise SectionRejected(_why(call, "the extractor command"))
    answers = [unwrap(call.stdout)] if call.stdout.strip() else []
    for name in (FILES[section], FILES[section].replace("_", "-")):
        path = os.path.join(sections_dir, name)
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as fh:
                answers.append(fh.read(ANSWER_CAP).decode("utf-8", "replace"))
    if not answers:
        raise SectionRejected(_why(call, "the extractor command") if call.returncode else "empty answer")
    problem = "empty answer"
    for answer in answers:
        try:
            found = validate(parse_answer(answer), section, resolve=resolve)
            found.origin = "extractor-cmd"
            return found
        except SectionRejected as exc:
            problem = str(exc)
    raise SectionRejected(problem)


def _reduced_spine(plan: Plan, cmd: str, work: str, repo_root: str, timeout: float,
                   result: ExternalRun) -> str:
    """The seed's map step: summarize every chunk at once, then concatenate in order."""
    base_env = _env(work)
    files = []
    for index, (start, end) in enumerate(plan.chunks):
        path = os.path.join(work, f"chunk-{index:03d}.txt")
        _write(path, plan.spine_text(start, end))
        files.append(path)

    def one(index: int):
        prompt = prompts.chunk_prompt(chunk_file=files[index], chunk_index=index,
                                      session_uuid=plan.session_id or "", repo_root=repo_root,
                                      source_files=list(plan.source.files))
        env = dict(base_env, REFOCUS_HANDOFF_KIND="chunk", REFOCUS_HANDOFF_CHUNK=files[index],
                   REFOCUS_HANDOFF_CHUNK_INDEX=str(index))
        return index, _chunk_summary(_run(cmd, prompt, cwd=work, env=env, timeout=timeout), index)

    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_CHUNKS, len(files))) as pool:
        summaries = dict(pool.map(one, range(len(files))))
    parts = []
    for index in sorted(summaries):
        summary = summaries[index]
        if summary is None:
            result.chunk_failures.append(index)
            with open(files[index], encoding="utf-8") as fh:
                summary = f"[chunk {index} summarization failed — raw text follows]\n{fh.read()}"
        parts.append(f"<!-- chunk {index} -->\n{summary.strip()}\n")
    return "\n".join(parts)


def _chunk_summary(call: _Call, index: int) -> str | None:
    if call.timed_out or not call.stdout.strip():
        return None
    try:
        obj = parse_answer(unwrap(call.stdout))
    except SectionRejected:
        return None
    if not isinstance(obj, dict) or obj.get("chunk_index") != index:
        return None
    summary = obj.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        return None
    pointers = obj.get("key_pointers")
    if isinstance(pointers, list) and pointers:
        refs = [f"{p.get('type')}:{p.get('ref')} — {p.get('note', '')}" for p in pointers[:50]
                if isinstance(p, dict) and isinstance(p.get("ref"), str)]
        if refs:
            summary += "\n\nKey pointers:\n" + "\n".join(f"- {r}" for r in refs)
    return summary


def _env(work: str) -> dict:
    env = dict(os.environ)
    env["REFOCUS_HANDOFF_WORKDIR"] = work
    return env


def _write(path: str, text: str) -> None:
    """Write what the command will read: scrubbed, as everything shown from a transcript is."""
    from gitrefocus.handoff.scrub import scrub_transcript

    with open(path, "w", encoding="utf-8") as fh:
        fh.write(scrub_transcript(text)[0])
