"""store/catalog_cache.read_records: a cold build reads every tip through one `git cat-file
--batch-command`, and gives exactly the Records that reading each ref with pygit2 gives,
hostile refs included; a git that cannot do it, or a reader that stops early, loses nothing.
store/catalog.Catalog.unsettled: a cold cache hashes each brief once and loads only those
that differ from their ref."""

from __future__ import annotations

import codecs
import json
import os
import shutil
import sqlite3
import subprocess

import pytest

from tests.gitrepo import git, refs
from tests.runner import refocus, spawn_args

DB = ".git/refocus/cache/catalog.sqlite"


def _tree(repo, entries: dict[str, tuple[str, str]]) -> str:
    """A tree of {name: (mode, oid)}."""
    kinds = {"100644": "blob", "120000": "blob", "040000": "tree"}
    text = "".join(f"{mode} {kinds[mode]} {oid}\t{name}\n" for name, (mode, oid) in entries.items())
    return git(repo, "mktree", input=text).strip()


def _blob(repo, data: str | bytes) -> str:
    proc = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], check=True, capture_output=True,
                          input=data if isinstance(data, bytes) else data.encode())
    return proc.stdout.decode().strip()


def hostile_refs(repo, good_tip: str) -> dict[str, str]:
    """{ref id: tip} of every way a ref under refs/refocus/ can be wrong, or odd but readable."""
    good_tree = {line.split("\t")[1]: tuple(line.split("\t")[0].split()[::2])
                 for line in git(repo, "ls-tree", good_tip).splitlines()}
    state = json.loads(git(repo, "cat-file", "blob", f"{good_tip}:state.json"))

    def commit(**changes) -> str:
        entries = {k: v for k, v in good_tree.items()}
        for name, value in changes.items():
            name = name.replace("_", ".")
            if value is None:
                entries.pop(name, None)
            else:
                entries[name] = value
        return git(repo, "commit-tree", _tree(repo, entries), "-m", "x").strip()

    def state_blob(data) -> tuple[str, str]:
        return ("100644", _blob(repo, data))

    text = json.dumps(state)
    empty_tree = _tree(repo, {})

    def raw_tree(*entries: tuple[str, str, str]) -> str:
        """A tree of (mode, name, oid) entries as given: any order, names repeated (git mktree refuses)."""
        data = b"".join(f"{mode} {name}".encode() + b"\0" + bytes.fromhex(oid) for mode, name, oid in entries)
        proc = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "-t", "tree", "--literally", "--stdin"],
                              check=True, capture_output=True, input=data)
        return git(repo, "commit-tree", proc.stdout.decode().strip(), "-m", "x").strip()

    brief = good_tree["brief.md"][1]
    other = _blob(repo, json.dumps(state | {"status": "abandoned"}))
    git(repo, "tag", "-a", "-m", "a tag", "a-tag", good_tip)
    return {
        "2026-01-01-blob-aaaaa1": _blob(repo, "not an event commit\n"),
        "2026-01-01-tree-aaaaa2": _tree(repo, {"state.json": good_tree["state.json"]}),
        "2026-01-01-tag-aaaaa3": git(repo, "rev-parse", "a-tag").strip(),
        "2026-01-01-nostate-aaaaa4": commit(state_json=None),
        "2026-01-01-statetree-aaaaa5": commit(state_json=("040000", empty_tree)),
        "2026-01-01-badjson-aaaaa6": commit(state_json=state_blob("{not json")),
        "2026-01-01-notobject-aaaaa7": commit(state_json=state_blob("[1, 2]")),
        "2026-01-01-noid-aaaaa8": commit(state_json=state_blob(json.dumps({"status": "reserved"}))),
        "2026-01-01-nobrief-aaaaa9": commit(brief_md=None),
        "2026-01-01-briefdir-aaaab1": commit(brief_md=("040000", empty_tree)),
        "2026-01-01-bom-aaaab2": commit(state_json=state_blob(codecs.BOM_UTF8 + text.encode())),
        "2026-01-01-utf16-aaaab3": commit(state_json=state_blob(text.encode("utf-16"))),
        "2026-01-01-symlink-aaaab4": commit(state_json=("120000", _blob(repo, text))),
        "2026-01-01-extra-aaaab5": commit(state_json=state_blob(json.dumps(state | {"future_key": [1, {"a": 2}]}))),
        "2026-01-01-badsessions-aaaab6": commit(state_json=state_blob(json.dumps(state | {"sessions": 7}))),
        "2026-01-01-badconflict-aaaab7": commit(state_json=state_blob(json.dumps(state | {"conflicts": [3]}))),
        "2026-01-01-dictconflicts-aaaac2": commit(state_json=state_blob(json.dumps(state | {"conflicts": {"a": 1}}))),
        # readable, the columns the cache looks up by odd: taken as the state would give them
        "2026-01-01-oddcols-aaaac1": commit(state_json=state_blob(json.dumps(state | {
            "status": "result", "completed_at": 7, "last_event_at": "2026-02-02T00:00:00Z", "received_at": "",
            "child_session_id": 12}))),
        # git's order broken: libgit2 (a binary search) does not find the state a scan finds
        "2026-01-01-unsorted-aaaab8": raw_tree(("100644", "state.json", good_tree["state.json"][1]),
                                               ("100644", "a", brief), ("100644", "brief.md", brief)),
        # two readable states: libgit2 reads the first
        "2026-01-01-twostates-aaaab9": raw_tree(("100644", "brief.md", brief),
                                                ("100644", "state.json", good_tree["state.json"][1]),
                                                ("100644", "state.json", other)),
        "not-an-id": good_tip,
    }


