"""The handoff's quality on real public sessions: cue families and graded briefs, per split.

    .venv/bin/python -m tests.handoff.corpus              # both tables, held-out and tuning
    .venv/bin/python -m tests.handoff.corpus --wrong      # ... and every miss and false hit (tuning only)
    .venv/bin/python -m tests.handoff.corpus --show SPLIT # ... or also the held-out ones, once it is reported

The corpus (tests/data/handoff_corpus/, see its README) holds no transcript text: only
pointers into public repositories — repository, commit, path, line, the text field of the
record, a character span and a hash of the text — and the labels. The text is read from a
local mirror of each repository (``$GIT_REFOCUS_CORPUS_MIRRORS/<owner>+<name>/repo``, by default
``/work/.mirror``), a bare clone the ``git`` CLI can ``show`` from; without it the script says
which repository is missing and how to get it, and prints nothing else.

Splits (the README has the whole story): ``tuning`` is the 44 sessions first drawn — split then
by checkpoint hash into a tuning part and a held-out part, the latter (``retired``) scored three
times while tuning went on and tuned on since; ``retired-2`` to ``retired-9`` are the first eight
fresh sets, each scored once and tuned on since (``retired-4`` and ``retired-7`` also read by a second
reader: ``tests.handoff.agreement``; ``retired-6`` drawn partly from the old tuning side; ``retired-8``
and ``retired-9`` drawn from many other repositories); ``held-out`` is the ninth fresh set, drawn from
many other repositories by a written rule (:func:`draw_many`, round 9), labelled by a reader who did
not tune, before any score on it, scored once at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gitrefocus.handoff import classify

DATA = Path(__file__).resolve().parent.parent / "data" / "handoff_corpus"
DEFAULT_MIRRORS = "/work/.mirror"
SPLITS = ("held-out", "tuning")
# what each reported split is made of: the fresh held-out set, and every session tuned on (the old
# corpus's tuning part and its retired held-out part, scored three times while tuning went on)
PARTS = {"held-out": ("held-out",),
         "tuning": ("tuning", "retired", "retired-2", "retired-3", "retired-4", "retired-5", "retired-6",
                    "retired-7", "retired-8", "retired-9"),
         "retired": ("retired",), "old-tuning": ("tuning",), "retired-2": ("retired-2",), "retired-3": ("retired-3",),
         "retired-4": ("retired-4",), "retired-5": ("retired-5",), "retired-6": ("retired-6",),
         "retired-7": ("retired-7",), "retired-8": ("retired-8",), "retired-9": ("retired-9",)}
# which sentences each family's cue is applied to in the extractors (analysis.py)
FAMILY_ROLES = {"correction": ("user",), "constraint": ("user",), "decision": ("user", "assistant"),
                "intent": ("user", "assistant"), "dead-end": ("assistant",), "open-thread": ("assistant",)}
SECTIONS = ("asked", "concluded", "dead_ends", "open", "constraints")
SECTION_TITLES = {"asked": "what the user asked", "concluded": "concluded & decided", "dead_ends": "dead ends",
                  "open": "open threads", "constraints": "constraints & corrections"}


class MirrorMissing(Exception):
    pass


# -- reading the text a pointer names ------------------------------------------------------
@dataclass
class Source:
    """One transcript of the corpus, read from its repository's mirror."""

    repo: str
    commit: str
    path: str
    sha256: str
    split: str
    graded: bool = False
    name: str = ""  # the key column of sessions.tsv, when the path alone does not name the session
    _lines: list[bytes] | None = None

    @property
    def key(self) -> str:
        """How ``sentences.tsv`` and ``briefs.tsv`` name the session: the path, or — for sessions
        drawn from many repositories, where a path such as ``0/full.jsonl`` at the root of a
        per-checkpoint ref repeats across refs and repositories — ``<repo>@<commit[:12]>:<path>``
        (:func:`session_key`), written in the ``key`` column."""
        return self.name or self.path

    def mirror(self, mirrors: str) -> str:
        return os.path.join(mirrors, self.repo.replace("/", "+"), "repo")

    def load(self, mirrors: str) -> bytes:
        where = self.mirror(mirrors)
        if not os.path.isdir(where):
            raise MirrorMissing(f"no mirror of {self.repo} at {where}")
        data = read_transcript(where, self.commit, self.path)
        if data is None:
            raise MirrorMissing(f"the mirror of {self.repo} at {where} lacks {self.commit}:{self.path}")
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise MirrorMissing(f"{self.repo} {self.commit}:{self.path} is not the file the corpus was labelled on "
                                "(sha256 differs)")
        self._lines = data.split(b"\n")
        return data

    def record(self, line: int) -> dict:
        assert self._lines is not None, "load() first"
        return json.loads(self._lines[line - 1])


def session_key(repo: str, commit: str, path: str) -> str:
    """The name of a session drawn from many repositories (``sessions.tsv``'s ``key`` column)."""
    return f"{repo}@{commit[:12]}:{path}"


def read_transcript(where: str, commit: str, path: str) -> bytes | None:
    """The file ``path`` at ``commit`` of the bare clone ``where``; a transcript the Entire CLI cut
    in chunks (``<path>.001``, ``<path>.002`` …) joined back with newlines; None when absent."""
    done = subprocess.run(["git", "-C", where, "cat-file", "blob", f"{commit}:{path}"], capture_output=True)
    if done.returncode == 0:
        return done.stdout
    listed = subprocess.run(["git", "-C", where, "ls-tree", "--name-only", commit, "--", os.path.dirname(path) + "/"],
                            capture_output=True, text=True)
    chunks = sorted(n for n in listed.stdout.splitlines() if re.fullmatch(re.escape(path) + r"\.\d{3}", n))
    if listed.returncode != 0 or not chunks:
        return None
    parts = [subprocess.run(["git", "-C", where, "cat-file", "blob", f"{commit}:{n}"], capture_output=True)
             for n in chunks]
    if any(p.returncode != 0 for p in parts):
        return None
    return b"\n".join(p.stdout for p in parts)


_REMINDER_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_NOT_SAID = ("<local-command", "<bash-", "<task-notification>", "[Request interrupted", "Caveat:",
             "<user-prompt-submit-hook>", "<command-message>")
_REFUSED = "The user doesn't want to proceed with this tool use."
_REFUSED_SAID = "the user said:\n"
_ANSWER_RE = re.compile(r'"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"', re.S)


