"""Handoff: distill a Claude Code transcript into a five-section brief (docs/handoff.md).

The pipeline is prepare (``prepare.py``: streaming, deterministic, no model) →
extract (``extract.py`` built-in extractors, optionally ``external.py`` for
``--extractor-cmd``) → finalize (``finalize.py``: the merge contract).

Entry points for other commands:

* :func:`handoff` — the full brief (text and section objects), cached per leaf uuid;
* :func:`inherited_context` — ``(bullets, cut)``: 5–15 bullets for a brief's "Inherited context";
* :func:`scrub_transcript` — redact secrets before a transcript is saved.
"""

from __future__ import annotations

__all__ = ["handoff", "inherited_context", "scrub_transcript", "InheritedContext", "Handoff"]

TYPE_CHECKING = False  # no `typing` at run time; the type checker sees what __getattr__ hands out
if TYPE_CHECKING:
    from gitrefocus.handoff.inherited import InheritedContext, inherited_context
    from gitrefocus.handoff.pipeline import Handoff, handoff
    from gitrefocus.handoff.scrub import scrub_transcript


def __getattr__(name: str) -> object:
    # lazy: `import gitrefocus.handoff` stays cheap for hooks that only need one helper
    if name in ("handoff", "Handoff"):
        from gitrefocus.handoff import pipeline

        return getattr(pipeline, name)
    if name in ("inherited_context", "InheritedContext"):
        from gitrefocus.handoff import inherited

        return getattr(inherited, name)
    if name == "scrub_transcript":
        from gitrefocus.handoff.scrub import scrub_transcript

        return scrub_transcript
    raise AttributeError(f"module 'gitrefocus.handoff' has no attribute {name!r}")
