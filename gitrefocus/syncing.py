"""Merging what a remote holds into the live refs, so that pushes fast-forward.

Event logs: the union of events comes from :func:`store.import_events` (a
deterministic, symmetric interleave). The rebuilt log does not contain the
remote's tip, so when the remote had events we lacked, a *merge marker* is put
on top: a commit with the merged log as first parent, the remote's tip as
second parent and the first parent's tree. ``store.chain`` follows first
parents and skips markers, so the marker adds no event; it only makes the push
a fast-forward. When both sides already hold the same events (two markers over
the same log), the remote's commit is adopted instead, so clones converge on
one commit rather than stacking markers.

Notes: ``git notes merge -s cat_sort_uniq`` (a union of lines; every line is
self-contained and timestamped) on a temporary notes ref, then a
compare-and-swap of ``refs/notes/refocus``.
"""

from __future__ import annotations

import os
import random
import subprocess
from dataclasses import dataclass, field

from gitrefocus import store
from gitrefocus.errors import RefocusError
from gitrefocus.events import Event
from gitrefocus.notes import NOTES_REF

TMP_NOTES_PREFIX = "refs/notes/refocus-tmp-"

SAME, AHEAD, CREATED, FAST_FORWARD, MERGED, ADOPTED = (
    "same", "ahead", "created", "fast-forward", "merged", "adopted")


@dataclass
class RefMerge:
    kind: str
    new_events: list[Event] = field(default_factory=list)  # events this repo did not have

    @property
    def changed_locally(self) -> bool:
        return self.kind in (CREATED, FAST_FORWARD, MERGED, ADOPTED)


def _event_ids(repo, oid) -> list[str]:
    return [e.event_id for _, e in store.chain(repo, oid)] if oid is not None else []


def _marker(repo, refocus_id: str, first, second):
    base = repo[first]
    message = f"refocus({refocus_id}): merge\n\nMerged: {second}\n"
    return repo.create_commit(None, base.author, base.committer, message, base.tree_id, [first, second])


def check_remote_tip(repo, refocus_id: str, oid) -> None:
    """Refuse a remote ref that is not an event log of this refocus."""
    try:
        tip = store.tip_at(repo, oid)
    except (KeyError, ValueError, TypeError) as exc:
        raise RefocusError(f"the remote's refs/refocus/{refocus_id} is not a refocus event log ({exc}).") from None
    if tip.event.refocus_id != refocus_id:
        raise RefocusError(f"the remote's refs/refocus/{refocus_id} holds events of {tip.event.refocus_id}.")


def merge_ref(repo, refocus_id: str, theirs, *, want_events: bool = True) -> RefMerge:
    """Bring ``refs/refocus/<id>`` up to date with the remote's ``theirs``."""
    refname = store.ref_name(refocus_id)
    before = store.resolve(repo, refname)
    if before == theirs:
        return RefMerge(SAME)
    check_remote_tip(repo, refocus_id, theirs)

    def attempt() -> str:
        ours = store.resolve(repo, refname)
        if ours == theirs:
            return SAME
        if ours is None:
            store.cas(repo, refname, theirs, None, "refocus: sync (new)")
            return CREATED
        if repo.descendant_of(ours, theirs):
            return AHEAD
        if repo.descendant_of(theirs, ours):
            store.cas(repo, refname, theirs, ours, "refocus: sync (fast-forward)")
            return FAST_FORWARD
        store.import_events(repo, refocus_id, store.export_events(repo, theirs))
        merged = store.resolve(repo, refname)
        if _event_ids(repo, merged) == _event_ids(repo, theirs):
            store.cas(repo, refname, theirs, merged, "refocus: sync (same events as the remote)")
            return ADOPTED
        store.cas(repo, refname, _marker(repo, refocus_id, merged, theirs), merged, "refocus: sync (merge)")
        return MERGED

    kind = store.retrying(f"merging the remote's {refname}", attempt)
    out = RefMerge(kind)
    if want_events and out.changed_locally:
        known = set(_event_ids(repo, before))
        out.new_events = [e for _, e in store.chain(repo, store.resolve(repo, refname)) if e.event_id not in known]
    return out


def _git_env(ws) -> dict:
    """git notes merge writes a commit: make sure it has an identity."""
    env = dict(os.environ)
    sig = ws.signature()
    for who in ("AUTHOR", "COMMITTER"):
        env.setdefault(f"GIT_{who}_NAME", sig.name)
        env.setdefault(f"GIT_{who}_EMAIL", sig.email)
    return env


def merge_notes(ws, theirs_ref: str) -> str:
    """Union the remote's notes (at ``theirs_ref``) into ``refs/notes/refocus``."""
    repo = ws.repo
    theirs = store.resolve(repo, theirs_ref)
    if theirs is None:
        return SAME

    def attempt() -> str:
        ours = store.resolve(repo, NOTES_REF)
        if ours == theirs:
            return SAME
        if ours is not None and repo.descendant_of(ours, theirs):
            return AHEAD
        if ours is None or repo.descendant_of(theirs, ours):
            store.cas(repo, NOTES_REF, theirs, ours, "refocus: sync notes (fast-forward)")
            return CREATED if ours is None else FAST_FORWARD
        tmp = f"{TMP_NOTES_PREFIX}{os.getpid()}-{random.getrandbits(32):08x}"
        try:
            repo.references.create(tmp, ours, force=True)
            proc = subprocess.run(
                ["git", "-c", "core.hooksPath=/dev/null", "-C", ws.workdir, "notes", f"--ref={tmp}",
                 "merge", "--quiet", "--strategy=cat_sort_uniq", theirs_ref],
                capture_output=True, text=True, env=_git_env(ws),
            )
            if proc.returncode != 0:
                last = (proc.stderr or proc.stdout).strip().splitlines()
                raise RefocusError(f"git notes merge failed: {last[-1] if last else 'exit ' + str(proc.returncode)}.")
            new = store.resolve(repo, tmp)
        finally:
            ref = repo.references.get(tmp)
            if ref is not None:
                ref.delete()
        store.cas(repo, NOTES_REF, new, ours, "refocus: sync notes (merge)")
        return MERGED

    return store.retrying(f"merging the remote's notes into {NOTES_REF}", attempt)
