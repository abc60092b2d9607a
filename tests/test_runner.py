"""The test runner's in-process `git refocus` (tests/runner.py): it must show a test what a new
interpreter shows, and leave nothing of one run behind for the next."""

from __future__ import annotations

import ast
import os
import re
import signal
from pathlib import Path

import pytest

from tests.gitrepo import make_repo
from tests.runner import PURE, RESET, ROOT, refocus, spawn_args

MUTATORS = {"append", "add", "update", "clear", "pop", "setdefault", "popitem", "discard", "remove", "extend",
            "insert", "move_to_end"}


def module_state(path: Path) -> set[str]:
    """The module globals of ``path`` that its functions change (``global``, an item set or
    deleted, a mutating method called), that cache results (functools.cache / lru_cache), or
    that hold a fact of the process read at import (the clock, the environment)."""
    tree = ast.parse(path.read_text())
    assignments = [node for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))]
    top = {t.id for node in assignments
           for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}
    found = {t.id for node in assignments if node.value is not None and _reads_the_process(node.value)
             for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            decorator = decorator.func if isinstance(decorator, ast.Call) else decorator
            if getattr(decorator, "attr", getattr(decorator, "id", "")) in ("cache", "lru_cache"):
                found.add(node.name)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Global):
                found.update(sub.names)
            elif isinstance(sub, (ast.Assign, ast.AugAssign, ast.Delete)):
                for target in sub.targets if isinstance(sub, (ast.Assign, ast.Delete)) else [sub.target]:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                        found.add(target.value.id)
            elif (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in MUTATORS
                  and isinstance(sub.func.value, ast.Name)):
                found.add(sub.func.value.id)
    return found & (top | {n.name for n in tree.body if isinstance(n, ast.FunctionDef)})


def _reads_the_process(value: ast.expr) -> bool:
    return any(isinstance(n, ast.Call) and ast.unparse(n.func).startswith(("time.", "os.", "sys.", "datetime."))
               or isinstance(n, ast.Attribute) and ast.unparse(n) in ("os.environ", "sys.argv")
               for n in ast.walk(value))


def test_every_piece_of_module_state_is_reset_between_in_process_runs():
    state = set()
    for path in (ROOT / "gitrefocus").rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        state |= {(module, name) for name in module_state(path)}
    assert state - RESET - PURE == set(), "module state the runner does not reset: add it to RESET (and _reset) or PURE"
    assert (RESET | PURE) - state == set(), "RESET or PURE names state the code no longer keeps"


def same(*args, cwd, **kwargs) -> tuple:
    """(exit code, stdout, stderr) of a command that writes nothing, in a subprocess and in this
    process, once a first run has filled what a read caches in the repository."""
    refocus(*args, cwd=cwd, check=False, own_process=True, **kwargs)
    return tuple((r.returncode, r.stdout, r.stderr)
                 for r in (refocus(*args, cwd=cwd, check=False, own_process=own, **kwargs) for own in (True, False)))


@pytest.mark.parametrize("args", [
    ["list", "--json"], ["list"], ["status"], ["show", "nope"], ["doctor", "--json"], ["--help"], ["version"],
    ["spawn", "--slug", "Bad Slug"], ["no-such-command"], ["-v", "list"], ["log", "--json"],
])
def test_in_process_runs_show_what_a_subprocess_shows(spawned, args):
    src, dest, _ = spawned
    env = {"GIT_REFOCUS_NOW": "2026-01-02T03:04:05Z", "NO_COLOR": "1"}
    by_process, here = same(*args, cwd=dest, env=env)
    assert here == by_process


def test_in_process_hook_reads_stdin_as_a_subprocess_does(started):
    _, dest, rid = started
    payload = '{"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup", "cwd": "%s"}' % dest
    by_process, here = same("hook", "session-start", cwd=dest, input=payload, env={"CLAUDE_CODE_SESSION_ID": "s-1"})
    assert here == by_process


def test_spawn_writes_the_same_in_process(tmp_path):
    env = {"GIT_REFOCUS_NOW": "2026-01-02T03:04:05Z"}
    seen = []
    for own in (True, False):
        top = tmp_path / ("by-process" if own else "here")
        src, dest = make_repo(top / "src"), make_repo(top / "dest")
        done = refocus(*spawn_args(dest), cwd=src, env=env, own_process=own)
        words = re.sub(r"-[0-9a-f]{6}\b", "-ID", done.stderr.replace(str(top), "TOP"))
        seen.append((done.returncode, words, sorted(done.json), sorted(p.name for p in (dest / "docs/refocus").iterdir())))
    assert seen[0][:3] == seen[1][:3] and len(seen[0][3]) == len(seen[1][3])


def test_a_run_leaves_this_process_as_it_found_it(repos, tmp_path):
    src, _ = repos
    before = (dict(os.environ), os.getcwd(), signal.getsignal(signal.SIGINT))
    refocus("-v", "-C", str(src), "init", cwd=tmp_path, env={"GIT_DIR": ".git"}, check=False)
    refocus("list", cwd=src)
    assert (dict(os.environ), os.getcwd(), signal.getsignal(signal.SIGINT)) == before


def test_calls_that_may_kill_their_process_run_in_a_subprocess(wired):
    src, dest = wired
    done = refocus(*spawn_args(dest), cwd=src, env={"GIT_REFOCUS_KILL_AFTER_WRITES": "1"}, check=False)
    assert done.returncode == -signal.SIGKILL
