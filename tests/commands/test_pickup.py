"""`git refocus pickup`: the prompt a child session starts from."""

from __future__ import annotations

from tests.runner import refocus


def test_pickup_prints_the_leaf_prompt_with_the_done_when_list(spawned):
    src, dest, out = spawned
    prompt = refocus("pickup", out["id"], cwd=dest).stdout
    assert "You are a leaf" in prompt and "1. MCPSTANDARD.md exists" in prompt
