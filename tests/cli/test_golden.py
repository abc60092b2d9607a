"""The `--json` contract, pinned: every kind a command prints (tests/golden/<kind>.json),
produced by one scenario run as a user runs it, with what changes from run to run (ids,
times, paths, object ids, session ids) normalised. A renamed, missing or added key, or a
changed value, fails here whichever test reads that command.

Regenerate after an intended change with ``pytest tests/cli/test_golden.py --update-golden``
(or GIT_REFOCUS_UPDATE_GOLDEN=1) and read the diff: anything but an added key means
``JSON_VERSION`` goes up (CONTRIBUTING.md, "When to bump a version")."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.gitrepo import commit, git, make_repo
from tests.handoff.transcript import Session, text
from tests.runner import ROOT, refocus, spawn_args

GOLDEN = ROOT / "tests" / "golden"
SESSION = "5a3f0c2e-7b1d-4e8a-9c6f-0123456789ab"
KINDS = ("init", "spawn", "list", "list-global", "status", "status-global", "index", "index-global", "show",
         "start", "stop", "complete", "receive", "abandon", "log", "link", "link-detect", "doctor", "gc",
         "pickup", "tree", "loop", "loop-list", "health", "check", "decisions", "search", "sync", "sync-dry-run",
         "handoff", "handoff-plan", "handoff-reduce", "handoff-finalize", "demo", "error")


def scenario(tmp: Path, home: Path) -> dict[str, dict]:
    """Every kind of `--json` document, by name (a kind printed in two shapes gets two names)."""
    out: dict[str, dict] = {}

    def run(name: str, *args, cwd, env=None, check=True) -> dict:
        doc = refocus(*args, "--json", cwd=cwd, env=env, check=check).json
        out[name] = doc
        return doc

    src, dest = make_repo(tmp / "src"), make_repo(tmp / "dest")
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", str(remote))
    git(dest, "remote", "add", "origin", str(remote))
    run("init", "init", cwd=src)
    refocus("init", cwd=dest)
    # "dropped-work" first: listings order by (spawned_at, id), the same whether the two
    # spawns fall in one second or two
    other = refocus(*spawn_args(dest, "dropped-work"), cwd=src).json["id"]
    spawned = run("spawn", *spawn_args(dest, "golden-work")[:-1], "--context", "Kept small.", cwd=src)
    rid = spawned["id"]
    run("list", "list", "--all", cwd=src)
    run("status", "status", cwd=src)
    run("index", "index", cwd=src)
    run("show", "show", rid, cwd=src)
    run("pickup", "pickup", rid, cwd=dest)
    run("start", "start", rid, cwd=dest)
    run("stop", "stop", cwd=dest)
    refocus("start", rid, cwd=dest)
    (dest / "WORK.md").write_text("# Work\n")
    git(dest, "add", "WORK.md")
    first = commit(dest, "Write the work")
    run("link", "link", rid, first, cwd=dest)
    run("complete", "complete", rid, "--summary", "Done.", "--dod", "1", "--dod", "2",
        "--artifact", "WORK.md=the work", "--no-material-changes", "nothing shared changed", cwd=dest)
    run("abandon", "abandon", other, "--reason", "Not needed after all.", cwd=src)
    run("receive", "receive", rid, cwd=src)
    run("log", "log", rid, cwd=dest)
    run("link-detect", "link", "--detect", "--dry-run", cwd=dest)
    run("tree", "tree", cwd=src)
    run("doctor", "doctor", cwd=dest)
    run("gc", "gc", "--dry-run", cwd=dest, env={"GIT_REFOCUS_NOW": "2099-01-01T00:00:00Z"})
    run("loop", "loop", "start", "--promise", "DONE", "--session", SESSION, "--max-iterations", "3", cwd=src)
    run("loop-list", "loop", "list", cwd=src)
    (src / "docs" / "context" / "decisions").mkdir(parents=True)
    (src / "docs" / "context" / "decisions" / "0001-keep-it-small.md").write_text(
        "# 1. Keep it small\n\nStatus: accepted\n\n## Decision\n\nKeep it small.\n")
    (src / "docs" / "context" / "architecture.md").write_text("# Architecture\n\nOne process.\n")
    git(src, "add", "docs/context")
    commit(src, "Context")
    run("health", "health", cwd=src)
    run("check", "check", rid, cwd=dest)
    run("decisions", "decisions", cwd=src)
    run("search", "search", "small", cwd=src)
    run("sync-dry-run", "sync", "--dry-run", cwd=dest)
    run("sync", "sync", "--yes", cwd=dest)
    run("list-global", "list", "--global", cwd=src)
    run("status-global", "status", "--global", cwd=src)
    run("index-global", "index", "--global", "--output", str(tmp / "GLOBAL.md"), cwd=src)
    session = Session(cwd=src, session_id=SESSION)
    session.user("Please keep the parser streaming; we decided that yesterday.")
    session.assistant(text("I will keep the parser streaming and add a test next."))
    transcript = session.write(tmp / f"{SESSION}.jsonl")
    run("handoff", "handoff", str(transcript), cwd=src)
    big = Session(cwd=src)  # large enough to be summarised in chunks before the extractors read it
    for i in range(70):
        big.user(f"Question {i}: " + "please look at the parser and the lexer again " * 60)
        big.assistant(text(f"Answer {i}: " + "the lexer keeps the token stream intact here " * 60))
    plan = run("handoff-plan", "handoff", "prepare", str(big.write(tmp / "big.jsonl")), "--dir", str(tmp / "plan"),
               cwd=src)
    run("handoff-reduce", "handoff", "reduce", plan["directory"], cwd=src)
    run("handoff-finalize", "handoff", "finalize", "--sections", plan["sections_dir"], cwd=src)
    run("demo", "demo", "--dir", str(tmp / "demo"), cwd=tmp)
    run("error", "show", "no-such-refocus", cwd=src, check=False)
    return out


_ID = re.compile(r"\b\d{4}-\d{2}-\d{2}-([a-z0-9][a-z0-9-]*?)-[0-9a-f]{6}\b")
_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_EVENT_ID = re.compile(r"\b[0-9a-f]{32}\b")
_HEX = re.compile(r"\b[0-9a-f]{7,40}\b")
VOLATILE = {"age": "<age>"}  # key -> placeholder: values that follow the clock
_LOOP_ID = re.compile(r"[0-9a-f]{8}")


class Volatile:
    """What differs between runs of the scenario, and its placeholders."""

    def __init__(self, places: list[tuple[str, str]], oids: set[str]):
        self.places = sorted(places, key=lambda pair: -len(pair[0]))
        self.oids = oids

    def oid(self, match: re.Match[str]) -> str:
        token = match.group(0)
        if len(token) == 40 and token in self.oids:
            return "<oid>"
        if any(oid.startswith(token) for oid in self.oids):
            return "<short-oid>"
        return token

    def text(self, value: str) -> str:
        for path, name in self.places:
            value = value.replace(path, name)
        value = _UUID.sub("<uuid>", value)
        value = _ID.sub(r"<date>-\1-<hex>", value)
        value = _TIME.sub("<time>", value)
        value = _DATE.sub("<date>", value)
        value = _EVENT_ID.sub("<event-id>", value)
        return _HEX.sub(self.oid, value)

    def normalise(self, value, key: str | None = None):
        """``value`` with what differs between runs replaced by a placeholder; dict order kept."""
        if isinstance(value, dict):
            return {k: self.normalise(item, k) for k, item in value.items()}
        if isinstance(value, list):
            return [self.normalise(item, key) for item in value]
        if key in VOLATILE and value is not None:
            return VOLATILE[key]
        if isinstance(value, float):
            return "<number>"
        if not isinstance(value, str):
            return value
        if key == "id" and _LOOP_ID.fullmatch(value):
            return "<loop-id>"
        return self.text(value)


def objects(tmp: Path) -> set[str]:
    """Every object id the scenario's repositories hold (commits, trees, blobs)."""
    out: set[str] = set()
    for dotgit in [*tmp.rglob(".git"), *tmp.glob("*.git")]:
        listed = git(dotgit, "--git-dir=.", "rev-list", "--all", "--objects", check=False)
        out.update(line.split()[0] for line in listed.splitlines() if line)
    return out