def comparable(record) -> tuple:
    state = record.state.to_json() if record.text is not None else None
    return record.id, record.tip, record.snapshot, state, record.error, record.columns()[5:]  # not the text kept


@pytest.fixture
def hostile(spawned):
    src, dest, out = spawned
    good = refs(dest, "refs/refocus/")[f"refs/refocus/{out['id']}"]
    for rid, tip in hostile_refs(dest, good).items():
        git(dest, "update-ref", f"refs/refocus/{rid}", tip)
    git(dest, "symbolic-ref", "refs/refocus/2026-01-01-symref-aaaac1", f"refs/refocus/{out['id']}")
    return dest, out


def _items(dest):
    from gitrefocus.store import refs as store_refs
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.open(str(dest))
    return ws, list(store_refs.iter_refs(ws.repo))


# hostile tips that git reads cleanly: odd but readable, and the same Record as read_record's
CLEAN = ("2026-01-01-bom-aaaab2", "2026-01-01-utf16-aaaab3", "2026-01-01-extra-aaaab5", "2026-01-01-symlink-aaaab4",
         "2026-01-01-briefdir-aaaab1", "2026-01-01-oddcols-aaaac1")


def _read_bulk(catalog_cache, ws, items, slow: list[str], ways: int | None = None):
    """read_records of ``items``, the ids read one at a time (by read_record) put in ``slow``."""
    real = catalog_cache.read_record

    def spy(repo, rid, oid):
        slow.append(rid)
        return real(repo, rid, oid)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(catalog_cache, "read_record", spy)
        return list(catalog_cache.read_records(ws, items, ways))


def test_bulk_read_gives_the_records_of_one_at_a_time(hostile):
    from gitrefocus.store import catalog_cache

    dest, out = hostile
    ws, items = _items(dest)
    assert len(items) == 23
    one_at_a_time = [catalog_cache.read_record(ws.repo, rid, oid) for rid, oid in items]
    slow: list[str] = []
    bulk = _read_bulk(catalog_cache, ws, items, slow)
    assert [comparable(r) for r in bulk] == [comparable(r) for r in one_at_a_time]
    # what git read cleanly is not read again: a reader out of step would hide behind read_record
    assert set(slow) == {rid for rid, _ in items} - {out["id"], *CLEAN}
    by_id = {r.id: r for r in bulk}
    # the case is what it claims to be: readable ones read, hostile ones refused
    for readable in (out["id"], "2026-01-01-bom-aaaab2", "2026-01-01-utf16-aaaab3", "2026-01-01-extra-aaaab5",
                     "2026-01-01-symlink-aaaab4", "2026-01-01-nobrief-aaaaa9", "2026-01-01-briefdir-aaaab1"):
        assert by_id[readable].error is None and by_id[readable].state.status == "reserved", readable
    for refused in ("2026-01-01-blob-aaaaa1", "2026-01-01-tree-aaaaa2", "2026-01-01-tag-aaaaa3",
                    "2026-01-01-nostate-aaaaa4", "2026-01-01-statetree-aaaaa5", "2026-01-01-badjson-aaaaa6",
                    "2026-01-01-notobject-aaaaa7", "2026-01-01-noid-aaaaa8", "2026-01-01-badsessions-aaaab6",
                    "2026-01-01-badconflict-aaaab7", "2026-01-01-dictconflicts-aaaac2", "not-an-id"):
        assert by_id[refused].text is None and by_id[refused].error, refused
    assert by_id["2026-01-01-extra-aaaab5"].state.extra["future_key"] == [1, {"a": 2}]
    assert by_id["2026-01-01-oddcols-aaaac1"].columns()[5:] == ("result", 12, 0, None, 0)  # completed_at wins, no text
    assert by_id["2026-01-01-twostates-aaaab9"].state.status == "reserved"
    assert by_id["2026-01-01-unsorted-aaaab8"].error
    assert by_id["2026-01-01-nobrief-aaaaa9"].snapshot is None
    # a text kept in the cache reads back to the same state
    assert catalog_cache.Record("x", "t", None, None, None, by_id["2026-01-01-bom-aaaab2"].text).state == \
        by_id[out["id"]].state


