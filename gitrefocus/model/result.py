"""The Result a child returns: validation, the ``--from-json`` return object
(docs/using.md), markdown."""

from __future__ import annotations

import json
from collections.abc import Mapping

from gitrefocus.errors import RefocusError
from gitrefocus.model import JSONObject, recorded
from gitrefocus.model.brief import RESULT_HEADING
from gitrefocus.model.ids import is_session_id, slug_problem
from gitrefocus.model.records import dataclass, field

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any

RETURN_STATUSES = ("completed", "failed", "partial", "blocked")
_MARKDOWN_STATUS = {"completed": "completed", "failed": "blocked", "partial": "blocked", "blocked": "blocked"}


@dataclass(frozen=True)
class MaterialChange:
    """A decision to promote into ``<contextDir>/<file>``."""

    file: str
    summary: str

    def to_dict(self) -> JSONObject:
        return {"file": self.file, "summary": self.summary}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> MaterialChange:
        return cls(file=recorded(raw, "file"), summary=recorded(raw, "summary"))


@dataclass(frozen=True)
class DodItem:
    """One ``done_when`` criterion and whether the child says it was met."""

    criterion: str
    met: bool
    note: str | None = None

    def to_dict(self) -> JSONObject:
        return {"criterion": self.criterion, "met": self.met, "note": self.note}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> DodItem:
        return cls(criterion=recorded(raw, "criterion"), met=recorded(raw, "met"), note=recorded(raw, "note"))


@dataclass(frozen=True)
class Artifact:
    """A file the child produced."""

    path: str
    description: str | None = None

    def to_dict(self) -> JSONObject:
        return {"path": self.path, "description": self.description}

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Artifact:
        return cls(path=recorded(raw, "path"), description=recorded(raw, "description"))


@dataclass(frozen=True)
class FollowUp:
    """Work that belongs elsewhere; the parent decides. A return object may
    give more keys than these three: they are kept (``extra``), in its order."""

    dir: str
    slug: str
    reason: str
    extra: Mapping[str, Any] = field(default_factory=dict)
    key_order: tuple[str, ...] = field(default=("dir", "slug", "reason"), compare=False, repr=False)

    def to_dict(self) -> JSONObject:
        values = {"dir": self.dir, "slug": self.slug, "reason": self.reason, **self.extra}
        out = {k: values[k] for k in self.key_order if k in values}
        out.update((k, v) for k, v in values.items() if k not in out)
        return out

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> FollowUp:
        extra = {k: v for k, v in raw.items() if k not in ("dir", "slug", "reason")}
        return cls(dir=recorded(raw, "dir"), slug=recorded(raw, "slug"), reason=recorded(raw, "reason"),
                   extra=extra, key_order=tuple(raw))


