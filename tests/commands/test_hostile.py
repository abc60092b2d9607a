"""Hostile inputs: symlinks, YAML bombs, stale locks, corrupt objects, forged
remote events, user text in the Result section, terminal escapes, odd arguments.
Each test fails on the code before the fix; each checks what a user sees."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from tests.gitrepo import git, make_repo, refs, remote_with_clones
from tests.runner import refocus, spawn_args


def rid_of(out) -> str:
    return out.json["id"]


def one_line_error(r, *needles: str) -> None:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode not in (0, 70), r
    assert len(lines) == 1 and "Traceback" not in r.stderr, r
    for needle in needles:
        assert needle in r.stderr, r


# -- 1. symlinks ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["CLAUDE.md", ".gitignore"])
def test_spawn_refuses_a_symlinked_file_and_writes_nothing(repos, tmp_path, name):
    src, dest = repos
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("TOP SECRET\n")
    os.symlink(secret, dest / name)
    before = refs(dest), refs(src)
    r = refocus(*spawn_args(dest), cwd=src, check=False)
    one_line_error(r, "symlink", name)
    assert os.path.islink(dest / name) and secret.read_text() == "TOP SECRET\n"
    assert (refs(dest), refs(src)) == before, "nothing was written before the refusal"
    assert not (dest / "docs").exists()


@pytest.mark.parametrize("link", ["docs/refocus", "docs"])
def test_spawn_refuses_a_symlinked_brief_directory(repos, tmp_path, link):
    src, dest = repos
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (dest / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, dest / link)
    r = refocus(*spawn_args(dest), cwd=src, check=False)
    one_line_error(r, "symlink")
    assert list(outside.iterdir()) == [], "nothing written outside the repository"
    assert refs(dest, "refs/refocus/") == {} and refs(src, "refs/refocus/") == {}


def test_complete_refuses_a_symlinked_context_dir_before_writing(started, tmp_path):
    src, dest, rid = started
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, dest / "docs/context")
    r = refocus("complete", rid, "--summary", "s", "--material-change", "a.md=x", cwd=dest, check=False)
    assert r.returncode == 1 and list(outside.iterdir()) == [], r
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "in-progress", "refused before any write"


@pytest.mark.parametrize("link", ["docs/refocus", "docs/refocus/archive", "docs/refocus/archive/2026-Q1"])
def test_no_brief_is_listed_or_shown_through_a_symlinked_directory(spawned, tmp_path, link):
    """A brief reached through a symlinked docs/refocus, archive or quarter lives
    outside the repository: list, status and show never read it, as no write goes
    through one."""
    src, dest, out = spawned
    rid, planted = out["id"], "2026-01-02-planted-abcdef"
    brief = (dest / "docs/refocus" / f"{rid}.md").read_text()
    outside = tmp_path / "elsewhere"
    below = outside / os.path.relpath("docs/refocus/archive/2026-Q1", link)
    below.mkdir(parents=True)
    (below / f"{planted}.md").write_text(brief.replace(rid, planted))
    if link == "docs/refocus":  # everything that was there moves out, the refocus's brief too
        for name in os.listdir(dest / link):
            os.replace(dest / link / name, outside / name)
        os.rmdir(dest / link)
    (dest / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, dest / link)
    listed = refocus("list", "--all", "--json", cwd=dest).json["entries"]
    assert [e["id"] for e in listed] == [rid], listed
    assert planted not in refocus("status", "--json", cwd=dest).stdout
    r = refocus("show", planted, cwd=dest, check=False)
    assert r.returncode == 1 and planted not in r.stdout, r


# -- 2. YAML bombs ------------------------------------------------------------------------------
BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(9))


def test_a_yaml_alias_bomb_in_a_brief_is_refused_quickly(spawned):
    src, dest, out = spawned
    path = dest / "docs/refocus" / f"{out['id']}.md"
    text = path.read_text()
    path.write_text(text.replace("---\n", "---\n" + BOMB, 1))
    assert len(BOMB) < 2000
    for args in (["list"], ["show", out["id"]], ["doctor"]):
        t0 = time.monotonic()
        r = refocus(*args, cwd=dest, check=False)
        assert time.monotonic() - t0 < 30, "no hang"  # a bound, not a speed assertion
        assert r.returncode in (0, 1), r
        if args[0] != "list":  # list names the refocus from its ref; show and doctor read the file
            assert "anchor or alias" in r.stdout + r.stderr, r


# -- 3. stale locks -------------------------------------------------------------------------------
def _old(path) -> None:
    os.utime(path, (time.time() - 3600, time.time() - 3600))


def test_a_stale_ref_lock_is_named_and_doctor_removes_it(started):
    src, dest, rid = started
    lock = dest / ".git" / "refs" / "refocus" / f"{rid}.lock"
    lock.write_text("0" * 40 + "\n")
    _old(lock)
    t0 = time.monotonic()
    r = refocus("complete", rid, "--summary", "s", "--no-material-changes", "none", cwd=dest, check=False)
    assert time.monotonic() - t0 < 15, "no 20 s spin"
    one_line_error(r, str(lock), "doctor --repair")
    model = refocus("doctor", "--json", cwd=dest, check=False).json
    assert any(f["kind"] == "stale-lock" and str(lock) in f["message"] for f in model["findings"]), model
    refocus("doctor", "--repair", cwd=dest, check=False)
    assert not lock.exists()
    refocus("complete", rid, "--summary", "s", "--no-material-changes", "none", cwd=dest)


def test_doctor_repair_removes_a_legacy_tmp_ref_lock(started):
    src, dest, rid = started
    lock = dest / ".git" / "refs" / "refocus-tmp" / "notes-1-abc.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("x")
    _old(lock)
    r = refocus("doctor", "--repair", "--json", cwd=dest, check=False)
    assert r.returncode == 0 and not lock.exists(), r


# -- 4. concurrent promotions -------------------------------------------------------------------
def test_concurrent_promotions_keep_every_bullet(tmp_path):
    from gitrefocus.model.result import MaterialChange
    from gitrefocus.ops import promote
    from gitrefocus.store.workspace import Workspace

    repo = make_repo(tmp_path / "r")
    ws = Workspace.open(str(repo))
    barrier = threading.Barrier(16)

    def one(i: int) -> None:
        barrier.wait()
        promote.promote(Workspace.open(str(repo)), f"2026-01-01-x-{i:06x}", [MaterialChange("arch.md", f"change {i}")],
                        "2026-01-01")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    text = (repo / "docs/context/arch.md").read_text()
    assert all(f"change {i}" in text for i in range(16)), text
    assert ws.workdir


# -- 5. the remote is evidence, not truth --------------------------------------------------------
@pytest.fixture
def clones(tmp_path):
    remote, (a, b) = remote_with_clones(tmp_path, "A", "B")
    for clone in (a, b):
        refocus("init", cwd=clone)
    return {"remote": remote, "A": a, "B": b, "src": make_repo(tmp_path / "src"), "tmp": tmp_path}


def _forge(repo, rid, *, event: dict, state: dict | None = None) -> None:
    """Append a crafted event commit on refs/refocus/<rid> in ``repo`` (what an attacker pushes)."""
    tip = git(repo, "rev-parse", f"refs/refocus/{rid}").strip()
    tree = {}
    for line in git(repo, "ls-tree", tip).splitlines():
        meta, name = line.split("\t")
        tree[name] = meta.split()[2]
    tree["event.json"] = git(repo, "hash-object", "-w", "--stdin", input=json.dumps(event)).strip()
    if state is not None:
        tree["state.json"] = git(repo, "hash-object", "-w", "--stdin", input=json.dumps(state)).strip()
    listing = "".join(f"100644 blob {oid}\t{name}\n" for name, oid in tree.items())
    new_tree = git(repo, "mktree", input=listing).strip()
    new = git(repo, "commit-tree", new_tree, "-p", tip, "-m", "forged").strip()
    git(repo, "update-ref", f"refs/refocus/{rid}", new)


def test_a_forged_state_json_is_recomputed_from_events(clones):
    a, b = clones["A"], clones["B"]
    rid = rid_of(refocus(*spawn_args(a), cwd=clones["src"]))
    refocus("start", rid, cwd=a)
    refocus("complete", rid, "--summary", "done", "--no-material-changes", "none", cwd=a)
    refocus("sync", cwd=a)
    refocus("sync", cwd=b)
    state = json.loads(git(b, "show", f"refs/refocus/{rid}:state.json"))
    forged_state = dict(state, status="abandoned", result=None, reason="forged")
    _forge(b, rid, state=forged_state, event={"refocus_id": rid, "kind": "received", "at": "2026-11-22T00:00:00Z",
                                                "event_id": "f" * 32, "actor": {}, "data": {}, "schema": 1})
    git(b, "push", "-q", "origin", f"refs/refocus/{rid}")
    refocus("sync", cwd=a)
    show = refocus("show", rid, "--json", cwd=a).json
    assert show["status"] == "result" and show["state"]["result"], show


def test_a_second_spawned_event_cannot_rewrite_dest_dir(clones):
    a, b = clones["A"], clones["B"]
    victim = make_repo(clones["tmp"] / "victim")
    refocus("init", cwd=victim)
    index_before = (victim / "docs").exists()
    rid = rid_of(refocus(*spawn_args(a), cwd=clones["src"]))
    refocus("sync", cwd=a)
    refocus("sync", cwd=b)
    meta = json.loads(git(b, "show", f"refs/refocus/{rid}:event.json"))["data"]["meta"]
    evil = dict(meta, dest_dir=str(victim), source_dir=str(victim), slug="evil")
    _forge(b, rid, event={"refocus_id": rid, "kind": "spawned", "at": "2026-11-23T00:00:00Z", "event_id": "e" * 32,
                          "actor": {}, "data": {"meta": evil}, "schema": 1}, state=None)
    git(b, "push", "-q", "origin", f"refs/refocus/{rid}")
    synced = refocus("sync", "--json", cwd=a).json
    show = refocus("show", rid, "--json", cwd=a).json
    assert show["state"]["dest_dir"] == meta["dest_dir"] and show["state"]["slug"] == meta["slug"], show
    assert [c for c in synced["conflicts"] if "second spawned" in c["reason"]], "the second spawned is a conflict"
    assert show["state"]["conflicts"] == [], "a rejected event changes nothing, not even the state's conflicts"
    assert refs(victim, "refs/refocus/") == {} and (victim / "docs").exists() == index_before


def test_sync_never_writes_into_a_repository_this_machine_does_not_know(clones):
    """A well-formed log from the remote whose source_dir names an unrelated repository here:
    sync takes the refocus but touches nothing in that repository (places named by events are evidence)."""
    from gitrefocus.model.events import Event
    from gitrefocus.store import eventlog
    from gitrefocus.store.workspace import Workspace

    a, b = clones["A"], clones["B"]
    victim = make_repo(clones["tmp"] / "victim2")
    refocus("init", cwd=victim)
    rid = rid_of(refocus(*spawn_args(b), cwd=make_repo(clones["tmp"] / "src-on-b")))
    spawned = json.loads(git(b, "show", f"refs/refocus/{rid}:event.json"))
    meta = dict(spawned["data"]["meta"], source_dir=str(victim), dest_dir="/elsewhere/on/another/machine")
    repo = Workspace.open(str(b)).repo
    forged = eventlog.build_commit(repo, None, Event(refocus_id=rid, kind="spawned", at=spawned["at"], data={"meta": meta}),
                                   git(b, "show", f"refs/refocus/{rid}:brief.md").encode())
    git(b, "push", "-q", "-f", "origin", f"{forged.oid}:refs/refocus/{rid}")
    victim_index = victim / "docs/refocus/INDEX.md"
    before = victim_index.read_text() if victim_index.exists() else None
    refocus("sync", cwd=a)
    assert f"refs/refocus/{rid}" in refs(a), "the refocus itself arrived"
    assert refs(victim, "refs/refocus/") == {}, "no ref created in an unrelated repository"
    assert (victim_index.read_text() if victim_index.exists() else None) == before


def test_a_stale_lock_under_the_tracking_refs_is_named_by_sync(clones):
    a = clones["A"]
    rid = rid_of(refocus(*spawn_args(a), cwd=clones["src"]))
    refocus("sync", cwd=a)
    refocus("sync", cwd=clones["B"])
    lock = clones["B"] / ".git/refs/refocus-remotes/origin/refocus" / f"{rid}.lock"
    lock.write_text("x")
    _old(lock)
    refocus("link", rid, "HEAD", cwd=a)
    refocus("sync", cwd=a)
    r = refocus("sync", cwd=clones["B"], check=False)
    one_line_error(r, str(lock), "doctor --repair")
    refocus("doctor", "--repair", cwd=clones["B"], check=False)
    assert not lock.exists()
    refocus("sync", cwd=clones["B"])


# -- 6. complete keeps user text -------------------------------------------------------------------
def test_complete_keeps_text_written_after_the_result_placeholder(started):
    src, dest, rid = started
    path = dest / "docs/refocus" / f"{rid}.md"
    path.write_text(path.read_text() + "\nMy own notes: ask Bea about the SSH keys.\n")
    refocus("complete", rid, "--summary", "done", "--no-material-changes", "none", cwd=dest)
    text = path.read_text()
    assert "My own notes: ask Bea about the SSH keys." in text and "### Summary" in text, text


# -- 7. one bad object never stops the others --------------------------------------------------------
def _corruptions(repo, rid):
    blob = git(repo, "hash-object", "-w", "--stdin", input="not an event").strip()
    tree = git(repo, "write-tree").strip()
    deep = "[" * 100000 + "]" * 100000
    deep_blob = git(repo, "hash-object", "-w", "--stdin", input=deep).strip()
    deep_tree = git(repo, "mktree", input=f"100644 blob {deep_blob}\tevent.json\n100644 blob {deep_blob}\tstate.json\n").strip()
    no_event = git(repo, "commit-tree", git(repo, "mktree", input="").strip(), "-m", "x").strip()
    schema = json.dumps({"refocus_id": rid, "kind": "spawned", "at": "2026-01-01T00:00:00Z", "schema": "1"})
    schema_blob = git(repo, "hash-object", "-w", "--stdin", input=schema).strip()
    state_blob = git(repo, "hash-object", "-w", "--stdin", input=json.dumps({"id": rid, "status": "reserved"})).strip()
    schema_commit = git(repo, "commit-tree", git(repo, "mktree", input=f"100644 blob {schema_blob}\tevent.json\n"
                                                                        f"100644 blob {state_blob}\tstate.json\n").strip(),
                        "-m", "x").strip()
    return {"blob": blob, "tree": tree, "deep": git(repo, "commit-tree", deep_tree, "-m", "x").strip(),
            "no-event": no_event, "schema-string": schema_commit}


@pytest.mark.parametrize("kind", ["blob", "tree", "deep", "no-event", "schema-string"])
def test_one_corrupt_refocus_is_reported_skipped_and_quarantined(started, kind):
    src, dest, rid = started
    bad = "2026-01-01-broken-abcdef"
    git(dest, "update-ref", f"refs/refocus/{bad}", _corruptions(dest, bad)[kind])
    listing = refocus("list", "--json", cwd=dest)
    assert rid in json.dumps(listing.json), "the good refocus is still listed"
    refocus("status", cwd=dest)
    refocus("show", rid, cwd=dest)
    r = refocus("doctor", "--json", cwd=dest, check=False)
    assert r.returncode != 70 and any(f["kind"] == "ref-unreadable" and f["repairable"] for f in r.json["findings"]), r
    r = refocus("complete", bad, "--summary", "s", "--no-material-changes", "n", cwd=dest, check=False)
    assert r.returncode == 1, r
    refocus("doctor", "--repair", cwd=dest, check=False)
    assert f"refs/refocus/{bad}" not in refs(dest)
    assert f"refs/refocus-quarantine/refocus/{bad}" in refs(dest), "quarantined, not deleted"
    refocus("complete", rid, "--summary", "s", "--no-material-changes", "n", cwd=dest)


def test_a_directory_named_like_a_brief_is_skipped(started):
    src, dest, rid = started
    (dest / "docs/refocus/2026-01-01-dir-abcdef.md").mkdir()
    assert rid in refocus("list", cwd=dest).stdout
    r = refocus("doctor", "--json", cwd=dest, check=False)
    assert r.returncode == 1 and "not a regular file" in r.stdout, r


def test_a_notes_ref_at_a_blob_is_refused_before_writing_and_quarantined(started):
    src, dest, rid = started
    blob = git(dest, "hash-object", "-w", "--stdin", input="junk").strip()
    git(dest, "update-ref", "refs/notes/refocus", blob)
    before = refs(dest)[f"refs/refocus/{rid}"]
    r = refocus("complete", rid, "--summary", "s", "--no-material-changes", "n", cwd=dest, check=False)
    one_line_error(r, "refs/notes/refocus", "doctor --repair")
    assert refs(dest)[f"refs/refocus/{rid}"] == before, "nothing moved"
    refocus("list", cwd=dest)
    refocus("doctor", "--repair", cwd=dest, check=False)
    assert refs(dest).get("refs/notes/refocus") != blob and blob in refs(dest, "refs/refocus-quarantine/").values()
    assert git(dest, "cat-file", "-t", "refs/notes/refocus").strip() == "commit", "audit lines re-created from the log"
    refocus("complete", rid, "--summary", "s", "--no-material-changes", "n", cwd=dest)


# -- 9. terminal escapes ------------------------------------------------------------------------------
def test_text_output_neutralises_terminal_escapes(started):
    src, dest, rid = started
    evil = "\x1b]0;pwned\x07\x1b[2J"
    brief = dest / "docs/refocus" / f"{rid}.md"
    brief.write_text(brief.read_text().replace("## Why this branch exists\n", f"## Why this branch exists\n\nnote {evil}\n", 1))
    out = refocus("pickup", rid, cwd=dest).stdout  # pickup prints the brief; a finished one is refused
    assert "note " in out and "\x1b" not in out and "\x07" not in out, out
    refocus("complete", rid, "--summary", f"done {evil} ok", "--no-material-changes", "none", cwd=dest)
    for args, repo in ((["show", rid], dest), (["status"], src), (["list"], dest)):
        out = refocus(*args, cwd=repo).stdout
        assert "\x1b" not in out and "\x07" not in out, (args, out)
    assert "\\x1b" in refocus("show", rid, cwd=dest).stdout or "^[" in refocus("show", rid, cwd=dest).stdout


# -- 10. smaller ----------------------------------------------------------------------------------------
def test_gc_with_an_absurd_number_of_days_is_a_user_error(spawned):
    src, dest, out = spawned
    one_line_error(refocus("gc", "--days", "99999999999999999999", cwd=dest, check=False), "--days")


def test_complete_with_an_empty_id_is_refused_like_abandon(started):
    src, dest, rid = started
    r = refocus("complete", "", "--summary", "s", "--no-material-changes", "n", cwd=dest, check=False)
    assert r.returncode == 1 and "empty" in r.stderr, r
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "in-progress"


def test_complete_from_json_nested_deeply_is_a_user_error(started, tmp_path):
    src, dest, rid = started
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    r = refocus("complete", rid, "--from-json", str(deep), cwd=dest, check=False)
    assert r.returncode == 1, r


def test_complete_from_json_with_a_lone_surrogate_escape_names_the_file(started, tmp_path):
    """'"\\ud800"' in a return object parsed to a lone surrogate, refused only at the first write
    with a message about renaming a directory; the file and what is wrong with it are named."""
    src, dest, rid = started
    ret = tmp_path / "ret.json"
    ret.write_text(json.dumps({"status": "completed", "summary": "Done SURR here.", "artifacts": [],
                               "material_changes": [], "next_steps": [], "metadata": {}}).replace("SURR", "\\ud800"))
    r = refocus("complete", rid, "--from-json", str(ret), "--no-material-changes", "n", cwd=dest, check=False)
    assert r.returncode == 1 and f"{ret}: not valid JSON" in r.stderr and "surrogate" in r.stderr, r
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "in-progress"


def test_doctor_does_not_rewrite_a_shared_hooks_path(initialized, tmp_path):
    src, dest = initialized
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    git(dest, "config", "core.hooksPath", str(shared))
    r = refocus("doctor", "--repair", "--json", cwd=dest, check=False)
    assert list(shared.iterdir()) == [], "nothing written into the shared hooks directory"
    hook = [f for f in r.json["findings"] if f["kind"] == "hook"]
    assert hook and not hook[0]["repairable"] and "core.hooksPath" in hook[0]["message"], r.json


def test_a_push_refused_by_the_remote_is_reported_as_such(clones):
    a = clones["A"]
    refocus(*spawn_args(a), cwd=clones["src"])
    hook = clones["remote"] / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'policy: no refocus here' >&2\nexit 1\n")
    hook.chmod(0o755)
    r = refocus("sync", cwd=a, check=False)
    one_line_error(r, "refused")
    assert "kept moving" not in r.stderr


def test_a_write_error_in_the_source_is_one_line_naming_the_repair(repos):
    src, dest = repos
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    refocus(*spawn_args(dest, "first"), cwd=src)  # set-up files exist; next spawn writes refs and notes
    objects = src / ".git" / "objects"
    modes = {p: p.stat().st_mode for p in [objects, *objects.iterdir()]}
    for p in modes:
        p.chmod(0o555)
    try:
        r = refocus(*spawn_args(dest, "second"), cwd=src, check=False)
    finally:
        for p, mode in modes.items():
            p.chmod(mode)
    one_line_error(r, "doctor --repair")
    assert r.returncode == 1


# -- Ctrl-C anywhere -------------------------------------------------------------------------
INTERRUPT_AFTER = """
import os, signal, sys
from gitrefocus.store import {module} as target
real = target.{func}
def interrupted(*a, **k):
    out = real(*a, **k)
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C right after the first cross-repository write
    return out
