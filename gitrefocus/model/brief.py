"""The brief document: frontmatter + body sections + Result.

The file is the human view and is user-editable: the body is kept verbatim
across writes; only the frontmatter and the ``## Result`` section are rewritten.
"""

from __future__ import annotations

import re

from gitrefocus.errors import RefocusError
from gitrefocus.model import frontmatter, lifecycle, place
from gitrefocus.model.ids import RefocusId, is_session_id
from gitrefocus.model.records import dataclass, field
from gitrefocus.model.session import relaunch_command, transcript_pointer

TYPE_CHECKING = False  # no `typing` at run time: the post-tool-use hook imports this module
if TYPE_CHECKING:
    from typing import Any

STR, OPT_STR, LIST, BOOL, TS, OPT_TS = "str", "opt-str", "list", "bool", "ts", "opt-ts"

# Key order is the order written to disk: the core keys, then the optional ones
# (assigned_to, alternatives, decisions, pushback, transcript_saved...).
SCHEMA: dict[str, str] = {
    "id": STR,
    "status": STR,
    "child_session_id": STR,
    "spawn_mode": STR,
    "spawned_at": TS,
    "launched_at": OPT_TS,
    "completed_at": OPT_TS,
    "source_dir": STR,
    "source_repo": OPT_STR,
    "source_repo_id": OPT_STR,
    "source_session_id": OPT_STR,
    "dest_dir": STR,
    "dest_repo": OPT_STR,
    "dest_repo_id": OPT_STR,
    "slug": STR,
    "parent_refocus_id": OPT_STR,
    "related_refocus_ids": LIST,
    "done_when": LIST,
    "out_of_scope": LIST,
    "related": LIST,
    "assigned_to": OPT_STR,
    "alternatives_considered": LIST,
    "decision_rationale": OPT_STR,
    "reviewer_pushback": LIST,
    "relevant_files": LIST,
    "suggested_files": LIST,
    "transcript_saved": BOOL,
    "reason": OPT_STR,
}
_DEFAULTS: dict[str, Any] = {LIST: [], BOOL: False, OPT_STR: None, OPT_TS: None}
# keys written only when set: briefs written before portable places have none of them
OMITTED_WHEN_NULL = frozenset(place.PLACE_KEYS)
SPAWN_MODES = ("manual", "oneshot")
_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\Z")

# The body's sections, in the order a brief is written.
WHY = "Why this branch exists"
CONTEXT = "Inherited context"
DELIVERABLES = "Open questions / desired deliverables"
HARD_RULE_TITLE = "Hard rule for child"
POINTER_BACK = "Pointer back"
# what a child is handed when it starts (pickup prompt, SessionStart hook)
HANDOFF_SECTIONS = (WHY, CONTEXT, DELIVERABLES)

RESULT_HEADING = "## Result"
RESULT_PLACEHOLDER = "<empty until the child runs `git refocus complete`>"
HARD_RULE = (
    "- Children are leaves. If you discover work that belongs in a different\n"
    "  directory, do NOT run `git refocus spawn`. Surface it in\n"
    "  Result.suggested_follow_ups (`git refocus complete --follow-up DIR:SLUG:REASON`)\n"
    "  for the parent to decide."
)


def _check_type(key: str, kind: str, value: Any, where: str) -> Any:
    def bad(expected: str) -> RefocusError:
        got = type(value).__name__ if value is not None else "null"
        return RefocusError(f"{where}: frontmatter key {key!r} must be {expected}, not {got}.")

    if kind == STR:
        if not isinstance(value, str) or not value:
            raise bad("a non-empty string")
    elif kind in (OPT_STR, OPT_TS):
        if value is not None and not isinstance(value, str):
            raise bad("a string or null")
    elif kind == TS:
        if not isinstance(value, str):
            raise bad("a timestamp")
    elif kind == LIST:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad("a list of strings")
    elif kind == BOOL:
        if not isinstance(value, bool):
            raise bad("true or false")
    if kind in (TS, OPT_TS) and value is not None and not _TS_RE.match(value):
        raise RefocusError(
            f"{where}: frontmatter key {key!r} must be a UTC timestamp like 2026-04-26T19:23:00Z."
        )
    return value


