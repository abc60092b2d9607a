"""`list --global` over 200 registered repositories × 50 refocuses each.

    .venv/bin/python benchmarks/global_bench.py [--repos N] [--per-repo N] [--runs N]

Generates its own data in a hermetic HOME: N repositories, each built by one
`git fast-import` stream holding its refocus refs (spawned → started →
completed event commits with event.json, state.json, brief.md, exactly as
gitrefocus.store writes them) plus the brief files, and a registry listing
them all. Times, side by side in one run:

- anchor: a shell loop reading every refocus state with the git CLI
  (`git for-each-ref refs/refocus | git cat-file --batch` in each repository);
- the CLI's start-up floor (`git refocus --version`);
- `git refocus list` in one of the repositories;
- `git refocus list --global`, cold (every catalog cache removed) and warm.

Target: `list --global` ≤ 1.5 s. The machine is shared and loaded:
the ratios to the anchor are the figures to quote.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

STATUSES = ["result"] * 6 + ["in-progress", "reserved", "blocked", "abandoned"]


def _env(home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_", "CLAUDE", "SESSION_REFOCUS", "XDG_"))}
    env.update(HOME=home, XDG_STATE_HOME=os.path.join(home, ".local", "state"), GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL=os.path.join(home, ".gitconfig"), PYTHONPATH=ROOT,
               GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="b@example.com",
               GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="b@example.com")
    return env


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def _events(rid: str, day: str, target: str, meta: dict, src: str, dest: str):
    from gitrefocus.model import events as ev
    from gitrefocus.model.events import Event

    actor = {"name": "Bench", "email": "b@example.com"}
    out = [Event(rid, ev.SPAWNED, f"{day}T10:00:00Z", actor, {"meta": meta})]
    if target != "reserved":
        out.append(Event(rid, ev.STARTED, f"{day}T11:00:00Z", actor,
                         {"meta_changes": {"status": "in-progress", "launched_at": f"{day}T11:00:00Z"}}))
    if target in ("result", "blocked"):
        out.append(Event(rid, ev.COMPLETED, f"{day}T12:00:00Z", actor,
                         {"status": target, "meta_changes": {"status": target, "completed_at": f"{day}T12:00:00Z"}}))
    if target == "abandoned":
        out.append(Event(rid, ev.ABANDONED, f"{day}T12:00:00Z", actor,
                         {"meta_changes": {"status": "abandoned", "reason": "bench"}}))
    return out


def build_repo(path: str, sibling: str, n: int, seed: int, env: dict[str, str]) -> None:
    """One repository of ``n`` refocuses (``sibling`` as their source), in one fast-import."""
    from gitrefocus.model import clock
    from gitrefocus.model import events as ev
    from gitrefocus.model.brief import Brief, BriefContent, render_body, validate_meta
    from gitrefocus.ops.record import apply_to_doc
    from gitrefocus.store.eventlog import state_json

    subprocess.run(["git", "init", "-q", path], check=True, env=env)
    stream = [b"commit refs/heads/main\ncommitter Bench <b@example.com> 1700000000 +0000\n", _data(b"init"),
              b"M 100644 inline README.md\n", _data(b"# bench\n")]
    os.makedirs(os.path.join(path, "docs", "refocus"))
    mark = 0
    for i in range(n):
        sid = str(uuid.UUID(int=(seed * 100_000 + i) | (4 << 76) | (1 << 63), version=4))
        day = f"2026-{1 + (seed + i) % 12:02d}-{1 + i % 28:02d}"
        rid = f"{day}-bench-{seed}-{i}-{sid[:6]}"
        meta = validate_meta({"id": rid, "status": "reserved", "child_session_id": sid, "spawn_mode": "manual",
                              "spawned_at": f"{day}T10:00:00Z", "source_dir": sibling, "dest_dir": path,
                              "slug": f"bench-{seed}-{i}", "done_when": ["it works"]}, "bench")
        doc = Brief(meta=meta, body=render_body(meta, BriefContent("benchmark entry", ["a fact"])))
        state, parent = None, None
        for e in _events(rid, day, STATUSES[(seed + i) % len(STATUSES)], meta, sibling, path):
            doc = apply_to_doc(doc, e) if e.kind != ev.SPAWNED else doc
            state, _ = ev.apply(state, e)
            mark += 1
            when = int(clock.parse(e.at).timestamp())
            message = f"refocus({rid}): {e.kind}\n\nEvent-Id: {e.event_id}\n".encode()
            stream += [f"commit refs/refocus/{rid}\nmark :{mark}\n".encode(),
                       f"author Bench <b@example.com> {when} +0000\ncommitter Bench <b@example.com> {when} +0000\n".encode(),
                       _data(message)]
            if parent:
                stream.append(f"from :{parent}\n".encode())
            for name, payload in (("event.json", e.to_json().encode()), ("state.json", state_json(state)),
                                  ("brief.md", doc.render().encode())):
                stream += [f"M 100644 inline {name}\n".encode(), _data(payload)]
            parent = mark
        with open(os.path.join(path, "docs", "refocus", f"{rid}.md"), "w", encoding="utf-8") as fh:
            fh.write(doc.render())
    subprocess.run(["git", "-C", path, "fast-import", "--quiet"], input=b"".join(stream), check=True, env=env)
    subprocess.run(["git", "-C", path, "reset", "-q", "--soft", "main"], check=True, env=env)
    subprocess.run(["git", "-C", path, "symbolic-ref", "HEAD", "refs/heads/main"], check=True, env=env)


def timed(args: list[str], cwd: str, env: dict[str, str], runs: int, before=None, shell=False) -> list[float]:
    out = []
    for _ in range(runs):
        if before:
            before()
        t0 = time.perf_counter()
        subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True, shell=shell)
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repos", type=int, default=200)
    ap.add_argument("--per-repo", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    cli = [sys.executable, "-m", "gitrefocus"]
    with tempfile.TemporaryDirectory(prefix="refocus-global-bench-") as root:
        home = os.path.join(root, "home")
        os.makedirs(home)
        env = _env(home)
        with open(os.path.join(home, ".gitconfig"), "w") as fh:
            fh.write("[init]\n\tdefaultBranch = main\n")
        t0 = time.perf_counter()
        paths = [os.path.join(root, f"repo{i:03d}") for i in range(args.repos)]
        for i, path in enumerate(paths):
            build_repo(path, paths[i - 1], args.per_repo, i, env)
        registry = os.path.join(home, ".local", "state", "git-refocus", "repositories")
        os.makedirs(os.path.dirname(registry))
        with open(registry, "w") as fh:
            fh.write("".join(os.path.realpath(p) + "\n" for p in paths))
        total = args.repos * args.per_repo
        print(f"generated {args.repos} repositories x {args.per_repo} refocuses = {total} "
              f"in {time.perf_counter() - t0:.1f} s")

        def drop_caches():
            for cache in glob.glob(os.path.join(root, "repo*", ".git", "refocus", "cache", "catalog.json")):
                os.unlink(cache)

        anchor = ("for r in repo*; do git -C \"$r\" for-each-ref --format='%(objectname):state.json' refs/refocus "
                  "| git -C \"$r\" cat-file --batch >/dev/null; done")
        one = paths[0]
        rows = [
            ("anchor: git for-each-ref | cat-file --batch, every repo", timed(["sh", "-c", anchor], root, env, args.runs)),
            ("git refocus --version (start-up floor)", timed(cli + ["--version"], root, env, args.runs)),
            (f"git refocus list, one repo ({args.per_repo} entries)", timed(cli + ["list"], one, env, args.runs)),
            ("git refocus list --global, cold (no caches)", timed(cli + ["list", "--global"], root, env, args.runs,
                                                               drop_caches)),
            ("git refocus list --global, warm", timed(cli + ["list", "--global"], root, env, args.runs)),
            ("git refocus list --global --json, warm", timed(cli + ["list", "--global", "--json"], root, env, args.runs)),
        ]
        for path in paths:  # what `git gc` (auto or by hand) does to a long-lived repository's refs
            subprocess.run(["git", "-C", path, "pack-refs", "--all"], check=True, env=env)
        packed = [
            ("packed refs: anchor", timed(["sh", "-c", anchor], root, env, args.runs)),
            ("packed refs: git refocus list --global, cold", timed(cli + ["list", "--global"], root, env, args.runs,
                                                                  drop_caches)),
            ("packed refs: git refocus list --global, warm", timed(cli + ["list", "--global"], root, env, args.runs)),
        ]
        check = subprocess.run(cli + ["list", "--global", "--all", "--json"], cwd=root, env=env, check=True,
                               capture_output=True, text=True)
        import json

        seen = json.loads(check.stdout)
        assert len(seen["repositories"]) == args.repos and len(seen["entries"]) == total, "the benchmark data is wrong"
        width = max(len(r[0]) for r in rows + packed)
        print(f"{'what (loose refs, as written; then packed)':<{width}}  median    min      max     x anchor  (n={args.runs})")
        for group in (rows, packed):
            base = statistics.median(group[0][1])
            for name, times in group:
                med = statistics.median(times)
                print(f"{name:<{width}}  {med:6.3f}s  {min(times):6.3f}s  {max(times):6.3f}s  {med / base:6.2f}x")
        for label, anchor_t, cold_t, warm_t in (("loose", rows[0][1], rows[3][1], rows[4][1]),
                                                ("packed", packed[0][1], packed[1][1], packed[2][1])):
            base, cold, warm = (statistics.median(t) for t in (anchor_t, cold_t, warm_t))
            print(f"{label} refs: list --global warm {warm:.3f} s ({warm / base:.2f}x anchor), cold {cold:.3f} s "
                  f"({cold / base:.2f}x anchor); target <= 1.5 s warm: {'MET' if warm <= 1.5 else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
