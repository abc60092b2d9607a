"""The history primitives: trailers, the streamed walk, and random histories against the git CLI."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitrefocus.health import history, staleness
from gitrefocus.store.workspace import Workspace
from tests.gitrepo import cli_count, commit_files, git, make_repo

CTX = "docs/context"
FILES = [f"{CTX}/a.md", f"{CTX}/b.md", f"{CTX}/sub/c.md"]


def test_trailers_are_read_from_the_last_paragraph_only():
    rid = "2026-04-26-mcp-standard-a3f91c"
    assert history.refocus_ids_in(f"feat: x\n\nbody\n\nRefocus-Id: {rid}\n") == [rid]
    assert history.refocus_ids_in(f"feat: x\n\nSigned-off-by: A <a@x>\nrefocus-id:  {rid.upper()}  \n") == [rid]
    assert history.refocus_ids_in(f"Refocus-Id: {rid}") == [], "a subject is not a trailer"
    assert history.refocus_ids_in(f"feat\n\nRefocus-Id: {rid}\n\nlater paragraph\n") == []
    assert history.refocus_ids_in(f"feat\n\n# Refocus-Id: {rid}\n") == [], "comment lines are not trailers"


@given(subject=st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), min_size=1, max_size=30)
       .filter(lambda s: s.strip() and not s.startswith("#")),
       body=st.text(st.characters(blacklist_categories=("Cs",)), max_size=60),
       rid=st.from_regex(r"\A20\d\d-\d\d-\d\d-[a-z0-9]{1,8}-[0-9a-f]{6}\Z"))
def test_a_trailer_appended_by_the_hook_is_always_found(subject, body, rid):
    message = subject + ("\n\n" + body if body.strip() else "") + f"\n\nRefocus-Id: {rid}\n"
    assert history.refocus_ids_in(message) == [rid]


def test_walk_stops_once_every_file_is_seen(tmp_path):
    repo = make_repo(tmp_path / "r")
    commit_files(repo, "ctx", {f: "x\n" for f in FILES})
    for i in range(30):
        commit_files(repo, f"w{i}", {"w.txt": str(i)})
    commit_files(repo, "a", {FILES[0]: "y\n"})
    ws = Workspace.open(str(repo))
    head = git(repo, "rev-parse", "HEAD").strip()
    walk = history.walk_last_changes(ws, head=head, paths={FILES[0]}, directory=CTX)
    assert walk.stop == "found" and walk.found[FILES[0]][1] == 0 and walk.seen <= 2
    walk = history.walk_last_changes(ws, head=head, paths=set(FILES), directory=CTX, limit=10)
    assert walk.stop == "limit" and set(walk.found) == {FILES[0]} and walk.seen == 10
    walk = history.walk_last_changes(ws, head=head, paths=set(FILES), directory=CTX)
    assert walk.stop == "found" and {p: n for p, (_, n) in walk.found.items()} == {FILES[0]: 0, FILES[1]: 31, FILES[2]: 31}


_ops = st.lists(st.one_of(
    st.tuples(st.just("commit"), st.sets(st.sampled_from(FILES), max_size=2)),
    st.tuples(st.just("merge"), st.sets(st.sampled_from(FILES), max_size=2)),
    st.tuples(st.just("filler"), st.integers(min_value=1, max_value=4)),
), min_size=1, max_size=10)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_ops)
def test_random_histories_match_the_git_cli(ops):
    """Linear runs, side branches merged with --no-ff, context edits on either side: same counts as the CLI."""
    tmp = Path(tempfile.mkdtemp(prefix="health-prop-"))
    try:
        repo = make_repo(tmp / "r")
        commit_files(repo, "ctx", {f: "0\n" for f in FILES})
        n = 0
        for kind, arg in ops:
            n += 1
            if kind == "commit":
                commit_files(repo, f"c{n}", {f: f"{n}\n" for f in arg} or {"w.txt": f"{n}\n"})
            elif kind == "filler":
                for i in range(arg):
                    commit_files(repo, f"f{n}.{i}", {"w.txt": f"{n}.{i}\n"})
            else:
                git(repo, "checkout", "-q", "-b", f"side{n}")
                commit_files(repo, f"side{n}", {f: f"side{n}\n" for f in arg} or {"s.txt": f"{n}\n"})
                git(repo, "checkout", "-q", "main")
                commit_files(repo, f"main{n}", {"m.txt": f"{n}\n"})
                git(repo, "merge", "-q", "--no-ff", "-X", "theirs", "-m", f"merge{n}", f"side{n}")
        ws = Workspace.open(str(repo))
        head = git(repo, "rev-parse", "HEAD").strip()
        want = {p: cli_count(repo, p) for p in FILES}
        quick, _ = staleness.last_changes(ws, head=head, directory=CTX, paths=FILES, walk_limit=4)
        for p, (c, k, exact) in quick.items():
            if exact:
                assert (c, k) == want[p], f"quick answer for {p} claims to be exact"
            else:
                assert c is None and k <= want[p][1], f"quick lower bound for {p} is above the truth"
        got, _ = staleness.last_changes(ws, head=head, directory=CTX, paths=FILES)
        assert {p: (c, k) for p, (c, k, _) in got.items()} == want
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
