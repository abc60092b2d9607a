"""``git refocus sync [REMOTE]``: exchange refocus refs and notes through a git remote
(docs/sync-and-repair.md).

1. fetch ``refs/refocus/*`` and ``refs/notes/refocus`` into tracking refs
   under ``refs/refocus-remotes/<remote>/`` (never onto live refs, never under
   ``refs/remotes/``);
2. merge each event log and the notes into the live refs (:mod:`syncing`),
   bring brief files and the counterpart repository on this machine up to date;
3. push, without force, every ref the remote does not have yet; a rejection
   (someone pushed in between) starts again at 1.

Network operations use the git CLI (it carries the user's credentials) with
hooks disabled.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from gitrefocus.errors import ConflictError, RefocusError
from gitrefocus.model import lifecycle
from gitrefocus.model.events import RefocusState
from gitrefocus.model.ids import RefocusId, ref_name
from gitrefocus.model.records import asdict, dataclass, field
from gitrefocus.ops import index_md, record
from gitrefocus.store import catalog, eventlog, eventmerge, identity, locks, notes, refs
from gitrefocus.store import remote as remote_
from gitrefocus.store.notes import NOTES_REF
from gitrefocus.store.workspace import Workspace, load_pygit2

if TYPE_CHECKING:
    from pygit2 import Oid

MAX_ROUNDS = 8
STALE_LOCK_ROUNDS = 3  # a remote lock named by this many pushes in a row is no other writer's
PROGRESS_EVERY = 250


def choose_remote(ws: Workspace, name: str | None) -> str:
    names = remote_.names(ws)
    if name:
        if name not in names:
            raise RefocusError(f"no remote named {name!r}; add it with `git remote add {name} URL`.")
        return name
    for candidate in (
        ws.git("config", "--get", "refocus.remote", check=False).stdout.strip(),
        _upstream_remote(ws),
        "origin",
    ):
        if candidate and candidate in names:
            return candidate
    if len(names) == 1:
        return names[0]
    if not names:
        raise RefocusError("this repository has no remote to sync with; add one with `git remote add NAME URL`.")
    raise RefocusError(f"several remotes ({', '.join(names)}); name one: git refocus sync REMOTE.")


def _upstream_remote(ws: Workspace) -> str:
    branch = ws.git("symbolic-ref", "--short", "-q", "HEAD", check=False).stdout.strip()  # "" when detached
    if not branch:
        return ""
    return ws.git("config", "--get", f"branch.{branch}.remote", check=False).stdout.strip()


@dataclass(frozen=True)
class SyncOutcome:
    remote: str
    rounds: int  # of fetch, merge and push
    created: list[str]  # refocus ids by what happened to their ref here
    fast_forwarded: list[str]
    merged: list[str]
    notes: str  # what happened to refs/notes/refocus here (refs.SAME, ...)
    pushed: list[str]  # refocus ids whose ref the remote accepted
    notes_pushed: bool
    files_written: list[str]
    warnings: list[str]
    conflicts: list[dict[str, Any]] = field(default_factory=list)  # {id, reason, ...}: what was not taken
    url: str = ""  # where a push goes
    agreed: bool = True  # the owner agreed to push refocus data there
    withheld: int = 0  # refs not pushed for want of that agreement
    identity: dict[str, Any] = field(default_factory=dict)  # this repository's, the remote's, what sync did

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Report:
    """What a sync did so far (it may take several rounds)."""

    remote: str
    rounds: int = 0
    by_kind: dict[str, list[str]] = field(default_factory=dict)
    notes: str = refs.SAME
    pushed: list[str] = field(default_factory=list)
    notes_pushed: bool = False
    files_written: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    agreed: bool = True
    withheld: int = 0
    identity: dict[str, Any] = field(default_factory=dict)

    def add(self, kind: str, rid: str) -> None:
        bucket = self.by_kind.setdefault(kind, [])
        if rid not in bucket:
            bucket.append(rid)

    def outcome(self) -> SyncOutcome:
        def ids(kind: str) -> list[str]:
            return sorted(self.by_kind.get(kind, []))

        return SyncOutcome(
            remote=self.remote, rounds=self.rounds, created=ids(refs.CREATED), fast_forwarded=ids(refs.FAST_FORWARD),
            merged=ids(refs.MERGED) + ids(refs.ADOPTED), notes=self.notes, pushed=sorted(set(self.pushed)),
            notes_pushed=self.notes_pushed, files_written=self.files_written, warnings=self.warnings,
            conflicts=self.conflicts, url=self.url, agreed=self.agreed, withheld=self.withheld,
            identity=self.identity,
        )


class Sync:
    def __init__(self, ws: Workspace, remote: str, progress: Callable[[str], None] | None) -> None:
        self.ws = ws
        self.remote = remote
        self.progress = progress
        self.report = Report(remote)
        self.touched: set[str] = set()  # ids whose live ref changed here
        self.skipped: set[str] = set()  # ids whose remote ref could not be merged (warned)
        self._opened: dict[tuple[str | None, ...], Workspace | None] = {}
        self._locked: dict[str, int] = {}  # lock files the remote named, and in how many rounds

    def say(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)

    # -- network ------------------------------------------------------------
    def fetch(self) -> dict[str, list[str]]:
        """Fetch; return, per id, the tips the remote held before: where its tracking
        ref stood, and what this repository last pushed to it."""
        seen: dict[str, list[str]] = {}
        for tips in (refs.tips(self.ws.git_dir, remote_.tracking_prefix(self.remote)),
                     remote_.last_pushed(self.ws, self.remote)):
            for rid, oid in tips.items():
                seen.setdefault(rid, []).append(oid)
        self.say(f"fetching refocus refs and notes from {self.remote}...")
        remote_.fetch(self.ws, self.remote)
        return seen

    def push(self, names: list[str]) -> list[str]:
        self.say(f"pushing {len(names)} ref(s) to {self.remote}...")
        rejected, locked = remote_.push(self.ws, self.remote, names)
        self._stale_remote_lock(locked)
        return rejected

    def _stale_remote_lock(self, locked: list[str]) -> None:
        """A lock the remote named that outlives a push: left by a push that died.
        Retrying cannot get past it; say which file it is and how to remove it."""
        for path in locked:
            self._locked[path] = self._locked.get(path, 0) + 1
            age = locks.age(path)
            if (age is not None and age >= locks.STALE_AFTER) or self._locked[path] >= STALE_LOCK_ROUNDS:
                import shlex

                raise RefocusError(f"the remote {self.remote} is locked by {path}, left by a push that did not "
                                   f"finish; remove it where the remote lives (rm {shlex.quote(path)}) and run "
                                   f"`git refocus sync` again.")

    # -- identity -----------------------------------------------------------
    def identities(self) -> None:
        """A clone's first sync takes the identity of the repository it was cloned from
        (what the remote holds), so refocuses of that repository are its own: incoming or
        outgoing as they are there. A remote that holds another repository's identity
        (a fork syncing with its upstream) is said, and nothing is taken."""
        mine, theirs = identity.read(self.ws), identity.tracked(self.ws, self.remote)
        report = self.report.identity
        if mine is None and theirs is not None and identity.adopt(self.ws, self.remote):
            mine = theirs
            report["adopted"] = True
        report.update(here=mine, remote=theirs)
        if mine is not None and theirs is not None and mine != theirs:
            self._warn(f"the remote {self.remote} holds the refocus identity of another repository "
                       f"({theirs[:12]}; this one is {mine[:12]}): refocuses of that repository are neither "
                       "incoming nor outgoing here. See docs/paths-and-identity.md.")

    # -- merging ------------------------------------------------------------
    def merge(self, seen: dict[str, list[str]] | None = None) -> tuple[dict[str, str], dict[str, str] | None]:
        """Merge every tracking ref into the live refs (``seen``: where the tracking
        refs stood before this fetch); return the remote's state ({id: tip}, as
        :func:`refs.tips` lists it), and ours when nothing was merged (None: ours
        may have moved)."""
        seen = seen or {}
        listing_theirs = refs.tips_started(self.ws.git_dir, remote_.tracking_prefix(self.remote))
        ours = refs.tips(self.ws.git_dir)  # while git lists theirs
        theirs = listing_theirs()
        # a ref already where the remote has it needs nothing: one enumeration each, no per-ref
        # work, and no libgit2 to load when nothing differs (a no-op sync)
        differ = {rid: oid for rid, oid in theirs.items() if ours.get(rid) != oid}
        total = len(differ)
        if total >= PROGRESS_EVERY:
            self.say(f"merging {total} refocus event logs...")
        for n, (rid, oid) in enumerate(sorted(differ.items()), 1):
            if not RefocusId.is_valid(rid):
                self._warn(f"the remote has a ref {ref_name(rid)} that is not a refocus id; ignored.")
                self.skipped.add(rid)
                continue
            if not _is_oid(oid):
                self._warn(f"the remote's {ref_name(rid)} is a symbolic ref, not an event log; ignored.")
                self.skipped.add(rid)
                continue
            before = [_oid(tip) for tip in seen.get(rid, []) if _is_oid(tip) and tip != oid]
            was = eventlog.read_tip(self.ws.repo, rid) if rid in ours else None
            try:
                result = eventmerge.merge_ref(self.ws.repo, rid, _oid(oid), want_events=self._has_file(rid),
                                              seen=before)
            except locks.StaleLock:
                raise  # every other ref would wait on it too: name it and stop
            except RefocusError as exc:
                self._warn(f"{str(exc).rstrip('.')}. Skipped.")
                self.skipped.add(rid)
                continue
            self._conflicts(rid, oid, result)
            if result.kind == refs.MERGED and was is not None:  # a fast-forward loses nothing recorded here
                self._lost(rid, was.state.status)
            if result.changed_locally:
                self.report.add(result.kind, rid)
                self.touched.add(rid)
                if result.new_events:
                    self.report.files_written += record.materialize(self.ws, rid, result.new_events)
            if total >= PROGRESS_EVERY and n % PROGRESS_EVERY == 0:
                self.say(f"  {n}/{total}")
        try:
            kind = notes.merge_notes(self.ws, remote_.tracking_notes(self.remote))
        except RefocusError as exc:  # a corrupt remote notes ref must not stop the event logs
            self._warn(f"{exc} The notes were not merged.")
            kind = refs.SAME
        if kind != refs.SAME and kind != refs.AHEAD:
            self.report.notes = kind
        return theirs, None if differ else ours

    def _lost(self, rid: str, mine: str) -> None:
        """Say when the status this clone recorded did not survive the merge: the remote's
        transition came first (both events are kept; the fold takes the legal order)."""
        tip = eventlog.read_tip(self.ws.repo, rid)
        now = tip.state.status if tip is not None else mine
        if now != mine and not lifecycle.is_legal(mine, now):
            self._warn(f"{rid}: the {lifecycle.in_words(mine)} recorded here lost to the remote's "
                       f"{lifecycle.in_words(now)}, recorded first; it is {now} here too "
                       f"(`git refocus show {rid}` lists both events).")

    def _conflicts(self, rid: str, oid: str, result: eventmerge.RefMerge) -> None:
        """Report (and quarantine) what the remote's log said that was not taken,
        and the new events that were kept but not applied."""
        if result.rejected:
            where = eventmerge.quarantine_remote(self.ws.repo, self.remote, rid, _oid(oid), result.rejected)
            kept = "the local log was kept" if any(r.rewrite for r in result.rejected) else "the rest was merged"
            for r in result.rejected:
                self.report.conflicts.append({"id": rid, "reason": r.reason, "event_id": r.event_id,
                                              "quarantined": where})
            self._warn(f"the remote {self.remote}'s log of {rid} was not taken as it is: "
                       + "; ".join(r.reason for r in result.rejected) + f"; {kept} (the remote's log is kept "
                       f"under {where}).")
        for c in result.conflicts:
            reason = (f"event {c.event_id} ({c.kind}, {c.at}) is not legal after status {c.status}; "
                      f"it is kept in the log and not applied")
            self.report.conflicts.append({"id": rid, "reason": reason, "event_id": c.event_id, "quarantined": None})
            self._warn(f"{rid}: {reason}.")

    def _warn(self, message: str) -> None:
        if message not in self.report.warnings:
            self.report.warnings.append(message)

    def _has_file(self, rid: str) -> bool:
        return catalog.brief_file(self.ws, rid) is not None

    def to_push(self, theirs: dict[str, str], ours: dict[str, str] | None) -> list[str]:
        """The refs to push: ``ours`` as merge() listed them, or listed again when it moved some."""
        if ours is None:
            ours = refs.tips(self.ws.git_dir)
        names = [refs.ref_name(rid) for rid, oid in ours.items()
                 if theirs.get(rid) != oid and rid not in self.skipped and RefocusId.is_valid(rid)]
        ours_notes = self.ws.ref_target(NOTES_REF)
        if ours_notes is not None and ours_notes != self.ws.ref_target(remote_.tracking_notes(self.remote)):
            names.append(NOTES_REF)
        if identity.read(self.ws) is not None and identity.tracked(self.ws, self.remote) is None:
            names.append(identity.IDENTITY_REF)  # published where the remote has none yet
        return sorted(names)

    def remember_pushed(self, accepted: list[str], pushed: dict[str, str]) -> None:
        """The remote now holds what was pushed: recorded, so that the next sync
        knows which events the remote has held (and may not drop)."""
        held = {rid: pushed[rid] for rid in (n[len(refs.REF_PREFIX):] for n in accepted if n.startswith(refs.REF_PREFIX))
                if _is_oid(pushed.get(rid) or "")}
        remote_.remember(self.ws, self.remote, held)

    # -- this machine --------------------------------------------------------
    def propagate(self) -> None:
        """Carry what arrived to the counterpart repository when it is on this machine."""
        others = []
        for rid in sorted(self.touched):
            tip = eventlog.read_tip(self.ws.repo, rid)
            if tip is None:
                continue
            other = self._counterpart(tip.state)
            if other is not None:
                try:
                    self.report.files_written += record.propagate(self.ws, other, rid)
                    others.append(other)
                except RefocusError as exc:
                    self._warn(f"could not update {other.workdir} for {rid}: {exc}")
        if self.touched or others:
            index_md.refresh(*[w for w in [self.ws, *others] if index_md.expected(w)])

    def _counterpart(self, state: RefocusState) -> Workspace | None:
        """The counterpart on this machine, only when it already takes part in
        this refocus (a fetched log may name any directory: record.counterpart)."""
        return record.counterpart(self.ws, state, self._opened)

    # -- the whole thing -----------------------------------------------------
    def run(self) -> SyncOutcome:
        for round_ in range(1, MAX_ROUNDS + 1):
            self.report.rounds = round_
            seen = self.fetch()
            self.identities()
            theirs, ours = self.merge(seen)
            names = self.to_push(theirs, ours)
            if names and not self.report.agreed:
                self.report.withheld = len(names)
                self._warn(f"nothing was pushed: refocus data (refs/refocus/*, {NOTES_REF}) goes to {self.remote} "
                           f"({self.report.url}) only once you agree; run `git refocus sync --yes` to agree for "
                           f"this URL (kept in .git/config as {remote_.CONSENT_KEY}).")
                break
            if not names:
                break
            pushing = refs.tips(self.ws.git_dir)
            rejected = set(self.push(names))
            accepted = [r for r in names if r not in rejected]
            self.remember_pushed(accepted, pushing)
            self.report.pushed += [r[len(refs.REF_PREFIX):] for r in accepted if r.startswith(refs.REF_PREFIX)]
            self.report.notes_pushed = self.report.notes_pushed or NOTES_REF in accepted
            if identity.IDENTITY_REF in accepted:
                self.report.identity["published"] = True
            rejected = {r for r in rejected if r[len(refs.REF_PREFIX):] not in self.skipped}
            if not rejected:
                break
            self.say(f"{len(rejected)} ref(s) rejected (the remote moved); fetching and merging again...")
            time.sleep(0.05 * round_ * (0.5 + random.random()))
        else:
            raise ConflictError(
                f"the remote {self.remote} kept moving; {MAX_ROUNDS} rounds of fetch, merge and push did not "
                f"settle. Nothing was lost; run `git refocus sync` again."
            )
        self.propagate()
        return self.report.outcome()


def finish_merge(ws: Workspace, remote: str) -> SyncOutcome:
    """The local half of a sync that was cut short after its fetch: merge what the
    tracking refs of ``remote`` hold, bring files and INDEX.md up to date (no network)."""
    s = Sync(ws, remote, None)
    s.merge()
    s.propagate()
    return s.report.outcome()


def unmerged(ws: Workspace) -> dict[str, list[str]]:
    """{remote: refs its tracking refs hold that were fetched and never merged here}:
    a sync cut short between its fetch and its merge."""
    repo = ws.repo
    out: dict[str, list[str]] = {}
    rejected = {str(eventlog.commit_at(repo, oid).parent_ids[0])
                for _, oid in refs.iter_refs(repo, eventmerge.QUARANTINE_REMOTES)}
    for name, oid in refs.iter_refs(repo, refs.TRACKING_PREFIX):
        remote, _, rest = name.partition("/")
        if not isinstance(oid, load_pygit2().Oid) or str(oid) in rejected:
            continue
        if rest == "notes/refocus":
            live = refs.resolve(repo, NOTES_REF)
            if live is None or (live != oid and not repo.descendant_of(live, oid)):
                out.setdefault(remote, []).append(rest)
            continue
        rid = rest[len("refocus/"):]
        if not rest.startswith("refocus/") or not RefocusId.is_valid(rid):
            continue
        live = refs.resolve(repo, refs.ref_name(rid))
        if live is not None and (live == oid or repo.descendant_of(live, oid)):
            continue
        try:
            fetched = eventmerge.read_log(repo, rid, oid).ids
            held = {e.event_id for _, e in eventlog.chain(repo, live)} if live is not None else set()
        except RefocusError:
            continue
        if fetched and not set(fetched) <= held:  # (no events: not a log, which sync skips with a warning)
            out[remote] = [*out.get(remote, []), rest]
    return out


def _is_oid(tip: str) -> bool:
    return len(tip) == 40 and not tip.strip("0123456789abcdef")


def _oid(tip: str) -> Oid:
    """A listed tip as libgit2 takes it: an id, or a symbolic ref's target name
    as :func:`refs.iter_refs` gives it (and merge_ref refuses it)."""
    if _is_oid(tip):
        return cast("Oid", load_pygit2().Oid(hex=tip))
    return cast("Oid", tip)


@dataclass(frozen=True)
class SyncPlan:
    """What ``sync --dry-run`` found by comparing ref tips with the remote's (nothing fetched)."""

    remote: str
    to_take: list[str]  # refocus ids whose log the remote has and this repository has not, or differently
    to_push: list[str]  # refocus ids the remote lacks, or holds differently
    notes_differ: bool

    def to_json(self) -> dict[str, Any]:
        return {"remote": self.remote, "dry_run": True, "to_take": self.to_take, "to_push": self.to_push,
                "notes_differ": self.notes_differ}


