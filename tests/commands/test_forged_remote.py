"""Data from a remote is evidence, not truth: every shape of forged remote log or notes that
another clone with push access can publish leaves this repository's truth as it was, and
`sync` (and `doctor`) report the conflict instead of adopting it.

The victim A holds a refocus it spawned into itself from `src`, started and completed, and
has synced; the attacker B has synced too, then publishes a forged log or notes. After A's
next sync: A's status, result, brief file, INDEX.md and note lines are unchanged, the sync
exits 0 and names the conflict, doctor lists it, and the remote again holds A's events.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.gitrepo import commit, git, make_repo, remote_with_clones
from tests.runner import refocus, spawn_args

SUMMARY = "The real result, written by the child."


@pytest.fixture
def world(tmp_path):
    remote, (a, b) = remote_with_clones(tmp_path, "A", "B")
    for clone in (a, b):
        refocus("init", cwd=clone)
    src = make_repo(tmp_path / "src")
    now = {"GIT_REFOCUS_NOW": "2026-05-01T09:00:00Z"}
    rid = refocus(*spawn_args(a), cwd=src, env=now).json["id"]
    refocus("start", rid, cwd=a, env={"GIT_REFOCUS_NOW": "2026-05-01T10:00:00Z"})
    refocus("complete", rid, "--summary", SUMMARY, "--no-material-changes", "none", cwd=a,
            env={"GIT_REFOCUS_NOW": "2026-05-01T11:00:00Z"})
    refocus("sync", cwd=a)
    refocus("sync", cwd=b)
    refocus("index", cwd=a)  # INDEX.md as of the real clock, as every later command writes it
    return {"remote": remote, "A": a, "B": b, "src": src, "rid": rid, "tmp": tmp_path}


# -- reading and forging logs (what an attacker with push access can do) --------------------------
def chain(repo, ref) -> list[dict]:
    """The event commits along first parents, oldest first: oid, parents, event, state, brief."""
    out = []
    for line in git(repo, "log", "--first-parent", "--reverse", "--format=%H %P", ref).splitlines():
        oid, *parents = line.split()
        if len(parents) > 1:
            continue
        out.append({"oid": oid, "event": json.loads(git(repo, "show", f"{oid}:event.json")),
                    "state": json.loads(git(repo, "show", f"{oid}:state.json")),
                    "brief": git(repo, "show", f"{oid}:brief.md", check=False)})
    return out


def event_ids(repo, ref) -> list[str]:
    return [c["event"]["event_id"] for c in chain(repo, ref)]


def honest_log(repo, rid, events: list[tuple[dict, str | None]]) -> str:
    """A log built exactly as an honest clone builds one (state.json folded), from raw events."""
    from gitrefocus.model.events import Event
    from gitrefocus.store import eventlog
    from gitrefocus.store.workspace import Workspace

    r = Workspace.open(str(repo)).repo
    tip = None
    for raw, brief in events:
        tip = eventlog.build_commit(r, tip, Event.from_raw(raw), brief.encode() if brief is not None else None)
    assert tip is not None
    return str(tip.oid)


def tree_with(repo, base: str, **files: str) -> str:
    entries = {}
    for line in git(repo, "ls-tree", base).splitlines():
        meta, name = line.split("\t")
        entries[name] = meta.split()[2]
    for name, text in files.items():
        entries[name] = git(repo, "hash-object", "-w", "--stdin", input=text).strip()
    return git(repo, "mktree", input="".join(f"100644 blob {o}\t{n}\n" for n, o in entries.items())).strip()


def commit_tree(repo, tree: str, *parents: str, message: str = "forged") -> str:
    args = [a for p in parents for a in ("-p", p)]
    return git(repo, "commit-tree", tree, *args, "-m", message).strip()


def publish(w, oid: str, ref: str, *, force: bool) -> None:
    git(w["B"], "push", "-q", *(["-f"] if force else []), "origin", f"{oid}:{ref}")


def snapshot(w) -> dict:
    a, rid = w["A"], w["rid"]
    show = refocus("show", rid, "--json", cwd=a).json
    return {"status": show["status"], "summary": (show["state"]["result"] or {}).get("summary"),
            "received_at": show["state"]["received_at"], "dest_dir": show["state"]["dest_dir"],
            "brief": (a / "docs/refocus" / f"{rid}.md").read_bytes(),
            "index": (a / "docs/refocus/INDEX.md").read_bytes(), "events": event_ids(a, f"refs/refocus/{rid}")}


def sync_keeps_the_local_truth(w, before: dict, *, reason: str) -> dict:
    """A syncs: exit 0, nothing it held changed, the conflict is named by sync and doctor,
    and the remote holds A's events again afterwards."""
    a, rid = w["A"], w["rid"]
    r = refocus("sync", "--json", cwd=a, check=False)
    assert r.returncode == 0, r
    out = r.json
    assert snapshot(w) == before, "the forged log changed what A holds"
    named = [c for c in out["conflicts"] if c["id"] == rid]
    assert named and any(reason in c["reason"] for c in named), out
    doctor = refocus("doctor", "--json", cwd=a, check=False).json
    assert any(f["kind"] == "remote-conflict" and f["id"] == rid and reason in f["message"]
               for f in doctor["findings"]), doctor["findings"]
    assert set(before["events"]) <= set(event_ids(w["remote"], f"refs/refocus/{rid}")), \
        "A's sync put its events back on the remote"
    again = refocus("sync", "--json", cwd=a).json
    assert again["conflicts"] == [], "a conflict once merged is not reported on every sync"
    return out


