"""A realistic history of N refocuses, written the way the tool writes it, with ``git fast-import``.

    .venv/bin/python benchmarks/realistic.py DIR N      # DIR/src and DIR/dest

Unlike :mod:`generate` (the same open handful at every N), this is the history a busy pair of
repositories accumulates over three years (the scale issue's generator):

- the mix: 1% reserved, 1% in progress, 78% results received, 20% abandoned, spread evenly
  over the three years before 2026-11-25 (so the live ones grow with N: 1,000 in progress at
  100k);
- each refocus's event log in ``refs/refocus/<id>`` of both repositories (the event commits the
  model code builds, as :mod:`generate` writes them), all refs packed;
- the briefs committed on the destination's ``main``, one commit per day that spawned any (a
  commit per brief would make fast-import write 100k trees of up to 100k entries: hours), and in
  its work tree;
- a commit on the source's ``main`` per such day (the work the spawns came out of);
- the audit lines in ``refs/notes/refocus`` of each, on those commits, as the commands attach
  them (spawned/received in the source; spawned/started/completed or abandoned in the dest);
- local state: each side's ``counterparts`` entry, and the session map of every refocus in
  progress in the destination.
"""

from __future__ import annotations

import calendar
import json
import os
import subprocess
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402

DAYS = 3 * 365
END = calendar.timegm((2026, 11, 25, 0, 0, 0))
MAIN = "refs/heads/main"
NOTES = "refs/notes/refocus"


def target_of(i: int) -> str:
    """The mix, by index: 1% reserved, 1% in progress, 20% abandoned, 78% results."""
    k = i % 100
    return "reserved" if k == 0 else "in-progress" if k == 1 else "abandoned" if k < 22 else "result"