@pytest.mark.parametrize(("fast_json", "ways"), [(False, 1), (True, 1), (True, 2), (False, 3)],
                         ids=["json", "msgspec", "two-gits", "three-gits"])
def test_bulk_read_in_many_chunks_keeps_the_order(hostile, monkeypatch, fast_json, ways):
    """Chunks of three tips, the hostile ones spread among them: the trees asked two chunks
    ahead and the states a chunk behind still give each tip its own Record, in order; so
    do gits taking the chunks in turn."""
    from gitrefocus.store import catalog_cache

    dest, _ = hostile
    ws, items = _items(dest)
    items = items * 3
    monkeypatch.setattr(catalog_cache, "READ_CHUNK", 3)
    monkeypatch.setattr(catalog_cache, "FAST_JSON_MIN", 0 if fast_json else 10 ** 9)
    slow: list[str] = []
    started = _count_gits(monkeypatch)
    bulk = _read_bulk(catalog_cache, ws, items, slow, ways)
    assert [comparable(r) for r in bulk] == [comparable(catalog_cache.read_record(ws.repo, r, o)) for r, o in items]
    assert len(slow) == 3 * (len(items) // 3 - 1 - len(CLEAN))
    assert len(started) == ways


def _count_gits(monkeypatch) -> list:
    """The git processes store.git.popen starts from now on."""
    from gitrefocus.store import git as store_git

    started: list = []
    real = store_git.popen

    def spy(*args, **kw):
        started.append(real(*args, **kw))
        return started[-1]

    monkeypatch.setattr(store_git, "popen", spy)
    return started


def test_a_git_without_batch_command_falls_back_to_one_at_a_time(hostile, monkeypatch):
    from gitrefocus.store import catalog_cache
    from gitrefocus.store import git as store_git

    dest, _ = hostile
    ws, items = _items(dest)
    real = store_git.popen

    def old_git(cwd, *args, **kw):  # what a git before 2.36 answers: an unknown option, exit 129
        return real(cwd, *[a if a != "--batch-command" else "--no-such-option" for a in args], **kw)

    monkeypatch.setattr(store_git, "popen", old_git)
    bulk = list(catalog_cache.read_records(ws, items))
    assert [comparable(r) for r in bulk] == [comparable(catalog_cache.read_record(ws.repo, r, o)) for r, o in items]


@pytest.mark.parametrize("ways", [1, 2])
def test_a_reader_that_stops_early_stops_git(hostile, monkeypatch, ways):
    from gitrefocus.store import catalog_cache

    dest, _ = hostile
    ws, items = _items(dest)
    started = _count_gits(monkeypatch)
    reader = catalog_cache.read_records(ws, items * 200, ways)  # more than a pipe holds
    first = next(reader)
    reader.close()
    assert first.id == items[0][0]
    assert len(started) == ways and all(p.poll() is not None for p in started), "git is not left running"


def test_a_large_read_is_shared_by_two_gits_when_there_are_cores(hostile, monkeypatch):
    """Past SPLIT_MIN tips, two gits read (one when this process may use a single core)."""
    from gitrefocus.store import catalog_cache

    dest, _ = hostile
    ws, items = _items(dest)
    monkeypatch.setattr(catalog_cache, "READ_CHUNK", 4)
    for cores, gits in ((1, 1), (4, 2)):
        monkeypatch.setattr(catalog_cache, "_cores", lambda: cores)
        for split_min, expected in ((len(items), gits), (len(items) + 1, 1)):
            monkeypatch.setattr(catalog_cache, "SPLIT_MIN", split_min)
            started = _count_gits(monkeypatch)
            assert [r.id for r in catalog_cache.read_records(ws, items)] == [r for r, _ in items]
            assert len(started) == expected, (cores, split_min)


def test_a_cold_load_in_bulk_equals_one_at_a_time(hostile, monkeypatch):
    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    dest, _ = hostile

    def cold_load(bulk: int):
        (dest / DB).unlink(missing_ok=True)
        monkeypatch.setattr(catalog, "BULK", bulk)
        try:
            cat = catalog.load(Workspace.open(str(dest)))
            return {rid: (e.state.to_json() if e.state else None, e.snapshot, e.problems, e.corrupt,
                          e.file_matches_ref, e.status) for rid, e in cat.entries.items()}
        finally:
            catalog_cache.forget()

    assert cold_load(0) == cold_load(10 ** 9)


def test_a_cold_cache_loads_only_the_briefs_that_differ(repos, monkeypatch):
    """A cold `list` hashes each open refocus's brief once: the ones equal to their ref's
    snapshot are remembered without being loaded, and a hand edit among them is still
    imported; the brief of a refocus finished long ago is not watched (an edit cannot change
    it), so it is neither hashed nor reported."""
    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    src, dest = repos
    ids = [refocus(*spawn_args(dest, f"topic-{i}"), cwd=src).json["id"] for i in range(7)]
    long_ago = {"GIT_REFOCUS_NOW": "2025-01-01T00:00:00Z"}
    ids.append(refocus(*spawn_args(dest, "topic-7"), cwd=src, env=long_ago).json["id"])
    refocus("abandon", ids[7], "--reason", "not needed", cwd=src, env=long_ago)
    briefs = dest / "docs/refocus"
    finished = briefs / f"{ids[7]}.md"
    finished.write_text(finished.read_text() + "\nA note added by hand.\n")
    edited = briefs / f"{ids[2]}.md"
    edited.write_text(edited.read_text().replace("status: reserved", "status: brief", 1))
    # equal bytes, but not a regular file of the repository: never followed, never waited on
    copy = dest.parent / "elsewhere.md"
    copy.write_bytes((briefs / f"{ids[4]}.md").read_bytes())
    (briefs / f"{ids[4]}.md").unlink()
    (briefs / f"{ids[4]}.md").symlink_to(copy)
    (briefs / f"{ids[5]}.md").unlink()
    os.mkfifo(briefs / f"{ids[5]}.md")
    (briefs / f"{ids[6]}.md").unlink()
    (briefs / f"{ids[6]}.md").mkdir()
    shutil.rmtree(dest / ".git/refocus/cache")
    hashed = []
    real_hash = catalog._hash_brief
    with monkeypatch.context() as patch:  # this process's reads only, not the `git refocus` runs
        patch.setattr(catalog, "_hash_brief", lambda path: hashed.append(os.path.basename(path)) or real_hash(path))
        ws = Workspace.open(str(dest))
        try:
            cat = catalog.Catalog(ws)
            assert cat.unsettled() == {ids[2], ids[4], ids[5], ids[6]}
        finally:
            catalog_cache.forget()
    assert f"{ids[7]}.md" not in hashed and f"{ids[0]}.md" in hashed
    with sqlite3.connect(dest / DB) as conn:
        files = dict(conn.execute("SELECT path, equal FROM files"))
    assert {f"docs/refocus/{rid}.md": 1 for rid in (ids[0], ids[1], ids[3])}.items() <= files.items()
    assert not {f"docs/refocus/{rid}.md" for rid in ids[4:]} & files.keys()
    assert (briefs / "INDEX.md").is_file() and "docs/refocus/INDEX.md" not in files  # briefs only
    for rid in ids[4:]:  # gone: list reads the rest
        path = briefs / f"{rid}.md"
        path.rmdir() if path.is_dir() else path.unlink()
    listed = refocus("list", "--json", cwd=dest).json
    assert {e["id"]: e["status"] for e in listed["entries"]}[ids[2]] == "brief"
    assert any("imported the hand edit" in n for n in listed["notices"])
