"""Results waiting for the parent, told at most once each: the SessionStart hook's half of
``receive``.

A result is marked ``received`` only after the text naming it is on the hook's stdout
(:meth:`Delivery.mark`, run by ``claude/dispatch.py`` once the write succeeded), and only
the results that text names: a few per session, each whole, oldest first; the rest stay
waiting, counted in one line that points at ``git refocus receive``. So the hook's writes
follow what it shows, not the backlog, and a crash anywhere leaves each result either told
and marked, or still waiting (told again next time: at least once, never lost).
"""

from __future__ import annotations

import os
import time

from gitrefocus.claude import hookio
from gitrefocus.errors import RefocusError
from gitrefocus.model import lifecycle
from gitrefocus.model.events import RefocusState
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.ops import places, record
from gitrefocus.store import catalog, localstate
from gitrefocus.store.workspace import Workspace, is_inside

SUMMARY_CAP = 600
LIST_CAP = 5  # follow-ups, unmet criteria, material changes shown per result
MARK_WITHIN = 5.0  # seconds since the hook began: later, marking waits for the next session (the client kills at 10)
HEADER = ("git refocus: results came back from refocuses spawned here "
          "(telling this session records each as received):")


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def for_this_tree(ws: Workspace, source_dir: str | None, here: str) -> bool:
    """A result goes to a session working on the tree its parent worked on: a session
    in the source directory (``here``, resolved), below it, or above it (a monorepo's
    root); not one in a sibling directory. A source directory that is not in this
    work tree (a clone elsewhere) does not narrow anything."""
    if not source_dir:
        return True
    source = os.path.realpath(source_dir)
    if not is_inside(source, ws.workdir):
        return True
    return is_inside(here, source) or is_inside(source, here)


def full_result(ws: Workspace, state: RefocusState) -> str:
    """Where the parent reads the whole result: the brief file in the destination
    repository when it is on this machine and known to take part (at that repository's
    root, wherever in it the child worked), else the command that shows it from here."""
    other = record.counterpart(ws, state)
    path = catalog.brief_file(other, state.id) if other is not None else None
    return path if path else f"`git refocus show {state.id}` (run here)"


def render_result(ws: Workspace, entry: catalog.Entry) -> str:
    from gitrefocus.model.result import Result

    state = entry.state
    assert state is not None  # waiting() only yields entries with a state
    res = Result.from_dict(state.result or {})
    outcome = "completed" if state.status == lifecycle.RESULT else state.status
    lines = [f"- {entry.id} ({outcome}) in {places.shown(ws, state, DEST, short=False)}: {_cut(res.summary, SUMMARY_CAP)}"]
    unmet = [d for d in res.dod if not d.met]
    if unmet:
        said = [_cut(d.criterion, 160) + (f" ({_cut(d.note, 120)})" if d.note else "") for d in unmet[:LIST_CAP]]
        more = f"; {len(unmet) - LIST_CAP} more" if len(unmet) > LIST_CAP else ""
        lines.append(f"  Done-when criteria not met: {'; '.join(said)}{more}")
    for f in res.follow_ups[:LIST_CAP]:
        lines.append(f"  Suggested follow-up (the parent decides): {_cut(f.dir, 200)} {f.slug}: {_cut(f.reason, 300)}")
    if len(res.follow_ups) > LIST_CAP:
        lines.append(f"  ({len(res.follow_ups) - LIST_CAP} more follow-ups in the full result)")
    if res.material_changes:
        changes = "; ".join(f"{_cut(m.file, 100)}: {_cut(m.summary, 200)}" for m in res.material_changes[:LIST_CAP])
        lines.append(f"  Material changes: {changes}")
    lines.append(f"  Full result: {full_result(ws, state)}")
    return "\n".join(lines)


class Delivery:
    """The results one SessionStart tells, and how to mark them once told."""

    def __init__(self, ws: Workspace, session_id: str | None, shown: list[str], text: str) -> None:
        self.ws, self.session_id, self.shown, self.text = ws, session_id, shown, text

    def mark(self, told: str) -> list[str]:
        """Record ``received`` for each shown result that ``told`` (the text written to
        stdout) names; the ids marked. Stops early near the client's time limit."""
        from gitrefocus.commands.receive import destinations, receive_one

        received = []
        for rid in self.shown:
            if rid not in told or time.monotonic() - hookio.STARTED > MARK_WITHIN:
                continue
            try:
                received.append(receive_one(self.ws, rid, self.session_id))
            except RefocusError as exc:  # e.g. another session received it meanwhile
                localstate.log_error(self.ws.git_dir, "session-start:receive", exc)
        if received:
            from gitrefocus.ops import index_md

            index_md.refresh(self.ws, *destinations(self.ws, received))
        return [r.id for r in received]


def plan(ws: Workspace, cat: catalog.Catalog, *, cwd: str, session_id: str | None, most: int,
         room: int) -> Delivery | None:
    """The waiting results for this session that fit ``most`` and ``room`` characters."""
    here = os.path.realpath(cwd)
    ours: dict[str | None, bool] = {}  # per source directory: results share a handful of them
    back = []
    for entry in catalog.waiting(cat):
        source = places.local_dir(ws, entry.state, SOURCE, by_id=False) if entry.state else None
        if source not in ours:
            ours[source] = for_this_tree(ws, source, here)
        if ours[source]:
            back.append(entry)
    if not back:
        return None
    header = HEADER
    shown: list[str] = []
    blocks: list[str] = []
    used = len(header) + 120  # and the line counting the rest
    for entry in back[:most]:
        block = render_result(ws, entry)
        if used + 1 + len(block) > room:
            break
        shown.append(entry.id)
        blocks.append(block)
        used += 1 + len(block)
    rest = len(back) - len(shown)
    lines = [header, *blocks] if blocks else []
    if rest:
        lines.append(f"{rest} {'more results wait' if blocks else 'results wait'} to be received: "
                     "`git refocus receive` shows them and records them received.")
    return Delivery(ws, session_id, shown, "\n".join(lines)) if lines else None
