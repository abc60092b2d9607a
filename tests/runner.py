"""Running our CLI as a user would: `git refocus ...` from this source tree, in a subprocess.

(The git CLI itself, for building repositories and checking what git sees, is tests/gitrepo.py.)
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout under test


def source_env(env: dict | None = None) -> dict:
    """This process's environment, with PYTHONPATH on the source tree (not whatever copy is
    installed in the venv) and ``env`` applied (a value of None removes the variable)."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT)
    full_env.update(env or {})
    return {k: v for k, v in full_env.items() if v is not None}


def git_refocus_on_path(directory: Path) -> Path:
    """A ``git-refocus`` in ``directory``/bin that runs this checkout, so that ``git refocus``
    (git finding its subcommand on PATH) is the code under test; the bin directory."""
    shim = directory / "bin"
    shim.mkdir(parents=True)
    (shim / "git-refocus").write_text(f'#!/bin/sh\nPYTHONPATH={shlex.quote(str(ROOT))} '
                                      f'exec {shlex.quote(sys.executable)} -m gitrefocus "$@"\n')
    (shim / "git-refocus").chmod(0o755)
    return shim


# what a hook run on every tool call or stop must not spend its time loading
HEAVY = ("click", "rich", "pygit2", "yaml", "dataclasses", "inspect", "typing")


def loaded_by(*modules: str, among: tuple[str, ...] = HEAVY) -> list[str]:
    """Those of ``among`` a fresh interpreter has loaded once it imported ``modules`` from the source tree."""
    code = f"import sys, {', '.join(modules)}; print(' '.join(m for m in {among!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=source_env()).stdout.split()


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
    """Run ``git refocus ARGS`` (as ``python -m gitrefocus``) in ``cwd``; fail the test on a
    non-zero exit unless check=False."""
    proc = subprocess.run(
        [sys.executable, "-m", "gitrefocus", *map(str, args)], cwd=str(cwd), env=source_env(env),
        capture_output=True, text=True, input=input,
    )
    result = Result(proc)
    if check and proc.returncode != 0:
        raise AssertionError(f"git refocus {' '.join(map(str, args))} failed: {result!r}")
    return result


def spawn_args(dest, slug="mcp-standard", *extra):
    """The arguments of a typical `git refocus spawn` into ``dest`` (with --json)."""
    return ["spawn", str(dest), "--slug", slug, "--reason", "MCP standard work drifted into this repo.",
            "--done-when", "MCPSTANDARD.md exists", "--done-when", "Review integrated", *extra, "--json"]
