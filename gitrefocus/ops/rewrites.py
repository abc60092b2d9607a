"""Linkage that survives history rewrites (docs/rewrites-and-privacy.md).

A commit belongs to a refocus by a ``Refocus-Id:`` line in its message or a
``linked`` note on it (:mod:`gitrefocus.ops.linkage`). Both are tied to the
commit's id, so a rewrite can lose them: a reworded amend drops the trailer, a
forge's squash writes a message of its own, notes stay on the old commits.
Two things carry the link across:

- the ``post-rewrite`` hook (amend, rebase): git tells it which commit became
  which; every refocus the old commit carried that the new one's message does
  not name gets a ``linked ... via=rewrite replaces=<old>`` note on the new
  commit, and each pair is kept in ``$GIT_DIR/refocus/rewritten.jsonl``;
- ``link --detect``: commits on a branch whose change is the change of linked
  commits that are gone from every branch, by ``git patch-id``: of each gone
  commit (a rebase, a cherry-pick) and of the combined diff of each run of gone
  commits from where they left the branch (a squash).

"Gone" means not reachable from any branch, tag, remote branch or HEAD: the
commits git still holds through a reflog, those the notes name, or those of a
merged branch's head handed in with ``--from``.
"""

from __future__ import annotations

from gitrefocus.errors import RefocusError
from gitrefocus.model import note_line
from gitrefocus.model.records import dataclass
from gitrefocus.ops import linkage
from gitrefocus.store import localstate, notes, refs

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

    from gitrefocus.store.workspace import Workspace

MAX_GONE = 5000  # gone commits considered (newest first)
MAX_TARGETS = 2000  # commits of the range compared
MAX_RUN = 200  # commits in one squashed run
REWRITTEN_LOG = "rewritten.jsonl"  # under $GIT_DIR/refocus: what the post-rewrite hook carried
_FS, _RS = "\x1f", "\x1e"
_FORMAT = _FS.join(["%H", "%P", "%ct", "%s", "%B", "%N"]) + _RS


@dataclass
class Info:
    """A commit as linkage sees it."""

    oid: str
    parents: list[str]
    time: int
    subject: str
    message_ids: list[str]
    note_ids: list[str]  # refocus ids of its ``linked`` note lines

    @property
    def ids(self) -> list[str]:
        return list(dict.fromkeys(self.message_ids + self.note_ids))


def _parse(stdout: str) -> list[Info]:
    out = []
    for chunk in stdout.split(_RS):
        parts = chunk.lstrip("\n").split(_FS)
        if len(parts) != 6:
            continue
        oid, parents, when, subject, message, note_text = parts
        records = [r for r in note_line.parse(note_text) if r.event == linkage.LINKED]
        out.append(Info(oid, parents.split(), int(when or 0), subject, linkage.message_ids(message),
                        list(dict.fromkeys(r.refocus_id for r in records))))
    return out


def _log(ws: Workspace, *args: str, input: str | None = None) -> list[Info]:
    proc = ws.git("log", "--no-notes", f"--notes={notes.NOTES_REF}", f"--format={_FORMAT}", *args,
                  check=False, input=input)
    if proc.returncode != 0:
        raise RefocusError(f"git log failed in {ws.workdir}: {proc.stderr.strip()[:300]}")
    return _parse(proc.stdout)


def describe(ws: Workspace, oids: list[str]) -> dict[str, Info]:
    """{oid: Info} of the commits named (those that exist)."""
    present = _existing(ws, oids)
    if not present:
        return {}
    return {i.oid: i for i in _log(ws, "--no-walk=unsorted", "--stdin", input="".join(o + "\n" for o in present))}


def _existing(ws: Workspace, oids: list[str]) -> list[str]:
    """The commits among ``oids`` this repository holds (a gc may have pruned a gone one)."""
    if not oids:
        return []
    proc = ws.git("cat-file", "--batch-check=%(objectname) %(objecttype)", check=False,
                  input="".join(o + "\n" for o in oids))
    return [line.split()[0] for line in proc.stdout.splitlines() if line.endswith(" commit")]


def _reachable_negatives(ws: Workspace) -> list[str]:
    out = ["--not", "--branches", "--tags", "--remotes"]
    if ws.head_oid() is not None:
        out.append("HEAD")
    return out


def _noted(ws: Workspace) -> list[str]:
    """Commits refs/notes/refocus says are linked to a refocus."""
    tip = refs.resolve(ws.repo, notes.NOTES_REF)
    if tip is None or notes.unreadable(ws.repo):
        return []
    return [target for target, blob in notes.notes_in(ws.repo, tip).items()
            if any(r.event == linkage.LINKED for r in note_line.parse(notes.note_text(ws.repo, blob)))]