# -- 1. a merge marker that carries a state.json of its own -----------------------------------------
def test_a_fast_forward_merge_marker_with_a_forged_state_is_not_believed(world):
    w = world
    b, rid = w["B"], w["rid"]
    before = snapshot(w)
    tip = git(b, "rev-parse", f"refs/refocus/{rid}").strip()
    state = json.loads(git(b, "show", f"{tip}:state.json"))
    forged = dict(state, status="abandoned", result=None, reason="forged by the marker")
    side = commit_tree(b, tree_with(b, tip), tip, message="side")
    marker = commit_tree(b, tree_with(b, tip, **{"state.json": json.dumps(forged)}), tip, side,
                         message=f"refocus({rid}): merge")
    publish(w, marker, f"refs/refocus/{rid}", force=False)
    sync_keeps_the_local_truth(w, before, reason="merge marker")
    assert refocus("status", "--json", cwd=w["src"]).returncode == 0
    findings = refocus("doctor", "--json", cwd=w["A"], check=False).json["findings"]
    assert not [f for f in findings if f["severity"] == "problem"], findings


# -- 2. a force-pushed log that keeps the event ids and changes what they say ----------------------
def test_a_rewritten_log_with_the_same_event_ids_is_a_conflict(world, tmp_path):
    w = world
    b, rid = w["B"], w["rid"]
    before = snapshot(w)
    events = chain(b, f"refs/refocus/{rid}")
    rewritten = []
    for c in events:
        raw = c["event"]
        if raw["kind"] == "spawned":
            raw = dict(raw, data=dict(raw["data"], meta=dict(raw["data"]["meta"], dest_dir=str(tmp_path / "elsewhere"))))
        if raw["kind"] == "completed":
            raw = dict(raw, data=dict(raw["data"], result=dict(raw["data"]["result"], summary="A forged summary.")))
        rewritten.append((raw, c["brief"]))
    publish(w, honest_log(b, rid, rewritten), f"refs/refocus/{rid}", force=True)
    sync_keeps_the_local_truth(w, before, reason="changes")


