"""The plan directory: what ``handoff prepare`` writes for the extractors, and what
``handoff reduce`` / ``handoff finalize`` read back. The seed's plan.json, on disk.

One directory per prepare, under ``~/.cache/git-refocus/handoff/`` (mode 0700; the plugin's
``/handoff`` command may read and write there, nowhere else)::

    plan.json                 mode (direct | chunked | warm), session, leaf, source files,
                              repo root, and every path below
    spine.txt                 direct: the scrubbed, numbered spine
    chunks/chunk-NNN.txt      chunked: the spine cut at user turns
    chunks/chunk-NNN.json     chunked: each chunk-summarizer's answer
    reduced-spine.txt         chunked, after ``reduce``: the summaries in order
    git.txt                   read-only git facts of the repository
    turns.txt                 warm: the line label of every user message
    prompts/<section>.txt     the five extractor prompts (the skill's text, SECURITY block)
    prompts/chunk-NNN.txt     chunked: the chunk-summarizer prompts
    prompts/warm.txt          warm: how the agent writes the five objects itself
    sections/<section>.json   the extractors' answers (one JSON object each)

Everything written from the transcript comes from records scrubbed as they were decoded
(``handoff/jsonl.py``), so it is not scrubbed again; what does not — git's text, the chunk
summaries a model wrote — is scrubbed here. Everything read back is read defensively: regular
files only (never a symlink or a FIFO), capped in size.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import stat
import tempfile

from gitrefocus.errors import RefocusError
from gitrefocus.handoff import prompts
from gitrefocus.handoff import spine as sp
from gitrefocus.handoff.gitstate import GitState
from gitrefocus.handoff.prepare import Plan
from gitrefocus.handoff.records import one_line
from gitrefocus.handoff.sections import FILES, SECTION_NAMES

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

PLAN_VERSION = 1
PLAN_FILE = "plan.json"
ANSWER_CAP = 4 << 20   # bytes of one answer file read at most
PLAN_CAP = 1 << 20
_SAFE_NAME_RE = re.compile(r"[^A-Za-z0-9-]")


def cache_root() -> str:
    """``~/.cache/git-refocus/handoff``: fixed, so the plugin's permission rules can name it."""
    return os.path.join(os.path.expanduser("~"), ".cache", "git-refocus", "handoff")


def new_directory(session_id: str | None, parent: str | None = None) -> str:
    """A fresh, private plan directory (0700) named after the session."""
    base = parent or cache_root()
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        name = _SAFE_NAME_RE.sub("", session_id or "")[:40] or "session"
        return tempfile.mkdtemp(prefix=f"{name}-", dir=base)
    except OSError as exc:
        raise RefocusError(f"cannot create a plan directory under {base}: {exc.strerror}.") from None


