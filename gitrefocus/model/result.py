"""The Result a child returns: validation, the seed-003 return object, markdown."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from gitrefocus.errors import RefocusError
from gitrefocus.model.brief import RESULT_HEADING

RETURN_STATUSES = ("completed", "failed", "partial", "blocked")
_MARKDOWN_STATUS = {"completed": "completed", "failed": "blocked", "partial": "blocked", "blocked": "blocked"}


@dataclass
class MaterialChange:
    file: str
    summary: str


@dataclass
class Result:
    status: str  # completed | blocked (the Result section's Status)
    summary: str
    material_changes: list[MaterialChange]
    no_material_changes: str | None  # the N/A reason, when there are none
    dod: list[dict] = field(default_factory=list)  # {criterion, met, note}
    artifacts: list[dict] = field(default_factory=list)  # {path, description}
    follow_ups: list[dict] = field(default_factory=list)  # {dir, slug, reason}
    return_status: str | None = None  # seed 003 status when given --from-json
    errors: list = field(default_factory=list)
    next_steps: str | list | None = None
    metadata: dict = field(default_factory=dict)
    child_session: str | None = None
    completed_at: str | None = None

    def __post_init__(self) -> None:
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

    @property
    def lifecycle_status(self) -> str:
        return "result" if self.status == "completed" else "blocked"

    def to_dict(self) -> dict:
        return asdict(self)

    def render(self) -> str:
        out = [RESULT_HEADING, "", "### Status", f"- {self.status}"]
        if self.return_status and self.return_status != self.status:
            out[-1] += f" (returned as {self.return_status})"
        out += ["", "### Definition-of-Done met"]
        out += [
            f"- [{'x' if d['met'] else ' '}] {d['criterion']}" + (f" — {d['note']}" if d.get("note") else "")
            for d in self.dod
        ] or ["- (no done_when criteria)"]
        out += ["", "### Summary", self.summary.strip(), "", "### Artifacts produced"]
        out += [
            f"- `{a['path']}`" + (f" — {a['description']}" if a.get("description") else "")
            for a in self.artifacts
        ] or ["- (none)"]
        out += ["", "### Suggested follow-ups (parent decides)"]
        out += [f"- `{f['dir']}` — {f['slug']} — {f['reason']}" for f in self.follow_ups] or ["- (none)"]
        if self.errors:
            out += ["", "### Errors"] + [f"- {e if isinstance(e, str) else json.dumps(e)}" for e in self.errors]
        if self.next_steps:
            steps = self.next_steps if isinstance(self.next_steps, list) else [self.next_steps]
            out += ["", "### Next steps"] + [f"- {s}" for s in steps]
        out += ["", "### Material changes (for context promotion)"]
        if self.material_changes:
            out += [f"- {m.file} — {m.summary}" for m in self.material_changes]
        else:
            out += [f"N/A — {self.no_material_changes.strip()}"]
        out += ["", "### Child session"]
        if self.child_session:
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


def parse_artifact(spec: str) -> dict:
    path, _, desc = spec.partition("=")
    if not path.strip():
        raise RefocusError(f"--artifact {spec!r}: expected PATH[=DESCRIPTION].")
    return {"path": path.strip(), "description": desc.strip() or None}


def parse_follow_up(spec: str) -> dict:
    parts = spec.rsplit(":", 2)
    if len(parts) != 3 or not all(p.strip() for p in parts):
        raise RefocusError(f"--follow-up {spec!r}: expected DIR:SLUG:REASON.")
    return {"dir": parts[0].strip(), "slug": parts[1].strip(), "reason": parts[2].strip()}


def _require(obj: dict, key: str, kind, what: str, where: str):
    if key not in obj:
        raise RefocusError(f"{where}: missing required field {key!r}.")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise RefocusError(f"{where}: field {key!r} must be {what}.")
    return value


def _optional(obj: dict, key: str, kind, what: str, where: str, default):
    if key not in obj or obj[key] is None:
        return default
    value = obj[key]
    if not isinstance(value, kind):
        raise RefocusError(f"{where}: field {key!r} must be {what}.")
    return value


def from_return_object(obj, where: str) -> dict:
    """Validate a seed-003 standardized return object; return Result keyword args.

    ``{status: completed|failed|partial|blocked, summary, artifacts, metadata,
    errors, next_steps}`` plus the refocus extensions ``material_changes``
    (list of ``{file, summary}`` or an ``"N/A — reason"`` string), ``dod`` and
    ``follow_ups``.
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
            artifacts.append({"path": art.strip(), "description": None})
        elif isinstance(art, dict) and isinstance(art.get("path"), str) and art["path"].strip():
            desc = art.get("description", art.get("summary"))
            if desc is not None and not isinstance(desc, str):
                raise RefocusError(f"{where}: artifacts[{i}].description must be a string.")
            artifacts.append({"path": art["path"].strip(), "description": desc})
        else:
            raise RefocusError(f"{where}: artifacts[{i}] must be a path or an object with a 'path'.")
    metadata = _optional(obj, "metadata", dict, "an object", where, {})
    errors = _optional(obj, "errors", list, "a list", where, [])
    next_steps = _optional(obj, "next_steps", (str, list), "a string or a list", where, None)
    kwargs = dict(
        status=_MARKDOWN_STATUS[status], return_status=status, summary=summary,
        artifacts=artifacts, metadata=metadata, errors=errors, next_steps=next_steps,
        material_changes=[], no_material_changes=None,
    )
    mc = obj.get("material_changes")
    if isinstance(mc, str):
        kwargs["no_material_changes"] = mc.removeprefix("N/A").lstrip(" —-:") or mc
    elif isinstance(mc, list):
        for i, m in enumerate(mc):
            if isinstance(m, str):
                kwargs["material_changes"].append(parse_material_change(m))
            elif isinstance(m, dict) and isinstance(m.get("file"), str) and isinstance(m.get("summary"), str):
                check_context_file(m["file"])
                kwargs["material_changes"].append(MaterialChange(file=m["file"], summary=m["summary"]))
            else:
                raise RefocusError(f"{where}: material_changes[{i}] must be FILE=SUMMARY or {{file, summary}}.")
    elif mc is not None:
        raise RefocusError(f"{where}: field 'material_changes' must be a list or an N/A string.")
    follow_ups = _optional(obj, "follow_ups", list, "a list", where, [])
    kwargs["follow_ups"] = [parse_follow_up(f) if isinstance(f, str) else f for f in follow_ups]
    for i, f in enumerate(kwargs["follow_ups"]):
        if not (isinstance(f, dict) and all(isinstance(f.get(k), str) for k in ("dir", "slug", "reason"))):
            raise RefocusError(f"{where}: follow_ups[{i}] must be DIR:SLUG:REASON or {{dir, slug, reason}}.")
    return kwargs