# -- 3. a forged completion dated before the synced result ------------------------------------------
@pytest.mark.parametrize("shape", ["force-push", "fast-forward marker"])
def test_a_forged_earlier_completion_does_not_replace_the_synced_result(world, shape):
    w = world
    b, rid = w["B"], w["rid"]
    before = snapshot(w)
    events = chain(b, f"refs/refocus/{rid}")
    completed = next(c for c in events if c["event"]["kind"] == "completed")
    forged = dict(completed["event"], event_id="0" * 32, at="2026-05-01T10:30:00Z",
                  data=dict(completed["event"]["data"], result=dict(completed["event"]["data"]["result"],
                                                                   summary="A forged, earlier result.")))
    prefix = [(c["event"], c["brief"]) for c in events if c["event"]["kind"] != "completed"]
    rewritten = honest_log(b, rid, [*prefix, (forged, completed["brief"])])
    if shape == "force-push":
        publish(w, rewritten, f"refs/refocus/{rid}", force=True)
    else:  # the old tip as a second parent: the remote takes it as a fast-forward
        old = git(b, "rev-parse", f"refs/refocus/{rid}").strip()
        marker = commit_tree(b, git(b, "rev-parse", f"{rewritten}^{{tree}}").strip(), rewritten, old,
                             message=f"refocus({rid}): merge")
        publish(w, marker, f"refs/refocus/{rid}", force=False)
    sync_keeps_the_local_truth(w, before, reason="drops")
    remote_kinds = [c["event"]["event_id"] for c in chain(w["remote"], f"refs/refocus/{rid}")]
    assert completed["event"]["event_id"] in remote_kinds, "the victim pushed its own result back"


# -- a rewrite that only drops an event ---------------------------------------------------------------
def test_a_rewrite_that_drops_an_event_is_a_conflict(world):
    w = world
    b, rid = w["B"], w["rid"]
    before = snapshot(w)
    events = chain(b, f"refs/refocus/{rid}")
    kept = [(c["event"], c["brief"]) for c in events if c["event"]["kind"] != "completed"]
    publish(w, honest_log(b, rid, kept), f"refs/refocus/{rid}", force=True)
    sync_keeps_the_local_truth(w, before, reason="drops")


# -- 4. a second completion changes nothing, not even the brief file -------------------------------
def _append(w, raw: dict, *, state: dict | None = None) -> None:
    """B appends one event (honestly folded unless ``state`` is given) and pushes it as a fast-forward."""
    from gitrefocus.model.events import Event
    from gitrefocus.store import eventlog
    from gitrefocus.store.workspace import Workspace

    b, rid = w["B"], w["rid"]
    repo = Workspace.open(str(b)).repo
    tip = eventlog.read_tip(repo, rid)
    brief = git(b, "show", f"refs/refocus/{rid}:brief.md").replace(SUMMARY, "A second, forged summary.")
    new = eventlog.build_commit(repo, tip, Event.from_raw(raw), brief.encode())
    oid = str(new.oid)
    if state is not None:
        oid = commit_tree(b, tree_with(b, oid, **{"state.json": json.dumps(state)}), str(tip.oid))
    publish(w, oid, f"refs/refocus/{rid}", force=False)


def test_a_second_completion_is_a_conflict_and_touches_no_file(world):
    w = world
    b, rid = w["B"], w["rid"]
    before = snapshot(w)
    completed = next(c for c in chain(b, f"refs/refocus/{rid}") if c["event"]["kind"] == "completed")["event"]
    data = dict(completed["data"], result=dict(completed["data"]["result"], summary="A second, forged summary."),
                result_markdown="## Result\n\nA second, forged summary.\n",
                meta_changes={"status": "result", "done_when": ["forged criterion"]})
    _append(w, dict(completed, event_id="f" * 32, at="2026-05-02T09:00:00Z", data=data))
    r = refocus("sync", "--json", cwd=w["A"])
    after = snapshot(w)
    assert after["brief"] == before["brief"], "the rejected event rewrote the brief file"
    assert after["index"] == before["index"]
    assert (after["status"], after["summary"]) == (before["status"], before["summary"])
    assert [c for c in r.json["conflicts"] if c["id"] == rid], r.json
    assert "forged criterion" not in (w["A"] / "docs/refocus" / f"{rid}.md").read_text()


# -- forged received: an acknowledgement that claims to precede what it follows -------------------
def test_a_forged_received_dated_before_the_result_is_a_conflict(world):
    w = world
    before = snapshot(w)
    _append(w, {"refocus_id": w["rid"], "kind": "received", "at": "2026-05-01T10:30:00Z", "event_id": "e" * 32,
                "actor": {"role": "source"}, "data": {}, "schema": 1})
    sync_keeps_the_local_truth(w, before, reason="precede")
    assert refocus("receive", w["rid"], "--json", cwd=w["src"], check=False).returncode != 70


