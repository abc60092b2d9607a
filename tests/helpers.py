"""Helpers shared by the test modules: real git, the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def git(cwd, *args, check=True, env=None) -> str:
    proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def make_repo(path: Path, *, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    if commit:
        (path / "README.md").write_text(f"# {path.name}\n")
        git(path, "add", "README.md")
        git(path, "commit", "-q", "-m", "initial")
    return path


class Result:
    def __init__(self, proc: subprocess.CompletedProcess):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    @property
    def json(self):
        return json.loads(self.stdout)

    def __repr__(self):
        return f"<exit {self.returncode}\nstdout: {self.stdout}\nstderr: {self.stderr}>"


def refocus(*args, cwd, env=None, input=None, check=True) -> Result:
    """Run the real CLI in a subprocess, as a user would."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT)  # the source tree, not whatever copy is installed
    full_env.update(env or {})
    for k, v in list(full_env.items()):
        if v is None:
            del full_env[k]
    proc = subprocess.run(
        [sys.executable, "-m", "gitrefocus", *map(str, args)], cwd=str(cwd), env=full_env,
        capture_output=True, text=True, input=input,
    )
    result = Result(proc)
    if check and proc.returncode != 0:
        raise AssertionError(f"git refocus {' '.join(map(str, args))} failed: {result!r}")
    return result


def spawn_args(dest, slug="mcp-standard", *extra):
    return ["spawn", str(dest), "--slug", slug, "--reason", "MCP standard work drifted into this repo.",
            "--done-when", "MCPSTANDARD.md exists", "--done-when", "Review integrated", *extra, "--json"]
