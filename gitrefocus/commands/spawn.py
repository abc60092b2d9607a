"""``git refocus spawn DEST``: the source writes a brief for a child in DEST."""

from __future__ import annotations

import datetime as _dt
import os
import shlex
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gitrefocus.claude import settings
from gitrefocus.errors import RefocusError
from gitrefocus.model import agents, clock, lifecycle
from gitrefocus.model import events as ev
from gitrefocus.model.agents import session_from_env
from gitrefocus.model.brief import Brief, BriefContent, render_body, validate_meta
from gitrefocus.model.events import Event, RefocusState
from gitrefocus.model.ids import RefocusId, derive_slug, new_session_id, validate_slug
from gitrefocus.model.place import DEST, SOURCE, Place, relative_dir
from gitrefocus.model.records import asdict, dataclass, field
from gitrefocus.ops import guards, index_md, places, record, setup
from gitrefocus.store import (
    atomic,
    catalog,
    eventlog,
    identity,
    interrupts,
    refs,
    registry,
)
from gitrefocus.store import scoped_commit as promised
from gitrefocus.store.eventlog import Tip
from gitrefocus.store.scoped_commit import scoped_commit
from gitrefocus.store.workspace import Workspace, is_inside

INHERITED_WORD_CAP = 300
REASON_WORD_CAP = 150


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
    source_files: list[str] = field(default_factory=list)  # of files_written, those in the source's work tree
    dry_run: bool = False  # nothing was written: files_written is what would be, the id an example

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _source_dir(ws: Workspace, env: Mapping[str, str]) -> str:
    project = env.get("CLAUDE_PROJECT_DIR")
    if project:
        real = os.path.realpath(project)
        if is_inside(real, ws.workdir):
            return real
    return ws.workdir


def _child_agent(asked: str | None, running: str | None, ws: Workspace) -> str:
    """The agent the child runs in: the one asked for, else the one spawn runs in, else the
    repository's ``refocus.agent``."""
    name = asked or running or str(ws.setting("agent"))
    if name not in agents.NAMES:
        raise RefocusError(f"refocus.agent is {name!r}; set it to one of {', '.join(agents.NAMES)}.")
    return name


def _agents_meta(child: str, source: str | None) -> dict[str, str]:
    if child == agents.CLAUDE and source in (None, agents.CLAUDE):
        return {}
    return {"child_agent": child, **({"source_agent": source} if source else {})}


def relaunch(agent: str, source: Workspace, dest_ws: Workspace, dest_dir: str, sid: str, rid: str, oneshot: bool) -> str:
    from gitrefocus.claude.launch import gemini_policies

    return agents.relaunch_command(agent, dest_dir, sid, refocus_id=rid, pickup=oneshot,
                                   writable=places.child_writable(dest_ws, source),
                                   policies=gemini_policies() if oneshot and agent == agents.GEMINI else ())


def relevant_files(files: Sequence[str], dest_dir: str) -> tuple[list[str], list[str]]:
    """``--file`` paths as the brief keeps them (relative to DEST), and warnings for those
    not there yet; a path that leaves DEST is refused: the child works in DEST only."""
    kept, missing = [], []
    for name in files:
        path = os.path.normpath(os.path.join(dest_dir, os.path.expanduser(name)))
        if path != dest_dir and not path.startswith(dest_dir.rstrip(os.sep) + os.sep):
            raise RefocusError(f"--file {name!r} is outside the destination {dest_dir}; name files in DEST "
                               "(relative to it).")
        rel = os.path.relpath(path, dest_dir)
        kept.append(rel)
        if not os.path.lexists(path):
            missing.append(rel)
    warnings = [f"--file {', '.join(missing)}: not in {dest_dir} (yet); the brief lists "
                f"{'it' if len(missing) == 1 else 'them'} as relevant anyway."] if missing else []
    return kept, warnings


def _text_args(**lists: Sequence[str]) -> None:
    for name, values in lists.items():
        for value in values or []:
            if not value.strip():
                raise RefocusError(f"--{name.replace('_', '-')} cannot be empty.")


class _States(Mapping[str, RefocusState]):
    """The states of the source's and the destination's refocuses, read one id
    at a time (the parent chain is a few lookups, not two whole catalogs)."""

    def __init__(self, source: Workspace, dest: Workspace) -> None:
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


