"""What enters shared history (committed briefs and results, event logs, notes) holds
no path of the machine that wrote it: each side is its repository's identity and a
directory relative to that repository's root, resolved to this machine's directories
when shown. Briefs written before, with absolute paths, keep working."""

from __future__ import annotations

import json

from tests.gitrepo import commit, git, make_repo
from tests.runner import refocus, spawn_args


def every_blob(repo) -> dict[str, bytes]:
    """{object id: content} of every blob reachable from any ref (branches, refocus
    logs, notes, identity), as git holds it."""
    listing = git(repo, "rev-list", "--all", "--objects").split("\n")
    oids = [line.split()[0] for line in listing if line.strip()]
    kinds = git(repo, "cat-file", "--batch-check=%(objectname) %(objecttype)", input="\n".join(oids) + "\n")
    blobs = [line.split()[0] for line in kinds.splitlines() if line.endswith(" blob")]
    return {oid: git(repo, "cat-file", "blob", oid).encode() for oid in blobs}


def notes_text(repo) -> str:
    return git(repo, "log", "--all", "--notes=refocus", "--format=%N")


def test_what_enters_shared_history_holds_no_path_of_this_machine(repos, tmp_path, hermetic):
    src, dest = repos
    refocus("init", cwd=dest)
    sid = "6f0c8a44-1b2d-4e6f-8a9b-0c1d2e3f4a5b"
    out = refocus(*spawn_args(dest), "--commit", cwd=src, env={"CLAUDE_CODE_SESSION_ID": sid}).json
    rid = out["id"]
    refocus("start", rid, cwd=dest)
    commit(dest, "work")
    refocus("complete", "--summary", "done", "--dod", "1", "--dod", "2",
            "--material-change", "architecture.md=one dispatcher", "--commit", cwd=dest)
    refocus("receive", cwd=src)
    machine = {str(tmp_path), str(tmp_path.resolve()), str(hermetic), str(hermetic.resolve())}
    for repo in (src, dest):
        for oid, data in every_blob(repo).items():
            found = [p for p in machine if p.encode() in data]
            assert not found, f"{repo.name}: blob {oid} holds {found}:\n{data.decode(errors='replace')[:2000]}"
        assert not [p for p in machine if p in notes_text(repo)], notes_text(repo)
    brief = git(dest, "show", f"HEAD:docs/refocus/{rid}.md")
    assert "source_dir: .\n" in brief and "dest_dir: .\n" in brief and "source_repo: src\n" in brief, brief
    assert f"Source session: `{sid}`, in src" in brief and "`claude --resume" in brief, brief
    shown = refocus("show", rid, "--json", cwd=src).json["here"]
    assert shown["dest_dir"] == str(dest.resolve()) and shown["source_dir"] == str(src.resolve()), shown
    assert shown["relaunch"].startswith(f"cd {dest.resolve()} && claude --resume "), shown


def test_a_teammates_clone_resolves_the_refocus_to_its_own_directories(tmp_path):
    """The destination, cloned on "another machine" (another home, another path, an empty
    registry), takes the refocus as its own and resolves it to the clone; the source,
    not cloned there, is named, not guessed."""
    src, dest = make_repo(tmp_path / "src"), make_repo(tmp_path / "dest")
    remote = tmp_path / "dest.git"
    git(tmp_path, "clone", "-q", "--bare", str(dest), str(remote))
    git(dest, "remote", "add", "origin", str(remote))
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    refocus("sync", cwd=dest)
    elsewhere = tmp_path / "teammate"
    home = elsewhere / "home"
    home.mkdir(parents=True)
    (home / ".gitconfig").write_text("[user]\n\tname = Bea\n\temail = bea@example.com\n")
    theirs = {"HOME": str(home), "XDG_STATE_HOME": str(home / ".local/state"), "GIT_CONFIG_GLOBAL": str(home / ".gitconfig")}
    clone = elsewhere / "work" / "the-dest"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    refocus("sync", cwd=clone, env=theirs)
    entry = {e["id"]: e for e in refocus("list", "--json", cwd=clone, env=theirs).json["entries"]}[rid]
    assert entry["direction"] == "incoming" and entry["counterpart"] == "src (not on this machine)", entry
    here = refocus("show", rid, "--json", cwd=clone, env=theirs).json["here"]
    assert here["dest_dir"] == str(clone.resolve()) and here["source_dir"] is None, here
    assert here["relaunch"] == f"cd {clone.resolve()} && claude --session-id {rid_session(clone, rid)}", here
    text = refocus("--no-pager", "show", rid, cwd=clone, env=theirs).stdout
    assert "source:    src (not on this machine)" in text, text
    started = refocus("start", rid, "--json", cwd=clone, env=theirs).json
    assert started["status"] == "in-progress"


