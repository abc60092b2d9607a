"""A fixed place on disk where a scenario's repositories live, rebuilt from a template
for every run, and the state of those repositories as a person would judge it.

Every fault sweep (tests/faults/sweep.py) runs one command many times against the
same starting state: the template is built once with the CLI, copied aside, and
copied back into the *same* absolute path before each run (event logs and briefs
name absolute directories, so a copy elsewhere would be another state).

:func:`snapshot` reads that state with the git CLI and the file system alone, never
with git refocus itself, so it can judge what `doctor` says: refs and their events,
every file under docs/, the set-up files, git config, the note lines, the markers
and loops under .git/refocus, lock files, commits and the work tree's status.
Random ids (refocus ids' hex, session and loop ids) are normalised away, and the
clock is fixed (GIT_REFOCUS_NOW), so two clean runs give equal snapshots.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.runner import Result, run_cli

ROOT = Path(__file__).resolve().parent.parent.parent
NOW = "2026-05-01T12:00:00Z"

_RID = re.compile(r"(\d{4}-\d{2}-\d{2}-[a-z0-9-]+-)[0-9a-f]{6}\b")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_TMP = re.compile(r"\.tmp-[0-9a-f]{12}")


def normalise(text: str) -> str:
    return _TMP.sub(".tmp-X", _UUID.sub("<uuid>", _RID.sub(r"\1XXXXXX", text)))


class World:
    """The directory a scenario runs in: its repositories, HOME, the hermetic environment."""

    def __init__(self, root: Path):
        self.root = root
        self.home = root / "home"

    def env(self, **extra: str | None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CLAUDE", "SESSION_REFOCUS"))}
        env.update({
            "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_STATE_HOME": str(self.home / ".local/state"), "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local/share"),
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(self.home / ".gitconfig"),
            "GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "false",
            "GIT_AUTHOR_NAME": "Ada Author", "GIT_AUTHOR_EMAIL": "ada@example.com",
            "GIT_COMMITTER_NAME": "Ada Author", "GIT_COMMITTER_EMAIL": "ada@example.com",
            "GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000",
            "GIT_REFOCUS_NOW": NOW, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1",
        })
        for k, v in extra.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def reset(self) -> None:
        """An empty world with its HOME and git identity."""
        if self.root.exists():
            for child in self.root.iterdir():
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child)
                else:
                    child.unlink()
        self.root.mkdir(parents=True, exist_ok=True)
        self.home.mkdir()
        (self.home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[user]\n\tname = Ada Author\n"
                                              "\temail = ada@example.com\n[refocus]\n\tagreedRemote = *\n")

    # -- running things ------------------------------------------------------------------------
    def git(self, cwd: Path, *args: str, check: bool = True, env: dict | None = None) -> str:
        proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                              env=env or self.env())
        if check and proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} in {cwd}: {proc.stderr}")
        return proc.stdout

    def refocus(self, *args: str, cwd: Path, env: dict | None = None, stdin: str | None = None,
                check: bool = True, timeout: float = 120) -> Result:
        """In this process, but a run that may be killed (tests/runner.py ``run_cli``)."""
        proc = run_cli(list(args), cwd=cwd, env=env or self.env(), input=stdin, timeout=timeout)
        if check and proc.returncode != 0:
            raise RuntimeError(f"git refocus {' '.join(args)} in {cwd} exited {proc.returncode}: {proc.stderr}")
        return proc

    def repo(self, name: str, *, commit: bool = True) -> Path:
        path = self.root / name
        path.mkdir(parents=True)
        self.git(path, "init", "-q")
        if commit:
            (path / "README.md").write_text(f"# {name}\n")
            self.git(path, "add", "README.md")
            self.git(path, "commit", "-q", "-m", "initial")
        return path


def copy_tree(src: Path, dst: Path) -> None:
    """``cp -a src/. dst/``: dst keeps being the same directory (it may be a mount point)."""
    dst.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", f"{src}/.", str(dst)], check=True)


def clear_tree(path: Path) -> None:
    for child in path.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


# -- the state of a repository as a person judges it ------------------------------------------
def _git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                          env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"})
    return proc.stdout if proc.returncode == 0 else f"<git {args[0]} failed: {proc.returncode}>"


def _files(top: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    if not top.exists():
        return out
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = normalise(str(path.relative_to(top)))
            if path.is_symlink() or not path.is_file():
                out[rel] = "<not a regular file>"
                continue
            out[rel] = normalise(path.read_bytes().decode("utf-8", "replace"))
    return out


def _log(repo: Path, ref: str) -> list[tuple[str, str]]:
    out = []
    for line in _git(repo, "log", "--first-parent", "--reverse", "--format=%H %P", ref).splitlines():
        oid, *parents = line.split()
        if len(parents) > 1:
            continue
        try:
            event = json.loads(_git(repo, "show", f"{oid}:event.json"))
            out.append((event.get("kind"), event.get("at")))
        except ValueError:
            out.append(("<unreadable>", ""))
    return out


def _refs(repo: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    listing = _git(repo, "for-each-ref", "--format=%(refname) %(objecttype)", "refs/")
    for line in listing.splitlines():
        name, kind = line.rsplit(" ", 1)
        if name.startswith("refs/refocus/"):
            state = {}
            try:
                state = json.loads(_git(repo, "show", f"{name}:state.json"))
            except ValueError:
                pass
            kept = {k: state.get(k) for k in ("status", "launched_at", "completed_at", "received_at", "reason",
                                               "sessions", "dest_dir", "source_dir")}
            kept["summary"] = (state.get("result") or {}).get("summary") if isinstance(state.get("result"), dict) else None
            kept["conflicts"] = len(state.get("conflicts") or [])
            out[normalise(name)] = {"events": _log(repo, name), "state": json.loads(normalise(json.dumps(kept)))}
        elif name.startswith(("refs/notes/refocus-tmp", "refs/refocus-quarantine", "refs/refocus-tmp")):
            out[normalise(name)] = kind
        elif name.startswith("refs/refocus-remotes/"):
            out[normalise(name)] = "tracking"
    return out


def _notes(repo: Path) -> list[str]:
    listing = _git(repo, "notes", "--ref=refocus", "list").split()
    if not listing:
        return []
    blobs = listing[0::2]
    proc = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input="\n".join(blobs) + "\n",
                          capture_output=True, text=True)
    lines = {normalise(ln) for ln in proc.stdout.splitlines() if " refocus " in ln and ln[:4].isdigit()}
    return sorted(lines)


def _local(git_dir: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    state = git_dir / "refocus"
    for rel in ("active",):
        if (state / rel).exists():
            out[rel] = normalise((state / rel).read_text(errors="replace"))
    for sub in ("sessions", "suggested"):
        for path in sorted((state / sub).glob("*")) if (state / sub).is_dir() else []:
            if not path.name.startswith("."):
                out[f"{sub}/{normalise(path.name)}"] = normalise(path.read_text(errors="replace"))
    loops = state / "loops"
    for path in sorted(loops.glob("*.json")) if loops.is_dir() else []:
        try:
            data = json.loads(path.read_text())
            ids = {x.get("id"): f"L{i}" for i, x in enumerate(data.get("loops") or [])}
            text = json.dumps(data, sort_keys=True)
            for real, fake in ids.items():
                if real:
                    text = text.replace(real, fake)
            out[f"loops/{normalise(path.name)}"] = normalise(text)
        except ValueError:
            out[f"loops/{normalise(path.name)}"] = "<unreadable>"
    return out


def _locks(repo: Path) -> list[str]:
    git_dir = repo / ".git"
    found = []
    if (git_dir / "index.lock").exists():
        found.append("index.lock")
    for dirpath, _dirs, files in os.walk(git_dir / "refs"):
        found += [str(Path(dirpath, f).relative_to(git_dir)) for f in files if f.endswith(".lock")]
    if (git_dir / "packed-refs.lock").exists():
        found.append("packed-refs.lock")
    return sorted(normalise(f) for f in found)


def snapshot_repo(repo: Path) -> dict[str, object]:
    if not (repo / ".git").exists():
        return {"missing": True}
    hook = repo / ".git/hooks/commit-msg"
    return {
        "refs": _refs(repo),
        "docs": _files(repo / "docs"),
        "top": {name: normalise((repo / name).read_text(errors="replace")) if (repo / name).is_file() else None
                for name in (".gitignore", "CLAUDE.md", ".gitattributes")},
        "hook": hook.is_file() and os.access(hook, os.X_OK),
        "config": sorted(normalise(ln) for ln in _git(repo, "config", "--local", "--get-regexp", r"^(notes|refocus)\.")
                         .splitlines()),
        "notes": _notes(repo),
        "local": _local(repo / ".git"),
        "locks": _locks(repo),
        "commits": normalise(_git(repo, "log", "--format=%s", "HEAD")),
        "status": normalise(_git(repo, "status", "--porcelain", "--untracked-files=all")),
    }


def snapshot(world: World, repos: list[str]) -> dict[str, object]:
    return {name: snapshot_repo(world.root / name) for name in repos}


def differences(a: object, b: object, path: str = "") -> list[str]:
    """Where two snapshots differ, as short paths (for a report)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            out += differences(a.get(key), b.get(key), f"{path}/{key}")
        return out
    return [] if a == b else [path or "/"]