STALE_SHOWN = 3  # un-launched refocuses a spawn warns about by name; `status` lists them all


def stale_outgoing(ws: Workspace, hours: float) -> list[str]:
    """Warnings about this repository's outgoing refocuses nobody launched after ``hours``:
    the oldest few by name. Ids begin with the day they were spawned, so the reserved ones
    are read oldest first and only until the few are found or the rest are too young."""
    if not hours:
        return []
    cat = catalog.select(ws)  # the index made fresh, nothing loaded
    reserved = cat.cache.ids_where(statuses=[lifecycle.RESERVED])
    young = clock.iso(clock.now() - _dt.timedelta(hours=hours))[:10]  # an id's date is its UTC spawn day
    out: list[str] = []
    rest = 0
    for entry in cat.each(reserved):
        if entry.id[:10] > young:
            break
        if len(out) == STALE_SHOWN:
            rest = sum(1 for rid in reserved[reserved.index(entry.id):] if rid[:10] <= young)
            break
        age = entry.unlaunched_hours(hours)
        if age is not None and entry.state is not None:
            out.append(f"pending refocus {entry.id} to {entry.state.dest_dir} still un-launched after "
                       f"{int(age)} h: continue waiting, or `git refocus abandon {entry.id} --reason ...`.")
    if rest:
        out.append(f"up to {rest} more reserved refocus(es) may be un-launched: `git refocus status` lists them.")
    return out


def _related(states: Mapping[str, object], text: str) -> str:
    """A --related-id: a known refocus by any unique prefix or slug, else a full id."""
    matches = catalog.match_ids(states, text)
    if len(matches) == 1:
        return matches[0]
    if not RefocusId.is_valid(text):
        raise RefocusError(f"--related-id {text!r} is not a refocus id." if not matches else
                           f"--related-id {text!r} is ambiguous: {', '.join(matches[:5])}.")
    return text


def uninitialised(dest: Workspace, written: Sequence[str]) -> list[str]:
    """A loud warning when DEST never ran `git refocus init`: spawn does not
    install a hook into another repository, so its commits would go untagged."""
    try:
        missing = setup.hook_step(dest).needed
    except RefocusError:
        missing = True
    if not missing:
        return []
    wrote = ", ".join(dest.rel(p) for p in written)
    return [f"{dest.workdir} has not run `git refocus init`: its commits will NOT carry Refocus-Id "
            f"(no commit-msg hook there). Wrote {wrote}. Run `git refocus -C {shlex.quote(dest.workdir)} init` "
            "(add --claude for the Claude Code hooks)."]


def _preflight(repos: list[Workspace], brief_path: str, subtrees: list[tuple[Workspace, str]]) -> None:
    """Refuse before the first write what would stop spawn halfway: a corrupt notes
    ref, a symlink, FIFO or directory where a file will be written, a repository
    that is read-only or has no room, a settings file that cannot take the hooks."""
    atomic.check_writable(brief_path)
    for ws in repos:
        record.preflight(ws, os.path.join(ws.refocus_dir, "INDEX.md"))
        for path, text in setup.planned(ws.workdir):  # reads .gitignore and CLAUDE.md, refusing symlinks
            atomic.check_writable(path, len(text))
    for ws, directory in subtrees:
        settings.wire_subtree(ws.workdir, directory, dry_run=True)


def wired_subtrees(written: Sequence[str], workdirs: Sequence[str]) -> list[str]:
    """A note for each subdirectory settings file spawn wired the hooks into."""
    return [f"wrote the git-refocus hooks into {path}: Claude Code runs a project's hooks only from the directory "
            "it starts in, so a session there needs them (commit the file, or use `git refocus init --claude --user`)."
            for path in written if path.endswith(os.path.join(".claude", "settings.json"))
            and os.path.dirname(os.path.dirname(path)) not in workdirs]


