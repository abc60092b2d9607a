"""``refocus.*`` git configuration and its defaults (the README's "Configuration" lists them).

Read through the git CLI (:func:`read`), as git itself resolves it: system,
global and repository files, includes, and ``git -c`` on the command line
(``git -c refocus.recentDays=7 refocus list``). One ``git config --list``
per repository opened, and no libgit2 to load for a command that only reads.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no `typing` at run time: the post-tool-use hook imports this module
if TYPE_CHECKING:
    from typing import Literal, overload

    IntKey = Literal["staleReservedHours", "recentDays", "archiveDays", "maxChainDepth", "stalenessCommits", "quietHours"]
    StrKey = Literal["contextDir", "budget", "searchPaths", "contextSaveCommand", "agent"]

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
    "agent": "claude",
}
BUDGETS = ("economy", "light", "standard", "detailed")


if TYPE_CHECKING:  # {name as git lists it (section and key lower-cased): [value, or None for a bare key]}
    Values = dict[str, list[str | None]]
_UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
_LAST: dict[str, Values] = {}  # git dir -> what read() last gave it in this process


def read(git_dir: str) -> Values:
    """Every setting git gives the repository at ``git_dir`` (``git config
    --list``); {} when git cannot read it (a malformed file: defaults apply)."""
    from gitrefocus.store import git

    code, text = git.read(git_dir, "--git-dir=.", "config", "--list", "-z")
    out: Values = {}
    if code == 0:
        for item in text.decode("utf-8", "surrogateescape").split("\0"):
            if item:
                name, nl, value = item.partition("\n")
                out.setdefault(name, []).append(value if nl else None)
    _LAST[git_dir] = out
    return out


def last_read(git_dir: str) -> Values | None:
    """What :func:`read` last gave ``git_dir`` in this process, or None if it did
    not run: a setting wanted once a command has read them all (``color.ui``
    for the output) costs no second git."""
    return _LAST.get(git_dir)


def _int(value: str) -> int | None:
    """git's integer syntax (``--type=int``): digits with an optional k, m or g."""
    text, scale = value.strip(), 1
    if text[-1:].lower() in _UNITS:
        text, scale = text[:-1], _UNITS[text[-1].lower()]
    digits = text[1:] if text[:1] in ("+", "-") else text
    return int(text) * scale if digits.isascii() and digits.isdigit() else None


if TYPE_CHECKING:
    @overload
    def get(values: Values, key: IntKey) -> int: ...
    @overload
    def get(values: Values, key: StrKey) -> str: ...
def get(values: Values, key: str) -> int | str:
    """``refocus.<key>``, typed like its default: the last value set wins, as in
    git; missing, valueless or malformed, the default."""
    default = DEFAULTS[key]
    found = values.get(f"refocus.{key}".lower())
    value = found[-1] if found else None
    if value is None:
        return default
    if isinstance(default, int):
        number = _int(value)
        return default if number is None else number
    return str(value)


def get_multi(values: Values, key: str) -> list[str]:
    """Every value of ``refocus.<key>``, in the order git reads them."""
    return [v for v in values.get(f"refocus.{key}".lower(), ()) if v is not None]