def _day(i: int, n: int) -> tuple[str, int]:
    """The day refocus ``i`` of ``n`` was spawned (oldest first), and its midnight in epoch seconds."""
    midnight = END - (DAYS - (i * DAYS // max(n, 1))) * 86400
    import time

    return time.strftime("%Y-%m-%d", time.gmtime(midnight)), midnight


def _note_templates(src: str, dest: str) -> dict[tuple[str, str], bytes]:
    """Per (status, side): the audit lines the commands attach for a template refocus, made
    by the same function doctor checks them with (``ops.record.audit_line``)."""
    from gitrefocus.model import events as ev
    from gitrefocus.model.brief import validate_meta
    from gitrefocus.model.note_line import NoteRecord
    from gitrefocus.model.place import DEST, SOURCE
    from gitrefocus.ops.record import audit_line

    out = {}
    for target in ("reserved", "in-progress", "result", "abandoned"):
        meta = validate_meta({"id": generate.T_RID, "status": "reserved", "child_session_id": generate.T_SID,
                              "spawn_mode": "manual", "spawned_at": f"{generate.T_DAY}T10:00:00Z",
                              "source_dir": src, "dest_dir": dest, "slug": generate.T_SLUG,
                              "done_when": ["it works"]}, "bench")
        state = None
        lines: dict[str, list[str]] = {SOURCE: [], DEST: []}
        for e in generate._events(generate.T_RID, meta, target, generate.T_DAY):
            state, _ = ev.apply(state, e)
            for side in (SOURCE, DEST):
                line = audit_line(state, e, side)
                if line is not None:
                    fields = {k: str(v) for k, v in line[1].items() if v not in (None, "")}
                    lines[side].append(NoteRecord(e.at, generate.T_RID, line[0], fields).format())
        for side in (SOURCE, DEST):
            out[(target, side)] = ("\n".join(lines[side]) + "\n").encode()
    return out


def generate_realistic(root: str, n: int, env: dict | None = None) -> tuple[str, str]:
    """Create ``root/src`` and ``root/dest`` holding ``n`` refocuses of the realistic mix."""
    src, dest = os.path.join(root, "src"), os.path.join(root, "dest")
    for repo in (src, dest):
        subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True, env=env, capture_output=True)
    src, dest = os.path.realpath(src), os.path.realpath(dest)
    templates = generate._templates(src, dest)
    note_templates = _note_templates(src, dest)
    streams = {repo: open(os.path.join(root, f"{os.path.basename(repo)}.fi"), "wb") for repo in (src, dest)}
    mark = 0
    tips: dict[str, int] = {}
    main_marks: dict[str, list[tuple[int, bytes]]] = {src: [], dest: []}  # (mark, note text) per repo
    sessions: dict[str, str] = {}
    ids: list[str] = []
    day_work: list[tuple[str, bytes, bytes, bytes]] = []  # (id, brief, dest notes, source notes) of the day
    try:
        ev_w = streams[src].write  # the event logs: written into src, the pack then shared
        for i in range(n):
            target = target_of(i)
            day, midnight = _day(i, n)
            sid = str(uuid.uuid4())
            rid = f"{day}-bench-{i}-{sid[:6]}"
            ids.append(rid)
            subst = [(generate.T_RID.encode(), rid.encode()), (generate.T_SID.encode(), sid.encode()),
                     (generate.T_DAY.encode(), day.encode()), (generate.T_SLUG.encode(), f"bench-{i}".encode())]
            parent = None
            brief = b""
            for message, offset, files in templates[target]:
                event_id = message.rsplit(" ", 1)[1].strip()
                mine = subst + [(event_id.encode(), uuid.uuid4().hex.encode())]

                def fill(data: bytes, mine: list[tuple[bytes, bytes]] = mine) -> bytes:
                    for old, new in mine:
                        data = data.replace(old, new)
                    return data

                mark += 1
                if parent is None:
                    ev_w(b"reset %s\n" % generate.SCRATCH.encode())
                ev_w(b"commit %s\nmark :%d\n" % (generate.SCRATCH.encode(), mark))
                when = midnight + offset
                ev_w(b"author Bench <b@example.com> %d +0000\ncommitter Bench <b@example.com> %d +0000\n"
                     % (when, when))
                generate._data(ev_w, fill(message.encode()))
                if parent is not None:
                    ev_w(b"from :%d\n" % parent)
                for name, payload in files:
                    brief = fill(payload)
                    ev_w(b"M 100644 inline %s\n" % name.encode())
                    generate._data(ev_w, brief)
                ev_w(b"\n")
                parent = mark
            tips[rid] = mark
            if target == "in-progress":
                sessions[sid] = rid
            day_work.append((rid, brief, fill(note_templates[(target, "dest")]), fill(note_templates[(target, "source")])))
            if i == n - 1 or _day(i + 1, n)[0] != day:  # the day's commit on each side, its notes on it
                for repo, side in ((dest, "dest"), (src, "source")):
                    w = streams[repo].write
                    mark += 1
                    w(b"commit %s\nmark :%d\n" % (MAIN.encode(), mark))
                    when = midnight + 14 * 3600
                    w(b"author Bench <b@example.com> %d +0000\ncommitter Bench <b@example.com> %d +0000\n"
                      % (when, when))
                    generate._data(w, f"{'refocus briefs' if side == 'dest' else 'work'} of {day}\n".encode())
                    for rid_, brief_, _, _ in day_work:
                        if side == "dest":
                            w(b"M 100644 inline docs/refocus/%s.md\n" % rid_.encode())
                            generate._data(w, brief_)
                    if side == "source":
                        w(b"M 100644 inline work.txt\n")
                        generate._data(w, day.encode() + b"\n")
                    w(b"\n")
                    main_marks[repo].append((mark, b"".join(d if side == "dest" else s for _, _, d, s in day_work)))
                day_work = []
        for repo in (src, dest):
            w = streams[repo].write
            w(b"commit %s\ncommitter Bench <b@example.com> %d +0000\n" % (NOTES.encode(), END))
            generate._data(w, b"Notes added by 'git notes add'\n")
            for m, text in main_marks[repo]:
                w(b"N inline :%d\n" % m)
                generate._data(w, text)
            w(b"\n")
    finally:
        for fh in streams.values():
            fh.close()
    marks = os.path.join(root, "refocus.marks")
    for repo in (src, dest):
        with open(os.path.join(root, f"{os.path.basename(repo)}.fi"), "rb") as fh:
            # always a pack (below 100 objects git writes them loose), which install_refs copies to dest
            subprocess.run(["git", "-C", repo, "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet",
                            f"--export-marks={marks}"], stdin=fh, check=True, env=env)
        os.unlink(fh.name)
        if repo == src:
            with open(marks, encoding="ascii") as mfh:
                oids = dict(ln.split() for ln in mfh)
            subprocess.run(["git", "-C", src, "update-ref", "-d", generate.SCRATCH], check=True, env=env)
    os.unlink(marks)
    generate.install_refs(src, dest, oids, tips, env)
    generate.check_tips((src, dest), len(tips), env)
    for repo in (src, dest):
        subprocess.run(["git", "-C", repo, "checkout", "-q", "-f", "main"], check=True, env=env)
        for key, value in (("notes.displayRef", NOTES), ("notes.rewriteRef", NOTES)):
            subprocess.run(["git", "-C", repo, "config", key, value], check=True, env=env)
    for repo, other in ((src, dest), (dest, src)):
        state = os.path.join(repo, ".git", "refocus", "counterparts")
        os.makedirs(state)
        for rid in ids:
            with open(os.path.join(state, rid), "w", encoding="utf-8") as fh:
                fh.write(other + "\n")
    mapped = os.path.join(dest, ".git", "refocus", "sessions")  # the session map of the in-progress ones
    os.makedirs(mapped)
    reverse = os.path.join(dest, ".git", "refocus", "mapped")  # and its reverse, a list per refocus
    os.makedirs(reverse)
    for sid, rid in sessions.items():
        with open(os.path.join(mapped, sid), "w", encoding="utf-8") as fh:
            fh.write(rid + "\n")
        with open(os.path.join(reverse, rid + ".jsonl"), "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"sessions": sid}) + "\n")
    return src, dest


if __name__ == "__main__":
    import time

    t0 = time.perf_counter()
    s, d = generate_realistic(sys.argv[1], int(sys.argv[2]))
    print(f"{sys.argv[2]} refocuses in {s} and {d}: {time.perf_counter() - t0:.1f} s")