def _write(path: str, text: str, *, scrub: bool = False) -> None:
    if scrub:
        from gitrefocus.handoff.scrub import scrub_transcript

        text = scrub_transcript(text)[0]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def write(plan: Plan, git: GitState, directory: str, *, repo_root: str, warm: bool = False,
          transcript: str | None = None) -> dict[str, Any]:
    """Write the plan into ``directory`` (which must exist and be empty); returns plan.json's object."""
    for sub in ("prompts", "sections") + (("chunks",) if plan.mode == "chunked" and not warm else ()):
        os.mkdir(os.path.join(directory, sub), 0o700)
    path: Callable[..., str] = lambda *parts: os.path.join(directory, *parts)  # noqa: E731
    sections_dir = path("sections")
    git_state = path("git.txt")
    _write(git_state, git_text(git), scrub=True)
    doc: dict[str, Any] = {
        "version": PLAN_VERSION, "kind": "handoff-plan", "mode": "warm" if warm else plan.mode,
        "created_at": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "session_id": plan.session_id, "leaf_uuid": plan.leaf_uuid,
        "transcript": transcript or plan.source.main, "source_files": list(plan.source.files),
        "repo_root": repo_root, "directory": directory, "sections_dir": sections_dir, "git_state": git_state,
        "stats": {"spine_messages": plan.stats.get("spine_messages", 0),
                  "spine_chars": plan.stats.get("spine_chars", 0), "chunks": len(plan.chunks) or 1},
    }
    if warm:
        turns = path("turns.txt")
        _write(turns, turns_text(plan))  # from the scrubbed records
        warm_prompt = path("prompts", "warm.txt")
        _write(warm_prompt, prompts.warm_prompt(sections_dir=sections_dir, turns=turns, git_state=git_state))
        doc.update(turns=turns, warm_prompt=warm_prompt)
    else:
        if plan.mode == "chunked":
            spine = path("reduced-spine.txt")
            doc["chunks"] = _write_chunks(plan, directory, repo_root)
        else:
            spine = path("spine.txt")
            _write(spine, plan.spine_text())  # from the scrubbed records
        doc["spine"] = spine
        doc["prompts"], doc["launch"] = {}, {}
        for name in SECTION_NAMES:
            prompt_file = path("prompts", f"{name}.txt")
            prompt = prompts.extractor_prompt(name, spine=spine, source_files=list(plan.source.files),
                                              session_uuid=plan.session_id or "", leaf_uuid=plan.leaf_uuid or "",
                                              repo_root=repo_root, sections_dir=sections_dir)
            _write(prompt_file, prompt + "\n" + prompts.plan_files(git_state) + "\n")
            doc["prompts"][name] = prompt_file
            doc["launch"][name] = prompts.launch_prompt(name, prompt_file)
        doc["answers"] = {name: os.path.join(sections_dir, FILES[name]) for name in SECTION_NAMES}
    _write(path(PLAN_FILE), json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    return doc


def _write_chunks(plan: Plan, directory: str, repo_root: str) -> list[dict[str, Any]]:
    chunks = []
    for index, (start, end) in enumerate(plan.chunks):
        text_file = os.path.join(directory, "chunks", f"chunk-{index:03d}.txt")
        summary_file = os.path.join(directory, "chunks", f"chunk-{index:03d}.json")
        prompt_file = os.path.join(directory, "prompts", f"chunk-{index:03d}.txt")
        _write(text_file, plan.spine_text(start, end))  # from the scrubbed records
        _write(prompt_file, prompts.chunk_prompt(chunk_file=text_file, chunk_index=index,
                                                 session_uuid=plan.session_id or "", repo_root=repo_root,
                                                 source_files=list(plan.source.files))
               + "\n" + prompts.chunk_delivery(summary_file) + "\n")
        chunks.append({"index": index, "file": text_file, "prompt": prompt_file, "summary": summary_file,
                       "launch": prompts.chunk_launch_prompt(index, prompt_file)})
    return chunks


def git_text(git: GitState) -> str:
    """The read-only git facts the Code-state extractor needs, as the seed's commands show them."""
    if not git.ok:
        return f"# git state unavailable: {git.problem}\n"
    out = [f"# read-only git state of {one_line(git.root or '?', 300)}, taken by `git refocus handoff prepare`",
           f"branch: {one_line(git.branch or 'detached HEAD', 200)}", f"HEAD: {git.head or '(no commits)'}", "",
           "## git log --oneline -n 30  (* = made during the session)"]
    out += [f"{c.short}{' *' if c.in_session else ''} {one_line(c.subject, 200)}" for c in git.commits[:30]]
    out += ["", "## git status --porcelain"]
    out += [f"{'staged' if c.staged else 'unstaged'} {c.state}: {one_line(c.path, 300)}" for c in git.changes]
    if git.changes_total > len(git.changes):
        out.append(f"... and {git.changes_total - len(git.changes)} more")
    out += ["", "## git diff --stat HEAD"]
    out += [f"{one_line(c.path, 300)} | +{c.added} -{c.removed}" for c in git.changes if c.added is not None]
    return "\n".join(out) + "\n"


def turns_text(plan: Plan) -> str:
    """Every user message with its line label: what the warm mode cites its pointers from."""
    out = ["# the user's messages in this session's transcript: cite a label as transcript:L<n>"]
    for message in plan.messages:
        for block in message.blocks:
            if message.role == sp.USER and block.kind in sp.WORDS and block.text:
                out.append(f"{message.label(block.line)} {one_line(block.text, 200)}")
            elif block.kind == sp.ANSWER:
                out.append(f"{message.label(block.line)} (answer to \"{one_line(block.note or '', 80)}\") "
                           f"{one_line(block.text, 160)}")
    return "\n".join(out) + "\n"


# -- reading back ----------------------------------------------------------------------
def read_text(path: str, cap: int = ANSWER_CAP) -> str | None:
    """A regular file's text, never through a symlink or from a FIFO; None if there is none."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        return fh.read(cap).decode("utf-8", "replace")


def load(given: str) -> dict[str, Any]:
    """plan.json of a plan directory, given the directory, its sections dir or plan.json itself."""
    path = os.path.abspath(os.path.expanduser(given))
    candidates = [path] if path.endswith(".json") else [os.path.join(path, PLAN_FILE),
                                                         os.path.join(os.path.dirname(path), PLAN_FILE)]
    for candidate in candidates:
        text = read_text(candidate, PLAN_CAP)
        if text is None:
            continue
        try:
            doc = json.loads(text)
        except ValueError:
            raise RefocusError(f"{candidate} is not a handoff plan (not JSON); run `git refocus handoff prepare` "
                               "again.") from None
        if not isinstance(doc, dict) or doc.get("kind") != "handoff-plan" or not isinstance(doc.get("transcript"), str):
            raise RefocusError(f"{candidate} is not a handoff plan; run `git refocus handoff prepare` again.")
        if doc.get("version") != PLAN_VERSION:
            raise RefocusError(f"{candidate} was written by another version of git refocus; run "
                               "`git refocus handoff prepare` again.")
        doc["directory"] = os.path.dirname(candidate)  # where it is now, whatever it says
        return doc
    raise RefocusError(f"no handoff plan at {given} (looked for {PLAN_FILE} there and one level up); "
                       "run `git refocus handoff prepare` first.")


def answers(sections_dir: str, name: str) -> list[str]:
    """What the extractor for ``name`` left in the sections dir (the seed also accepts a hyphen stem)."""
    out = []
    for fname in dict.fromkeys((FILES[name], FILES[name].replace("_", "-"))):
        text = read_text(os.path.join(sections_dir, fname))
        if text is not None and text.strip():
            out.append(text)
    return out


def reduce(doc: dict[str, Any]) -> tuple[str, list[int]]:
    """The seed's reduce step: the chunk summaries in order into the reduced spine; a chunk
    whose summary is missing or invalid keeps its raw text under a warning header.
    Returns (reduced spine path, failed chunk indexes)."""
    if doc.get("mode") != "chunked" or not isinstance(doc.get("chunks"), list):
        raise RefocusError("this plan is not chunked: there is nothing to reduce (its spine is "
                           f"{doc.get('spine', 'spine.txt')}).")
    directory = doc["directory"]
    parts, failed = [], []
    for chunk in sorted(doc["chunks"], key=lambda c: c.get("index", 0)):
        index = int(chunk.get("index", 0))
        name = f"chunk-{index:03d}"
        answer = read_text(os.path.join(directory, "chunks", f"{name}.json"))
        summary = chunk_summary(answer, index) if answer else None
        if summary is None:
            failed.append(index)
            raw = read_text(os.path.join(directory, "chunks", f"{name}.txt"), 64 << 20) or ""
            summary = f"[chunk {index} summarization failed — raw text follows]\n{raw}"
        parts.append(f"<!-- chunk {index} -->\n{summary.strip()}\n")
    spine = os.path.join(directory, "reduced-spine.txt")
    tmp = spine + ".tmp"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    _write(tmp, "\n".join(parts), scrub=True)
    os.replace(tmp, spine)
    return spine, failed


def chunk_summary(answer: str, index: int) -> str | None:
    """A chunk-summarizer's answer (seed schema) as reduced-spine text, or None if it fails."""
    from gitrefocus.handoff.sections import SectionRejected, parse_answer

    try:
        obj = parse_answer(answer)
    except SectionRejected:
        return None
    if not isinstance(obj, dict) or obj.get("chunk_index") != index:
        return None
    summary = obj.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        return None
    pointers = obj.get("key_pointers")
    if isinstance(pointers, list) and pointers:
        refs = [f"{p.get('type')}:{p.get('ref')} — {one_line(str(p.get('note', '')), 200)}" for p in pointers[:50]
                if isinstance(p, dict) and isinstance(p.get("ref"), str) and "\n" not in p["ref"]]
        if refs:
            summary += "\n\nKey pointers:\n" + "\n".join(f"- {r}" for r in refs)
    return summary
