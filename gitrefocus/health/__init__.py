"""Health of a repository's shared context, read from git history.

- :mod:`.staleness`  ``git refocus health``: commits since each context file last changed,
  commits made for each in-progress refocus, briefs still waiting for launch.
- :mod:`.check`      ``git refocus check ID``: stated intent against git, as flags.
- :mod:`.resume`     what changed since this user's last session start here.
- :mod:`.decisions`  ``docs/context/decisions/INDEX.md`` from the ADR files.
- :mod:`.search`     briefs, results and context files, here and in ``refocus.searchPaths``.

Every public function takes keyword arguments and returns plain dicts, so the
CLI, the hooks and the tests call the same code.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

    from gitrefocus.store.workspace import Workspace


def for_status(ws: Workspace) -> dict[str, Any]:
    """The optional keys the status dashboard shows: stale context and what
    changed since the last session start (read-only: the marker is not moved).

    Each value is a list of display lines; a key is absent when there is
    nothing to say, and a failure here never breaks ``status``.
    """
    from gitrefocus.errors import RefocusError
    from gitrefocus.health import resume, staleness

    out: dict[str, Any] = {}
    try:
        stale = staleness.context_staleness(ws=ws, walk_limit=staleness.QUICK_WALK)
        lines = [staleness.describe(c) for c in stale["files"] if c["stale"]]
        if lines:
            out["stale_context"] = lines
    except RefocusError as exc:
        out["stale_context"] = [f"(not checked: {exc})"]
    try:
        changes = resume.changes_since_last_session(ws=ws, budget="detailed", update_marker=False)
        if changes:
            out["changes_since_last_session"] = resume.lines(changes)
    except RefocusError as exc:
        out["changes_since_last_session"] = [f"(not checked: {exc})"]
    return out