target.{func} = interrupted
from gitrefocus.entry import main
sys.argv = ["git-refocus", *sys.argv[1:]]
sys.exit(main())
"""


def _spawn_interrupted_after(repos, tmp_path, module: str, func: str):
    """Run spawn with a Ctrl-C delivered right after ``module.func`` returns."""
    import subprocess
    import sys

    from tests.runner import source_env

    src, dest = repos
    script = tmp_path / "interrupt.py"
    script.write_text(INTERRUPT_AFTER.format(module=module, func=func))
    return subprocess.run([sys.executable, str(script), *spawn_args(dest)[:-1]], cwd=src, env=source_env(),
                          capture_output=True, text=True, timeout=60)


def test_ctrl_c_during_spawn_is_one_line_exit_130_and_consistent(repos, tmp_path):
    src, dest = repos
    proc = _spawn_interrupted_after(repos, tmp_path, "eventlog", "append")
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 130 and len(lines) == 1 and "interrupted" in lines[0], proc
    known = refs(src, "refs/refocus/")
    assert known and known == refs(dest, "refs/refocus/"), "the spawn was finished in both repositories"
    for repo in (src, dest):  # neither repository ran `init`: only that is said
        findings = refocus("doctor", "--json", cwd=repo, check=False).json["findings"]
        assert [f for f in findings if f["severity"] != "info"] == [], (repo, findings)


def test_ctrl_c_before_any_write_exits_130(repos, tmp_path):
    src, dest = repos
    proc = _spawn_interrupted_after(repos, tmp_path, "notes", "require_readable")  # preflight: before any write
    assert proc.returncode == 130 and "Traceback" not in proc.stderr, proc
    assert refs(dest, "refs/refocus/") == {} and refs(src, "refs/refocus/") == {}



def test_a_source_that_cannot_take_the_log_is_refused_before_any_write(repos):
    """The source cannot take the event log (its refs/refocus is a file): spawn checks every
    place it will write first, so it refuses in one line and neither repository changes."""
    src, dest = repos
    (src / ".git" / "refs" / "refocus").write_text("not a directory\n")
    before = refs(src), refs(dest)
    t0 = time.monotonic()
    r = refocus(*spawn_args(dest), cwd=src, check=False)
    assert time.monotonic() - t0 < 30, "no spinning on a write that cannot succeed"
    one_line_error(r, "refs/refocus", "nothing was changed")
    assert r.returncode == 1
    assert (refs(src), refs(dest)) == before and not (dest / "docs").exists()


def test_a_write_error_after_dest_was_written_is_one_line_naming_the_repair(repos, tmp_path):
    """The source's ref write fails (an injected ENOSPC, as a disk filling up meanwhile): exit 1,
    one line naming what could not be written and the doctor --repair that completes the spawn."""
    src, dest = repos
    log = tmp_path / "points"
    refocus(*spawn_args(dest, "first"), cwd=src)  # each repository's identity is made by its first spawn
    refocus(*spawn_args(dest, "probe"), cwd=src, env={"GIT_REFOCUS_FAULT_LOG": str(log)})
    points = [ln.split("\t") for ln in log.read_text().splitlines()]
    refs_written = [int(n) for n, where in points if where.startswith("before ref refs/refocus/")]
    t0 = time.monotonic()
    r = refocus(*spawn_args(dest), cwd=src, check=False, env={"GIT_REFOCUS_FAIL_AT": f"{refs_written[1]}:ENOSPC"})
    assert time.monotonic() - t0 < 30, "no spinning on a write that cannot succeed"
    one_line_error(r, "refs/refocus/", "doctor --repair", str(src))
    assert r.returncode == 1
    for repo in (dest, src):
        refocus("doctor", "--repair", cwd=repo, check=False)
    assert refs(src, "refs/refocus/") == refs(dest, "refs/refocus/"), "doctor --repair completed the spawn"
    assert len(refs(src, "refs/refocus/")) == 3


def test_save_transcript_refuses_a_symlinked_transcripts_dir_before_writing(spawned, hermetic, tmp_path):
    from gitrefocus.store.transcripts import encode_project_dir

    src, dest, out = spawned
    sid = out["child_session_id"]
    refocus("start", out["id"], "--session-id", sid, cwd=dest)
    project = hermetic / ".claude/projects" / encode_project_dir(str(dest.resolve()))
    project.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_text(json.dumps({"type": "user", "message": {"content": "hi"}}) + "\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, dest / "docs/refocus/transcripts")
    r = refocus("complete", "--summary", "x", "--no-material-changes", "n/a", "--save-transcript", cwd=dest,
                env={"CLAUDE_CODE_SESSION_ID": sid}, check=False)
    one_line_error(r, "symlink", "transcripts")
    assert list(outside.iterdir()) == [], "the transcript did not leave the repository"
    assert refocus("show", out["id"], "--json", cwd=dest).json["status"] == "in-progress", "refused before any write"