def validate_meta(meta: dict[str, Any], where: str) -> dict[str, Any]:
    """Check types and values; return the metadata in canonical key order."""
    out: dict[str, Any] = {}
    for key, kind in SCHEMA.items():
        if key in meta:
            out[key] = _check_type(key, kind, meta[key], where)
        elif key in OMITTED_WHEN_NULL:
            continue
        elif kind in _DEFAULTS:
            out[key] = list(_DEFAULTS[kind]) if kind == LIST else _DEFAULTS[kind]
        else:
            raise RefocusError(f"{where}: frontmatter is missing the required key {key!r}.")
    for key, value in meta.items():  # keys a user added are kept, after ours
        if key not in out:
            out[key] = value
    for key in OMITTED_WHEN_NULL:
        if key in out and out[key] is None:
            del out[key]
    RefocusId(out["id"])
    place.check(out, where)
    if out["status"] not in lifecycle.STATUSES:
        raise RefocusError(
            f"{where}: unknown status {out['status']!r} (one of {', '.join(lifecycle.STATUSES)})."
        )
    if out["spawn_mode"] not in SPAWN_MODES:
        raise RefocusError(f"{where}: spawn_mode must be manual or oneshot.")
    if not is_session_id(out["child_session_id"]):
        raise RefocusError(f"{where}: child_session_id must be a UUIDv4.")
    if out["id"][-6:] != out["child_session_id"][:6]:
        raise RefocusError(f"{where}: the id's last 6 hex digits must start child_session_id.")
    return out


@dataclass
class Brief:
    meta: dict[str, Any]  # validated frontmatter (validate_meta), user keys kept
    body: str = ""

    @property
    def id(self) -> str:
        return str(self.meta["id"])

    @property
    def status(self) -> str:
        return str(self.meta["status"])

    def render(self) -> str:
        return frontmatter.render(self.meta) + self.body

    @classmethod
    def parse(cls, data: bytes | str, where: str) -> "Brief":
        if isinstance(data, bytes):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RefocusError(f"{where}: not valid UTF-8 (byte {exc.start}).") from None
        else:
            text = data
        yaml_text, body = frontmatter.split(text, where)
        meta = validate_meta(frontmatter.load(yaml_text, where), where)
        return cls(meta=meta, body=body)

    def with_meta(self, **changes: Any) -> "Brief":
        meta = dict(self.meta)
        meta.update(changes)
        return Brief(meta=meta, body=self.body)

    def with_result(self, result_markdown: str) -> "Brief":
        """Replace the ``## Result`` section; everything else is kept verbatim.

        The section runs to the next ``## `` heading. Text a person wrote in it
        besides the placeholder (or a previous result) is kept after the new result."""
        idx = _find_result(self.body)
        if idx is None:
            head = self.body if self.body.endswith("\n\n") else self.body.rstrip("\n") + "\n\n"
            return Brief(meta=self.meta, body=head + result_markdown)
        nxt = re.search(r"^## ", self.body[idx + len(RESULT_HEADING):], re.M)
        end = len(self.body) if nxt is None else idx + len(RESULT_HEADING) + nxt.start()
        section, tail = self.body[idx:end], self.body[end:]
        kept = _user_text(section)
        new = result_markdown if not kept else result_markdown.rstrip("\n") + "\n\n" + kept + "\n"
        if tail and not new.endswith("\n\n"):
            new += "\n"
        return Brief(meta=self.meta, body=self.body[:idx] + new + tail)

    def section(self, title: str) -> str | None:
        """The text of a ``## title`` section, or None."""
        m = re.search(rf"^## {re.escape(title)}[ \t]*\n(.*?)(?=^## |\Z)", self.body, re.M | re.S)
        if not m:
            return None
        return m.group(1).strip().removesuffix("---").strip()