def said(record: dict, asked: set[str]) -> list[tuple[str, str, str]]:
    """(field, role, text) of the words a record holds: the user's (typed, queued, slash-command
    arguments, answers to the assistant's questions) or the assistant's (text blocks). This reader
    is the corpus's own, independent of the extractors under test. ``asked`` collects the ids of
    AskUserQuestion calls seen so far."""
    kind = record.get("type")
    if record.get("isSidechain") or record.get("isMeta") or record.get("isCompactSummary"):
        return []
    if kind == "queue-operation":
        content = record.get("content")
        if record.get("operation") == "enqueue" and isinstance(content, str) and not content.startswith(("/", "<")):
            return [("q", "user", content)]
        return []
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    out: list[tuple[str, str, str]] = []
    if kind == "assistant":
        if message.get("model") == "<synthetic>":
            return []
        for i, block in enumerate(content if isinstance(content, list) else []):
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == "AskUserQuestion":
                asked.add(str(block.get("id")))
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                out.append((f"c{i}", "assistant", block["text"]))
        return out
    if kind != "user":
        return []
    items = [("c", content)] if isinstance(content, str) else \
        [(f"c{i}", b.get("text")) for i, b in enumerate(content) if isinstance(b, dict) and b.get("type") == "text"] \
        if isinstance(content, list) else []
    for name, value in items:
        if not isinstance(value, str):
            continue
        value = _REMINDER_RE.sub("", value)
        stripped = value.strip()
        if stripped.startswith("<command-name>") or stripped.startswith("<command-message>"):
            args = _ARGS_RE.search(value)
            if args and args.group(1).strip():
                out.append((name + "a", "user", args.group(1)))
            continue
        if stripped and not stripped.startswith(_NOT_SAID):
            out.append((name, "user", value))
    for i, block in enumerate(content if isinstance(content, list) else []):
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        text = block.get("content") if isinstance(block.get("content"), str) else ""
        if not text and isinstance(block.get("content"), list):
            text = "".join(c.get("text", "") for c in block["content"] if isinstance(c, dict))
        said_at = text.find(_REFUSED_SAID)
        if text.startswith(_REFUSED) and said_at >= 0:
            out.append((f"f{i}", "user", text[said_at + len(_REFUSED_SAID):]))
        elif str(block.get("tool_use_id")) in asked:
            for j, m in enumerate(_ANSWER_RE.finditer(text)):
                out.append((f"r{i}.{j}", "user", m.group(2)))
    return out


def field_text(record: dict, name: str) -> str | None:
    """The text of one field of a record, as :func:`said` names it."""
    for fname, _, text in said(record, _AnyAsked()):
        if fname == name:
            return text
    return None


class _AnyAsked(set):
    def __contains__(self, item) -> bool:  # reading one record alone: any tool result may be an answer
        return True


def sentence_spans(text: str) -> list[tuple[int, int]]:
    from gitrefocus.handoff import cues

    fenced = [(m.start(), m.end()) for m in re.finditer(r"```.*?(?:```|$)", text, re.S)]
    return [(a, b) for a, b in cues.sentence_spans(text)
            if not any(fa <= a < fb for fa, fb in fenced) and text[a:a + 4] != "    " and b - a >= 12]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# -- the corpus files ------------------------------------------------------------------------------
def _tsv(name: str, data: Path) -> list[dict]:
    path = data / name
    if not path.exists():
        return []
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]
    head = lines[0].split("\t")
    return [dict(zip(head, ln.split("\t"))) for ln in lines[1:]]


def sources(data: Path = DATA) -> dict[str, Source]:
    """The sessions of ``sessions.tsv``, by :attr:`Source.key` (the ``path`` column of the other files)."""
    out = {}
    for r in _tsv("sessions.tsv", data):
        source = Source(r["repo"], r["commit"], r["path"], r["sha256"], r["split"], r.get("graded") == "yes",
                        name=r.get("key") or "")
        out[source.key] = source
    return out


def split_of(path: str) -> str:
    """The rule the old corpus was split by, before anything was tuned: ``retired`` (its held-out
    part, tuning data since it was scored three times) or ``tuning``. The fresh held-out set was
    drawn from the ``retired`` side of the mirror only (:func:`draw_fresh`)."""
    key = "/".join(path.split("/")[:2])
    return "retired" if hashlib.sha256(key.encode()).digest()[0] % 2 == 0 else "tuning"


@dataclass
class Pointer:
    line: int
    field: str
    start: int
    end: int
    sha: str

    @classmethod
    def parse(cls, text: str) -> "Pointer":
        # L<line>:<field>:<start>-<end>:<sha256 prefix of the text>
        m = re.fullmatch(r"L(\d+):([\w.]+):(\d+)-(\d+):([0-9a-f]{16})", text)
        if not m:
            raise ValueError(f"not a corpus pointer: {text!r}")
        return cls(int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4)), m.group(5))

    def __str__(self) -> str:
        return f"L{self.line}:{self.field}:{self.start}-{self.end}:{self.sha}"

    def text(self, source: Source) -> str:
        whole = field_text(source.record(self.line), self.field)
        if whole is None:
            raise MirrorMissing(f"{source.key} L{self.line} has no field {self.field}")
        piece = whole[self.start:self.end]
        if digest(piece) != self.sha:
            raise MirrorMissing(f"{source.key} {self}: the text there is not what was labelled")
        return piece


# -- where each sentence stands (the classifier's context, from this reader's own view) ------------
def contexts(source: Source, mirrors: str) -> dict[tuple[int, str, int, int], "classify.Context"]:
    """(line, field, start, end) -> the :class:`classify.Context` of every sentence this reader
    finds in the session: who said it, in what kind of message, whether it opens its message, the
    other party's text before it and the assistant's reply after a user's words."""
    from gitrefocus.handoff import classify

    messages = _messages(source, mirrors)
    out: dict[tuple[int, str, int, int], classify.Context] = {}
    for i, (number, name, role, text) in enumerate(messages):
        other = "assistant" if role == "user" else "user"
        prior = next((m[3] for m in reversed(messages[:i]) if m[2] == other and m[3].strip()), "")
        if role == "user":
            reply = next((m[3] for m in messages[i + 1:] if m[2] == "assistant" and m[3].strip()), "")
            kind = {"q": classify.QUEUED, "f": classify.REFUSAL, "r": classify.ANSWER}.get(name[0], classify.TYPED)
        else:
            reply, kind = "", classify.TEXT
        for k, (a, b) in enumerate(sentence_spans(text)):
            out[(number, name, a, b)] = classify.Context(role, kind, first=k == 0, prior=prior[-600:],
                                                         reply=reply.lstrip()[:classify.REPLY_REACH])
    return out


def labelled(split: str, mirrors: str, data: Path = DATA) -> list[tuple[str, str, "classify.Context", set[str]]]:
    """(session path, sentence, context, labels) of every labelled sentence of ``split``."""
    return [row[:4] for row in _labelled(split, mirrors, data)]


