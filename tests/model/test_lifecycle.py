"""model/lifecycle.py: the status machine is exactly the one the spec draws."""

from __future__ import annotations

import pytest

from gitrefocus.errors import RefocusError
from gitrefocus.model import lifecycle


def test_status_machine_matches_spec():
    legal = {(a, b) for a in lifecycle.STATUSES for b in lifecycle.STATUSES if lifecycle.is_legal(a, b)}
    assert legal == {
        ("reserved", "brief"), ("reserved", "in-progress"), ("reserved", "abandoned"),
        ("brief", "in-progress"), ("brief", "abandoned"),
        ("in-progress", "result"), ("in-progress", "blocked"), ("in-progress", "abandoned"),
        ("blocked", "abandoned"),
    }
    with pytest.raises(RefocusError, match="^x is already completed; nothing to do.$"):
        lifecycle.require_transition("x", "result", "abandoned")