def test_a_forged_state_beside_a_forged_received_is_recomputed(world):
    w = world
    b, rid = w["B"], w["rid"]
    before = snapshot(w)
    state = json.loads(git(b, "show", f"refs/refocus/{rid}:state.json"))
    _append(w, {"refocus_id": rid, "kind": "received", "at": "2026-05-02T10:30:00Z", "event_id": "d" * 32,
                "actor": {}, "data": {}, "schema": 1}, state=dict(state, status="abandoned", result=None))
    refocus("sync", cwd=w["A"])
    after = snapshot(w)
    assert (after["status"], after["summary"]) == (before["status"], before["summary"])


# -- a second spawned event, dated before the first -------------------------------------------------
def test_a_second_spawned_event_dated_first_is_a_conflict(world, tmp_path):
    w = world
    b, rid = w["B"], w["rid"]
    before = snapshot(w)
    events = chain(b, f"refs/refocus/{rid}")
    spawned = events[0]["event"]
    evil = dict(spawned, event_id="1" * 32, at="2026-04-30T00:00:00Z",
                data=dict(spawned["data"], meta=dict(spawned["data"]["meta"], dest_dir=str(tmp_path / "evil"))))
    forged = honest_log(b, rid, [(evil, events[0]["brief"]), *[(c["event"], c["brief"]) for c in events]])
    publish(w, forged, f"refs/refocus/{rid}", force=True)
    sync_keeps_the_local_truth(w, before, reason="spawned")


# -- 5. notes: a fast-forward that drops lines ------------------------------------------------------
def note_lines(repo) -> set[str]:
    listing = git(repo, "notes", "--ref=refocus", "list").split()
    out = git(repo, "cat-file", "--batch", input="\n".join(listing[0::2]) + "\n")
    return {ln for ln in out.splitlines() if " refocus " in ln}


def test_a_notes_fast_forward_that_drops_lines_is_merged_as_a_union(world):
    w = world
    a, b = w["A"], w["B"]
    mine = note_lines(a)
    assert mine
    git(b, "fetch", "-q", "origin", "refs/notes/refocus:refs/notes/refocus", check=False)
    tip = git(b, "rev-parse", "refs/notes/refocus").strip()
    empty = git(b, "mktree", input="").strip()
    dropped = commit_tree(b, empty, tip, message="Notes removed")
    publish(w, dropped, "refs/notes/refocus", force=False)
    refocus("sync", cwd=a)
    assert mine <= note_lines(a), "the fast-forward removed this repository's own audit lines"
    assert mine <= note_lines(w["remote"]), "the union was pushed back"


# -- 6. one malformed event never blocks sync ---------------------------------------------------------
def test_an_event_with_an_unparseable_time_is_quarantined_and_sync_goes_on(world):
    w = world
    a, b, rid = w["A"], w["B"], w["rid"]
    before = snapshot(w)
    tip = git(b, "rev-parse", f"refs/refocus/{rid}").strip()
    bad = {"refocus_id": rid, "kind": "linked", "at": "yesterday-ish", "event_id": "c" * 32, "actor": {},
           "data": {"commits": []}, "schema": 1}
    oid = commit_tree(b, tree_with(b, tip, **{"event.json": json.dumps(bad)}), tip)
    publish(w, oid, f"refs/refocus/{rid}", force=False)
    other = refocus(*spawn_args(a, "after-the-bad-one"), cwd=w["src"]).json["id"]
    r = refocus("sync", "--json", cwd=a, check=False)
    assert r.returncode == 0, r
    assert other in r.json["pushed"], "the other refs were pushed"
    assert any(c["id"] == rid and "quarantined" in c["reason"] for c in r.json["conflicts"]), r.json
    after = snapshot(w)
    assert (after["status"], after["summary"], after["events"]) == (before["status"], before["summary"], before["events"])
    findings = refocus("doctor", "--json", cwd=a, check=False).json["findings"]
    assert any(f["kind"] == "remote-conflict" and f["id"] == rid for f in findings), findings
    assert refocus("sync", cwd=a).returncode == 0