def _labelled(split: str, mirrors: str, data: Path = DATA):
    srcs = sources(data)
    found: dict[str, dict] = {}
    out = []
    for row in _tsv("sentences.tsv", data):
        source = srcs[row["path"]]
        if source.split not in PARTS[split]:
            continue
        if row["path"] not in found:
            found[row["path"]] = contexts(source, mirrors)
        p = Pointer.parse(row["pointer"])
        sentence = p.text(source)
        ctx = found[row["path"]].get((p.line, p.field, p.start, p.end))
        if ctx is None:
            from gitrefocus.handoff import classify

            ctx = classify.Context(row["role"], classify.TEXT)
        out.append((row["path"], sentence, ctx, set(filter(None, row["labels"].split(","))), p.line))
    return out


# -- cue families -------------------------------------------------------------------------------
@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else float("nan")

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else float("nan")

    def add(self, other: "Score") -> None:
        self.tp, self.fp, self.fn = self.tp + other.tp, self.fp + other.fp, self.fn + other.fn


def cue_scores(split: str, mirrors: str, data: Path = DATA, regex_only: bool = False
               ) -> tuple[dict[str, Score], int, list[str]]:
    """Per family, whether each labelled sentence was taken for it: as the extractors decide
    (``classify.families``, the sentence where it stands), or by the family's regex alone."""
    from gitrefocus.handoff import classify
    from tests.handoff.quality import FAMILIES

    scores = {family: Score() for family in FAMILY_ROLES}
    wrong: list[str] = []
    count = 0
    for path, sentence, ctx, labels, line in _labelled(split, mirrors, data):
        count += 1
        taken = classify.families(sentence, ctx)
        for family, roles in FAMILY_ROLES.items():
            if ctx.role not in roles:
                continue
            fired = FAMILIES[family](sentence) if regex_only else family in taken
            wanted = family in labels
            s = scores[family]
            s.tp += fired and wanted
            s.fp += fired and not wanted
            s.fn += wanted and not fired
            if fired != wanted:
                wrong.append(f"{family} {'missed' if wanted else 'false'} [{ctx.role}] {sentence[:160]!r} "
                             f"({path} L{line})")
    return scores, count, wrong


# -- graded briefs --------------------------------------------------------------------------------
@dataclass
class Item:
    """One claim of a built-in brief: the section it is graded in, its transcript lines, its quote."""

    section: str
    lines: list[int]
    quote: str
    text: str


_POINTER_RE = re.compile(r"`transcript:L(\d+)(?:-L?\d+)?`")
_QUOTE_RE = re.compile(r'"([^"\n]{4,})"')


def brief_items(sections: dict) -> list[Item]:
    """The built-in brief's claims, each filed under the graded section it speaks to."""
    items: list[Item] = []
    for name, section in sections.items():
        heading = ""
        for line in section.content.split("\n"):
            stripped = line.strip()
            if stripped.startswith("#"):
                heading = stripped.lower()
                continue
            lines = [int(n) for n in _POINTER_RE.findall(stripped)]
            if not lines:
                continue
            found = _QUOTE_RE.search(stripped)
            quote = found.group(1) if found else ""
            graded = _graded(name, heading, stripped)
            if graded:
                items.append(Item(graded, lines, quote, stripped))
    return items


def _graded(name: str, heading: str, line: str) -> str | None:
    body = line.lstrip("-*> ").strip()
    if name == "convergence":
        if body.startswith("Final request"):
            return "asked"
        if body.startswith("Superseded"):
            return "dead_ends"
        if body.startswith("The session ended on a user message"):
            return "open"
        return "concluded"
    if name == "dead_ends":
        return "constraints" if "correction" in heading else "dead_ends"
    if name == "open_threads":
        return "open" if ("open threads" in heading or "conflicts" in heading) else None
    if name == "basics":
        if body.startswith("What this is"):  # "**What this is:**", its asterisks stripped above
            return "asked"
        if "what the user asked" in heading:
            return "asked"
        return "constraints" if "constraints" in heading else None
    return None


@dataclass
class Gold:
    section: str
    item: str
    pointers: list[Pointer]
    required: bool
    note: str
    hit: bool = False


def _matches(item: Item, gold: Gold, source: Source) -> bool:
    for p in gold.pointers:
        if p.line not in item.lines:
            continue
        if p.field == "*" or not item.quote:
            return True
        whole = field_text(source.record(p.line), p.field) or ""
        quote = item.quote.strip("…").strip()
        at = whole.find(quote[:60]) if quote else -1
        if at < 0:
            at = whole.find(quote[-60:])
        if at >= 0 and at < p.end and at + len(quote) > p.start:
            return True
    return False


@dataclass
class Graded:
    """Per section: emitted claims that are right or wrong (precision), required items found or
    missed (recall). An emitted claim is right when it matches any gold item of its section,
    required or merely acceptable."""

    correct: int = 0
    false: int = 0
    found: int = 0
    missed: int = 0

    @property
    def precision(self) -> float:
        return self.correct / (self.correct + self.false) if self.correct + self.false else float("nan")

    @property
    def recall(self) -> float:
        return self.found / (self.found + self.missed) if self.found + self.missed else float("nan")

    def add(self, other: "Graded") -> None:
        self.correct += other.correct
        self.false += other.false
        self.found += other.found
        self.missed += other.missed


def briefs_of(split: str, mirrors: str, data: Path = DATA):
    """(source, gold items, built-in sections) of each graded session of ``split``."""
    srcs = sources(data)
    golds: dict[str, list[Gold]] = {}
    for row in _tsv("briefs.tsv", data):
        pointers = [_line_pointer(p) if p.endswith(":*") else Pointer.parse(p) for p in row["pointers"].split("|")]
        golds.setdefault(row["path"], []).append(Gold(row["section"], row["item"], pointers,
                                                      row["kind"] == "required", row["note"]))
    for path, items in sorted(golds.items()):
        source = srcs[path]
        if source.split not in PARTS[split]:
            continue
        yield source, items, builtin_sections(source, mirrors)


def builtin_sections(source: Source, mirrors: str) -> dict:
    """The built-in extractors' sections of one session, graded on the transcript alone."""
    from gitrefocus.handoff import extract, prepare, transcript_paths
    from gitrefocus.handoff.gitstate import GitState

    data_bytes = source.load(mirrors)
    with tempfile.TemporaryDirectory() as tmp:
        transcript = Path(tmp) / "session.jsonl"
        transcript.write_bytes(data_bytes)
        plan = prepare.prepare(transcript_paths.resolve(str(transcript)))
        return extract.builtin_sections(plan, GitState(problem="no repository: graded on the transcript"))


