"""`list` and `index` over 10,000 refocus entries, and `spawn` latency.

    .venv/bin/python benchmarks/core_bench.py [--entries N] [--runs N]

Generates its own data: N refocuses in a scratch repository, each with a real
event-log ref (spawned → started → completed, built through gitrefocus.store)
and a brief file. Times the real CLI (`git refocus list/index`) cold (no cache)
and warm, packed refs, and `git for-each-ref` over the same refs as an anchor.
Target (docs/ARCHITECTURE.md, "Performance targets"): list/index ≤ 1 s at 10,000 entries.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="b@example.com",
           GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="b@example.com", PYTHONPATH=ROOT)
for k in ("CLAUDE_CODE_SESSION_ID", "SESSION_REFOCUS_ROLE", "SESSION_REFOCUS_ID"):
    ENV.pop(k, None)


def sh(*args, cwd=None):
    subprocess.run(args, cwd=cwd, env=ENV, check=True, capture_output=True)


def generate(root: str, n: int, *, dest_exists: bool = False) -> tuple[str, str]:
    from gitrefocus.model import events as ev
    from gitrefocus.model import lifecycle
    from gitrefocus.model.brief import Brief, BriefContent, render_body, validate_meta
    from gitrefocus.model.events import Event
    from gitrefocus.ops.record import apply_to_doc
    from gitrefocus.store import eventlog, refs
    from gitrefocus.store.workspace import Workspace

    src, dest = os.path.join(root, "src"), os.path.join(root, "dest")
    for repo in (src, dest):
        if repo == dest and dest_exists:
            continue
        sh("git", "init", "-q", repo)
        sh("git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "init")
    ws = Workspace.open(dest)
    os.makedirs(ws.refocus_dir)
    statuses = [lifecycle.RESULT] * 6 + [lifecycle.IN_PROGRESS, lifecycle.RESERVED, lifecycle.BLOCKED, lifecycle.ABANDONED]
    for i in range(n):
        sid = str(uuid.uuid4())
        day = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
        rid = f"{day}-bench-{i}-{sid[:6]}"
        meta = validate_meta({"id": rid, "status": "reserved", "child_session_id": sid, "spawn_mode": "manual",
                              "spawned_at": f"{day}T10:00:00Z", "source_dir": src, "dest_dir": dest,
                              "slug": f"bench-{i}", "done_when": ["it works"]}, "bench")
        doc = Brief(meta=meta, body=render_body(meta, BriefContent("benchmark entry", ["a fact"])))
        actor = {"name": "Bench", "email": "b@example.com"}
        evs = [Event(rid, ev.SPAWNED, f"{day}T10:00:00Z", actor, {"meta": meta})]
        target = statuses[i % len(statuses)]
        if target != lifecycle.RESERVED:
            evs.append(Event(rid, ev.STARTED, f"{day}T11:00:00Z", actor,
                             {"meta_changes": {"status": "in-progress", "launched_at": f"{day}T11:00:00Z"}}))
        if target in (lifecycle.RESULT, lifecycle.BLOCKED):
            evs.append(Event(rid, ev.COMPLETED, f"{day}T12:00:00Z", actor,
                             {"status": target, "meta_changes": {"status": target, "completed_at": f"{day}T12:00:00Z"}}))
        if target == lifecycle.ABANDONED:
            evs.append(Event(rid, ev.ABANDONED, f"{day}T12:00:00Z", actor,
                             {"meta_changes": {"status": "abandoned", "reason": "bench"}}))
        tip = None
        for e in evs:
            doc = apply_to_doc(doc, e) if e.kind != ev.SPAWNED else doc
            tip = eventlog.build_commit(ws.repo, tip, e, doc.render().encode())
        ws.repo.references.create(refs.ref_name(rid), tip.oid)
        with open(ws.brief_path(rid), "w", encoding="utf-8") as fh:
            fh.write(doc.render())
    sh("git", "-C", dest, "gc", "-q")  # packs objects and refs, as any long-lived repo is
    return src, dest


def timed(args, cwd, runs: int, before=None) -> list[float]:
    out = []
    for _ in range(runs):
        if before:
            before()
        t0 = time.perf_counter()
        subprocess.run(args, cwd=cwd, env=ENV, check=True, capture_output=True)
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    cli = [sys.executable, "-m", "gitrefocus"]
    with tempfile.TemporaryDirectory(prefix="refocus-bench-") as root:
        t0 = time.perf_counter()
        src, dest = generate(root, args.entries)
        print(f"generated {args.entries} refocuses in {time.perf_counter() - t0:.1f} s ({dest})")
        cache = os.path.join(dest, ".git", "refocus", "cache", "catalog.json")

        def drop_cache():
            if os.path.exists(cache):
                os.unlink(cache)

        rows = [
            ("git for-each-ref refs/refocus (anchor)", timed(["git", "for-each-ref", "refs/refocus"], dest, args.runs)),
            ("git refocus --version (startup floor)", timed(cli + ["--version"], dest, args.runs)),
            ("git refocus list, cold (no cache)", timed(cli + ["list"], dest, args.runs, drop_cache)),
            ("git refocus list, warm", timed(cli + ["list"], dest, args.runs)),
            ("git refocus list --json, warm", timed(cli + ["list", "--json"], dest, args.runs)),
            ("git refocus index, cold (no cache)", timed(cli + ["index"], dest, args.runs, drop_cache)),
            ("git refocus index, warm", timed(cli + ["index"], dest, args.runs)),
        ]
        spawn_times = []
        for i in range(args.runs):
            spawn_times += timed(cli + ["spawn", dest, "--slug", f"lat-{i}", "--reason", "bench", "--done-when", "x"], src, 1)
        rows.append(("git refocus spawn (into the 10k repo)", spawn_times))
        width = max(len(r[0]) for r in rows)
        print(f"{'what':<{width}}  median    min      max   (n={args.runs})")
        for name, times in rows:
            print(f"{name:<{width}}  {statistics.median(times):6.3f}s  {min(times):6.3f}s  {max(times):6.3f}s")
        worst = max(statistics.median(t) for n, t in rows if n.startswith(("git refocus list", "git refocus index")))
        print(f"target list/index <= 1.000 s: worst median {worst:.3f} s -> {'MET' if worst <= 1.0 else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
