"""A hook run as the client runs it (JSON on stdin), for the tests of tests/claude."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.runner import ROOT, refocus


def hook(event, payload, cwd, env=None, stdin_open=False):
    full = {"PYTHONPATH": str(ROOT)}
    full.update(env or {})
    if stdin_open:  # the client does not always close stdin: we must not hang
        p = subprocess.Popen([sys.executable, "-m", "gitrefocus", "hook", event], cwd=cwd, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **full})
        p.stdin.write(json.dumps(payload))
        p.stdin.flush()  # ... and never closed until the hook has exited
        rc = p.wait(timeout=8)
        out, err = p.stdout.read(), p.stderr.read()
        p.stdin.close()
        return subprocess.CompletedProcess(p.args, rc, out, err)
    return refocus("hook", event, cwd=cwd, env=full, input=json.dumps(payload))


def context(result) -> str:
    return json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