def brief_scores(split: str, mirrors: str, data: Path = DATA) -> tuple[dict[str, Graded], int, list[str]]:
    scores = {s: Graded() for s in SECTIONS}
    wrong: list[str] = []
    graded = 0
    for source, golds, sections in briefs_of(split, mirrors, data):
        graded += 1
        for item in brief_items(sections):
            hits = [g for g in golds if g.section == item.section and _matches(item, g, source)]
            for g in hits:
                g.hit = True
            if hits:
                scores[item.section].correct += 1
            else:
                scores[item.section].false += 1
                wrong.append(f"{item.section} false: {item.text[:200]} ({source.key})")
        for g in golds:
            if not g.required:
                continue
            if g.hit:
                scores[g.section].found += 1
            else:
                scores[g.section].missed += 1
                wrong.append(f"{g.section} missed: {g.item} — {g.note} ({source.key} "
                             f"L{'|L'.join(str(p.line) for p in g.pointers)})")
    return scores, graded, wrong


def _line_pointer(text: str) -> Pointer:
    m = re.fullmatch(r"L(\d+):\*", text)
    if not m:
        raise ValueError(f"not a corpus pointer: {text!r}")
    return Pointer(int(m.group(1)), "*", 0, 0, "")


# -- drawing the sentences (run once; the result is committed with its labels) ---------------------
def sample(source: Source, mirrors: str, per_user: int = 10, per_assistant: int = 12) -> list[dict]:
    """Sentences to label from one session: a seeded random draw (seed: the session's path) of its
    user sentences and of its assistant sentences, every place either is recorded, code left out."""
    data = source.load(mirrors)
    asked: set[str] = set()
    seen: set[tuple[str, str]] = set()
    found: dict[str, list[dict]] = {"user": [], "assistant": []}
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        for name, role, text in said(record, asked):
            for a, b in sentence_spans(text):
                sentence = text[a:b]
                if (role, sentence) in seen:
                    continue  # a resume replays records: one copy of each sentence
                seen.add((role, sentence))
                found[role].append({"path": source.key, "role": role,
                                    "pointer": str(Pointer(number, name, a, b, digest(sentence))),
                                    "text": sentence})
    rng = random.Random(digest(source.key))
    picked = rng.sample(found["user"], min(per_user, len(found["user"]))) + \
        rng.sample(found["assistant"], min(per_assistant, len(found["assistant"])))
    return sorted(picked, key=lambda r: Pointer.parse(r["pointer"]).line)


def _messages(source: Source, mirrors: str) -> list[tuple[int, str, str, str]]:
    """(line, field, role, text) of every place the corpus reader finds someone's words, in order."""
    data = source.load(mirrors)
    asked: set[str] = set()
    messages: list[tuple[int, str, str, str]] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict):
            messages += [(number, name, role, text) for name, role, text in said(record, asked)]
    return messages


def sample_boundary(source: Source, mirrors: str, taken: set[str], cap: int = 12) -> list[dict]:
    """The second draw, after the first was labelled and found thin in corrections, dead ends and
    open threads: sentences at turn boundaries — the user's messages, the first assistant text
    after each, and the session's last assistant text — not drawn before; a seeded random
    ``cap`` of them (seed: the path, reversed). Chosen by position, never by wording."""
    messages = _messages(source, mirrors)
    boundary = set()
    previous = None
    for i, (_, _, role, _) in enumerate(messages):
        if role == "user" or (role == "assistant" and previous == "user"):
            boundary.add(i)
        previous = role
    last = max((i for i, m in enumerate(messages) if m[2] == "assistant"), default=None)
    if last is not None:
        boundary.add(last)
    found, seen = [], set()
    for i in sorted(boundary):
        number, name, role, text = messages[i]
        for a, b in sentence_spans(text):
            pointer = str(Pointer(number, name, a, b, digest(text[a:b])))
            if pointer in taken or (role, text[a:b]) in seen:
                continue
            seen.add((role, text[a:b]))
            found.append({"path": source.key, "role": role, "pointer": pointer, "text": text[a:b]})
    rng = random.Random(digest(source.key[::-1]))
    picked = rng.sample(found, min(cap, len(found)))
    return sorted(picked, key=lambda r: Pointer.parse(r["pointer"]).line)


# -- the fresh held-out set (drawn once, by the rule in the corpus README) -----------------------
FRESH_SALT = "fresh-held-out:"
FRESH_SESSIONS = 16
FRESH_GRADED = 8


# the sets labelled before each round's draw (each fresh set is renamed retired-<n> once scored)
EARLIER = {1: ("tuning", "retired"), 2: ("tuning", "retired", "retired-2"),
           3: ("tuning", "retired", "retired-2", "retired-3"),
           4: ("tuning", "retired", "retired-2", "retired-3", "retired-4"),
           5: ("tuning", "retired", "retired-2", "retired-3", "retired-4", "retired-5"),
           6: ("tuning", "retired", "retired-2", "retired-3", "retired-4", "retired-5", "retired-6"),
           7: ("tuning", "retired", "retired-2", "retired-3", "retired-4", "retired-5", "retired-6", "retired-7"),
           8: ("tuning", "retired", "retired-2", "retired-3", "retired-4", "retired-5", "retired-6", "retired-7",
               "retired-8"),
           9: ("tuning", "retired", "retired-2", "retired-3", "retired-4", "retired-5", "retired-6", "retired-7",
               "retired-8", "retired-9")}
# round 3 spreads its set over client generations and session lengths: at most STRATUM_CAP
# sessions per (client bucket, spine-length bucket) in the first pass over the order
STRATUM_CAP = 2


def client_bucket(version: str) -> str:
    parts = [int(x) if x.isdigit() else -1 for x in version.split(".")[:3]] + [-1, -1, -1]
    if parts[:2] < [2, 1]:
        return "2.0"
    return "2.1.0-19" if parts[:2] == [2, 1] and parts[2] < 20 else "2.1.20+"


def length_bucket(chars: int) -> str:
    return "short" if chars <= 20_000 else "medium" if chars <= 40_000 else "long"


