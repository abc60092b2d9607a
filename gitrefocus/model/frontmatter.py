"""YAML frontmatter: a safe, strict parser and a stable emitter.

The emitter writes the subset of YAML the brief needs (scalars, lists of
strings) in a fixed key order, plain where a plain scalar reads back as the same
string and double-quoted (JSON-compatible escapes) otherwise, so that
``parse(render(x)) == x`` for every value the brief schema admits.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from types import ModuleType

from gitrefocus.errors import RefocusError

TYPE_CHECKING = False  # no `typing` at run time: the post-tool-use hook imports this module
if TYPE_CHECKING:
    from typing import Any

FENCE = "---"
# Bounds on what a brief's frontmatter may hold (docs/ARCHITECTURE.md, "Trust boundaries"): a hand-edited or
# fetched brief is input, and a few bytes of YAML aliases can expand to gigabytes.
MAX_BYTES = 256 * 1024
MAX_DEPTH = 8
_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\Z")
_PLAIN_RE = re.compile(r"^[A-Za-z0-9_./~@+(][A-Za-z0-9 _./~@:+,()=#'-]*\Z")
_YAML_WORDS = frozenset(
    "y n yes no on off true false null ~ .nan .inf -.inf .nan".split()
)


def _yaml() -> ModuleType:
    import yaml

    return yaml


def _loader() -> Any:  # a yaml Loader class, the C one when built
    yaml = _yaml()
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def split(text: str, where: str) -> tuple[str, str]:
    """Split a document into (frontmatter YAML, body)."""
    if not (text.startswith(FENCE + "\n") or text.startswith(FENCE + "\r\n")):
        raise RefocusError(f"{where}: no YAML frontmatter (the file must start with a '---' line).")
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == FENCE:
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    raise RefocusError(f"{where}: frontmatter is not closed by a '---' line.")


def _check_shape(yaml_text: str, where: str) -> None:
    """Refuse what a brief never needs and an attacker would: huge text, anchors and
    aliases (the "billion laughs"), deep nesting. Runs on the parser's events, before
    anything is built, so a bomb costs no more than its own length."""
    if len(yaml_text) > MAX_BYTES:
        raise RefocusError(f"{where}: frontmatter is {len(yaml_text)} characters; at most {MAX_BYTES} are read.")
    yaml = _yaml()
    depth = 0
    for event in yaml.parse(yaml_text, Loader=_loader()):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            line = event.start_mark.line + 2 if event.start_mark else "?"
            raise RefocusError(f"{where}: frontmatter uses a YAML anchor or alias (line {line}); "
                               f"write the value out instead.")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise RefocusError(f"{where}: frontmatter nests deeper than {MAX_DEPTH} levels.")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def load(yaml_text: str, where: str) -> dict[str, Any]:
    yaml = _yaml()
    try:
        _check_shape(yaml_text, where)
        data = yaml.load(yaml_text, Loader=_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "malformed YAML"
        raise RefocusError(f"{where}: malformed frontmatter{at}: {problem}.") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise RefocusError(f"{where}: frontmatter must be a mapping of keys to values.")
    return {str(k): normalize(v) for k, v in data.items()}


def normalize(value: Any) -> Any:
    """YAML turns unquoted timestamps and dates into objects; we keep strings."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, dict):
        return {str(k): normalize(v) for k, v in value.items()}
    return value


def _quote(s: str) -> str:
    out = []
    for ch in json.dumps(s, ensure_ascii=False):
        if ch in "\x85\u2028\u2029\ufeff" or (not ch.isprintable() and ch not in " "):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


def _reads_back(value: str) -> bool:
    """Whether ``value`` written plain loads as the same string (not a number,
    a date, a boolean...)."""
    yaml = _yaml()
    try:
        return bool(yaml.load(value, Loader=_loader()) == value)
    except yaml.YAMLError:
        return False


def scalar(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        raise TypeError(f"cannot render {type(value).__name__} in frontmatter")
    if _TS_RE.match(value):
        return value
    if (
        _PLAIN_RE.match(value)
        and value.lower() not in _YAML_WORDS
        and not value.endswith((" ", ":"))
        and ": " not in value
        and " #" not in value
        and _reads_back(value)
    ):
        return value
    return _quote(value)


def render(data: dict[str, Any]) -> str:
    lines = [FENCE]
    for key, value in data.items():
        key = scalar(key)
        if isinstance(value, list):
            if not value:
                lines.append(f"{key}: []")
            else:
                lines.append(f"{key}:")
                lines.extend(f"  - {scalar(item)}" for item in value)
        else:
            lines.append(f"{key}: {scalar(value)}")
    lines.append(FENCE)
    return "\n".join(lines) + "\n"
