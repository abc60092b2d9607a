"""``refocus.*`` git configuration with the defaults of SPEC §4.5."""

from __future__ import annotations

DEFAULTS = {
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


def get(config, key: str):
    """Read ``refocus.<key>`` from a pygit2 Config, typed like its default."""
    default = DEFAULTS[key]
    name = f"refocus.{key}"
    try:
        if isinstance(default, int) and not isinstance(default, bool):
            return config.get_int(name) if name in config else default
        return config[name] if name in config else default
    except Exception:  # a malformed value falls back to the default
        return default


def get_multi(config, key: str) -> list[str]:
    name = f"refocus.{key}"
    try:
        return [v for v in config.get_multivar(name)]
    except Exception:
        return []
