"""Repositories holding N refocuses, built in seconds with ``git fast-import``.

    .venv/bin/python benchmarks/generate.py DIR N    # DIR/src and DIR/dest

Every refocus is what ``spawn`` → ``start`` → ``complete`` → ``receive`` (or
``abandon``) would have left: an event log under ``refs/refocus/<id>`` in both
repositories (one commit per event, ``event.json`` + ``state.json`` +
``brief.md``, built by the same model code the tool uses) and the brief file in
the destination's ``docs/refocus/``. The event commits are written as one
fast-import stream (linear in N; the old generator built them one libgit2 call
at a time and was quadratic in practice).

The mix is what a long-lived repository looks like: whatever N is, the same
:data:`ACTIVE` handful of refocuses is still open (reserved, in progress,
blocked, a brief), and all the others are finished long ago (received results
and abandoned briefs). So at 4 entries and at 100,000 a command has the same
open work to report, and any difference in its cost is the cost of the
finished history it should not be touching.

``waiting=K`` turns the newest K finished entries into results that came back
and were never received (spawned → started → completed): the backlog a
parent's SessionStart hook finds after a long absence.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

# statuses of the refocuses still open; the rest are finished
ACTIVE = ("reserved", "in-progress", "blocked", "brief")
FINISHED = ("result", "result", "result", "abandoned")
ACTOR = {"name": "Bench", "email": "b@example.com"}
WAITING = "waiting"  # a result that came back and was never received (its status is "result")


def _events(rid: str, meta: dict, target: str, day: str) -> list:
    from gitrefocus.model import events as ev
    from gitrefocus.model.events import Event

    def at(hour: int) -> str:
        return f"{day}T{hour:02d}:00:00Z"

    out = [Event(rid, ev.SPAWNED, at(10), ACTOR, {"meta": meta}, event_id=uuid.uuid4().hex)]
    if target == "brief":
        out.append(Event(rid, ev.EDITED, at(10), ACTOR, {"from": "reserved", "to": "brief",
                                                          "meta_changes": {"status": "brief"}}))
    if target in ("in-progress", "blocked", "result", WAITING):
        out.append(Event(rid, ev.STARTED, at(11), ACTOR, {"session_id": meta["child_session_id"], "meta_changes": {
            "status": "in-progress", "launched_at": at(11)}}))
    if target in ("blocked", "result", WAITING):
        status = "result" if target == WAITING else target
        out.append(Event(rid, ev.COMPLETED, at(12), ACTOR, {"status": status, "result": {"status": "completed",
                         "summary": "done", "no_material_changes": "bench"},
                         "meta_changes": {"status": status, "completed_at": at(12)}}))
    if target == "result":
        out.append(Event(rid, ev.RECEIVED, at(13), ACTOR, {}))
    if target == "abandoned":
        out.append(Event(rid, ev.ABANDONED, at(12), ACTOR, {"reason": "bench", "meta_changes": {
            "status": "abandoned", "reason": "bench"}}))
    return out


def _data(w, payload: bytes) -> None:
    w(b"data %d\n" % len(payload))
    w(payload)
    w(b"\n")


T_DAY, T_SLUG, T_SID = "2000-01-01", "tmplslug", "abcdef01-2345-4678-9abc-def012345678"
SCRATCH = "refs/bench/import"  # the branch fast-import builds on; deleted afterwards
T_RID = f"{T_DAY}-{T_SLUG}-{T_SID[:6]}"


def _templates(src: str, dest: str) -> dict[str, list[tuple[str, int, list[tuple[str, bytes]]]]]:
    """Per status: the event commits of a template refocus as (message, seconds
    after its day began, [(file, bytes)]); an entry is its template with the id,
    session id, day, slug and event ids replaced (rendering every brief through
    the YAML checks would make 100,000 entries take minutes)."""
    from gitrefocus.model import events as ev
    from gitrefocus.model.brief import Brief, BriefContent, render_body, validate_meta
    from gitrefocus.ops.record import apply_to_doc
    from gitrefocus.store.eventlog import SNAPSHOT, state_json

    out = {}
    for target in set(ACTIVE) | set(FINISHED) | {WAITING}:
        meta = validate_meta({"id": T_RID, "status": "reserved", "child_session_id": T_SID, "spawn_mode": "manual",
                              "spawned_at": f"{T_DAY}T10:00:00Z", "source_dir": src, "dest_dir": dest,
                              "slug": T_SLUG, "done_when": ["it works"]}, "bench")
        doc = Brief(meta=meta, body=render_body(meta, BriefContent("benchmark entry", ["a fact"])))
        state = None
        commits = []
        for e in _events(T_RID, meta, target, T_DAY):
            state, _ = ev.apply(state, e)
            if e.kind in ev.DOC_KINDS and e.kind != ev.SPAWNED:
                doc = apply_to_doc(doc, e)
            files = [("event.json", e.to_json().encode()), ("state.json", state_json(state)),
                     (SNAPSHOT, doc.render().encode())]
            commits.append((f"refocus({T_RID}): {e.kind}\n\nEvent-Id: {e.event_id}\n", int(e.at[11:13]) * 3600, files))
        out[target] = commits
    return out


def generate(root: str, n: int, env: dict | None = None, waiting: int = 0) -> tuple[str, str]:
    """Create ``root/src`` and ``root/dest`` holding ``n`` refocuses (``waiting`` of them
    results never received); return both paths."""
    import calendar

    src, dest = os.path.join(root, "src"), os.path.join(root, "dest")
    for repo in (src, dest):
        subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True, env=env, capture_output=True)
        subprocess.run(["git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "init"], check=True, env=env,
                       capture_output=True)
    src, dest = os.path.realpath(src), os.path.realpath(dest)
    templates = _templates(src, dest)
    briefs = os.path.join(dest, "docs", "refocus")
    os.makedirs(briefs)
    stream = os.path.join(root, "refocus.fi")
    mark = 0
    tips: dict[str, int] = {}
    with open(stream, "wb") as fh:
        w = fh.write
        for i in range(n):
            active = i >= n - len(ACTIVE)
            target = (ACTIVE[n - 1 - i] if active else WAITING if i >= n - len(ACTIVE) - waiting
                      else FINISHED[i % len(FINISHED)])
            sid = str(uuid.uuid4())
            # finished ones spread over past years; the open ones are recent
            day = (f"{2020 + (i * 5 // max(n, 1))}-{1 + i % 12:02d}-{1 + i % 28:02d}" if not active
                   else f"2026-01-{n - i:02d}")
            rid = f"{day}-bench-{i}-{sid[:6]}"
            midnight = calendar.timegm((int(day[:4]), int(day[5:7]), int(day[8:10]), 0, 0, 0))
            subst = [(T_RID.encode(), rid.encode()), (T_SID.encode(), sid.encode()), (T_DAY.encode(), day.encode()),
                     (T_SLUG.encode(), f"bench-{i}".encode())]
            parent = None
            text = b""
            for message, offset, files in templates[target]:
                event_id = message.rsplit(" ", 1)[1].strip()
                mine = subst + [(event_id.encode(), uuid.uuid4().hex.encode())]

                def fill(data: bytes, mine: list[tuple[bytes, bytes]] = mine) -> bytes:
                    for old, new in mine:
                        data = data.replace(old, new)
                    return data

                mark += 1
                if parent is None:
                    w(b"reset %s\n" % SCRATCH.encode())
                w(b"commit %s\nmark :%d\n" % (SCRATCH.encode(), mark))
                when = midnight + offset
                w(b"author Bench <b@example.com> %d +0000\ncommitter Bench <b@example.com> %d +0000\n" % (when, when))
                _data(w, fill(message.encode()))
                if parent is not None:
                    w(b"from :%d\n" % parent)
                for name, payload in files:
                    text = fill(payload)
                    w(b"M 100644 inline %s\n" % name.encode())
                    _data(w, text)
                w(b"\n")
                parent = mark
            tips[rid] = mark
            with open(os.path.join(briefs, rid + ".md"), "wb") as out:
                out.write(text)  # the last file of the last commit: brief.md
    marks = os.path.join(root, "refocus.marks")
    with open(stream, "rb") as fh:
        subprocess.run(["git", "-C", src, "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet",
                        f"--export-marks={marks}"], stdin=fh, check=True,
                       env=env)
    os.unlink(stream)
    subprocess.run(["git", "-C", src, "update-ref", "-d", SCRATCH], check=True, env=env)
    with open(marks, encoding="ascii") as fh:
        oids = dict(ln.split() for ln in fh)
    os.unlink(marks)
    install_refs(src, dest, oids, tips, env)
    check_tips((src, dest), len(tips), env)
    return src, dest


def install_refs(src: str, dest: str, oids: dict[str, str], tips: dict[str, int], env: dict | None) -> None:
    """``refs/refocus/<id>`` in both repositories, written straight into packed-refs (fast-import
    would write 2n loose refs one lock file at a time), and src's pack (the event logs fast-import
    wrote there) copied to dest, which holds the same logs."""
    pack_dir = os.path.join(src, ".git", "objects", "pack")
    for name in os.listdir(pack_dir):
        if name.endswith((".pack", ".idx")):
            shutil.copy(os.path.join(pack_dir, name), os.path.join(dest, ".git", "objects", "pack"))
    lines = [f"{oids[f':{m}']} refs/refocus/{rid}\n" for rid, m in tips.items()]
    for repo in (src, dest):
        subprocess.run(["git", "-C", repo, "pack-refs", "--all"], check=True, env=env)
        packed = os.path.join(repo, ".git", "packed-refs")
        with open(packed, encoding="utf-8") as fh:
            header, *ours = fh.readlines()
        with open(packed, "w", encoding="utf-8") as fh:
            fh.write(header)
            fh.writelines(sorted(ours + lines, key=lambda ln: ln.split(" ", 1)[1]))


def check_tips(repos: tuple[str, ...], n: int, env: dict | None) -> None:
    """Every ``refs/refocus/*`` of each repository names a commit it holds, ``n`` of them: a
    history whose refs point at missing objects (a pack not copied) would have every command
    read them as damaged, and measure that instead."""
    for repo in repos:
        kinds = subprocess.run(["git", "-C", repo, "for-each-ref", "--format=%(objecttype)", "refs/refocus"],
                               capture_output=True, text=True, env=env)
        found = kinds.stdout.split()
        if kinds.returncode != 0 or len(found) != n or set(found) - {"commit"}:
            raise SystemExit(f"generated history broken in {repo}: {kinds.stderr.strip() or found[:3]}")


if __name__ == "__main__":
    import time

    t0 = time.perf_counter()
    s, d = generate(sys.argv[1], int(sys.argv[2]))
    print(f"{sys.argv[2]} refocuses in {s} and {d}: {time.perf_counter() - t0:.1f} s")
