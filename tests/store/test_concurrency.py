"""32 parallel writers in one repository lose no event and no note line.

Each writer is its own process (as concurrent sessions and hooks are) and
goes through the command modules: per refocus, one process starts then
completes it, two link commits (events + notes), one appends raw note lines
to commits every writer touches. All start together on a barrier file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

import pytest

from gitrefocus.model import note_line
from tests.gitrepo import commit, event_kinds, git
from tests.runner import ROOT, refocus, spawn_args

REFOCUSES = 8
NOTE_LINES = 6

WORKER = textwrap.dedent("""
    import json, os, sys, time
    sys.path.insert(0, {root!r})
    role, rid, dest, barrier, arg = sys.argv[1:6]
    while not os.path.exists(barrier):
        time.sleep(0.005)
    done = []
    if role == "lifecycle":
        from gitrefocus.commands.start import start
        from gitrefocus.commands.complete import complete
        start(refocus_id=rid, cwd=dest)
        complete(refocus_id=rid, summary="done in parallel", no_material_changes="stress test", cwd=dest)
        done = ["started", "completed"]
    elif role == "link":
        from gitrefocus.commands.link import link
        for oid in arg.split(","):
            out = link(refocus_id=rid, revs=[oid], cwd=dest)
            assert out.linked == [oid], out
            done.append(oid)
    elif role == "notes":
        from gitrefocus.ops import record
        from gitrefocus.store.workspace import Workspace
        ws = Workspace.open(dest)
        targets = arg.split(",")
        for i in range({lines}):
            oid = targets[i % len(targets)]
            record.note(ws, oid, rid, "checked", writer=str(os.getpid()), n=str(i))
            done.append([oid, str(os.getpid()), str(i)])
    print(json.dumps(done))
""")


@pytest.mark.slow
def test_32_parallel_writers_lose_nothing(initialized, tmp_path):
    src, dest = initialized
    spawn_head = git(dest, "rev-parse", "HEAD").strip()
    rids = [refocus(*spawn_args(dest, f"stress-{i}"), cwd=src).json["id"] for i in range(REFOCUSES)]
    shared = [commit(dest, f"shared {i}") for i in range(3)]  # every notes writer touches these
    links = {rid: [commit(dest, f"{rid} work {j}") for j in range(4)] for rid in rids}
    head = git(dest, "rev-parse", "HEAD").strip()
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(root=str(ROOT), lines=NOTE_LINES))
    barrier = tmp_path / "go"

    plan = []
    for rid in rids:
        plan += [("lifecycle", rid, "-"), ("link", rid, ",".join(links[rid][:2])),
                 ("link", rid, ",".join(links[rid][2:])), ("notes", rid, ",".join(shared + [links[rid][0]]))]
    assert len(plan) == 32
    procs = [subprocess.Popen([sys.executable, str(script), role, rid, str(dest), str(barrier), arg],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for role, rid, arg in plan]
    time.sleep(1.0)  # let every interpreter get to the barrier
    t0 = time.monotonic()
    barrier.touch()
    results = []
    for (role, rid, arg), p in zip(plan, procs):
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, f"{role} {rid}: {err}"
        results.append((role, rid, json.loads(out.splitlines()[-1])))
    elapsed = time.monotonic() - t0

    all_notes = {}
    listing = git(dest, "notes", "--ref=refocus", "list").split()
    for blob, target in zip(listing[0::2], listing[1::2]):
        all_notes[target] = note_line.parse(git(dest, "cat-file", "blob", blob))

    for rid in rids:
        kinds = event_kinds(dest, rid)
        assert sorted(kinds) == sorted(["spawned", "started", "completed"] + ["linked"] * 4), (rid, kinds)
        assert sorted(event_kinds(src, rid)) == sorted(kinds), f"{rid}: the source got every event too"
        assert refocus("show", rid, "--json", cwd=dest).json["status"] == "result"
        assert "spawned" in {r.event for r in all_notes[spawn_head] if r.refocus_id == rid}
        head_events = {r.event for r in all_notes[head] if r.refocus_id == rid}
        assert {"started", "completed"} <= head_events, (rid, head_events)
        for oid in links[rid]:
            linked = [r.fields["status"] for r in all_notes[oid] if r.refocus_id == rid and r.event == "linked"]
            assert "result" in linked and set(linked) <= {"in-progress", "result", "reserved"}, (oid, linked)
    for role, rid, done in results:
        if role == "notes":
            for oid, writer, n in done:
                assert any(r.event == "checked" and r.fields == {"writer": writer, "n": n} for r in all_notes[oid]), \
                    f"lost note line {writer}/{n} on {oid}"
    total = sum(len(v) for v in all_notes.values())
    assert total >= REFOCUSES * (NOTE_LINES + 3 + 4), total
    assert elapsed < 90, f"32 writers took {elapsed:.0f} s"
    assert refocus("doctor", "--json", cwd=dest, check=False).json["problems"] == 0
