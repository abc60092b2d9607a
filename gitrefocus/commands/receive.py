"""``git refocus receive [ID]``: the source acknowledges a returned result."""

from __future__ import annotations

from gitrefocus.errors import RefocusError
from gitrefocus.model import JSONObject, lifecycle
from gitrefocus.model import events as ev
from gitrefocus.model.events import Event
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.model.records import asdict, dataclass
from gitrefocus.ops import places, record
from gitrefocus.store import catalog
from gitrefocus.store.catalog import waiting
from gitrefocus.store.eventlog import Tip
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any

    from gitrefocus.model.result import Result


@dataclass(frozen=True)
class ReceivedResult:
    """One result the source acknowledged."""

    id: str
    status: str
    received_at: str | None
    result: JSONObject | None  # as the child recorded it (see :attr:`parsed`)
    dest_dir: str | None

    @property
    def parsed(self) -> Result | None:
        # lazy: the SessionStart hook imports this module and rarely needs a parsed result
        from gitrefocus.model.result import Result

        return Result.from_dict(self.result) if self.result is not None else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ReceiveOutcome:
    received: list[ReceivedResult]

    def to_json(self) -> dict[str, Any]:
        return {"received": [r.to_json() for r in self.received]}


def receive_one(ws: Workspace, rid: str, session_id: str | None = None) -> ReceivedResult:
    def make(tip: Tip | None) -> Event:
        if tip is None:
            raise RefocusError(f"unknown refocus id {rid!r}.")
        if tip.state.status not in lifecycle.RETURNED:
            raise RefocusError(f"{rid} has no result to receive yet (it is {tip.state.status}).")
        if tip.state.received_at:
            raise RefocusError(f"{rid} was already received at {tip.state.received_at}.")
        return record.new_event(ws, rid, ev.RECEIVED, "source", session_id=session_id)

    out = record.write_event(ws, rid, make)
    state = out.tip.state
    record.note_event(ws, out.tip, SOURCE)
    other = record.counterpart(ws, state)
    record.propagate(ws, other, rid)
    return ReceivedResult(id=rid, status=state.status, received_at=state.received_at, result=state.result,
                          dest_dir=places.local_dir(ws, state, DEST))


def destinations(ws: Workspace, received: list[ReceivedResult]) -> list[Workspace | None]:
    """The destination repositories (on this machine) of the results just received."""
    return [record.counterpart_in(ws, [r.dest_dir]) if r.dest_dir else None for r in received]


def receive(*, refocus_id: str | None = None, cwd: str = ".", session_id: str | None = None) -> ReceiveOutcome:
    ws = Workspace.open(cwd)
    if refocus_id:
        ids = [catalog.resolve_id(ws, refocus_id)]
    else:
        ids = [e.id for e in waiting(catalog.select(ws, unreceived=lifecycle.RETURNED))]
    received = [receive_one(ws, rid, session_id) for rid in ids]
    from gitrefocus.ops import index_md

    index_md.refresh(ws, *destinations(ws, received))
    return ReceiveOutcome(received=received)
