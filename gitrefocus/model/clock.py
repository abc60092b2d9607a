"""UTC time, overridable with GIT_REFOCUS_NOW (an ISO timestamp) for tests and demos."""

from __future__ import annotations

import datetime as _dt
import os

FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now() -> _dt.datetime:
    fixed = os.environ.get("GIT_REFOCUS_NOW")
    if fixed:
        try:
            return parse(fixed)
        except ValueError:
            from gitrefocus.errors import RefocusError

            raise RefocusError(f"GIT_REFOCUS_NOW={fixed[:40]!r} is not a time (YYYY-MM-DDTHH:MM:SSZ).") from None
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)


def now_iso() -> str:
    return now().strftime(FORMAT)


def parse(ts: str) -> _dt.datetime:
    value = _dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    return value.astimezone(_dt.timezone.utc)


def iso(value: _dt.datetime) -> str:
    return value.astimezone(_dt.timezone.utc).strftime(FORMAT)


def age_hours(ts: str | None) -> float:
    if not ts:
        return 0.0
    return (now() - parse(ts)).total_seconds() / 3600.0


def parse_epoch(seconds: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(int(seconds), _dt.timezone.utc)