@pytest.mark.parametrize("shape", ["bytes", "escape in a value", "escape in a key"])
def test_an_event_holding_a_lone_surrogate_is_quarantined_and_sync_goes_on(world, shape):
    """A surrogate written as UTF-8 bytes (json.loads(bytes) decodes with "surrogatepass") or as the
    JSON escape "\\ud800" (a plain ASCII blob, which strict UTF-8 takes), in a value or a key: the
    event was taken as a lone surrogate, which no file or note can hold, and every sync of A failed
    from then on ("text that is not valid UTF-8 cannot be recorded")."""
    w = world
    a, b, rid = w["A"], w["B"], w["rid"]
    before = snapshot(w)
    tip = git(b, "rev-parse", f"refs/refocus/{rid}").strip()
    data = {"commits": [], "SURR": "x"} if shape == "escape in a key" else {"commits": [], "note": "a SURR b"}
    bad = json.dumps({"refocus_id": rid, "kind": "linked", "at": "2026-05-01T12:00:00Z", "event_id": "d" * 32,
                      "actor": {}, "data": data, "schema": 1}).encode()
    bad = bad.replace(b"SURR", b"\xed\xa0\x80" if shape == "bytes" else b"\\ud800")
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=b, check=True, capture_output=True,
                          input=bad).stdout.decode().strip()
    listing = git(b, "ls-tree", tip).replace(git(b, "rev-parse", f"{tip}:event.json").strip(), blob)
    publish(w, commit_tree(b, git(b, "mktree", input=listing).strip(), tip), f"refs/refocus/{rid}", force=False)
    r = refocus("sync", "--json", cwd=a, check=False)
    assert r.returncode == 0, r
    assert any(c["id"] == rid and "quarantined" in c["reason"] for c in r.json["conflicts"]), r.json
    after = snapshot(w)
    assert (after["status"], after["summary"], after["events"]) == (before["status"], before["summary"], before["events"])
    assert refocus("sync", cwd=a).returncode == 0 and refocus("list", cwd=a).returncode == 0


@pytest.mark.parametrize("field", ["status", "dest_dir"])
def test_a_fetched_tip_whose_state_holds_a_lone_surrogate_is_unreadable_not_fatal(world, field):
    """A log fetched past sync (a mirror clone, a refspec into refs/refocus/*) whose state.json holds
    the escape "\\ud800": every listing (list, status, index, show, doctor) failed with "text that is
    not valid UTF-8 cannot be recorded". The tip is unreadable, and doctor --repair moves it aside."""
    w = world
    a, b, rid = w["A"], w["B"], w["rid"]
    state = dict(chain(b, f"refs/refocus/{rid}")[-1]["state"])
    state[field] = f"{state[field]}SURR"
    tip = git(b, "rev-parse", f"refs/refocus/{rid}").strip()
    forged = json.dumps(state).replace("SURR", "\\ud800")
    publish(w, commit_tree(b, tree_with(b, tip, **{"state.json": forged}), tip), f"refs/refocus/{rid}", force=False)
    git(a, "fetch", "-q", "origin", f"+refs/refocus/{rid}:refs/refocus/{rid}")
    for args in (("list", "--all"), ("status",), ("index",), ("show", rid)):
        r = refocus(*args, cwd=a, check=False)
        assert r.returncode == 0 and "cannot be recorded" not in r.stderr, (args, r)
    findings = refocus("doctor", "--json", cwd=a, check=False).json["findings"]
    assert any(f["kind"] == "ref-unreadable" and f["id"] == rid and "surrogate" in f["message"] for f in findings), \
        findings
    assert refocus("doctor", "--repair", cwd=a, check=False).returncode == 0
    assert refocus("doctor", cwd=a, check=False).returncode == 0