def rid_session(repo, rid) -> str:
    return json.loads(git(repo, "show", f"refs/refocus/{rid}:state.json"))["child_session_id"]


def legacy_spawn(src, dest, slug="written-before") -> str:
    """A refocus as spawn wrote it before portable places: absolute directories in the
    frontmatter and the pointer back, the commit each side stood on, audit lines naming
    the other side's path. Built with the package's own writers, in this process."""
    from gitrefocus.model import clock
    from gitrefocus.model import events as ev
    from gitrefocus.model.brief import Brief, BriefContent, render_body, validate_meta
    from gitrefocus.model.ids import RefocusId, new_session_id
    from gitrefocus.ops import index_md, record
    from gitrefocus.store import eventlog
    from gitrefocus.store.workspace import Workspace

    s, d = Workspace.open(str(src)), Workspace.open(str(dest))
    sid, now = new_session_id(), clock.now()
    rid = RefocusId.build(now.date(), slug, sid).value
    meta = validate_meta({
        "id": rid, "status": "reserved", "child_session_id": sid, "spawn_mode": "manual",
        "spawned_at": clock.iso(now), "source_dir": s.workdir, "dest_dir": d.workdir, "slug": slug,
        "source_session_id": None, "done_when": ["it works"],
    }, "test")
    doc = Brief(meta=meta, body=render_body(meta, BriefContent("written before")))
    assert f"cd {d.workdir} && claude --resume {sid}" in doc.body, "the old pointer back"

    def build(tip):
        return record.new_event(s, rid, ev.SPAWNED, "source", meta=meta,
                                repos={"source": s.head_hex(), "dest": d.head_hex()}), doc.render().encode()

    tip = eventlog.append(d.repo, rid, build)
    (dest / "docs" / "refocus").mkdir(parents=True, exist_ok=True)
    (dest / "docs" / "refocus" / f"{rid}.md").write_text(doc.render())
    record.propagate(d, s, rid)
    record.note_event(s, tip, record.SOURCE)
    record.note_event(d, tip, record.DEST)
    record.remember_counterpart(d, rid, s)
    record.remember_counterpart(s, rid, d)
    index_md.refresh(s, d)
    return rid


def test_a_brief_written_with_absolute_paths_keeps_working(initialized):
    src, dest = initialized
    refocus("init", cwd=src)
    rid = legacy_spawn(src, dest)
    assert "source_repo" not in (dest / "docs" / "refocus" / f"{rid}.md").read_text()
    for repo, direction, counterpart in ((src, "outgoing", dest), (dest, "incoming", src)):
        entry = {e["id"]: e for e in refocus("list", "--json", cwd=repo).json["entries"]}[rid]
        assert (entry["direction"], entry["counterpart"]) == (direction, str(counterpart.resolve())), entry
        here = refocus("show", rid, "--json", cwd=repo).json["here"]
        assert here["dest_dir"] == str(dest.resolve()) and here["source_dir"] == str(src.resolve()), here
    refocus("start", rid, cwd=dest)
    commit(dest, "work")
    done = refocus("complete", "--summary", "ok", "--dod", "1", "--no-material-changes", "n/a", "--json", cwd=dest).json
    assert done["source_updated"], done
    assert "Session jsonl: `~/.claude/projects/" in (dest / "docs" / "refocus" / f"{rid}.md").read_text()
    assert refocus("receive", "--json", cwd=src).json["received"][0]["id"] == rid
    for repo in (src, dest):
        r = refocus("doctor", "--json", cwd=repo, check=False)
        assert r.returncode == 0, r.json
