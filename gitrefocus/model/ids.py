"""Refocus ids, slugs and the child session id they are derived from, and the
names an id gives: its ref (``refs/refocus/<id>``) and its brief file.

An id is ``<YYYY-MM-DD>-<slug>-<6hex>``: the UTC spawn date, a kebab-case slug,
and the first six hex digits of the UUIDv4 ``child_session_id``, so that
``grep -r a3f91c`` finds the brief, the ref and the child's transcript at once.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re

from gitrefocus.errors import RefocusError

REF_PREFIX = "refs/refocus/"  # refs/refocus/<id>: the event log of one refocus
SLUG_MAX = 48
_SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_ID_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)-([0-9a-f]{6})\Z")
_UUID4_RE = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"
)


def ref_name(refocus_id: str) -> str:
    """``refs/refocus/<id>`` (no validation: callers hold ids they already checked)."""
    return REF_PREFIX + refocus_id


# Where a refocus's files live in a repository (relative to the work tree root).
BRIEF_DIR = "docs/refocus"
INDEX_FILE = f"{BRIEF_DIR}/INDEX.md"
ARCHIVE_DIR = f"{BRIEF_DIR}/archive"
TRANSCRIPTS_DIR = f"{BRIEF_DIR}/transcripts"


def brief_relpath(refocus_id: str) -> str:
    return f"{BRIEF_DIR}/{refocus_id}.md"


def slug_problem(slug: str) -> str | None:
    """Why ``slug`` is not a valid slug, or None if it is."""
    if not slug:
        return "it is empty"
    if len(slug) > SLUG_MAX:
        return f"it is longer than {SLUG_MAX} characters"
    if not _SLUG_RE.match(slug):
        return "use 1-48 characters of a-z, 0-9 and single hyphens, not at either end"
    return None


def validate_slug(slug: str) -> str:
    problem = slug_problem(slug)
    if problem:
        raise RefocusError(f"invalid slug {slug!r}: {problem}.")
    return slug


def derive_slug(text: str, max_words: int = 4) -> str:
    """A slug from free text (a reason, a directory name): lowercase kebab case.

    Non-ASCII text is transliterated ("Écrire la spécification" →
    ``ecrire-la-specification``, "Москва" → ``moskva``) with anyascii, which
    covers every script (unicodedata's NFKD only strips Latin accents and
    drops ß, ø, æ, Cyrillic, Greek and CJK); symbols such as emoji are dropped
    rather than spelled out."""
    import unicodedata

    from anyascii import anyascii  # lazy: only spawn derives slugs

    text = "".join(" " if unicodedata.category(c).startswith("S") else c for c in text)
    words = re.findall(r"[a-z0-9]+", anyascii(text).lower())
    slug = "-".join(words[:max_words])[:SLUG_MAX].strip("-")
    return slug or "refocus"


def is_session_id(value: str) -> bool:
    return bool(_UUID4_RE.match(value))


def new_session_id() -> str:
    import uuid  # here: uuid loads platform, which nothing that only reads needs

    return str(uuid.uuid4())


@functools.total_ordering
class RefocusId:
    """A validated refocus id. Construction refuses anything malformed.

    Immutable, hashable and ordered by its text, as a frozen dataclass would
    be; written out because the post-tool-use hook, run after every tool call,
    imports this module, and loading dataclasses cost it a fifth of its time."""

    __slots__ = ("value",)
    value: str

    def __init__(self, value: str) -> None:
        m = _ID_RE.match(value) if isinstance(value, str) else None
        if not m or len(m.group(2)) > SLUG_MAX:
            raise RefocusError(
                f"invalid refocus id {value!r}: expected YYYY-MM-DD-<slug>-<6hex>."
            )
        try:
            _dt.date.fromisoformat(m.group(1))
        except ValueError:
            raise RefocusError(f"invalid refocus id {value!r}: bad date.") from None
        object.__setattr__(self, "value", value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        return self.value == other.value if isinstance(other, RefocusId) else NotImplemented

    def __lt__(self, other: object) -> bool:
        return self.value < other.value if isinstance(other, RefocusId) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"RefocusId(value={self.value!r})"

    def __reduce__(self) -> tuple[type[RefocusId], tuple[str]]:
        return RefocusId, (self.value,)

    @classmethod
    def build(cls, date: _dt.date, slug: str, child_session_id: str) -> "RefocusId":
        validate_slug(slug)
        if not is_session_id(child_session_id):
            raise RefocusError(f"invalid child session id {child_session_id!r}: expected a UUIDv4.")
        return cls(f"{date.isoformat()}-{slug}-{child_session_id[:6]}")

    @classmethod
    def is_valid(cls, value: str) -> bool:
        """What construction accepts, without building one (catalogs ask it of every name)."""
        m = _ID_RE.match(value) if isinstance(value, str) else None
        if not m or len(m.group(2)) > SLUG_MAX:
            return False
        try:
            _dt.date.fromisoformat(m.group(1))
        except ValueError:
            return False
        return True

    @property
    def date(self) -> str:
        return self.value[:10]

    @property
    def slug(self) -> str:
        return self.value[11:-7]

    @property
    def hex6(self) -> str:
        return self.value[-6:]

    @property
    def ref(self) -> str:
        return ref_name(self.value)

    def __str__(self) -> str:
        return self.value
