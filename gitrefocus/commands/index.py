"""``git refocus index``: regenerate docs/refocus/INDEX.md."""

from __future__ import annotations

from gitrefocus.model.records import asdict, dataclass
from gitrefocus.ops import index_md
from gitrefocus.ops.reconcile import settle
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class IndexOutcome:
    path: str  # INDEX.md
    active: int  # how many refocuses each section lists
    recent: int
    archived: int
    notices: list[str]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def index(*, cwd: str = ".") -> IndexOutcome:
    ws = Workspace.open(cwd)
    notices = settle(ws)
    m = index_md.overview_model(ws, index_md.INDEX_ROWS)  # only what the file shows is loaded
    path = index_md.write_model(ws, m)
    active, recent = min(len(m.active), index_md.INDEX_ROWS), min(len(m.recent), index_md.INDEX_ROWS)
    return IndexOutcome(path=path, active=active, recent=recent, archived=m.archived_count,
                        notices=notices)