def draw_fresh(mirrors: str, data: Path = DATA, *, round_: int = 3, repo: str = "entireio/cli",
               commit: str = "394f81fab87f71aa8938d91ff7a067c524ff344b") -> list[dict]:
    """A fresh held-out set, by the README's rule: one file per session, nothing labelled or looked
    at before, eligible as the old corpus was. Round 1 drew the first fresh set (now ``retired-2``)
    beside the old corpus, in the order of sha256(salt + path); round 2 continued the same order
    with every session labelled so far excluded too (now ``retired-3``); round 3 excludes those too,
    orders by sha256("fresh-held-out-3:" + path) and spreads the set over client buckets and
    spine lengths (:data:`STRATUM_CAP` per stratum, then the order's next ones if short) (now
    ``retired-4``); round 4 does the same with ``retired-4`` excluded too and the salt
    "fresh-held-out-4:" (now ``retired-5``); round 5 with ``retired-5`` excluded too and the salt
    "fresh-held-out-5:", and — that side of the old split being used up — the set filled to 16 from
    the old tuning side's checkpoints outside every labelled set, in the order of
    sha256("fresh-held-out-5-fill:" + path), the strata counted on (split ``held-out-b`` then; both
    parts are ``retired-6`` now). Round 6 excludes ``retired-6`` too and, the untouched side holding
    no eligible session any more (counted before the draw: 0 there, 37 on the old tuning side),
    orders the unlabelled sessions of *both* sides in one order, sha256("fresh-held-out-6:" + path),
    eligible and spread as before, all split ``held-out``; 16 sessions, the first 8 taken with a
    spine of at most 40,000 characters graded."""

    where = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    listing = subprocess.run(["git", "-C", where, "ls-tree", "-r", "--long", commit], capture_output=True,
                             check=True, text=True).stdout.splitlines()
    files = {}
    for row in listing:
        meta, path = row.split("\t", 1)
        if re.fullmatch(r"[0-9a-f]{2}/[0-9a-f]{10}/\d+/full\.jsonl", path) and meta.split()[3].isdigit():
            files[path] = (meta.split()[2], int(meta.split()[3]))
    old = [p for p, s in sources(data).items() if s.split in EARLIER[round_]]
    taken_checkpoints = {_checkpoint(p) for p in old}
    redaction_files = DATA.parent / "real_redactions.tsv"
    if redaction_files.exists():
        taken_checkpoints |= {_checkpoint(row.split("\t")[2]) for row in
                              redaction_files.read_text(encoding="utf-8").splitlines()
                              if row and not row.startswith("#")}

    def blob(path: str) -> bytes:
        return subprocess.run(["git", "-C", where, "cat-file", "blob", files[path][0]], capture_output=True,
                              check=True).stdout

    session_id = _session_id

    old_ids = {session_id(blob(p)) for p in old if p in files} - {None}

    def candidates(side: str) -> dict[str, str]:
        """session id -> its largest file, of the checkpoints on ``side`` of the old split not excluded"""
        by_session: dict[str, str] = {}
        for path in sorted(files):
            if _checkpoint(path) in taken_checkpoints or split_of(path) != side:
                continue
            sid = session_id(blob(path)) or path
            if sid in old_ids:
                continue
            best = by_session.get(sid)
            if best is None or files[path][1] > files[best][1]:
                by_session[sid] = path
        return by_session

    by_session = candidates("retired")
    salt = FRESH_SALT if round_ < 3 else f"fresh-held-out-{round_}:"
    pool = list(by_session.values())
    if round_ >= 6:
        # neither side of the old split is untouched by now: one order over the unlabelled
        # sessions of both (each side's largest file of a session; the walk takes a session once)
        pool += list(candidates("tuning").values())
    order = sorted(pool, key=lambda p: hashlib.sha256((salt + p).encode()).hexdigest())

    def eligible(path: str) -> dict | None:
        data_bytes = blob(path)
        turns, version = turns_and_client(data_bytes)
        if turns < 3:
            return None
        chars = spine_chars(data_bytes)
        if chars > 80_000:
            return None
        return {"repo": repo, "commit": commit, "path": path, "sha256": hashlib.sha256(data_bytes).hexdigest(),
                "split": "held-out", "graded": "no", "client": version, "chars": chars}

    picked: list[dict] = []
    strata: dict[tuple[str, str], int] = {}

    def walk(order: list[str], split: str) -> None:
        skipped: list[dict] = []
        taken_ids = {session_id(blob(row["path"])) for row in picked} - {None}
        for path in order:
            if len(picked) == FRESH_SESSIONS:
                break
            if session_id(blob(path)) in taken_ids:
                continue  # one file per session: a session checkpointed on both sides is taken once
            row = eligible(path)
            if row is None:
                continue
            row["split"] = split
            stratum = (client_bucket(row["client"]), length_bucket(row["chars"]))
            if round_ >= 3 and strata.get(stratum, 0) >= STRATUM_CAP:
                skipped.append(row)
                continue
            strata[stratum] = strata.get(stratum, 0) + 1
            picked.append(row)
        picked.extend(skipped[:FRESH_SESSIONS - len(picked)])  # short of spread: the order's next ones

    walk(order, "held-out")
    if round_ == 5 and len(picked) < FRESH_SESSIONS:
        # the untouched side of the old split is used up: fill from the other side's checkpoints
        # outside every set labelled so far (the first round may have read built-in briefs of some)
        fill = sorted(candidates("tuning").values(),
                      key=lambda p: hashlib.sha256((f"fresh-held-out-{round_}-fill:" + p).encode()).hexdigest())
        walk(fill, "held-out-b")
    graded = 0
    for row in picked:  # in the order they were taken
        chars = row.pop("chars")
        if graded < FRESH_GRADED and chars <= 40_000:
            row["graded"] = "yes"
            graded += 1
    return picked


def _checkpoint(path: str) -> str:
    return "/".join(path.split("/")[:2])


# -- other repositories' sessions: how many a fresh set could draw on ---------------------------
# A transcript the Entire CLI keeps: `<n>/full.jsonl` (its v1 layout, on the branch
# `entire/checkpoints/v1` under `<two hex>/<ten hex>/`, or at the root of a per-checkpoint ref
# `refs/entire/checkpoints/<shard>/<id>`) or `<n>/raw_transcript` (its v2 layout), a large one cut in
# chunks `<name>.001`, `<name>.002` … that join with newlines.
TRANSCRIPT_RE = re.compile(r"((?:.*/)?\d+/(?:full\.jsonl|raw_transcript))(?:\.(\d{3}))?")
ELIGIBLE_TURNS = 3
ELIGIBLE_CHARS = 80_000
NEWEST_IN_CORPUS = "2.1.42"


@dataclass
class SessionCount:
    """One Claude Code session found in a repository: where its largest transcript is and the
    numbers the eligibility rule reads — never any of its text."""

    ref: str
    path: str
    session: str
    client: str
    turns: int
    chars: int | None  # spine characters; None when not measured (too few user turns)

    @property
    def eligible(self) -> bool:
        return self.turns >= ELIGIBLE_TURNS and self.chars is not None and self.chars <= ELIGIBLE_CHARS


