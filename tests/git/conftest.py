"""Fixtures for the git-native audit trail: repositories after `git refocus init`."""

from __future__ import annotations

import pytest

from tests.helpers import refocus


@pytest.fixture
def initialized(repos):
    """src and dest, dest initialised (hook + notes config)."""
    src, dest = repos
    refocus("init", cwd=dest)
    return src, dest


@pytest.fixture
def started(initialized):
    """A refocus spawned from src into an initialised dest and started there."""
    src, dest = initialized
    from tests.helpers import spawn_args

    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    refocus("start", rid, cwd=dest)
    return src, dest, rid