@dataclass(frozen=True)
class Result:
    """What a child returns. Built from flags or a return object, then
    :meth:`checked` before it is recorded; :meth:`from_dict` reads one back
    from an event (as recorded, without judging it again)."""

    status: str  # completed | blocked (the Result section's Status)
    summary: str
    material_changes: tuple[MaterialChange, ...] = ()
    no_material_changes: str | None = None  # the N/A reason, when there are none
    dod: tuple[DodItem, ...] = ()
    artifacts: tuple[Artifact, ...] = ()
    follow_ups: tuple[FollowUp, ...] = ()
    return_status: str | None = None  # the status given with --from-json (docs/using.md)
    errors: list[Any] = field(default_factory=list)
    next_steps: str | list[Any] | None = None
    metadata: JSONObject = field(default_factory=dict)
    child_session: str | None = None
    completed_at: str | None = None

    def checked(self) -> Result:
        """This result, if it can be recorded; RefocusError saying what to fix otherwise."""
        if self.status not in ("completed", "blocked"):
            raise RefocusError(f"result status must be completed or blocked, not {self.status!r}.")
        if not self.summary.strip():
            raise RefocusError("the result needs a summary (--summary).")
        if not self.material_changes and not (self.no_material_changes or "").strip():
            raise RefocusError(
                "enumerate material changes: pass --material-change FILE=SUMMARY for each decision "
                "to promote into docs/context, or --no-material-changes REASON."
            )
        if self.material_changes and self.no_material_changes:
            raise RefocusError("give material changes or --no-material-changes, not both.")
        return self

    @property
    def lifecycle_status(self) -> str:
        return "result" if self.status == "completed" else "blocked"

    def to_dict(self) -> JSONObject:
        """The result object stored in the completed event (and printed by ``complete --json``)."""
        return {
            "status": self.status, "summary": self.summary,
            "material_changes": [m.to_dict() for m in self.material_changes],
            "no_material_changes": self.no_material_changes,
            "dod": [d.to_dict() for d in self.dod],
            "artifacts": [a.to_dict() for a in self.artifacts],
            "follow_ups": [f.to_dict() for f in self.follow_ups],
            "return_status": self.return_status, "errors": list(self.errors), "next_steps": self.next_steps,
            "metadata": dict(self.metadata), "child_session": self.child_session, "completed_at": self.completed_at,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Result:
        return cls(
            status=recorded(raw, "status"), summary=recorded(raw, "summary") or "",
            material_changes=tuple(MaterialChange.from_dict(m) for m in recorded(raw, "material_changes") or ()),
            no_material_changes=recorded(raw, "no_material_changes"),
            dod=tuple(DodItem.from_dict(d) for d in recorded(raw, "dod") or ()),
            artifacts=tuple(Artifact.from_dict(a) for a in recorded(raw, "artifacts") or ()),
            follow_ups=tuple(FollowUp.from_dict(f) for f in recorded(raw, "follow_ups") or ()),
            return_status=recorded(raw, "return_status"), errors=list(recorded(raw, "errors") or ()),
            next_steps=recorded(raw, "next_steps"), metadata=dict(recorded(raw, "metadata") or {}),
            child_session=recorded(raw, "child_session"), completed_at=recorded(raw, "completed_at"),
        )

    def render(self) -> str:
        out = [RESULT_HEADING, "", "### Status", f"- {self.status}"]
        if self.return_status and self.return_status != self.status:
            out[-1] += f" (returned as {self.return_status})"
        out += ["", "### Definition-of-Done met"]
        out += [
            f"- [{'x' if d.met else ' '}] {d.criterion}" + (f" — {d.note}" if d.note else "")
            for d in self.dod
        ] or ["- (no done_when criteria)"]
        out += ["", "### Summary", self.summary.strip(), "", "### Artifacts produced"]
        out += [
            f"- `{a.path}`" + (f" — {a.description}" if a.description else "")
            for a in self.artifacts
        ] or ["- (none)"]
        out += ["", "### Suggested follow-ups (parent decides)"]
        out += [f"- `{f.dir}` — {f.slug} — {f.reason}" for f in self.follow_ups] or ["- (none)"]
        if self.errors:
            out += ["", "### Errors"] + [f"- {e if isinstance(e, str) else json.dumps(e)}" for e in self.errors]
        if self.next_steps:
            steps = self.next_steps if isinstance(self.next_steps, list) else [self.next_steps]
            out += ["", "### Next steps"] + [f"- {s}" for s in steps]
        out += ["", "### Material changes (for context promotion)"]
        if self.material_changes:
            out += [f"- {m.file} — {m.summary}" for m in self.material_changes]
        else:
            out += [f"N/A — {(self.no_material_changes or '').strip()}"]
        out += ["", "### Child session"]
        if self.child_session and is_session_id(self.child_session):  # portable: the id, resumed where it ran
            out.append(f"- Session: `{self.child_session}` (`claude --resume {self.child_session}` in the destination)")
        elif self.child_session:
            out.append(f"- Session jsonl: `{self.child_session}`")
        out.append(f"- Completed at: {self.completed_at}")
        return "\n".join(out) + "\n"


def parse_material_change(spec: str) -> MaterialChange:
    file, sep, summary = spec.partition("=")
    file, summary = file.strip(), summary.strip()
    if not sep or not file or not summary:
        raise RefocusError(f"--material-change {spec!r}: expected FILE=SUMMARY, e.g. architecture.md=uses two-phase commit.")
    check_context_file(file)
    return MaterialChange(file=file, summary=summary)


def check_context_file(file: str) -> None:
    parts = file.replace("\\", "/").split("/")
    if file.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\n" in file:
        raise RefocusError(
            f"material change file {file!r} must be a relative path inside the context directory."
        )


def parse_artifact(spec: str) -> Artifact:
    path, _, desc = spec.partition("=")
    if not path.strip():
        raise RefocusError(f"--artifact {spec!r}: expected PATH[=DESCRIPTION].")
    return Artifact(path=path.strip(), description=desc.strip() or None)


def parse_follow_up(spec: str) -> FollowUp:
    """``DIR:SLUG:REASON``: DIR runs to the first ``:``, SLUG to the second, and the
    reason is all the rest, colons included ("adopt it: step 2")."""
    parts = spec.split(":", 2)
    if len(parts) != 3 or not all(p.strip() for p in parts):
        raise RefocusError(f"--follow-up {spec!r}: expected DIR:SLUG:REASON.")
    return checked_follow_up(FollowUp(dir=parts[0].strip(), slug=parts[1].strip(), reason=parts[2].strip()),
                             f"--follow-up {spec!r}")


def checked_follow_up(follow_up: FollowUp, where: str) -> FollowUp:
    """A follow-up whose slug could name the refocus the parent spawns for it."""
    problem = slug_problem(follow_up.slug)
    if problem:
        raise RefocusError(f"{where}: {follow_up.slug!r} is not a slug ({problem}); expected DIR:SLUG:REASON "
                           "with a kebab-case slug such as adopt-standard.")
    return follow_up


_Kind = type | tuple[type, ...]


def _require(obj: Mapping[str, Any], key: str, kind: _Kind, what: str, where: str) -> Any:
    if key not in obj:
        raise RefocusError(f"{where}: missing required field {key!r}.")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise RefocusError(f"{where}: field {key!r} must be {what}.")
    return value


def _optional(obj: Mapping[str, Any], key: str, kind: _Kind, what: str, where: str, default: Any) -> Any:
    if key not in obj or obj[key] is None:
        return default
    value = obj[key]
    if not isinstance(value, kind):
        raise RefocusError(f"{where}: field {key!r} must be {what}.")
    return value


def from_return_object(obj: object, where: str) -> Result:
    """Validate a ``--from-json`` return object (docs/using.md); return the Result it
    describes (not yet :meth:`Result.checked`: flags may still add to it).

    ``{status: completed|failed|partial|blocked, summary, artifacts, metadata,
    errors, next_steps}`` plus the refocus extensions ``material_changes``
    (list of ``{file, summary}`` or an ``"N/A — reason"`` string) and ``follow_ups``
    (``dod`` and ``dod_unmet`` are read by the command, which knows the criteria).
    """
    if not isinstance(obj, dict):
        raise RefocusError(f"{where}: the return object must be a JSON object.")
    status = _require(obj, "status", str, "a string", where)
    if status not in RETURN_STATUSES:
        raise RefocusError(f"{where}: unknown status {status!r} (one of {', '.join(RETURN_STATUSES)}).")
    summary = _require(obj, "summary", str, "a string", where)
    if not summary.strip():
        raise RefocusError(f"{where}: field 'summary' is empty.")
    artifacts = []
    for i, art in enumerate(_require(obj, "artifacts", list, "a list", where)):
        if isinstance(art, str) and art.strip():
            artifacts.append(Artifact(path=art.strip(), description=None))
        elif isinstance(art, dict) and isinstance(art.get("path"), str) and art["path"].strip():
            desc = art.get("description", art.get("summary"))
            if desc is not None and not isinstance(desc, str):
                raise RefocusError(f"{where}: artifacts[{i}].description must be a string.")
            artifacts.append(Artifact(path=art["path"].strip(), description=desc))
        else:
            raise RefocusError(f"{where}: artifacts[{i}] must be a path or an object with a 'path'.")
    metadata = _optional(obj, "metadata", dict, "an object", where, {})
    errors = _optional(obj, "errors", list, "a list", where, [])
    next_steps = _optional(obj, "next_steps", (str, list), "a string or a list", where, None)
    material_changes: list[MaterialChange] = []
    no_material_changes = None
    mc = obj.get("material_changes")
    if isinstance(mc, str):
        no_material_changes = mc.removeprefix("N/A").lstrip(" —-:") or mc
    elif isinstance(mc, list):
        for i, m in enumerate(mc):
            if isinstance(m, str):
                material_changes.append(parse_material_change(m))
            elif isinstance(m, dict) and isinstance(m.get("file"), str) and isinstance(m.get("summary"), str):
                check_context_file(m["file"])
                material_changes.append(MaterialChange(file=m["file"], summary=m["summary"]))
            else:
                raise RefocusError(f"{where}: material_changes[{i}] must be FILE=SUMMARY or {{file, summary}}.")
    elif mc is not None:
        raise RefocusError(f"{where}: field 'material_changes' must be a list or an N/A string.")
    given = _optional(obj, "follow_ups", list, "a list", where, [])
    parsed = [parse_follow_up(f) if isinstance(f, str) else f for f in given]  # strings first: their error wins
    follow_ups = []
    for i, f in enumerate(parsed):
        if isinstance(f, FollowUp):
            follow_ups.append(f)
        elif isinstance(f, dict) and all(isinstance(f.get(k), str) for k in ("dir", "slug", "reason")):
            follow_ups.append(checked_follow_up(FollowUp.from_dict(f), f"{where}: follow_ups[{i}]"))
        else:
            raise RefocusError(f"{where}: follow_ups[{i}] must be DIR:SLUG:REASON or {{dir, slug, reason}}.")
    return Result(
        status=_MARKDOWN_STATUS[status], return_status=status, summary=summary,
        artifacts=tuple(artifacts), metadata=metadata, errors=errors, next_steps=next_steps,
        material_changes=tuple(material_changes), no_material_changes=no_material_changes,
        follow_ups=tuple(follow_ups),
    )
