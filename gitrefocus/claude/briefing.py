"""What a child session is told when it starts: rules first, then the brief, cut to fit.

The client caps a SessionStart hook's context (10,000 characters) and a long brief would
otherwise lose its end. So the parts that must survive come first and are never cut:
who this session is, where the full brief is, the leaf rule, how the work ends
(/refocus-complete, ``--status blocked``), what to commit, whether commits are tagged.
Then the reason, the done-when criteria, out of scope, relevant files and the handed-over
sections, each cut at a whole line with a pointer to the brief file when the room runs out.
Plain statements, not commands (the hook speaks to the model, not for the user).
"""

from __future__ import annotations

from gitrefocus.errors import RefocusError
from gitrefocus.model import place
from gitrefocus.model.brief import CONTEXT, DELIVERABLES, WHY
from gitrefocus.ops import places, record
from gitrefocus.store.workspace import Workspace

REASON_CAP = 2000  # characters of "why this branch exists" at most, even with room to spare
POINTER_ROOM = 32  # kept free below a line that is not a section's last: "(N more in the brief)"


def rules(rid: str, brief_rel: str, context_dir: str, tagging: bool) -> list[str]:
    """The lines no cut may touch."""
    tag = (f"Commits made in this session carry the trailer Refocus-Id: {rid}." if tagging else
           "Commits made here are not tagged with Refocus-Id: this repository has no git-refocus commit-msg "
           "hook (`git refocus init` installs it).")
    return [
        "- This session is a leaf: it never spawns (`git refocus spawn` and /refocus refuse here). Work that "
        "belongs in another repository goes into the result as a suggested follow-up (DIR:SLUG:REASON); the "
        "parent session decides.",
        "- The work ends with /refocus-complete, which records the result with `git refocus complete`: "
        "--summary, --dod N for each done-when criterion met, --dod-unmet N=WHY for each one not met, "
        "--artifact PATH=DESC, and --material-change FILE=SUMMARY or --no-material-changes REASON. Work that "
        "cannot be finished until something happens elsewhere ends with `git refocus complete --status blocked`, "
        "the blocker in the summary.",
        f"- The brief and its result ({brief_rel}) and the files promoted into {context_dir}/ are committed "
        "with the result: `git refocus complete ... --commit` does it.",
        f"- {tag}",
    ]


def child_context(ws: Workspace, rid: str, limit: int, *, tagging: bool) -> str:
    """The child's context, at most ``limit`` characters unless the rules alone need more."""
    loaded = record.load_brief(ws, rid)
    if loaded is None:
        raise RefocusError(f"{rid} has no brief in {ws.workdir}.")
    doc, path = loaded
    meta = doc.meta
    brief = path or ws.brief_path(rid)
    head = [
        f"git refocus: this session is the child session of refocus {rid} (status {meta['status']}), "
        f"spawned from {places.shown_place(ws, place.of(meta, meta, place.SOURCE), rid, short=False)}.",
        f"The full brief is {brief}; what is cut below is there.",
        *rules(rid, ws.rel(brief), ws.setting("contextDir"), tagging),
    ]
    out = "\n".join(head)
    room = limit - len(out)
    reason = (doc.section(WHY) or meta.get("reason") or "").strip()
    for title, lines in (
        (WHY, _cut_text(reason, min(REASON_CAP, room - len(WHY) - 4))),
        ("Definition of done (the result is judged against these)",
         [f"{i}. {c}" for i, c in enumerate(meta["done_when"], 1)]),
        ("Out of scope", [f"- {c}" for c in meta["out_of_scope"]]),
        ("Relevant files", [f"- {c}" for c in meta["relevant_files"]]),
        (CONTEXT, _lines(doc.section(CONTEXT))),
        (DELIVERABLES, _lines(doc.section(DELIVERABLES))),
    ):
        section = _fit(title, lines, limit - len(out) - 2)
        if section is None:
            break
        if section:
            out += "\n\n" + section
    return out


def _lines(text: str | None) -> list[str]:
    return [line for line in (text or "").splitlines() if line.strip()]


def _cut_text(text: str, room: int) -> list[str]:
    """A paragraph cut at a word to ``room`` characters, marked when cut."""
    if len(text) <= room:
        return _lines(text)
    cut = text[: max(room - 40, 0)].rsplit(" ", 1)[0].rstrip() if room > 40 else ""
    return _lines(cut + " … (cut: the rest is in the brief)") if cut else []


def _fit(title: str, lines: list[str], room: int) -> str | None:
    """``title:`` and as many whole ``lines`` as fit in ``room`` characters, then a
    count of the rest; "" for a section with nothing in it; None when not even the
    title and that count fit."""
    if not lines:
        return ""
    out = [f"{title}:"]
    used = len(out[0])
    for i, line in enumerate(lines):
        last = i == len(lines) - 1
        if used + 1 + len(line) + (0 if last else POINTER_ROOM) <= room:
            out.append(line)
            used += 1 + len(line)
            continue
        more = f"({len(lines) - i} more in the brief)"
        if used + 1 + len(more) > room:
            return None
        out.append(more)
        break
    return "\n".join(out)
