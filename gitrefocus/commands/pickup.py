"""``git refocus pickup ID``: the prompt a child starts with. Never mutates (``--run``
starts the child, whose own hooks record what it does)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model import lifecycle
from gitrefocus.model.brief import HANDOFF_SECTIONS, Brief
from gitrefocus.model.place import DEST
from gitrefocus.model.records import asdict, dataclass
from gitrefocus.ops import places, record
from gitrefocus.store import catalog, eventlog
from gitrefocus.store.transcripts import find_transcript
from gitrefocus.store.workspace import Workspace

LEAF_RULE = (
    "You are the child session of this refocus. Work only on what the brief asks, in this "
    "repository. You are a leaf: do not run `git refocus spawn`; put work that belongs "
    "elsewhere in `git refocus complete --follow-up DIR:SLUG:REASON`. When done, run "
    "`git refocus complete` with --summary, --dod for each criterion met (--dod-unmet N=WHY for one "
    "that is not), --artifact for what you produced, --material-change FILE=SUMMARY (or "
    "--no-material-changes REASON), and --commit to commit the brief, its result and the promoted "
    "context. If the work cannot be finished until something happens elsewhere, complete with "
    "--status blocked and say why in the summary."
)


def pickup_text(doc: Brief) -> str:
    meta = doc.meta
    parts = [f"Refocus {meta['id']} (status {meta['status']}).", "", LEAF_RULE, ""]
    parts.append("Definition of done:")
    parts += [f"{i}. {c}" for i, c in enumerate(meta["done_when"], 1)]
    if meta["out_of_scope"]:
        parts += ["", "Out of scope:"] + [f"- {c}" for c in meta["out_of_scope"]]
    if meta["relevant_files"]:
        parts += ["", "Relevant files:"] + [f"- {f}" for f in meta["relevant_files"]]
    if meta["related"]:
        parts += ["", "Related:"] + [f"- {r}" for r in meta["related"]]
    for title in HANDOFF_SECTIONS:
        text = doc.section(title)
        if text:
            parts += ["", f"{title}:", text]
    return "\n".join(parts) + "\n"


@dataclass(frozen=True)
class PickupOutcome:
    id: str
    prompt: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def pickup(*, refocus_id: str, cwd: str = ".") -> PickupOutcome:
    ws = Workspace.open(cwd)
    rid = catalog.resolve_id(ws, refocus_id)
    loaded = record.load_brief(ws, rid)
    if loaded is None:
        raise RefocusError(f"{rid} has no brief here.")
    status = loaded[0].status
    if status in lifecycle.TERMINAL:
        when = loaded[0].meta.get("completed_at")
        since = f" ({str(when)[:16].replace('T', ' ')})" if when else ""
        raise RefocusError(f"{rid} is already {lifecycle.in_words(status)}{since}; there is nothing to pick up "
                           f"(`git refocus show {rid}` shows what it came to).")
    return PickupOutcome(id=rid, prompt=pickup_text(loaded[0]))


def run_oneshot(*, refocus_id: str, allowed_tools: Sequence[str] = (), cwd: str = ".",
                env: Mapping[str, str] = os.environ) -> None:
    """Run the child of ``refocus_id`` now with its pickup prompt (``claude -p`` in its
    directory); RefocusError when it could not run or did not succeed."""
    from gitrefocus.claude.launch import run_child

    outcome = pickup(refocus_id=refocus_id, cwd=cwd)
    ws = Workspace.open(cwd)
    tip = eventlog.read_tip(ws.repo, outcome.id)
    state = tip.state if tip is not None else None
    if state is None or not state.dest_dir or not state.child_session_id:
        raise RefocusError(f"{outcome.id} has no event log here naming its child; run `git refocus doctor`.")
    dest = places.local_dir(ws, state, DEST)
    if dest is None:
        raise RefocusError(f"the child of {outcome.id} works in {places.shown(ws, state, DEST)}; "
                           "clone that repository here, or run the child where it is.")
    from gitrefocus.model import agents

    agent = agents.of_state(state.extra)
    session_id = str(agents.child_session(state))
    started = bool(state.launched_at or (agent == agents.CLAUDE and find_transcript(dest, session_id)))
    code = run_child(dest, session_id, outcome.prompt, resume=started, allowed_tools=allowed_tools, env=env,
                     agent=agent, refocus_id=outcome.id,
                     writable=places.child_writable(Workspace.try_open(dest), ws))
    if code != 0:
        raise RefocusError(f"the child session of {outcome.id} exited with status {code}; its output is above.")