def gone_commits(ws: Workspace, from_rev: str | None = None, target: str = "HEAD") -> dict[str, Info]:
    """{oid: Info} of commits gone from every branch, oldest first: with ``from_rev``,
    the commits of that history that ``target`` does not hold (a merged branch's
    head); else those git keeps through a reflog or the notes name."""
    if from_rev is not None:
        found = _log(ws, "--topo-order", "--reverse", f"--max-count={MAX_GONE}", "--end-of-options",
                     from_rev, f"^{target}", "--")
        return {i.oid: i for i in found}
    noted = _existing(ws, _noted(ws))
    positives = "".join(o + "\n" for o in noted)
    found = _log(ws, "--topo-order", "--reverse", f"--max-count={MAX_GONE}", "--reflog",
                 *_reachable_negatives(ws), "--stdin", input=positives)
    return {i.oid: i for i in found}


# -- patch ids -----------------------------------------------------------------------------------------
def _patch_ids(ws: Workspace, lines: list[str]) -> dict[str, str]:
    """{commit: patch id} of ``git diff-tree --stdin`` lines (``C`` against its parent,
    or ``C BASE`` against BASE): stable patch ids, blind to line numbers and whitespace."""
    if not lines:
        return {}
    diff = ws.git("diff-tree", "-p", "--no-renames", "--stdin", input="".join(x + "\n" for x in lines), check=False)
    if diff.returncode != 0 or not diff.stdout:
        return {}
    proc = ws.git("patch-id", "--stable", input=diff.stdout, check=False)
    out = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2:
            out[parts[1]] = parts[0]
    return out


@dataclass(frozen=True)
class Match:
    commit: str  # the commit on the branch that carries the gone work
    subject: str
    ids: tuple[str, ...]  # refocus ids newly linked to it
    replaces: tuple[str, ...]  # the gone commits whose change it is, oldest first
    how: str  # "rebased" (one commit's patch) | "squashed" (a run's combined patch)

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "subject": self.subject, "ids": list(self.ids),
                "replaces": list(self.replaces), "how": self.how}


def _runs(gone: dict[str, Info]) -> dict[str, tuple[str, list[str]]]:
    """{tip: (base, run)}: for each gone commit, the run of gone commits from where
    its first-parent line left the branch (``base``, a kept commit) up to it."""
    out: dict[str, tuple[str, list[str]]] = {}
    for info in gone.values():  # oldest first: a parent's run is known before its child's
        if len(info.parents) != 1:
            continue
        parent = info.parents[0]
        if parent in out:
            base, run = out[parent]
            if len(run) < MAX_RUN:
                out[info.oid] = (base, run + [info.oid])
        elif parent not in gone:
            out[info.oid] = (parent, [info.oid])
    return out


def check_revs(ws: Workspace, revs: list[str]) -> None:
    """RefocusError unless every one of ``revs`` is a revision or range git knows."""
    for rev in revs:
        if not rev or rev.startswith("-"):
            raise RefocusError(f"{rev!r} is not a revision or range.")
        if ws.git("rev-parse", "--end-of-options", rev, "--", check=False).returncode != 0:
            raise RefocusError(f"unknown revision or range {rev!r}.")


def targets(ws: Workspace, revs: list[str] | None, gone: dict[str, Info]) -> list[Info]:
    """The commits to compare: those of ``revs``, else HEAD's since the oldest gone commit."""
    if revs:
        check_revs(ws, revs)
        return _log(ws, "--no-merges", f"--max-count={MAX_TARGETS}", "--end-of-options", *revs, "--")
    if ws.head_oid() is None or not gone:
        return []
    since = min(i.time for i in gone.values()) - 86400
    return _log(ws, "--no-merges", f"--max-count={MAX_TARGETS}", f"--since=@{since}", "HEAD", "--")


@dataclass(frozen=True)
class Detected:
    matches: list[Match]  # commits of the range to link, with the refocus ids they lack
    gone: dict[str, Info]  # the gone commits considered, oldest first
    covered: set[str]  # gone commits whose change a commit of the range carries (linked or not)

    def unmatched(self) -> list[Info]:
        """Gone linked commits whose change no commit of the range carries."""
        return [i for i in self.gone.values() if i.ids and i.oid not in self.covered]


