"""`git refocus pickup`: the prompt a child session starts from."""

from __future__ import annotations

from tests.runner import refocus


def test_pickup_prints_the_leaf_prompt_with_the_done_when_list(spawned):
    src, dest, out = spawned
    prompt = refocus("pickup", out["id"], cwd=dest).stdout
    assert "You are a leaf" in prompt and "1. MCPSTANDARD.md exists" in prompt


FAKE_CLAUDE = """#!/bin/sh
{{ pwd; for a in "$@"; do printf '%s\\n' "$a"; done; echo "SID=${{CLAUDE_CODE_SESSION_ID:-}}"; }} > {log}
echo "the child's answer"
exit ${{FAKE_EXIT:-0}}
"""


def test_pickup_run_starts_the_child_in_its_directory_with_its_prompt(spawned, tmp_path):
    """`/refocus --oneshot` runs this under `Bash(git refocus:*)`: no `cd`, no `$(...)`."""
    import os
    import shutil

    src, dest, out = spawned
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "claude.args"
    (bindir / "claude").write_text(FAKE_CLAUDE.format(log=log))
    (bindir / "claude").chmod(0o755)
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", "CLAUDE_CODE_SESSION_ID": "parent-session"}
    r = refocus("pickup", out["id"], "--run", "--allowed-tools", "Edit", cwd=src, env=env)
    assert r.stdout.strip() == "the child's answer"
    cwd, *argv, sid = log.read_text().splitlines()
    assert cwd == str(dest.resolve()) and sid == "SID=", "in the child's directory, without the parent's identity"
    assert argv[:3] == ["--session-id", out["child_session_id"], "-p"] and "You are a leaf" in "\n".join(argv)
    assert argv[-3:] == ["--allowedTools", "Bash(git refocus:*)", "Edit"]
    failed = refocus("pickup", out["id"], "--run", cwd=src, env={**env, "FAKE_EXIT": "3"}, check=False)
    assert failed.returncode == 1 and "exited with status 3" in failed.stderr
    no_claude = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    missing = refocus("pickup", out["id"], "--run", cwd=src, env={"PATH": no_claude}, check=False)
    assert missing.returncode == 1 and "`claude` is not on PATH" in missing.stderr


def test_pickup_json_is_the_prompt_as_a_versioned_object(spawned):
    src, dest, out = spawned
    model = refocus("pickup", out["id"], "--json", cwd=dest).json
    assert model["kind"] == "pickup" and model["id"] == out["id"] and "version" in model
    assert model["prompt"] == refocus("pickup", out["id"], cwd=dest).stdout