def test_a_note_a_remote_wrote_in_any_bytes_does_not_stop_log(world):
    """git's output went through strict UTF-8: one note (or commit message) in other bytes made
    every command that reads the history fail."""
    w = world
    a, b, rid = w["A"], w["B"], w["rid"]
    commit(b, "Caf\udce9 work", "-m", f"Refocus-Id: {rid}")  # a message that is not UTF-8 (git re-encodes it)
    head = git(b, "rev-parse", "HEAD").strip()
    note = b / "note.txt"
    note.write_bytes(b"2026-05-01T12:00:00Z refocus " + rid.encode() + b" linked note=\"\xed\xa0\x80\xff\"\n")
    git(b, "notes", "--ref=refocus", "add", "-f", "-F", str(note), head)
    git(b, "push", "-q", "origin", "HEAD", "refs/notes/refocus")
    git(a, "pull", "-q", "--no-rebase", "origin", "HEAD")
    assert refocus("sync", cwd=a).returncode == 0
    r = refocus("log", rid, "--json", cwd=a, check=False)
    assert r.returncode == 0, r
    assert [c["subject"][-5:] for c in r.json["commits"]] == [" work"], r.json
    assert refocus("doctor", cwd=a, check=False).returncode in (0, 1)


# -- 7. escape sequences in forged directory names ---------------------------------------------------
def test_escape_sequences_in_a_forged_dest_dir_never_reach_index_or_the_terminal(world, tmp_path):
    w = world
    a, b, rid = w["A"], w["B"], w["rid"]
    events = chain(b, f"refs/refocus/{rid}")
    spawned = events[0]["event"]
    other = rid[:-6] + "abcdef"
    meta = dict(spawned["data"]["meta"], id=other, dest_dir="/x/\x1b]0;pwned\x07\x1b[2J", source_dir="/y/\x1b[31mred",
                child_session_id="abcdef00-0000-4000-8000-000000000000")
    for key in ("source_repo", "source_repo_id", "dest_repo", "dest_repo_id"):
        meta.pop(key, None)  # as a brief written before portable places: absolute directories
    raw = dict(spawned, refocus_id=other, event_id="2" * 32, data=dict(spawned["data"], meta=meta))
    publish(w, honest_log(b, other, [(raw, events[0]["brief"])]), f"refs/refocus/{other}", force=False)
    refocus("sync", cwd=a)
    index = (a / "docs/refocus/INDEX.md").read_text()
    assert "pwned" in index, "the forged refocus is listed, its directory neutralised"
    assert "\x1b" not in index and "\x07" not in index, index
    for args in (["list"], ["status"], ["list", "--all"], ["show", other], ["tree"]):
        out = refocus(*args, cwd=a, check=False)
        assert "\x1b" not in out.stdout + out.stderr and "\x07" not in out.stdout + out.stderr, (args, out)


def test_escape_sequences_in_forged_repository_names_never_reach_index_or_the_terminal(world):
    """The portable form: a forged log naming this repository's identity as the destination,
    with control characters in the names and directories. Listed (it is incoming here), neutralised."""
    w = world
    a, b, rid = w["A"], w["B"], w["rid"]
    events = chain(b, f"refs/refocus/{rid}")
    spawned = events[0]["event"]
    other = rid[:-6] + "abcdef"
    meta = dict(spawned["data"]["meta"], id=other, source_repo="\x1b]0;pwned\x07red", source_dir="a/\x1b[2Jb",
                source_repo_id="f" * 40,  # a repository not on this machine: its name is shown
                dest_repo="\x1b[31mdest", child_session_id="abcdef00-0000-4000-8000-000000000000")
    raw = dict(spawned, refocus_id=other, event_id="2" * 32, data=dict(spawned["data"], meta=meta))
    publish(w, honest_log(b, other, [(raw, events[0]["brief"])]), f"refs/refocus/{other}", force=False)
    refocus("sync", cwd=a)
    index = (a / "docs/refocus/INDEX.md").read_text()
    assert "pwned" in index, index
    assert "\x1b" not in index and "\x07" not in index, index
    for args in (["list"], ["status"], ["list", "--all"], ["show", other], ["tree"], ["tree", "--mermaid"]):
        out = refocus(*args, cwd=a, check=False)
        assert "\x1b" not in out.stdout + out.stderr and "\x07" not in out.stdout + out.stderr, (args, out)
