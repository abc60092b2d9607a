"""``git refocus spawn DEST``: the source writes a brief for a child in DEST."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model import events as ev
from gitrefocus.model.brief import Brief, BriefContent, render_body, validate_meta
from gitrefocus.model.events import Event, RefocusState
from gitrefocus.model.ids import RefocusId, derive_slug, new_session_id, validate_slug
from gitrefocus.model.session import relaunch_command
from gitrefocus.ops import guards, index_md, record, setup
from gitrefocus.store import catalog
from gitrefocus.store.eventlog import Tip
from gitrefocus.store.scoped_commit import scoped_commit
from gitrefocus.store.workspace import Workspace, is_inside

INHERITED_WORD_CAP = 300


@dataclass(frozen=True)
class SpawnOutcome:
    id: str
    child_session_id: str
    status: str
    brief_path: str
    dest_dir: str
    source_dir: str
    parent_refocus_id: str | None
    relaunch_command: str  # what starts the child session
    marker: str  # the one line a transcript shows for the spawn
    files_written: list[str]
    commits: dict[str, str | None]  # "dest" / "source" -> commit made by --commit
    warnings: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "child_session_id": self.child_session_id, "status": self.status,
            "brief_path": self.brief_path, "dest_dir": self.dest_dir, "source_dir": self.source_dir,
            "parent_refocus_id": self.parent_refocus_id, "relaunch_command": self.relaunch_command,
            "marker": self.marker, "files_written": self.files_written, "commits": self.commits,
            "warnings": self.warnings,
        }


def _source_dir(ws: Workspace, env: Mapping[str, str]) -> str:
    project = env.get("CLAUDE_PROJECT_DIR")
    if project:
        real = os.path.realpath(project)
        if is_inside(real, ws.workdir):
            return real
    return ws.workdir


def _text_args(**lists: Sequence[str]) -> None:
    for name, values in lists.items():
        for value in values or []:
            if not value.strip():
                raise RefocusError(f"--{name.replace('_', '-')} cannot be empty.")


class _States(Mapping[str, RefocusState]):
    """The states of the source's and the destination's refocuses, read one id
    at a time (the parent chain is a few lookups, not two whole catalogs)."""

    def __init__(self, source: Workspace, dest: Workspace):
        self.repos = [source] if dest.same_repo(source) else [source, dest]
        self._seen: dict[str, RefocusState | None] = {}

    def __getitem__(self, rid: str) -> RefocusState:
        if rid not in self._seen:
            self._seen[rid] = next((e.state for ws in self.repos
                                    for e in catalog.load(ws, only=rid).entries.values() if e.state), None)
        state = self._seen[rid]
        if state is None:
            raise KeyError(rid)
        return state

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({rid for ws in self.repos for rid in catalog.known_ids(ws)}))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def resolve(self, text: str) -> str:
        """The one refocus with a readable state that ``text`` names."""
        text = text.strip()
        if text in self:  # a full id: a lookup, no listing
            return text
        matches = [rid for rid in catalog.match_ids(list(self), text) if rid in self]
        if len(matches) != 1:
            raise RefocusError(f"unknown parent refocus {text!r}." if not matches else f"ambiguous parent refocus {text!r}.")
        return matches[0]


def stale_outgoing(cat: catalog.Catalog, hours: float) -> list[str]:
    out = []
    for entry in cat.entries.values():
        age = entry.unlaunched_hours(hours)
        if age is not None and entry.state is not None:
            out.append(
                f"pending refocus {entry.id} to {entry.state.dest_dir} still un-launched after "
                f"{int(age)} h: continue waiting, or `git refocus abandon {entry.id} --reason ...`."
            )
    return out


def spawn(
    *, dest: str, reason: str, done_when: Sequence[str], slug: str | None = None,
    out_of_scope: Sequence[str] = (), context: Sequence[str] = (), deliverables: Sequence[str] = (),
    related: Sequence[str] = (), related_ids: Sequence[str] = (), files: Sequence[str] = (),
    parent: str | None = None, assign: str | None = None, from_transcript: str | None = None,
    oneshot: bool = False, commit: bool = False, cwd: str = ".", env: Mapping[str, str] = os.environ,
) -> SpawnOutcome:
    source = Workspace.open(cwd)
    guards.refuse_child_fork(source, env)
    guards.require_dest(dest)
    dest_ws = Workspace.open(dest, what="destination")
    dest_dir = os.path.realpath(dest)
    source_dir = _source_dir(source, env)
    if dest_dir == source_dir:
        raise RefocusError("the destination is the directory this session already works in; refocus moves work elsewhere.")
    if not reason or not reason.strip():
        raise RefocusError("spawn needs --reason: one paragraph on why this branch exists.")
    if not done_when:
        raise RefocusError("spawn needs at least one --done-when criterion; the child uses them as its definition of done.")
    _text_args(done_when=done_when, out_of_scope=out_of_scope, context=context,
               deliverable=deliverables, related=related, file=files)
    slug = validate_slug(slug) if slug is not None else derive_slug(os.path.basename(dest_dir) + " " + reason)

    warnings: list[str] = []
    states = _States(source, dest_ws)
    parent_id = states.resolve(parent) if parent else None
    ancestors = guards.parent_chain(states, parent_id)
    warnings += guards.check_chain(ancestors, dest_dir, source.setting("maxChainDepth"))
    for rid in related_ids:
        if not RefocusId.is_valid(rid):
            raise RefocusError(f"--related-id {rid!r} is not a refocus id.")

    context = list(context)
    if from_transcript:
        from gitrefocus.handoff import inherited_context

        bullets, cut = inherited_context(from_transcript, source.workdir)
        context += bullets
        if cut:
            warnings.append("the handoff's inherited context was cut to stay near 300 words.")
    words = sum(len(c.split()) for c in context)
    if words > INHERITED_WORD_CAP:
        warnings.append(f"inherited context is {words} words; briefs stay curated at about {INHERITED_WORD_CAP}.")

    sid = new_session_id()
    now = clock.now()
    rid = RefocusId.build(now.date(), slug, sid).value
    meta = validate_meta({
        "id": rid, "status": lifecycle.RESERVED, "child_session_id": sid,
        "spawn_mode": "oneshot" if oneshot else "manual", "spawned_at": clock.iso(now),
        "launched_at": None, "completed_at": None, "source_dir": source_dir,
        "source_session_id": env.get("CLAUDE_CODE_SESSION_ID") or None, "dest_dir": dest_dir,
        "slug": slug, "parent_refocus_id": parent_id, "related_refocus_ids": list(related_ids),
        "done_when": list(done_when), "out_of_scope": list(out_of_scope), "related": list(related),
        "assigned_to": assign, "relevant_files": list(files),
    }, "spawn")
    doc = Brief(meta=meta, body=render_body(meta, BriefContent(reason, context, list(deliverables))))
    snapshot = doc.render().encode("utf-8")

    def build(tip: Tip | None) -> tuple[Event, bytes]:
        if tip is not None:
            raise RefocusError(f"refocus {rid} already exists.")
        event = record.new_event(source, rid, ev.SPAWNED, "source", meta=meta)
        return event, snapshot

    from gitrefocus.store import atomic, eventlog

    eventlog.append(dest_ws.repo, rid, build)
    brief_path = dest_ws.brief_path(rid)
    atomic.write_text(brief_path, doc.render())
    record.propagate(dest_ws, source, rid)
    record.note(source, source.head_oid(), rid, "spawned", role="source", status="reserved", dest=dest_dir)
    record.note(dest_ws, dest_ws.head_oid(), rid, "spawned", role="dest", status="reserved", source=source_dir)

    dest_written = [brief_path] + setup.ensure(dest_ws.workdir)
    source_written = setup.ensure(source.workdir) if not dest_ws.same_repo(source) else []
    index_md.refresh(source, dest_ws)
    warnings += stale_outgoing(catalog.select(source, statuses=[lifecycle.RESERVED]),
                               source.setting("staleReservedHours"))

    commits: dict[str, str | None] = {}
    if commit:
        commits["dest"] = scoped_commit(dest_ws, dest_written, f"refocus({rid}): spawned")
        if source_written:
            commits["source"] = scoped_commit(source, source_written, f"refocus({rid}): spawned")
    return SpawnOutcome(
        id=rid, child_session_id=sid, status=lifecycle.RESERVED, brief_path=brief_path, dest_dir=dest_dir,
        source_dir=source_dir, parent_refocus_id=parent_id,
        relaunch_command=relaunch_command(dest_dir, sid, pickup_id=rid if oneshot else None),
        marker=f"SPAWNED {rid} → {dest_dir} (child_session_id: {sid}). Awaiting result.",
        files_written=dest_written + source_written, commits=commits, warnings=warnings,
    )