def plan(ws: Workspace, remote: str) -> SyncPlan:
    theirs = remote_.advertised(ws, remote)
    ours = {ref_name(rid): str(oid) for rid, oid in refs.tips(ws.git_dir).items()}
    rid: Callable[[str], str] = lambda name: name[len(refs.REF_PREFIX):]  # noqa: E731
    differ = sorted(rid(n) for n in set(theirs) & set(ours) if theirs[n] != ours[n])
    take = sorted({rid(n) for n in theirs if n.startswith(refs.REF_PREFIX) and n not in ours} | set(differ))
    push = sorted({rid(n) for n in ours if n not in theirs} | set(differ))
    mine = refs.resolve(ws.repo, NOTES_REF)
    return SyncPlan(remote=remote, to_take=take, to_push=push,
                    notes_differ=theirs.get(NOTES_REF) != (str(mine) if mine is not None else None))


def dry_run(*, remote: str | None = None, cwd: str = ".") -> SyncPlan:
    """What a sync with ``remote`` would exchange, from the ref tips on both sides."""
    ws = Workspace.open(cwd)
    return plan(ws, choose_remote(ws, remote))


def unagreed(*, remote: str | None = None, cwd: str = ".") -> tuple[str, str] | None:
    """(remote, push URL) when a sync with ``remote`` would need the owner's agreement to push."""
    ws = Workspace.open(cwd)
    name = choose_remote(ws, remote)
    url = remote_.push_url(ws, name)
    return None if not url or remote_.agreed(ws, url) else (name, url)


def sync(*, remote: str | None = None, progress: Callable[[str], None] | None = None, yes: bool = False,
         cwd: str = ".") -> SyncOutcome:
    """Sync with ``remote``; ``progress``, when given, is told what is happening.

    Pushing needs the owner's agreement for the remote's push URL (docs/rewrites-and-privacy.md):
    ``yes`` gives it, and it is recorded, so a changed URL (a fork, a moved origin) needs it
    again. Without it the sync fetches and merges, and pushes nothing."""
    ws = Workspace.open(cwd)
    name = choose_remote(ws, remote)
    url = remote_.push_url(ws, name)
    agreed = remote_.agreed(ws, url)
    if not agreed and url and yes:
        remote_.agree(ws, url)
        agreed = True
    run = Sync(ws, name, progress)
    run.report.url, run.report.agreed = url, agreed
    return run.run()