def detect(ws: Workspace, revs: list[str] | None = None, from_rev: str | None = None) -> Detected:
    """The commits of ``revs`` that carry the change of gone linked commits. A commit
    that already names a refocus keeps it; only the refocus ids it lacks are matched."""
    gone = gone_commits(ws, from_rev, target=_tip_of(ws, revs))
    runs = {tip: (base, run) for tip, (base, run) in _runs(gone).items()
            if any(gone[c].ids for c in run)}
    done = rewritten(ws)  # amended or rebased here: the post-rewrite hook carried them already
    singles = [o for o, i in gone.items() if len(i.parents) == 1 and i.ids and o not in done]
    if not singles and not runs:
        return Detected([], gone, set())
    single_ids = _patch_ids(ws, singles)
    run_ids = _patch_ids(ws, [f"{tip} {base}" for tip, (base, run) in runs.items() if len(run) > 1])
    by_single: dict[str, str] = {}
    for oid in singles:
        if oid in single_ids:
            by_single.setdefault(single_ids[oid], oid)
    by_run: dict[str, str] = {}
    for tip in runs:
        pid = run_ids.get(tip)
        if pid is not None:
            by_run.setdefault(pid, tip)
    found = [t for t in targets(ws, revs, gone) if t.oid not in gone]
    target_ids = _patch_ids(ws, [t.oid for t in found])
    matches: list[Match] = []
    covered: set[str] = set()
    for t in found:
        pid = target_ids.get(t.oid)
        if pid is None:
            continue
        if pid in by_single:
            olds, how = [by_single[pid]], "rebased"
        elif pid in by_run:
            olds, how = runs[by_run[pid]][1], "squashed"
        else:
            continue
        covered.update(olds)
        ids = [rid for old in olds for rid in gone[old].ids if rid not in t.ids]
        ids = list(dict.fromkeys(ids))
        if ids:
            matches.append(Match(t.oid, t.subject, tuple(ids), tuple(olds), how))
    return Detected(matches, gone, covered)


def _tip_of(ws: Workspace, revs: list[str] | None) -> str:
    """The commit a range ends at (what a merged branch is compared with)."""
    if not revs:
        return "HEAD"
    last = revs[-1]
    if ".." in last:
        return last.split("..")[-1].lstrip(".") or "HEAD"
    return last.lstrip("^")


# -- what the post-rewrite hook carries -----------------------------------------------------------------
def read_pairs(text: str) -> list[tuple[str, str]]:
    """``old new [extra]`` lines as git gives them to post-rewrite (bad lines are skipped)."""
    out = []
    for line in text.splitlines()[:100_000]:
        parts = line.split()
        if len(parts) >= 2 and all(_is_hex(p) for p in parts[:2]):
            out.append((parts[0], parts[1]))
    return out


def _is_hex(value: str) -> bool:
    return len(value) in (40, 64) and all(c in "0123456789abcdef" for c in value)


@dataclass(frozen=True)
class Carry:
    old: str
    new: str
    ids: tuple[str, ...]  # refocus ids the old commit carried that the new one's message does not name


def to_carry(ws: Workspace, pairs: list[tuple[str, str]]) -> tuple[list[Carry], list[dict[str, Any]]]:
    """What a rewrite must carry, and the record of every pair that carried refocus work."""
    info = describe(ws, [o for pair in pairs for o in pair])
    carry, kept = [], []
    for old, new in pairs:
        before, after = info.get(old), info.get(new)
        if before is None or after is None or not before.ids:
            continue
        missing = tuple(rid for rid in before.ids if rid not in after.message_ids)
        kept.append({"old": old, "new": new, "ids": before.ids})
        if missing:
            carry.append(Carry(old, new, missing))
    return carry, kept


def remember(ws: Workspace, kind: str, at: str, kept: list[dict[str, Any]]) -> None:
    """Append the pairs to ``$GIT_DIR/refocus/rewritten.jsonl`` (a local record: doctor
    reads it to tell a rewritten commit from a lost one)."""
    for pair in kept:
        localstate.append_jsonl(ws.git_dir, REWRITTEN_LOG, record={"at": at, "kind": kind, **pair})


def rewritten(ws: Workspace) -> dict[str, str]:
    """{old: new} the post-rewrite hook recorded here."""
    return {r["old"]: r["new"] for r in localstate.read_jsonl(ws.git_dir, REWRITTEN_LOG)
            if isinstance(r.get("old"), str) and isinstance(r.get("new"), str)}


def _replaced(ws: Workspace) -> set[str]:
    """Gone commits something says were replaced: the post-rewrite hook's record, and the
    ``replaces`` of every ``linked`` note line (12-digit prefixes)."""
    out = {old[:12] for old in rewritten(ws)}
    tip = refs.resolve(ws.repo, notes.NOTES_REF)
    if tip is not None and not notes.unreadable(ws.repo):
        for blob in notes.notes_in(ws.repo, tip).values():
            for rec in note_line.parse(notes.note_text(ws.repo, blob)):
                if rec.event == linkage.LINKED:
                    out.update(o[:12] for o in rec.fields.get("replaces", "").split(",") if o)
    return out


def lost(ws: Workspace) -> tuple[list[Match], list[Info]]:
    """What doctor reports: commits of HEAD's recent history that carry gone linked work
    but are not linked yet, and gone linked commits nothing replaces. A gone commit linked
    by its message alone (an early draft of work still on a branch) counts only when no
    commit on any branch is linked to its refocus."""
    found = detect(ws)
    candidates = found.unmatched()
    if not candidates:
        return found.matches, []
    replaced = _replaced(ws)
    candidates = [i for i in candidates if i.oid[:12] not in replaced]
    if any(not i.note_ids for i in candidates):
        live = set(linkage.all_linked(ws))
        candidates = [i for i in candidates if i.note_ids or not set(i.message_ids) <= live]
    return found.matches, candidates
