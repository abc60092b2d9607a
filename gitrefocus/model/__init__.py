"""Pure values of git refocus: ids, the status machine, events and their fold,
briefs, results, frontmatter, note lines, the clock. No I/O: nothing here reads
or writes git or disk. May import only ``gitrefocus.errors`` and each other."""

from __future__ import annotations

from collections.abc import Mapping

# Hooks import this package on every tool call: `typing` (a few ms) is for the
# type checker only, which treats any name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    JSONObject = dict[str, Any]  # a JSON object, as json.loads returns it
else:
    JSONObject = dict


def recorded(raw: Mapping[str, Any], key: str) -> Any:
    """``raw[key]`` as it was recorded (None when absent), not checked: values
    read back from events are carried and written back exactly as they came."""
    return raw.get(key)
