"""What ``doctor`` reports: one finding per problem, with the repair that loses nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gitrefocus.model.records import dataclass, field

PROBLEM, INFO = "problem", "info"


@dataclass
class Finding:
    kind: str
    message: str
    id: str | None = None
    severity: str = PROBLEM
    fix: Callable[[], object] | None = field(default=None, repr=False)  # a lossless repair, or None
    repair: str | None = None  # what the repair does
    repaired: bool = False
    repair_error: str | None = None
    touches: str | None = field(default=None, repr=False)  # another repository the repair writes to

    @property
    def repairable(self) -> bool:
        return self.fix is not None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "severity": self.severity, "message": self.message,
                "repairable": self.repairable, "repair": self.repair, "repaired": self.repaired,
                "repair_error": self.repair_error}
