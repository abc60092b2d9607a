"""prepare → extract → finalize, with the cache around it. No click here."""

from __future__ import annotations

import os

from gitrefocus.handoff import extract, gitstate, transcript_paths
from gitrefocus.handoff.finalize import Brief, finalize, resolver
from gitrefocus.handoff.prepare import Plan, prepare
from gitrefocus.handoff.sections import SECTION_NAMES, Pointer, Section
from gitrefocus.model.records import dataclass, field

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

    from gitrefocus.handoff.transcript_paths import TranscriptSource


@dataclass
class Handoff:
    """A finished handoff and what it was made from."""

    brief: Brief
    session_id: str | None
    leaf_uuid: str | None
    source_files: list[str]
    plan: dict[str, Any]                        # Plan.to_json(): mode, stats, ...
    repo_root: str | None
    from_cache: bool = False
    cache_path: str | None = None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "leaf_uuid": self.leaf_uuid, "source_files": self.source_files,
                "repo_root": self.repo_root, "from_cache": self.from_cache, "plan": self.plan,
                **self.brief.to_json(), "brief": self.brief.text}


def _git_candidates(transcript_cwd: str | None, cwd: str) -> list[str | None]:
    return [transcript_cwd, cwd]


def _cache_dir(cwd: str) -> str | None:
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.try_open(cwd)
    return ws.git_dir if ws else None


def handoff(source: str, *, cwd: str | None = None, extractor_cmd: str | None = None,
            use_cache: bool = True, timeout: float | None = None, extractor: str = "builtin") -> Handoff:
    """Distill the transcript (a path or a session id) into the five-section brief.
    ``extractor="claude"`` runs the installed Claude Code client on the five prompts."""
    if extractor == "claude":
        from gitrefocus.handoff import external

        binary = external.find_claude()
        if binary is None:
            from gitrefocus.errors import RefocusError

            raise RefocusError("--extractor claude: no `claude` on PATH (or $GIT_REFOCUS_CLAUDE_BIN); "
                               "install Claude Code, or use the built-in extractor.")
        extractor_cmd = external.claude_command(binary)
    cwd = os.path.realpath(cwd or os.getcwd())
    src = transcript_paths.resolve(source, cwd)
    git_dir = _cache_dir(cwd) if use_cache else None
    if git_dir:
        hit = _from_cache(src, cwd, git_dir, extractor_cmd)
        if hit is not None:
            return hit
    plan = prepare(src)
    git = gitstate.snapshot(_git_candidates(plan.cwd, cwd), plan.first_timestamp)
    result = _extract_and_finalize(plan, git, cwd, extractor_cmd, timeout)
    if git_dir and plan.leaf_uuid:
        # (imported here, not at the top: a --no-cache run does not pay for it at startup)
        from gitrefocus.handoff import cache

        expected = cache.key(src, git, extractor_cmd)
        result.cache_path = cache.store(git_dir, plan.leaf_uuid, expected, {"handoff": result.to_json()})
    return result


def _extract_and_finalize(plan: Plan, git: gitstate.GitState, cwd: str, extractor_cmd: str | None,
                          timeout: float | None) -> Handoff:
    if not extractor_cmd:
        return _result(plan, git, finalize(extract.builtin_sections(plan, git), plan, git), [])
    from gitrefocus.handoff import external

    kwargs = {"timeout": timeout} if timeout else {}
    run = external.run(plan, git, extractor_cmd, repo_root=git.root or cwd, **kwargs)
    warnings = []
    if run.chunk_failures:
        warnings.append(f"{len(run.chunk_failures)} chunk summar(ies) failed; their raw text was used.")
    brief = checked_brief(plan, git, run.answers, problems=run.problems, origin="extractor-cmd")
    return _result(plan, git, brief, warnings)