@dataclass
class SourceCount:
    """What :func:`count_eligible` found under some refs of one repository."""

    repo: str
    refs: tuple[str, ...]
    commits: dict[str, str]  # each ref read -> the commit it named
    files: int  # transcript files read (a chunked one counted once)
    other_agents: int  # of them, not a Claude Code transcript (Codex, Gemini CLI, …)
    absent: int  # transcript files the tree lists but the mirror lacks (a snapshot may leave out the largest)
    sessions: list[SessionCount]

    @property
    def eligible(self) -> list[SessionCount]:
        return [s for s in self.sessions if s.eligible]

    @property
    def few_turns(self) -> int:
        return sum(s.turns < ELIGIBLE_TURNS for s in self.sessions)

    @property
    def too_long(self) -> int:
        return sum(s.turns >= ELIGIBLE_TURNS and not s.eligible for s in self.sessions)

    def newer_than(self, version: str = NEWEST_IN_CORPUS, eligible_only: bool = False) -> int:
        return sum(version_key(s.client) > version_key(version)
                   for s in (self.eligible if eligible_only else self.sessions))

    def clients(self, eligible_only: bool = False) -> tuple[str, str]:
        """The oldest and newest client version among the sessions (``("?", "?")`` when none)."""
        known = sorted({s.client for s in (self.eligible if eligible_only else self.sessions)}, key=version_key)
        return (known[0], known[-1]) if known else ("?", "?")


def version_key(version: str) -> tuple[int, ...]:
    """``"2.1.42"`` -> ``(2, 1, 42)``, for ordering client versions (an unparsable part counts -1)."""
    return tuple(int(part) if part.isdigit() else -1 for part in version.split(".")[:3])


def is_claude_code(data: bytes) -> bool:
    """Whether a transcript is Claude Code's: a user or assistant record carrying the session id
    and the client version (Codex, Gemini CLI, Cursor and the other agents Entire records write
    neither)."""
    for raw in data.split(b"\n"):
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") in ("user", "assistant") \
                and isinstance(record.get("sessionId"), str) and isinstance(record.get("version"), str):
            return True
    return False


def turns_and_client(data: bytes) -> tuple[int, str]:
    """(user turns, client version) of a transcript, counted as :func:`draw_fresh` counts them:
    records in which the corpus reader (:func:`said`) finds the user's words; the last ``version``."""
    asked: set[str] = set()
    turns, version = 0, "?"
    for raw in data.split(b"\n"):
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict):
            version = record["version"] if isinstance(record.get("version"), str) else version
            turns += any(role == "user" for _, role, _ in said(record, asked))
    return turns, version


def spine_chars(data: bytes) -> int:
    """The length of the spine ``git refocus handoff`` builds from a transcript."""
    from gitrefocus.handoff import prepare, transcript_paths

    with tempfile.TemporaryDirectory() as tmp:
        transcript = Path(tmp) / "session.jsonl"
        transcript.write_bytes(data)
        chars = prepare.prepare(transcript_paths.resolve(str(transcript))).stats["spine_chars"]
    return int(chars)


def count_eligible(mirrors: str, repo: str, *refs: str) -> SourceCount:
    """Count, without printing or keeping any of their text, the Claude Code sessions a repository
    of the mirrors (``<mirrors>/<owner>+<name>/repo``) holds under ``refs`` — each a branch, tag or
    commit, or, ending in ``/``, every ref under that prefix (``refs/entire/checkpoints/`` holds one
    ref per checkpoint in newer Entire releases) — and how many are eligible by the rule every fresh
    set was drawn by: one file per session (its largest, over all the refs), at least 3 user turns,
    a spine of at most 80,000 characters. Nothing is excluded for having been labelled: that is the
    draw's business."""
    where = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    if not os.path.isdir(where):
        raise MirrorMissing(f"no mirror of {repo} at {where}")
    commits: dict[str, str] = {}
    for ref in refs:
        if ref.endswith("/"):
            listed = subprocess.run(["git", "-C", where, "for-each-ref", "--format=%(refname) %(objectname)", ref],
                                    capture_output=True, check=True, text=True).stdout.split("\n")
            commits.update(line.split(" ", 1) for line in listed if line)
            continue
        resolved = subprocess.run(["git", "-C", where, "rev-parse", "--verify", "-q", ref + "^{commit}"],
                                  capture_output=True, text=True)
        if resolved.returncode != 0:
            raise MirrorMissing(f"the mirror of {repo} at {where} has no {ref}")
        commits[ref] = resolved.stdout.strip()

    def blob(sha: str) -> bytes:
        return subprocess.run(["git", "-C", where, "cat-file", "blob", sha], capture_output=True, check=True).stdout

    files = other = absent = 0
    best: dict[str, SessionCount] = {}
    sizes: dict[str, int] = {}
    for name, commit in sorted(commits.items()):
        chunks: dict[str, dict[int, tuple[str, int | None]]] = {}
        listing = subprocess.run(["git", "-C", where, "ls-tree", "-r", "--long", commit], capture_output=True,
                                 check=True, text=True).stdout.splitlines()
        for row in listing:
            meta, path = row.split("\t", 1)
            mode, _, sha, size = meta.split()
            found = TRANSCRIPT_RE.fullmatch(path)
            if mode in ("100644", "100755") and found:  # a file (no symlink); size "-" when the mirror lacks it
                chunks.setdefault(found.group(1), {})[int(found.group(2) or 0)] = \
                    (sha, int(size) if size.isdigit() else None)
        for path, parts in sorted(chunks.items()):
            if any(size is None for _, size in parts.values()):
                absent += 1
                continue
            files += 1
            data = b"\n".join(blob(parts[i][0]) for i in sorted(parts))
            if not is_claude_code(data):
                other += 1
                continue
            turns, client = turns_and_client(data)
            session = _session_id(data) or f"{name}:{path}"
            if session in best and sizes[session] >= len(data):
                continue
            chars = spine_chars(data) if turns >= ELIGIBLE_TURNS else None
            best[session] = SessionCount(name, path, session, client, turns, chars)
            sizes[session] = len(data)
    return SourceCount(repo, refs, commits, files, other, absent, sorted(best.values(), key=lambda s: (s.ref, s.path)))


def _session_id(data: bytes) -> str | None:
    for raw in data.split(b"\n")[:200]:
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
            return str(record["sessionId"])
    return None


def count_table(counts: list[SourceCount]) -> str:
    """The counts as a Markdown table (numbers and version strings only)."""
    out = ["| repository | refs | transcripts (absent) | other agents | Claude Code sessions | eligible | < 3 turns "
           "| spine > 80k | clients | newer than " + NEWEST_IN_CORPUS + " (eligible) |", "|---" * 10 + "|"]
    for c in counts:
        low, high = c.clients()
        out.append(f"| {c.repo} | {' '.join(c.refs)} | {c.files} ({c.absent}) | {c.other_agents} | {len(c.sessions)} | {len(c.eligible)} "
                   f"| {c.few_turns} | {c.too_long} | {low}–{high} | {c.newer_than()} "
                   f"({c.newer_than(eligible_only=True)}) |")
    return "\n".join(out)



