"""Hooks exit 0 whatever arrives on stdin or in the environment (a parse bounded in size
and depth); the command line and the environment in any encoding give one clear error."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.runner import ROOT, refocus, source_env, spawn_args

EVENTS = ["session-start", "session-end", "post-tool-use", "stop"]
HOSTILE = {
    "nested arrays": b"[" * 1100,
    "nested objects": b'{"a":' * 1100 + b"1" + b"}" * 1100,
    "deep but closed": b'{"session_id": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    "not UTF-8": b'{"session_id": "\xff\xfe", "cwd": "\xc3"}',
    "wrong types": b'{"session_id": ["x"], "cwd": 5, "transcript_path": {}, "hook_event_name": null}',
    "an array": b"[1, 2, 3]",
    "garbage": b"\x00\x01\x02 not json at all",
    "huge": b'{"session_id": "' + b"x" * (9 * 1024 * 1024) + b'"}',
}


def run_hook(event: str, stdin: bytes, cwd, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gitrefocus", "hook", event], input=stdin, cwd=str(cwd),
                          env=source_env(env), capture_output=True, timeout=60)


CASES = [(event, shape) for event in ("session-start", "stop") for shape in HOSTILE] + \
        [(event, "nested arrays") for event in ("session-end", "post-tool-use")]


@pytest.mark.parametrize("event,shape", CASES)
def test_a_hook_exits_0_whatever_arrives_on_stdin(started, event, shape):
    src, dest, rid = started
    r = run_hook(event, HOSTILE[shape], dest)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, (r.returncode, r.stderr[-500:])
    assert len(r.stderr.splitlines()) <= 1, r.stderr


@pytest.mark.parametrize("event", EVENTS)
def test_a_hook_exits_0_with_an_environment_in_any_encoding(started, event):
    src, dest, rid = started
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env_bytes = {k.encode(): v.encode("utf-8", "surrogateescape") for k, v in env.items()}
    env_bytes[b"CLAUDE_CODE_SESSION_ID"] = b"\xff\xfe-session"
    env_bytes[b"SESSION_REFOCUS_ID"] = b"\xc3("
    payload = b'{"session_id": "s", "cwd": "' + str(dest).encode() + b'", "hook_event_name": "x"}'
    r = subprocess.run([sys.executable, "-m", "gitrefocus", "hook", event], input=payload, cwd=str(dest),
                       env=env_bytes, capture_output=True, timeout=60)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr


def test_an_argument_that_is_not_utf8_is_one_clear_error(started):
    src, dest, rid = started
    r = subprocess.run([sys.executable, "-m", "gitrefocus", "show", b"\xff\xfe"], cwd=str(dest), env=source_env(),
                       capture_output=True, text=True, errors="replace")
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "not valid UTF-8" in lines[0], r


@pytest.mark.parametrize("name", ["CLAUDE_CODE_SESSION_ID", "SESSION_REFOCUS_ID", "CLAUDE_PROJECT_DIR"])
def test_an_environment_variable_that_is_not_utf8_is_one_clear_error(started, name):
    src, dest, rid = started
    env = {k.encode(): v.encode("utf-8", "surrogateescape") for k, v in source_env().items()}
    env[name.encode()] = b"\xff\xfe"
    r = subprocess.run([sys.executable, "-m", "gitrefocus", "complete", "--summary", "s",
                        "--no-material-changes", "n"], cwd=str(dest), env=env, capture_output=True, text=True,
                       errors="replace")
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1 and len(lines) == 1 and name in lines[0] and "UTF-8" in lines[0], r
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "in-progress", "nothing was recorded"


def test_a_repository_whose_path_is_not_utf8_is_one_clear_error(tmp_path):
    from tests.gitrepo import make_repo

    src = make_repo(tmp_path / "src")
    odd = os.fsencode(str(tmp_path)) + b"/dest-\xff"
    os.mkdir(odd)
    subprocess.run(["git", "init", "-q", odd], check=True)
    subprocess.run(["git", "-C", odd, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    r = subprocess.run([sys.executable, "-m", "gitrefocus", *spawn_args(os.fsdecode(odd))[:-1]], cwd=str(src),
                       env=source_env(), capture_output=True, text=True, errors="replace")
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode in (1, 2) and len(lines) == 1 and "UTF-8" in lines[0], r



def test_a_lone_surrogate_escape_in_the_session_id_does_not_stop_delivery(started):
    """'"\\ud800"' in the JSON on stdin parsed to a lone surrogate: the hook failed where it wrote
    the session id out (UnicodeEncodeError on stderr), and the result waiting for the parent was
    not delivered. Now it reads as U+FFFD, like bytes that are not UTF-8."""
    from tests.claude.hookcall import context, hook

    src, dest, rid = started
    refocus("complete", "--summary", "Standard written.", "--no-material-changes", "none", cwd=dest)
    r = hook("session-start", {"session_id": "parent-\ud800", "cwd": str(src), "source": "startup"}, src)
    assert r.returncode == 0 and r.stderr == "", r.stderr  # json.dumps wrote the escape "\ud800"
    assert "Standard written." in context(r)
    assert refocus("status", "--json", cwd=src).json["outgoing"]["results_waiting"] == []


@pytest.mark.parametrize("event", ["post-tool-use", "stop"])
def test_a_lone_surrogate_escape_in_the_cwd_is_no_error(started, event):
    from tests.claude.hookcall import hook

    src, dest, rid = started
    payload = {"session_id": "s1", "cwd": f"{dest}\ud800", "hook_event_name": event, "tool_name": "Bash",
               "tool_input": {"command": "git commit -m x"}, "tool_response": {}}
    r = hook(event, payload, dest)
    assert r.returncode == 0 and r.stderr == "", r.stderr
