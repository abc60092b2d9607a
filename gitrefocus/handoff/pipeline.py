"""prepare → extract → finalize, with the cache around it. No click here."""

from __future__ import annotations

import os

from gitrefocus.handoff import extract, gitstate, transcript_paths
from gitrefocus.handoff.finalize import Brief, finalize, resolver
from gitrefocus.handoff.prepare import Plan, prepare
from gitrefocus.handoff.sections import SECTION_NAMES, Pointer, Section
from gitrefocus.model.records import dataclass, field


@dataclass
class Handoff:
    """A finished handoff and what it was made from."""

    brief: Brief
    session_id: str | None
    leaf_uuid: str | None
    source_files: list[str]
    plan: dict                        # Plan.to_json(): mode, stats, ...
    repo_root: str | None
    from_cache: bool = False
    cache_path: str | None = None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
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
    sections = extract.builtin_sections(plan, git)
    fallbacks: dict[str, str] = {}
    warnings: list[str] = []
    if extractor_cmd:
        from gitrefocus.handoff import external

        kwargs = {"timeout": timeout} if timeout else {}
        run = external.run(plan, extractor_cmd, repo_root=git.root or cwd, resolve=resolver(plan, git), **kwargs)
        for name in SECTION_NAMES:
            if name in run.sections:
                sections[name] = run.sections[name]
            else:
                fallbacks[name] = run.failures.get(name, "no answer")
        if run.chunk_failures:
            warnings.append(f"{len(run.chunk_failures)} chunk summar(ies) failed; their raw text was used.")
    brief = finalize(sections, plan, git, fallbacks=fallbacks)
    for name, why in fallbacks.items():
        warnings.append(f"extractor command failed for {name} ({why}); used the built-in extractor.")
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


def _from_cache(src, cwd: str, git_dir: str, extractor_cmd: str | None) -> Handoff | None:
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
                      int(data.get("lines_cut") or 0))
        return Handoff(brief, data.get("session_id"), data.get("leaf_uuid"), list(data.get("source_files") or []),
                       dict(data.get("plan") or {}), data.get("repo_root"), from_cache=True,
                       cache_path=os.path.join(git_dir, "refocus", "cache", "handoff", cache.entry_name(leaf)))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # an entry from another format: recompute


def spine(source: str, *, cwd: str | None = None) -> str:
    """The numbered spine, for reading a ``transcript:L<n>`` pointer in context; scrubbed."""
    from gitrefocus.handoff.scrub import scrub_transcript

    plan = prepare(transcript_paths.resolve(source, os.path.realpath(cwd or os.getcwd())))
    return scrub_transcript(plan.spine_text())[0]