def _finish(source: Workspace, dest_ws: Workspace, tip: Tip, brief_path: str, doc: Brief, dest_dir: str,
            source_dir: str) -> tuple[list[str], list[str]]:
    """Everything spawn writes after the event log in DEST: the brief, the source's
    copy of the log, notes, first-use setup (the hooks in a subdirectory the child or
    the parent works in, too), INDEX in both repositories."""
    rid = tip.event.refocus_id
    with catalog.briefs_changing(dest_ws, brief_path):
        atomic.write_text(brief_path, doc.render())
    record.propagate(dest_ws, source, rid)
    record.note_event(source, tip, SOURCE)
    record.note_event(dest_ws, tip, DEST)
    dest_written = [brief_path] + setup.ensure(dest_ws.workdir) + settings.wire_subtree(dest_ws.workdir, dest_dir)
    source_written = setup.ensure(source.workdir) if not dest_ws.same_repo(source) else []
    source_written += settings.wire_subtree(source.workdir, source_dir)
    index_md.refresh(source, dest_ws)
    return dest_written, source_written


def spawn(
    *, dest: str, reason: str | None, done_when: Sequence[str], slug: str | None = None,
    out_of_scope: Sequence[str] = (), context: Sequence[str] = (), deliverables: Sequence[str] = (),
    alternatives: Sequence[str] = (), pushback: Sequence[str] = (), related: Sequence[str] = (), related_ids: Sequence[str] = (), files: Sequence[str] = (),
    parent: str | None = None, assign: str | None = None, from_transcript: str | None = None,
    oneshot: bool = False, agent: str | None = None, commit: bool = False, dry_run: bool = False, cwd: str = ".",
    env: Mapping[str, str] = os.environ,
) -> SpawnOutcome:
    source = Workspace.open(cwd)
    source_agent = agents.running_in(env)
    agent = _child_agent(agent, source_agent, source)
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
               deliverable=deliverables, alternative=alternatives, pushback=pushback, related=related, file=files)
    slug = validate_slug(slug) if slug is not None else derive_slug(os.path.basename(dest_dir) + " " + reason)

    files, warnings = relevant_files(files, dest_dir)
    states = _States(source, dest_ws)
    parent_id = states.resolve(parent) if parent else None
    ancestors = guards.parent_chain(states, parent_id)
    dest_id = identity.read(dest_ws)
    warnings += guards.check_chain(ancestors, dest_dir, source.setting("maxChainDepth"),
                                   Place(relative_dir(dest_dir, dest_ws.workdir), dest_id) if dest_id else None)
    related_ids = [_related(states, rid) for rid in related_ids]

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
    reason_words = len(reason.split())
    if reason_words > REASON_WORD_CAP or len(reason) > REASON_WORD_CAP * 20:
        warnings.append(f"--reason is {reason_words} words ({len(reason)} characters); it is meant as one short "
                        f"paragraph (under about {REASON_WORD_CAP} words), and the child reads all of it.")

    sid = new_session_id()
    now = clock.now()
    rid = RefocusId.build(now.date(), slug, sid).value
    brief_path = dest_ws.brief_path(rid)
    repos = [dest_ws] if dest_ws.same_repo(source) else [dest_ws, source]
    _preflight(repos, brief_path, [(dest_ws, dest_dir), (source, source_dir)])
    if dry_run:  # every check spawn makes before its first write passed; nothing is written
        there = [p for p, _ in setup.planned(dest_ws.workdir)]
        here = [p for p, _ in setup.planned(source.workdir)] if len(repos) == 2 else []
        return SpawnOutcome(
            id=rid, child_session_id=sid, status=lifecycle.RESERVED, brief_path=brief_path, dest_dir=dest_dir,
            source_dir=source_dir, parent_refocus_id=parent_id,
            relaunch_command=relaunch(agent, source, dest_ws, dest_dir, sid, rid, oneshot),
            marker=f"would spawn {rid} → {dest_dir} (the id and session id are examples); nothing was changed.",
            files_written=[brief_path, *there, *here], commits={}, warnings=warnings,
            source_files=[source.rel(p) for p in here], dry_run=True)
    message = f"refocus({rid}): spawned"
    try:  # the first writes: each side's identity, the --commit promises, local state naming each side's counterpart
        source_place, dest_place = places.place_of(source, source_dir), places.place_of(dest_ws, dest_dir)
        if commit:
            promised.promise(dest_ws, rid, [brief_path, *(p for p, _ in setup.planned(dest_ws.workdir))], message)
            if len(repos) == 2:
                promised.promise(source, rid, [p for p, _ in setup.planned(source.workdir)], message)
        record.remember_counterpart(dest_ws, rid, source)  # also where the brief is written (doctor)
        if len(repos) == 2:
            record.remember_counterpart(source, rid, dest_ws)
    except (OSError, RefocusError, refs.GitError()) as exc:
        raise RefocusError(f"could not write {atomic.what_failed(exc)}; nothing was spawned.") from None
    # what is stored is portable: each side's repository identity and the directory
    # relative to its root, never a path of this machine (docs/paths-and-identity.md)
    meta = validate_meta({
        "id": rid, "status": lifecycle.RESERVED, "child_session_id": sid,
        "spawn_mode": "oneshot" if oneshot else "manual", "spawned_at": clock.iso(now),
        "launched_at": None, "completed_at": None, "source_dir": source_place.dir,
        "source_repo": source_place.repo_name, "source_repo_id": source_place.repo_id,
        "source_session_id": session_from_env(env), "dest_dir": dest_place.dir,
        "dest_repo": dest_place.repo_name, "dest_repo_id": dest_place.repo_id,
        "slug": slug, "parent_refocus_id": parent_id, "related_refocus_ids": list(related_ids),
        "done_when": list(done_when), "out_of_scope": list(out_of_scope), "related": list(related),
        "assigned_to": assign, "relevant_files": list(files),
        "alternatives_considered": list(alternatives), "reviewer_pushback": list(pushback),
        # which agent runs each side, said when another agent than Claude Code takes part (then
        # for both sides, where known): a refocus of Claude Code's alone is stored as it always was
        **(_agents_meta(agent, source_agent)),
    }, "spawn")
    doc = Brief(meta=meta, body=render_body(meta, BriefContent(reason, context, list(deliverables))))
    snapshot = doc.render().encode("utf-8")

    def build(tip: Tip | None) -> tuple[Event, bytes]:
        if tip is not None:
            raise RefocusError(f"refocus {rid} already exists.")
        event = record.new_event(source, rid, ev.SPAWNED, "source", meta=meta)
        return event, snapshot

    with interrupts.deferred(f"{rid} was spawned in full"):
        try:
            tip = eventlog.append(dest_ws.repo, rid, build)
        except BaseException:
            if commit and refs.resolve(dest_ws.repo, refs.ref_name(rid)) is None:
                for ws in repos:  # refused before its event: nothing to commit
                    promised.kept(ws, rid)
            raise
        try:
            dest_written, source_written = _finish(source, dest_ws, tip, brief_path, doc, dest_dir, source_dir)
        except (OSError, RefocusError, refs.GitError()) as exc:
            # the refocus exists in DEST from here on: say what is missing and what completes it
            where = " and in ".join(dict.fromkeys(w.workdir for w in repos))
            raise RefocusError(f"{rid} was spawned in {dest_dir}, but could not write {atomic.what_failed(exc)}. "
                               f"Run `git refocus doctor --repair` in {where} to complete it.") from None
    warnings += uninitialised(dest_ws, dest_written)
    warnings += wired_subtrees(dest_written + source_written, [dest_ws.workdir, source.workdir])
    registry.try_register(source, dest_ws)  # the user-level list `--global` commands read
    warnings += stale_outgoing(source, source.setting("staleReservedHours"))

    commits: dict[str, str | None] = {}
    if commit:
        commits["dest"] = scoped_commit(dest_ws, dest_written, message, refocus_id=rid)
        promised.kept(dest_ws, rid)
        if len(repos) == 2:
            if source_written:
                commits["source"] = scoped_commit(source, source_written, message, refocus_id=rid)
            promised.kept(source, rid)
    return SpawnOutcome(
        id=rid, child_session_id=sid, status=lifecycle.RESERVED, brief_path=brief_path, dest_dir=dest_dir,
        source_dir=source_dir, parent_refocus_id=parent_id,
        relaunch_command=relaunch(agent, source, dest_ws, dest_dir, sid, rid, oneshot),
        marker=f"SPAWNED {rid} → {dest_dir} (child_session_id: {sid}). Awaiting result.",
        files_written=dest_written + source_written, commits=commits, warnings=warnings,
        source_files=[source.rel(p) for p in source_written],
    )
