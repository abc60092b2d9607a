"""`git refocus sync` of 1,000 refocus refs vs a plain `git fetch` + `git push` of the same refs.
Target (docs/ARCHITECTURE.md, "Performance targets"): ≤ 3×.

    .venv/bin/python benchmarks/sync_bench.py [--entries N] [--runs N] [--diverged N]

Generates N refocuses (real event logs, 1-3 events each, through
gitrefocus.store) plus notes in clone A; a bare remote; an empty clone B.
Each run starts from fresh copies and times, side by side:

- publish: A sends everything (sync: fetch + merge + push; plain: fetch + push);
- receive: B takes everything (sync: fetch + create live refs + push nothing;
  plain: `git fetch` straight into refs/refocus/* + push);
- no-op: nothing changed on either side;
- diverged (informational): A and B each appended an event to the same
  --diverged refs; B's sync merges every one (union + merge marker) and pushes.
  A plain fetch + push cannot do this at all (it would be rejected); the plain
  column is the transfer alone.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)
import core_bench  # noqa: E402

ENV = core_bench.ENV
NO_HOOKS = ["-c", "core.hooksPath=/dev/null"]


def git(cwd, *args):
    return subprocess.run(["git", *NO_HOOKS, "-C", cwd, *args], env=ENV, check=True, capture_output=True, text=True)


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def refocus_sync(cwd):
    def run():
        subprocess.run([sys.executable, "-m", "gitrefocus", "sync", "origin", "--json"], cwd=cwd, env=ENV, check=True,
                       capture_output=True)
    return run


def plain(cwd, *, live: bool):
    """fetch (into tracking refs, or straight into live refs) + push of the same refs."""
    def run():
        if live:
            git(cwd, "fetch", "-q", "--no-tags", "origin", "refs/refocus/*:refs/refocus/*", "refs/notes/refocus*:refs/notes/refocus*")
        else:
            git(cwd, "fetch", "-q", "--no-tags", "--prune", "origin", "+refs/refocus/*:refs/refocus-remotes/origin/refocus/*",
                "+refs/notes/refocus*:refs/refocus-remotes/origin/notes/refocus*")
        git(cwd, "push", "-q", "origin", "refs/refocus/*:refs/refocus/*", "refs/notes/refocus:refs/notes/refocus")
    return run


def add_notes(path: str, n: int) -> None:
    """One audit line per refocus on HEAD-like commits: a notes tree with n entries, via fast-import."""
    from gitrefocus.store import refs
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.open(path)
    lines = []
    for rid, oid in sorted(refs.iter_refs(ws.repo)):
        lines.append((str(oid), f"2026-01-01T00:00:00Z refocus {rid} spawned role=dest status=reserved\n"))
    stream = ["commit refs/notes/refocus\ncommitter Bench <b@example.com> 1600000000 +0000\ndata 6\nnotes\n"]
    for oid, text in lines:
        data = text.encode()
        stream.append(f"N inline {oid}\ndata {len(data)}\n{text}\n")
    subprocess.run(["git", "-C", path, "fast-import", "--quiet"], input="".join(stream).encode(), env=ENV, check=True)


def append_event(path: str, rids: list[str], who: str, at: str) -> None:
    from gitrefocus.model import events as ev
    from gitrefocus.model.events import Event
    from gitrefocus.store import eventlog
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.open(path)
    for rid in rids:
        eventlog.append(ws.repo, rid, lambda tip, rid=rid: (Event(rid, ev.LINKED, at, {"name": who}, {"commits": []}), None))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--diverged", type=int, default=100)
    args = ap.parse_args()
    rows: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="refocus-syncbench-") as root:
        t0 = time.perf_counter()
        _, generated = core_bench.generate(os.path.join(root, "gen"), args.entries)
        add_notes(generated, args.entries)
        # the recorded source/dest directories must not exist: B is "another machine"
        a_template = os.path.join(root, "A-template")
        os.rename(generated, a_template)
        shutil.rmtree(os.path.join(root, "gen"))
        print(f"generated {args.entries} refocus refs (+ {args.entries} notes) in {time.perf_counter() - t0:.1f} s")
        from gitrefocus.store import eventlog, refs
        from gitrefocus.store.workspace import Workspace

        all_ids = sorted(rid for rid, _ in refs.iter_refs(Workspace.open(a_template).repo))
        diverged = all_ids[: args.diverged]

        def fresh(run_dir: str, kind: str) -> tuple[str, str]:
            remote = os.path.join(run_dir, f"{kind}-remote.git")
            a, b = os.path.join(run_dir, f"{kind}-A"), os.path.join(run_dir, f"{kind}-B")
            subprocess.run(["git", "init", "-q", "--bare", remote], env=ENV, check=True)
            shutil.copytree(a_template, a, symlinks=True)
            subprocess.run(["git", "init", "-q", b], env=ENV, check=True)
            for clone in (a, b):
                git(clone, "remote", "add", "origin", remote)
            return a, b

        for run in range(args.runs):
            run_dir = os.path.join(root, f"run{run}")
            os.makedirs(run_dir)
            (sa, sb), (pa, pb) = fresh(run_dir, "sync"), fresh(run_dir, "plain")
            order = [("sync", sa, sb), ("plain", pa, pb)] if run % 2 == 0 else [("plain", pa, pb), ("sync", sa, sb)]
            times = {}
            for kind, a, b in order:
                if kind == "sync":
                    steps = {"publish": refocus_sync(a), "receive": refocus_sync(b), "no-op": refocus_sync(b)}
                else:
                    steps = {"publish": plain(a, live=False), "receive": plain(b, live=True), "no-op": plain(b, live=True)}
                for step, fn in steps.items():
                    times[(kind, step)] = timed(fn)
            if diverged:
                for kind, a, b in order:
                    append_event(a, diverged, "A", "2026-06-01T10:00:00Z")
                    append_event(b, diverged, "B", "2026-06-01T09:00:00Z")
                    if kind == "sync":
                        subprocess.run([sys.executable, "-m", "gitrefocus", "sync", "origin"], cwd=a, env=ENV, check=True,
                                       capture_output=True)
                        times[(kind, "diverged")] = timed(refocus_sync(b))
                    else:
                        # the plain column: the same transfer, forced (a plain push would be rejected)
                        git(a, "push", "-q", "-f", "origin", "refs/refocus/*:refs/refocus/*")

                        def transfer(b=b):
                            git(b, "fetch", "-q", "--no-tags", "origin", "+refs/refocus/*:refs/refocus-remotes/origin/refocus/*")
                            git(b, "push", "-q", "-f", "origin", "refs/refocus/*:refs/refocus/*")
                        times[(kind, "diverged")] = timed(transfer)
                # every diverged ref now holds both events in the sync world
                ws = Workspace.open(sb)
                chain = eventlog.chain(ws.repo, refs.resolve(ws.repo, refs.ref_name(diverged[0])))
                assert {e.actor.get("name") for _, e in chain} >= {"A", "B"}, "diverged events were not merged"
            for step in ("publish", "receive", "no-op", "diverged"):
                if ("sync", step) in times:
                    rows.setdefault(step, []).append((times[("sync", step)], times[("plain", step)]))
            shutil.rmtree(run_dir)
    print(f"{'step':<10} {'sync':>9} {'plain':>9} {'ratio':>7}   (median of {args.runs} runs; {args.entries} refs)")
    headline_sync = headline_plain = 0.0
    for step, pairs in rows.items():
        s = statistics.median(p[0] for p in pairs)
        p = statistics.median(p[1] for p in pairs)
        note = f" ({args.diverged} refs diverged; informational)" if step == "diverged" else ""
        print(f"{step:<10} {s * 1000:7.0f}ms {p * 1000:7.0f}ms {s / p:6.2f}x{note}")
        if step in ("publish", "receive"):
            headline_sync += s
            headline_plain += p
    ratio = headline_sync / headline_plain
    print(f"sync of {args.entries} refs (publish + receive) vs git fetch + git push: {ratio:.2f}x  "
          f"target <= 3x -> {'MET' if ratio <= 3 else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
