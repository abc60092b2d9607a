"""What ``doctor`` checks beyond files, refs and linkage: evidence a remote sent
that was not taken, logs whose stored state cannot be believed, and what a
command killed between two writes leaves behind.

Each check returns findings (:class:`~gitrefocus.commands.findings.Finding`);
a repair is attached only when it loses nothing.
"""

from __future__ import annotations

import functools

from gitrefocus.commands.findings import INFO, Finding
from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import ref_name
from gitrefocus.store import eventmerge, refs
from gitrefocus.store.catalog import Catalog
from gitrefocus.store.workspace import Workspace


# -- evidence from remotes ---------------------------------------------------------------------
def check_remote_conflicts(ws: Workspace) -> list[Finding]:
    """Logs a remote published that sync did not take as they were (kept under
    ``refs/refocus-quarantine/remotes/``): reported, the local log being the truth."""
    out = []
    for name, rid, reasons in eventmerge.quarantined_remote_logs(ws.repo):
        out.append(Finding("remote-conflict", f"a remote's log of {rid} was not taken as it is: {reasons}; the local "
                           f"log was kept. Inspect it with `git log -p {name}`; `git update-ref -d {name}` dismisses "
                           f"this report.", rid, severity=INFO))
    return out


def check_logs(ws: Workspace, cat: Catalog) -> list[Finding]:
    """Event logs whose stored states cannot be believed (a merge marker with a
    state of its own, a ``state.json`` that is not the fold of its events) or
    that hold a malformed event: rebuilt from their events, the old log kept."""
    out = []
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        if entry.corrupt or entry.tip is None or entry.state is None:
            continue  # unreadable tips are check_entries' (quarantined whole)
        oid = refs.resolve(ws.repo, ref_name(entry.id))
        if oid is None:
            continue
        try:
            why = eventmerge.log_problem(ws.repo, entry.id, oid)
        except RefocusError as exc:
            why = str(exc)
        if why:
            out.append(Finding("log-untrusted", f"{ref_name(entry.id)} cannot be believed as it is: {why}.", entry.id,
                               fix=functools.partial(eventmerge.rebuild_log, ws.repo, entry.id),
                               repair=f"rebuild it from its events (the log as it is stays under "
                                      f"{refs.QUARANTINE_PREFIX})"))
    return out
