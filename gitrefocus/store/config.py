"""``refocus.*`` git configuration with the defaults of SPEC §4.5."""

from __future__ import annotations

TYPE_CHECKING = False  # no `typing` at run time: the post-tool-use hook imports this module
if TYPE_CHECKING:
    from typing import Literal, overload

    from pygit2 import Config

    IntKey = Literal["staleReservedHours", "recentDays", "archiveDays", "maxChainDepth", "stalenessCommits", "quietHours"]
    StrKey = Literal["contextDir", "budget", "searchPaths", "contextSaveCommand"]

DEFAULTS: dict[str, int | str] = {
    "staleReservedHours": 24,
    "recentDays": 30,
    "archiveDays": 90,
    "maxChainDepth": 5,
    "stalenessCommits": 5,
    "quietHours": 24,
    "contextDir": "docs/context",
    "budget": "standard",
    "searchPaths": "",
    "contextSaveCommand": "",
}
BUDGETS = ("economy", "light", "standard", "detailed")


if TYPE_CHECKING:
    @overload
    def get(config: Config, key: IntKey) -> int: ...
    @overload
    def get(config: Config, key: StrKey) -> str: ...
def get(config: Config, key: str) -> int | str:
    """Read ``refocus.<key>`` from a pygit2 Config, typed like its default."""
    default = DEFAULTS[key]
    name = f"refocus.{key}"
    try:
        if isinstance(default, int) and not isinstance(default, bool):
            return config.get_int(name) if name in config else default
        value = config[name] if name in config else None
        return default if value is None else value  # None: a key without a value
    except Exception:  # a malformed value falls back to the default
        return default


def get_multi(config: Config, key: str) -> list[str]:
    name = f"refocus.{key}"
    try:
        return [v for v in config.get_multivar(name) if v is not None]
    except Exception:
        return []