def _user_text(section: str) -> str:
    """What a person wrote in a ``## Result`` section: not the heading, the
    placeholder, or a result git refocus rendered (``### `` subsections)."""
    lines = section.splitlines()[1:]
    if any(line.startswith("### ") for line in lines):  # a rendered result: keep only what follows it
        ends = [i for i, line in enumerate(lines) if line.startswith("- Completed at:")]
        lines = lines[ends[-1] + 1:] if ends else []
    return "\n".join(line for line in lines if line.strip() != RESULT_PLACEHOLDER).strip("\n")


def _find_result(body: str) -> int | None:
    m = re.search(rf"^{re.escape(RESULT_HEADING)}[ \t]*$", body, re.M)
    return m.start() if m else None


def _bullets(items: list[str], empty: str) -> str:
    if not items:
        return empty
    return "\n".join("- " + item.replace("\n", "\n  ") for item in items)


@dataclass
class BriefContent:
    """What the source says about the work, before it becomes a document."""

    reason: str
    context: list[str] = field(default_factory=list)
    deliverables: list[str] = field(default_factory=list)


def render_body(meta: dict[str, Any], content: BriefContent) -> str:
    pointer = _pointer_back(meta)
    deliverables = content.deliverables or [f"Meet every done_when criterion: {c}" for c in meta["done_when"]]
    # what the source already ruled out reaches the child with the rest of its context
    context = list(content.context) + [f"Already considered and rejected (do not re-propose): {a}"
                                       for a in meta.get("alternatives_considered") or []] \
        + [f"The user pushed back: {p}" for p in meta.get("reviewer_pushback") or []]
    return (
        f"\n# Brief: {meta['slug']}\n\n"
        f"## {WHY}\n{content.reason.strip()}\n\n"
        f"## {CONTEXT}\n{_bullets(context, '- (none recorded)')}\n\n"
        f"## {DELIVERABLES}\n{_bullets(deliverables, '- (none recorded)')}\n\n"
        f"## {HARD_RULE_TITLE}\n{HARD_RULE}\n\n"
        f"## {POINTER_BACK}\n{pointer}\n"
        f"---\n\n{RESULT_HEADING}\n{RESULT_PLACEHOLDER}\n"
    )


def _pointer_back(meta: dict[str, Any]) -> str:
    """Where the source session is and how the child continues. Portable briefs
    name repositories, not this machine's paths: ``git refocus show`` prints the
    command with the directory of the machine it runs on."""
    sid, child = meta["source_session_id"], meta["child_session_id"]
    source, dest = place.of(meta, meta, place.SOURCE), place.of(meta, meta, place.DEST)
    agent = meta.get("child_agent")
    if isinstance(agent, str) and agent != "claude":  # its session id is the client's, known once it started
        session = f"`{sid}`" if sid else "no session id was recorded"
        where = f", in {source.label()}" if source is not None and source.portable else ""
        return (f"- Source session: {session}{where}\n"
                f"- The child runs in {agent}; `git refocus show {meta['id']}` prints the command that continues it\n")
    if source is None or dest is None or not (source.portable and dest.portable):  # written before portable places
        source_dir = meta["source_dir"]
        source_pointer = (f"`{transcript_pointer(source_dir, sid)}`" if sid
                          else f"`{source_dir}` (no source session id was recorded)")
        return (f"- Source session: {source_pointer}\n"
                f"- To continue this child later: `{relaunch_command(meta['dest_dir'], child, resume=True)}`\n")
    session = f"`{sid}`" if sid else "no session id was recorded"
    return (f"- Source session: {session}, in {source.label()}\n"
            f"- To continue this child later: `claude --resume {child}` in {dest.label()}\n"
            f"  (`git refocus show {meta['id']}` prints the command with this machine's directory)\n")
