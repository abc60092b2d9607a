"""Which commits belong to a refocus, and the notes that say so (docs/ARCHITECTURE.md,
"The storage model"; docs/rewrites-and-privacy.md).

A commit is linked to a refocus by its ``Refocus-Id:`` trailer (added by the
commit-msg hook) or by a ``linked`` note line (``git refocus link``). When a
refocus completes, blocks or is abandoned, every linked commit gets a note
line naming the id and that final status::

    2026-04-26T19:23:00Z refocus 2026-04-26-mcp-standard-a3f91c linked status=result via=trailer

``log`` and doctor find commits with one ``git log`` walk over branches, tags,
remote branches and HEAD whose ``--grep`` also searches the refocus notes, so
only commits that mention the id are ever parsed. A finish does less, as in a
long history the notes are most of what that walk reads: the walk greps messages
only (the trailer), the ``linked`` events of the refocus's event log name the
other commits, and only the notes of those are read (:func:`named`).

A ``Refocus-Id:`` line counts anywhere in the message, not only in the final
trailer block: a forge's squash commit lists the squashed commits' messages one
after another, each with its own trailer, and that commit carries the work of
every refocus it names (docs/rewrites-and-privacy.md).
"""

from __future__ import annotations

import re

from gitrefocus.errors import RefocusError
from gitrefocus.model import note_line
from gitrefocus.model.note_line import NoteRecord
from gitrefocus.model.records import dataclass, field
from gitrefocus.ops import record
from gitrefocus.store import eventlog, git, localstate, notes
from gitrefocus.store.workspace import load_pygit2

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

    from gitrefocus.store.workspace import Workspace

TRAILER = "Refocus-Id"
LINKED = "linked"
FINISHED = ("result", "blocked", "abandoned")  # statuses a linkage note names as final
MAX_LINK = 1000
_FS, _RS = "\x1f", "\x1e"
_FORMAT = _FS.join([
    "%H", "%h", "%an", "%aI", "%cI", "%s", "%B", "%N",
]) + "%x1e"
# A Refocus-Id line anywhere in a message: the commit-msg hook's trailer, or one of
# several in a squash commit's body. The value is checked like any id.
_ID_LINE = re.compile(r"^[ \t]*(?i:refocus-id)[ \t]*:[ \t]*(\d{4}-\d{2}-\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*-[0-9a-f]{6})[ \t]*$",
                      re.MULTILINE)


def message_ids(message: str) -> list[str]:
    """The refocus ids a commit message names on ``Refocus-Id:`` lines, in order, once each."""
    return list(dict.fromkeys(_ID_LINE.findall(message)))


@dataclass
class Commit:
    oid: str
    abbrev: str
    author: str
    author_date: str
    committer_date: str
    subject: str
    trailer_ids: list[str] = field(default_factory=list)
    records: list[NoteRecord] = field(default_factory=list)  # refocus note lines on this commit

    def via(self, refocus_id: str) -> list[str]:
        out = []
        if refocus_id in self.trailer_ids:
            out.append("trailer")
        if any(r.refocus_id == refocus_id and r.event == LINKED for r in self.records):
            out.append("note")
        return out

    def final_statuses(self, refocus_id: str) -> set[str | None]:
        return {r.fields.get("status") for r in self.records if r.refocus_id == refocus_id and r.event == LINKED}

    def as_dict(self, refocus_id: str) -> dict[str, Any]:
        return {
            "oid": self.oid, "abbrev": self.abbrev, "author": self.author,
            "author_date": self.author_date, "committer_date": self.committer_date,
            "subject": self.subject, "via": self.via(refocus_id),
            "notes": [r.format() for r in self.records if r.refocus_id == refocus_id],
        }


def _revs(ws: Workspace) -> list[str]:
    revs = ["--branches", "--tags", "--remotes"]
    if ws.head_oid() is not None:
        revs.append("HEAD")
    return revs


def scan(ws: Workspace, needle: str) -> list[Commit]:
    """Reachable commits whose message or refocus note contains ``needle``, oldest first."""
    return _log(ws, *_revs(ws), "--reverse", "--no-notes", f"--notes={notes.NOTES_REF}",
                "-F", "-i", f"--grep={needle}")


def named(ws: Workspace, refocus_id: str, also: list[str]) -> list[Commit]:
    """The commits linked to ``refocus_id`` that a finish can know of without reading every
    note in the repository (in a long history the notes are most of what a walk reads):
    reachable commits whose *message* names it (the trailer), and ``also`` (the commits its
    ``linked`` events name, :func:`event_commits`), each with its notes. A note-only link the
    event log does not know of (one written while the log was not here) is found by doctor."""
    found = [c.oid for c in _log(ws, *_revs(ws), "--no-notes", "-F", "-i", f"--grep={refocus_id}")]
    oids = list(dict.fromkeys([*found, *(o for o in also if is_commit(ws, o))]))
    if not oids:
        return []
    commits = _log(ws, "--no-walk=unsorted", "--ignore-missing", "--no-notes", f"--notes={notes.NOTES_REF}", *oids)
    return [c for c in commits if c.via(refocus_id)]


def is_commit(ws: Workspace, oid: str) -> bool:
    """``oid`` names a commit here (an event from a remote may name anything)."""
    try:
        return isinstance(ws.repo.get(oid), load_pygit2().Commit)
    except (ValueError, KeyError):
        return False


