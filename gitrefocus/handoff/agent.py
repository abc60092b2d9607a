"""The agent pipeline's deterministic steps, around the subagents the ``/handoff`` command spawns.

    prepare   transcript -> plan directory (spine or chunks, prompts, git facts, sections dir)
    [chunked] the agent spawns the chunk-summarizers in one message; ``reduce`` assembles
              their answers into the reduced spine
    the agent spawns the five extractors in one message; each writes sections/<name>.json
    finalize  the sections dir -> the brief: every answer checked against the transcript and
              git, the built-in extractor in place of any that fails

Warm mode (``prepare --warm``): no subagents; the session writes the five objects itself from
its own context, and finalize checks them the same way.
"""

from __future__ import annotations

import os

from gitrefocus.errors import RefocusError
from gitrefocus.handoff import gitstate, plandir, transcript_paths
from gitrefocus.handoff.prepare import prepare
from gitrefocus.handoff.sections import SECTION_NAMES

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from gitrefocus.handoff.pipeline import Handoff

SESSION_ENV = "CLAUDE_CODE_SESSION_ID"


def _source(source: str | None, env: Mapping[str, str]) -> str:
    from gitrefocus.model.agents import session_from_env

    given = source or session_from_env(env)
    if not given:
        raise RefocusError(f"no session given: pass a session id or a transcript path (inside Claude Code, "
                           f"${SESSION_ENV} names the running session and is the default; inside Codex CLI, "
                           "$CODEX_SESSION_ID).")
    return given


def prepare_plan(source: str | None, *, cwd: str, warm: bool = False, directory: str | None = None,
                 env: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """Write the plan for the agent; returns plan.json's object."""
    cwd = os.path.realpath(cwd)
    src = transcript_paths.resolve(_source(source, env), cwd)
    plan = prepare(src)
    git = gitstate.snapshot([plan.cwd, cwd], plan.first_timestamp)
    if directory is not None:
        directory = os.path.abspath(directory)
        if os.path.lexists(directory) and (not os.path.isdir(directory) or os.path.islink(directory)
                                           or os.listdir(directory)):
            raise RefocusError(f"--dir {directory} must be a new or empty directory.")
        os.makedirs(directory, mode=0o700, exist_ok=True)
    else:
        directory = plandir.new_directory(plan.session_id)
    return plandir.write(plan, git, directory, repo_root=git.root or cwd, warm=warm)


def reduce_plan(given: str) -> tuple[str, list[int]]:
    """Assemble the reduced spine from the chunk summaries (chunked plans only)."""
    return plandir.reduce(plandir.load(given))


def finalize_plan(given: str, *, cwd: str) -> tuple[Handoff, dict[str, Any]]:
    """Check the answers in a plan's sections dir and render the brief; (handoff, plan.json)."""
    # the extractors and the brief's checks, imported here: `prepare` does not need them
    from gitrefocus.handoff.pipeline import _result, checked_brief

    doc = plandir.load(given)
    path = os.path.abspath(os.path.expanduser(given))
    sections_dir = path if os.path.isdir(path) and os.path.basename(path) == "sections" \
        else os.path.join(doc["directory"], "sections")
    transcript = doc["transcript"]
    if not os.path.isfile(transcript):
        raise RefocusError(f"the plan's transcript {transcript} is gone; nothing to check the sections against.")
    plan = prepare(transcript_paths.resolve(transcript))
    git = gitstate.snapshot([plan.cwd, os.path.realpath(cwd)], plan.first_timestamp)
    answers = {name: plandir.answers(sections_dir, name) for name in SECTION_NAMES}
    missing = {name: f"no answer: sections/{name}.json is missing or empty"
               for name, given_answers in answers.items() if not given_answers}
    warm = doc.get("mode") == "warm"
    warnings: list[str] = []
    if doc.get("mode") == "chunked" and not os.path.isfile(os.path.join(doc["directory"], "reduced-spine.txt")):
        warnings.append("the chunk summaries were never reduced (`git refocus handoff reduce`); the extractors "
                        "had no spine to read.")
    brief = checked_brief(plan, git, answers, problems=missing, origin="warm" if warm else "extractor", warm=warm)
    return _result(plan, git, brief, warnings), doc


def for_spawn(handoff: Handoff) -> dict[str, Any]:
    """What ``/refocus`` hands to ``spawn`` from a checked brief: the rejected hypotheses as
    alternatives considered, the user's corrections as reviewer pushback (each a bullet of the
    brief, pointers kept as plain text), and the landing point as context."""
    sections = handoff.brief.sections
    alternatives: list[str] = []
    pushback: list[str] = []
    context: list[str] = []
    heading = ""
    dead = sections.get("dead_ends")
    for line in (dead.content.split("\n") if dead else []):
        stripped = line.strip()
        if stripped.startswith("#"):
            heading = stripped.lower()
            continue
        if not stripped.startswith(("-", "*")) or "[unsourced]" in stripped:
            continue
        bullet = stripped.lstrip("-* ").strip()
        if bullet.startswith(">"):
            bullet = bullet.lstrip("> ").strip()
        (pushback if "correction" in heading else alternatives).append(bullet)
    convergence = sections.get("convergence")
    for line in (convergence.content.split("\n") if convergence else []):
        stripped = line.strip()
        if stripped.startswith(("-", "*")) and "[unsourced]" not in stripped:
            context.append(stripped.lstrip("-* ").strip())
    # plain text: they become shell arguments, where a backtick or a `$` would be a substitution
    # (refused under the command's Bash rule)
    plain: Callable[[list[str]], list[str]] = (  # noqa: E731
        lambda items: [item.replace("`", "").replace("$", "") for item in items])
    return {"alternatives_considered": plain(alternatives[:10]), "reviewer_pushback": plain(pushback[:10]),
            "context": plain(context[:5])}