def checked_brief(plan: Plan, git: gitstate.GitState, answers: dict[str, list[str]], *,
                  problems: dict[str, str] | None = None, origin: str = "extractor", warm: bool = False) -> Brief:
    """The brief from a model's answers (raw text, per section): each checked against the
    transcript and git (``checks.judge``); a section that fails validation, or is not trusted,
    is replaced by the built-in extractor's, marked. The warm mode's Open-threads also gets
    the stated-intent-vs-git flags, as the built-in extractor computes them."""
    from gitrefocus.handoff.analysis import Analysis
    from gitrefocus.handoff.checks import TranscriptIndex, judge, normalized

    an = Analysis(plan)
    builtin = extract.builtin_sections(plan, git, an)
    index = TranscriptIndex(plan.messages)
    resolve = resolver(plan, git, index)
    git_words = normalized(" ".join(c.subject for c in git.commits))
    sections: dict[str, Section] = {}
    fallbacks: dict[str, str] = {}
    untrusted: dict[str, str] = {}
    notes: dict[str, list[str]] = {}
    for name in SECTION_NAMES:
        given = answers.get(name) or []
        verdict = judge(name, given, index, resolve, git_words, origin)
        if verdict.rejected is not None or verdict.section is None:
            why = (problems or {}).get(name) if not given else None
            fallbacks[name] = why or verdict.rejected or "no answer"
            sections[name] = builtin[name]
        elif verdict.untrusted is not None:
            untrusted[name] = verdict.untrusted
            sections[name] = builtin[name]
        else:
            sections[name] = verdict.section
        if verdict.notes:
            notes[name] = verdict.notes
    if warm and "open_threads" not in fallbacks and "open_threads" not in untrusted:
        flags = extract.intent_flags(an, git)
        own = sections["open_threads"]
        if flags is not None and "Stated-intent vs git" not in own.content:
            sections["open_threads"] = Section("open_threads", own.content.rstrip() + "\n" + flags.content,
                                               own.pointers + [p for p in flags.pointers if p not in own.pointers],
                                               own.origin)
    return finalize(sections, plan, git, fallbacks=fallbacks, untrusted=untrusted, checks=notes, resolve=resolve,
                    mode="warm" if warm else None)


def _result(plan: Plan, git: gitstate.GitState, brief: Brief, warnings: list[str]) -> Handoff:
    for name, why in brief.fallbacks.items():
        warnings.append(f"the extractor's {name} was rejected ({why}); used the built-in extractor.")
    for name, why in brief.untrusted.items():
        warnings.append(f"the extractor's {name} was not trusted ({why}); used the built-in extractor.")
    stats = plan.stats
    if stats.get("invalid_json_lines"):
        warnings.append(f"skipped {stats['invalid_json_lines']} transcript line(s) that are not JSON.")
    if stats.get("non_object_lines"):
        warnings.append(f"skipped {stats['non_object_lines']} transcript line(s) that are JSON but not a record.")
    if stats.get("subagent_file"):
        warnings.append("this is a subagent's transcript (agent-*.jsonl): the brief covers that subagent's own "
                        "work only; hand off the parent session's <session-id>.jsonl for the whole session.")
    if stats.get("oversized_lines"):
        warnings.append(f"skipped {stats['oversized_lines']} line(s) too large to reduce.")
    if brief.redactions:
        kinds = ", ".join(f"{kind} ×{n}" for kind, n in brief.redactions.items())
        warnings.append(f"redacted {sum(brief.redactions.values())} secret(s) as the transcript was read ({kinds}).")
    if brief.lines_cut:
        warnings.append(f"cut {brief.lines_cut} line(s) to keep the brief to about 400 lines.")
    return Handoff(brief, plan.session_id, plan.leaf_uuid, list(plan.source.files), plan.to_json(),
                   git.root, warnings=warnings)


def _from_cache(src: TranscriptSource, cwd: str, git_dir: str, extractor_cmd: str | None) -> Handoff | None:
    from gitrefocus.handoff import cache

    leaf, transcript_cwd = cache.peek_leaf(src.main)
    if not leaf:
        return None
    git = gitstate.snapshot(_git_candidates(transcript_cwd, cwd))
    entry = cache.load(git_dir, leaf, cache.key(src, git, extractor_cmd))
    data = entry.get("handoff") if entry else None
    if not isinstance(data, dict) or not isinstance(data.get("brief"), str):
        return None
    try:
        sections = {
            s["section"]: Section(s["section"], s["content"],
                                  [Pointer(p["type"], p["ref"], p.get("note", "")) for p in s["pointers"]],
                                  "cache")
            for s in data.get("sections", []) if s.get("section") in SECTION_NAMES
        }
        brief = Brief(data["brief"], sections, dict(data.get("failed") or {}), dict(data.get("fallbacks") or {}),
                      {str(k): int(v) for k, v in dict(data.get("redacted") or {}).items()},
                      int(data.get("lines_cut") or 0),
                      dict(data.get("untrusted") or {}), dict(data.get("checks") or {}))
        return Handoff(brief, data.get("session_id"), data.get("leaf_uuid"), list(data.get("source_files") or []),
                       dict(data.get("plan") or {}), data.get("repo_root"), from_cache=True,
                       cache_path=os.path.join(git_dir, "refocus", "cache", "handoff", cache.entry_name(leaf)))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # an entry from another format: recompute


def spine(source: str, *, cwd: str | None = None) -> str:
    """The numbered spine, for reading a ``transcript:L<n>`` pointer in context; made of the
    records as they were scrubbed when decoded (its header's file names are scrubbed too)."""
    plan = prepare(transcript_paths.resolve(source, os.path.realpath(cwd or os.getcwd())))
    return plan.spine_text()