# -- the seventh fresh set: many repositories (drawn once, by the rule in the corpus README) --------
V1 = "refs/heads/entire/checkpoints/v1"
# the repositories a seventh fresh set draws from, with the refs count_eligible reads there and the
# commit of the v1 branch pinned when they were counted (the README's table); entireio/cli (used up),
# entireio/entire-sem (a copy of entireio/entire-graph) and teslamint/entirecontext (probably seen)
# are not among them
OTHER_SOURCES: dict[str, tuple[tuple[str, ...], str | None]] = {
    "PackmindHub/context-evaluator": ((V1,), "63679d4764ce74bb41f8e5794f6183d43ea9ee88"),
    "FSM1/cipher-box": ((V1,), "e227f1183b594fa6bd5dbe58c75272434067e89b"),
    "JanDeDobbeleer/oh-my-posh": ((V1,), "0d1116c02814bec7231dbe3c3b9661106418a724"),
    "entireio/git-sync": ((V1, "refs/entire/checkpoints/"), "8e24a4e9214edf84e753675e5c3ebe0f60e15264"),
    "entireio/skills": ((V1, "refs/entire/checkpoints/v2/full/current"), "5fa5d6d2c9b976a2c6dfa60527c8ea351fae8be6"),
    "ShamsiievDmytro/entire-bmad": ((V1,), "3226e9b725b9fc472ddbe878a039e75a7225b948"),
    "blackgirlbytes/planetfall-seed-signalkit": ((V1,), "7703b64e6651ac323ea41f019d8b9dace5ce95b1"),
    "ClusterCockpit/cc-backend": ((V1,), "aba3a344129b2d25f6749bdf5c01692d9cf3d1c3"),
    "Safecast/safecast-map-MCP": ((V1,), "5ef9f6d6457c05904937ba02be8b2aae721c59c5"),
    "rommeld/leeson": ((V1,), "9fa2d0c7d7684f721ece0b5ad281cdb440e161d7"),
    "entireio/auth-go": ((V1,), "5ba12fda4864db5b5a49613bb62d70d011b242a7"),
    "entireio/external-agents": ((V1,), "59a3aa16978c98d7fd13546cf6855c5458f11963"),
    "Beep206/CyberVPN": ((V1,), "89efea0382702104b0524f7549735e1b5e5a91e2"),
    "computermode/test-repo": ((V1, "refs/entire/checkpoints/v1", "refs/entire/checkpoints/v2/full/current"),
                               "afda803df0574a112cc9c856060a13464ee0a56f"),
    "entireio/entire-graph": ((V1,), "7789048c1f7b7d311939f8021a5572699d598676"),
    "dougnukem/orpheus": ((V1,), "7656bca2a2cf872c166e9c0d5a3f4d604cf10051"),
    "punt-labs/langlearn-tts": ((V1,), "59919ba6544982052a51991c77804b193d8f1b72"),
    "nakamura-shuta/tij": ((V1,), "b073c1b2556a9d57b7bd2ff6a24e41463bffc053"),
    "entireio/devcontainer-features": ((V1,), "d4f32753c305e8ca6508849e97348a4b60e88446"),
    "entireio/herdr-trails": (("refs/entire/checkpoints/",), None),
    "blackgirlbytes/entire-token-costs-benchmark-tests": ((V1,), "8b54d1f6fa9864882a3eb58dce378b7010923501"),
    "f/awesome-chatgpt-prompts": ((V1,), "8767916ad8ed70e0df21f8b948b8ec4132f43ebb"),
    "stat-guy/imessage-mail": ((V1,), "caf82d9179a43ac9662afe7c39cc8132490adf37"),
    "blackgirlbytes/handwriter": ((V1,), "ef1454259f2fc4e7543c13d21a3d92c14c853071"),
    "younocode/claude-code-tutorial": ((V1,), "24743cf108dfecd80fa13a784b1761a05a424c13"),
    "samcat116/strato": ((V1,), "3df00321dca0111fae75fa234218695de9609096"),
    "codyborders/pup-mcp": ((V1,), "195fb8ee4f30c021387dae69772af9034486781e"),
    "Avyukth/cli": ((V1,), "93bf5501032b4c0b3c0ff123bb835188f902d8a2"),
    "EntityProcess/agentv": ((V1,), "47dca0eea369e545808f72dd9473c846f66dd79f"),
    "aunshx/checkpoint-scout": ((V1,), "5514478442651e9fcb65d715921fb7a3ee65d1ff"),
}
MANY_PER_REPO = 3


def fine_client_bucket(version: str) -> str:
    """The seventh round's client buckets: 2.0, 2.1.0–19, 2.1.20–42, 2.1.43–99, 2.1.100 and later."""
    major, minor, patch = (list(version_key(version)) + [-1, -1, -1])[:3]
    if (major, minor) < (2, 1):
        return "2.0"
    return "2.1.0-19" if patch < 20 else "2.1.20-42" if patch <= 42 else "2.1.43-99" if patch < 100 else "2.1.100+"