def event_commits(ws: Workspace, refocus_id: str) -> list[str]:
    """The commits the ``linked`` events of ``refocus_id``'s event log here name."""
    tip = eventlog.read_tip(ws.repo, refocus_id)
    if tip is None:
        return []
    out: list[str] = []
    for _, event in eventlog.chain(ws.repo, tip.oid):
        commits = event.data.get("commits") if event.kind == LINKED else None
        out += [c for c in commits if isinstance(c, str)] if isinstance(commits, list) else []
    return out


def _log(ws: Workspace, *args: str) -> list[Commit]:
    proc = ws.git("log", *args, f"--format={_FORMAT}", "--", check=False)
    if proc.returncode != 0:
        if ws.head_oid() is None and not proc.stdout:
            return []  # no commits yet
        raise git.failure(f"git log in {ws.workdir}", proc)
    out = []
    for chunk in proc.stdout.split(_RS):
        chunk = chunk.lstrip("\n")
        if not chunk:
            continue
        parts = chunk.split(_FS)
        if len(parts) != 8:
            continue
        oid, abbrev, author, adate, cdate, subject, message, note_text = parts
        out.append(Commit(oid, abbrev, author, adate, cdate, subject, message_ids(message),
                          note_line.parse(note_text)))
    return out


def linked(ws: Workspace, refocus_id: str) -> list[Commit]:
    """Commits linked to ``refocus_id`` by trailer or ``linked`` note, oldest first."""
    return [c for c in scan(ws, refocus_id) if c.via(refocus_id)]


def all_linked(ws: Workspace) -> dict[str, list[Commit]]:
    """{refocus id: linked commits} for every refocus (one walk; for doctor)."""
    out: dict[str, list[Commit]] = {}
    for commit in scan(ws, "refocus"):
        ids = set(commit.trailer_ids) | {r.refocus_id for r in commit.records if r.event == LINKED}
        for rid in ids:
            out.setdefault(rid, []).append(commit)
    return out


def missing_final(ws: Workspace, refocus_id: str, status: str, commits: list[Commit] | None = None) -> list[Commit]:
    """Linked commits that do not yet carry a note with the final ``status``."""
    commits = linked(ws, refocus_id) if commits is None else commits
    return [c for c in commits if c.via(refocus_id) and status not in c.final_statuses(refocus_id)]


def record_final(ws: Workspace, refocus_id: str, status: str, commits: list[Commit] | None = None) -> int:
    """Add the final-status linkage note to every linked commit that lacks it."""
    todo = missing_final(ws, refocus_id, status, commits)
    for commit in todo:
        via = "trailer" if refocus_id in commit.trailer_ids else "link"
        record.note(ws, commit.oid, refocus_id, LINKED, status=status, via=via)
    return len(todo)


def on_finish(ws: Workspace, refocus_id: str, status: str) -> list[str]:
    """Called when a refocus completes, blocks or is abandoned; never raises.

    Links commits here and in the counterpart repository (when it is on this
    machine): the work usually sits in the destination, while abandon may run
    at the source. Returns warnings for the command's outcome (empty when
    every linkage note was written).
    """
    try:
        places = [ws]
        tip = eventlog.read_tip(ws.repo, refocus_id)
        other = record.counterpart(ws, tip.state) if tip is not None else None
        if other is not None:
            places.append(other)
        also = event_commits(ws, refocus_id)
        for place in places:
            record_final(place, refocus_id, status, named(place, refocus_id, also))
    except Exception as exc:  # noqa: BLE001 - the status change is recorded; linkage can be redone by doctor --repair
        localstate.log_error(ws.git_dir, "linkage", exc)
        return [f"could not add linkage notes for {refocus_id} ({exc}); `git refocus doctor --repair` adds them."]
    return []


def resolve_revs(ws: Workspace, revs: list[str]) -> list[str]:
    """Commit ids named by revisions and ranges (``A..B``, ``^A B``), oldest first, once each."""
    seen: dict[str, None] = {}
    for rev in revs:
        if not rev or rev.startswith("-"):
            raise RefocusError(f"{rev!r} is not a revision or range.")
        if ".." in rev or rev.startswith("^"):
            proc = ws.git("rev-list", "--reverse", "--end-of-options", rev, "--", check=False)
            if proc.returncode != 0:
                raise RefocusError(f"unknown revision range {rev!r}.")
            oids = proc.stdout.split()
        else:
            proc = ws.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
            if proc.returncode != 0:
                raise RefocusError(f"unknown revision {rev!r}.")
            oids = [proc.stdout.strip()]
        for oid in oids:
            seen.setdefault(oid, None)
            if len(seen) > MAX_LINK:
                raise RefocusError(f"those revisions select more than {MAX_LINK} commits; link a narrower range (A..B).")
    return list(seen)


VIAS = ("link", "rewrite", "detect")  # a ``linked`` event's ways, each leaving a note line per commit


def link_fields(status: str | None, via: str, replaces: list[str] | None = None) -> dict[str, str | None]:
    """The fields of the ``linked`` note line of ``via`` (the writer's and doctor's one definition)."""
    fields: dict[str, str | None] = {"status": status, "via": via}
    if replaces:
        fields["replaces"] = ",".join(oid[:12] for oid in replaces)
    return fields


def note_links(ws: Workspace, oid: str, refocus_id: str) -> bool:
    """Does commit ``oid`` already carry a ``linked`` note for ``refocus_id``?"""
    return any(r.refocus_id == refocus_id and r.event == LINKED for r in note_line.parse(notes.read_note(ws.repo, oid)))