@pytest.fixture(scope="module")
def documents(tmp_path_factory, request):
    """The scenario's documents, normalised (one run for every kind)."""
    import tests.conftest as conftest

    tmp = tmp_path_factory.mktemp("golden")
    home = tmp / "home"
    home.mkdir()
    mp = pytest.MonkeyPatch()
    try:
        conftest.seal(mp, home)
        docs = scenario(tmp, home)
        places = [(str(p), name) for base, name in ((tmp, "<tmp>"), (home, "<home>"))
                  for p in (base, Path(os.path.realpath(base)))]
        volatile = Volatile(places, objects(tmp))
    finally:
        mp.undo()
    return {name: volatile.normalise(doc) for name, doc in docs.items()}


def updating(config) -> bool:
    return bool(config.getoption("--update-golden", default=False) or os.environ.get("GIT_REFOCUS_UPDATE_GOLDEN"))


def test_the_scenario_prints_every_kind(documents):
    assert set(documents) == set(KINDS), f"kinds not produced: {set(KINDS) - set(documents)}"
    printed = {doc.get("kind") for doc in documents.values()}
    assert printed >= {"spawn", "complete", "sync", "handoff", "error"}, printed


@pytest.mark.parametrize("name", KINDS)
def test_json_matches_its_golden_file(documents, name, request):
    got = documents.get(name)
    assert got is not None, f"the scenario printed no {name} document"
    path = GOLDEN / f"{name}.json"
    if updating(request.config):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(json.dumps(got, indent=2, ensure_ascii=False) + "\n")
        return
    assert path.exists(), f"{path} missing: run pytest {__file__} --update-golden"
    want = json.loads(path.read_text())
    assert got == want, (f"`--json` of {name} changed; if intended, regenerate with --update-golden "
                         f"and bump JSON_VERSION unless only keys were added:\n"
                         f"{json.dumps(got, indent=2, ensure_ascii=False)}")