def draw_many(mirrors: str, data: Path = DATA, *, round_: int = 7,
              repos: dict[str, tuple[tuple[str, ...], str | None]] | None = None) -> list[dict]:
    """The seventh fresh held-out set, from many repositories, by the README's rule (written before
    the draw): candidates are the eligible Claude Code sessions :func:`count_eligible` finds in
    :data:`OTHER_SOURCES` at their pinned commits (at least 3 user turns, a spine of at most 80,000
    characters; one file per session in a repository, its largest), none whose session id is one of
    a session labelled before (every split of ``sessions.tsv``); ordered by
    sha256("fresh-held-out-7:" + repo + ":" + path) — ``path`` prefixed with its ref and a colon when
    the file is not on the v1 branch (a per-checkpoint ref holds ``0/full.jsonl`` at its root) —
    over all repositories in one order; a session id is taken once (the first in the order); at most
    :data:`MANY_PER_REPO` sessions of one repository; the order walked once taking a session unless
    its stratum (:func:`fine_client_bucket` × :func:`length_bucket`) already holds
    :data:`STRATUM_CAP`, then the skipped ones in order, until 16; the first 8 taken (in the order
    taken) with a spine of at most 40,000 characters graded. Rows as ``sessions.tsv``'s, split
    ``held-out``. Round 8 (the eighth fresh set) is the same rule with the salt "fresh-held-out-8:";
    the seventh set, labelled by then (``retired-8``), is excluded by rule 2 like every other. Round 9
    (the ninth) likewise, salt "fresh-held-out-9:", the eighth set (``retired-9``) excluded."""
    repos = OTHER_SOURCES if repos is None else repos
    labelled_ids: set[str] = set()
    for source in sources(data).values():
        try:
            sid = _session_id(source.load(mirrors))
        except MirrorMissing:
            continue
        if sid:
            labelled_ids.add(sid)
    pool: list[tuple[str, dict]] = []
    for repo, (refs, pinned) in sorted(repos.items()):
        counted = count_eligible(mirrors, repo, *refs)
        if pinned is not None and counted.commits.get(V1, pinned) != pinned:
            raise MirrorMissing(f"the mirror of {repo} has {V1} at {counted.commits[V1]}, not the pinned {pinned}")
        for s in counted.eligible:
            if s.session in labelled_ids:
                continue
            where = s.path if s.ref == V1 else f"{s.ref}:{s.path}"
            order = hashlib.sha256(f"fresh-held-out-{round_}:{repo}:{where}".encode()).hexdigest()
            pool.append((order, {"repo": repo, "commit": counted.commits[s.ref], "path": s.path, "session": s.session,
                                 "client": s.client, "chars": s.chars}))
    pool.sort(key=lambda item: item[0])
    picked: list[dict] = []
    skipped: list[dict] = []
    strata: dict[tuple[str, str], int] = {}
    per_repo: dict[str, int] = {}
    ids: set[str] = set()
    for _, row in pool:
        if len(picked) == FRESH_SESSIONS:
            break
        if row["session"] in ids or per_repo.get(row["repo"], 0) >= MANY_PER_REPO:
            continue
        stratum = (fine_client_bucket(row["client"]), length_bucket(row["chars"]))
        if strata.get(stratum, 0) >= STRATUM_CAP:
            skipped.append(row)
            continue
        strata[stratum] = strata.get(stratum, 0) + 1
        per_repo[row["repo"]] = per_repo.get(row["repo"], 0) + 1
        ids.add(row["session"])
        picked.append(row)
    for row in skipped:  # short of spread: the order's next ones, the per-repository cap still kept
        if len(picked) == FRESH_SESSIONS:
            break
        if row["session"] in ids or per_repo.get(row["repo"], 0) >= MANY_PER_REPO:
            continue
        per_repo[row["repo"]] = per_repo.get(row["repo"], 0) + 1
        ids.add(row["session"])
        picked.append(row)
    out, graded = [], 0
    for row in picked:
        where = os.path.join(mirrors, row["repo"].replace("/", "+"), "repo")
        content = read_transcript(where, row["commit"], row["path"])
        assert content is not None, row
        grade = graded < FRESH_GRADED and row["chars"] <= 40_000
        graded += grade
        out.append({"repo": row["repo"], "commit": row["commit"], "path": row["path"],
                    "sha256": hashlib.sha256(content).hexdigest(), "split": "held-out",
                    "graded": "yes" if grade else "no", "client": row["client"],
                    "key": session_key(row["repo"], row["commit"], row["path"]), "chars": row["chars"]})
    return out

# -- output -------------------------------------------------------------------------------------
def _fmt(x: float) -> str:
    return " n/a" if x != x else f"{x:.2f}"


def table(title: str, rows: dict, names: dict[str, str] | None = None) -> str:
    graded = isinstance(next(iter(rows.values())), Graded)
    counts = ("right", "wrong", "found", "missed") if graded else ("tp", "fp", "fn")
    out = [f"| {title} | precision | recall | {' | '.join(counts)} |", "|---" * (3 + len(counts)) + "|"]
    total = Graded() if graded else Score()
    for key, s in rows.items():
        total.add(s)
        out.append(f"| {(names or {}).get(key, key)} | {_fmt(s.precision)} | {_fmt(s.recall)} | "
                   + " | ".join(str(v) for v in _counts(s)) + " |")
    out.append(f"| all | {_fmt(total.precision)} | {_fmt(total.recall)} | " + " | ".join(str(v) for v in _counts(total))
               + " |")
    return "\n".join(out)


def _counts(s) -> tuple[int, ...]:
    return (s.correct, s.false, s.found, s.missed) if isinstance(s, Graded) else (s.tp, s.fp, s.fn)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cue-family and graded-brief scores on the real-session corpus.")
    parser.add_argument("--data", default=str(DATA), help="the corpus directory (default: tests/data/handoff_corpus)")
    parser.add_argument("--mirrors", default=os.environ.get("GIT_REFOCUS_CORPUS_MIRRORS", DEFAULT_MIRRORS),
                        help="where the repository mirrors are (<owner>+<name>/repo)")
    parser.add_argument("--split", choices=sorted(PARTS), action="append",
                        help="only this split (repeatable; 'retired' and 'old-tuning' are the tuning split's parts)")
    parser.add_argument("--regex-only", action="store_true",
                        help="score each cue family by its regex alone, not as the extractors decide it")
    parser.add_argument("--wrong", action="store_true", help="list every miss and false hit of the tuning split")
    parser.add_argument("--show", choices=sorted(PARTS), action="append", default=[],
                        help="list the misses and false hits of this split too")
    parser.add_argument("--count", nargs="+", action="append", metavar="REPO REF",
                        help="count the Claude Code sessions under the REFs of REPO's mirror and how many are "
                             "eligible (a REF ending in / : every ref under it); repeatable; prints counts only")
    args = parser.parse_args(argv)
    if args.count:
        try:
            print(count_table([count_eligible(args.mirrors, repo, *refs) for repo, *refs in args.count]))
        except MirrorMissing as exc:
            print(f"cannot count: {exc}. Mirror it as <mirrors>/<owner>+<name>/repo (a clone with that ref) "
                  "and pass --mirrors or set GIT_REFOCUS_CORPUS_MIRRORS.", file=sys.stderr)
            return 2
        return 0
    data = Path(args.data)
    srcs = sources(data)
    if not srcs:
        print(f"no corpus in {data}", file=sys.stderr)
        return 1
    repos = sorted({s.repo for s in srcs.values()})
    try:
        for source in srcs.values():
            source.load(args.mirrors)
    except MirrorMissing as exc:
        print(f"cannot print the tables: {exc}.\nThe corpus holds pointers only; the text lives in the public "
              f"repositories {', '.join(repos)}. Mirror each as <mirrors>/<owner>+<name>/repo (a clone with the "
              f"commits named in {data / 'sessions.tsv'}) and pass --mirrors or set GIT_REFOCUS_CORPUS_MIRRORS.",
              file=sys.stderr)
        return 2
    for split in args.split or SPLITS:
        sessions = [s for s in srcs.values() if s.split in PARTS[split]]
        cues, count, cue_wrong = cue_scores(split, args.mirrors, data, regex_only=args.regex_only)
        briefs, graded, brief_wrong = brief_scores(split, args.mirrors, data)
        print(f"## {split}: {len(sessions)} sessions, {count} labelled sentences, {graded} graded briefs\n")
        print(table("cue family", cues) + "\n")
        print(table("brief section", briefs, SECTION_TITLES) + "\n")
        if (split == "tuning" and args.wrong) or split in args.show:
            for line in cue_wrong + brief_wrong:
                print("  ", line)
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
