"""Synthetic git history for benchmarks, made with `git fast-import`."""

from __future__ import annotations

import os
import subprocess


def fast_import_repo(path: str, commits: int, context_files: int = 10, env=None) -> str:
    """A repo with ``commits`` linear commits on main; commit i touches src/f<i % 50>.txt
    and, at spread-out depths, docs/context/c<k>.md (so staleness varies)."""
    os.makedirs(path, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", path], check=True, env=env)
    touch_at = {commits - 1 - (k * k * 37) % commits: k for k in range(context_files)}
    proc = subprocess.Popen(["git", "-C", path, "fast-import", "--quiet"], stdin=subprocess.PIPE, env=env)
    w = proc.stdin.write
    for i in range(commits):
        files = [(f"src/f{i % 50}.txt", f"{i}\n")]
        if i in touch_at or i < context_files:
            k = touch_at.get(i, i)
            files.append((f"docs/context/c{k}.md", f"# context {k}\nrevision {i}\n"))
        msg = f"commit {i}\n".encode()
        w(b"commit refs/heads/main\n")
        w(f"committer Bench <b@example.com> {1_600_000_000 + i * 60} +0000\n".encode())
        w(f"data {len(msg)}\n".encode() + msg)
        for name, content in files:
            data = content.encode()
            w(f"M 100644 inline {name}\ndata {len(data)}\n".encode() + data + b"\n")
        w(b"\n")
    proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "-C", path, "checkout", "-q", "main"], check=True, env=env)
    return path
