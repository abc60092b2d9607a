"""Counting the sessions other repositories could add to the real-session corpus
(``corpus.count_eligible``), on a small repository the test builds in the layouts the Entire CLI
writes: its ``entire/checkpoints/v1`` branch, one ref per checkpoint under ``refs/entire/checkpoints/``,
chunked transcripts, other agents' transcripts, and a blob the mirror lacks. Every transcript is
written here, nobody's real words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gitrepo import git, make_repo
from tests.handoff import corpus

BRANCH = "refs/heads/entire/checkpoints/v1"


def transcript(session: str, version: str, turns: int, *, reply: str = "Done, the parser keeps the cents now.") -> str:
    """A Claude Code transcript: ``turns`` user messages, each answered."""
    records: list[dict] = [{"type": "file-history-snapshot", "messageId": "m0", "snapshot": {}}]
    parent = None
    for i in range(turns):
        for role, uuid in (("user", f"{session}-u{i}"), ("assistant", f"{session}-a{i}")):
            message: dict = ({"role": "user", "content": f"Request number {i}: please fix the price parser."}
                             if role == "user" else
                             {"model": "claude-sonnet-4-5", "id": f"msg_{uuid}", "type": "message", "role": "assistant",
                              "content": [{"type": "text", "text": reply}]})
            records.append({"parentUuid": parent, "isSidechain": False, "message": message, "type": role,
                            "uuid": uuid, "timestamp": f"2026-01-05T09:00:{len(records):02d}.000Z",
                            "userType": "external", "cwd": "/home/dev/shop", "sessionId": session,
                            "version": version, "gitBranch": "main"})
            parent = uuid
    return "\n".join(json.dumps(r) for r in records) + "\n"


CODEX = "\n".join(json.dumps(r) for r in (
    {"timestamp": "2026-01-05T09:00:00Z", "type": "session_meta", "payload": {"id": "codex-1"}},
    {"timestamp": "2026-01-05T09:00:01Z", "type": "response_item",
     "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]}},
)) + "\n"


def commit_tree(repo: Path, files: dict[str, str], ref: str) -> str:
    """Commit ``files`` (path -> text) as the whole tree of ``ref``, beside the work tree."""
    index = repo / ".git" / "tmp-index"
    env = {"GIT_INDEX_FILE": str(index)}
    git(repo, "read-tree", "--empty", env=env)
    for path, text in files.items():
        sha = git(repo, "hash-object", "-w", "--stdin", input=text).strip()
        git(repo, "update-index", "--add", "--cacheinfo", f"100644,{sha},{path}", env=env)
    tree = git(repo, "write-tree", env=env).strip()
    index.unlink()
    commit = git(repo, "commit-tree", tree, "-m", "Checkpoint").strip()
    git(repo, "update-ref", ref, commit)
    return commit


@pytest.fixture
def mirrors(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "mirrors" / "some+project" / "repo")
    long_reply = "The parser now keeps every digit after the point. " * 60  # 40 of them: a spine over 80,000
    chunked = transcript("s-long", "2.1.150", 40, reply=long_reply).split("\n")
    half = len(chunked) // 2
    commit_tree(repo, {
        # one session checkpointed twice: the larger file counts, once
        "a1/0000000001/0/full.jsonl": transcript("s-one", "2.1.40", 3),
        "a1/0000000002/0/full.jsonl": transcript("s-one", "2.1.45", 4),
        "a1/0000000002/0/metadata.json": json.dumps({"agent": "Claude Code"}),
        "b2/0000000003/0/full.jsonl": transcript("s-two", "2.1.90", 2),  # too few user turns
        "b2/0000000003/1/full.jsonl": CODEX,  # another agent's
        # a large transcript the Entire CLI cut in two chunks, joined with a newline
        "c3/0000000004/0/full.jsonl": "\n".join(chunked[:half]),
        "c3/0000000004/0/full.jsonl.001": "\n".join(chunked[half:]),
        "c3/0000000004/0/prompt.txt": "not a transcript",
    }, BRANCH)
    # newer releases: one ref per checkpoint (v1 layout at its root) and the v2 layout's raw_transcript
    commit_tree(repo, {"0/full.jsonl": transcript("s-three", "2.1.230", 5)}, "refs/entire/checkpoints/ZZ/01ABCDEFZZ")
    commit_tree(repo, {"d4/0000000005/0/raw_transcript": transcript("s-one", "2.1.45", 3)},
                "refs/entire/checkpoints/v2/full/current")
    return tmp_path / "mirrors"


def test_it_counts_the_claude_code_sessions_of_a_branch_and_which_are_eligible(mirrors):
    count = corpus.count_eligible(str(mirrors), "some/project", BRANCH)
    assert (count.files, count.other_agents, count.absent) == (5, 1, 0)
    by_session = {s.session: s for s in count.sessions}
    assert sorted(by_session) == ["s-long", "s-one", "s-two"]
    one = by_session["s-one"]
    assert (one.path, one.client, one.turns, one.eligible) == ("a1/0000000002/0/full.jsonl", "2.1.45", 4, True)
    assert one.chars is not None and 0 < one.chars <= corpus.ELIGIBLE_CHARS
    assert (by_session["s-two"].turns, by_session["s-two"].chars, by_session["s-two"].eligible) == (2, None, False)
    long = by_session["s-long"]
    assert (long.path, long.turns, long.eligible) == ("c3/0000000004/0/full.jsonl", 40, False)
    assert long.chars is not None and long.chars > corpus.ELIGIBLE_CHARS
    assert ([s.session for s in count.eligible], count.few_turns, count.too_long) == (["s-one"], 1, 1)
    assert (count.clients(), count.clients(eligible_only=True)) == (("2.1.45", "2.1.150"), ("2.1.45", "2.1.45"))
    assert (count.newer_than("2.1.42"), count.newer_than("2.1.100"), count.newer_than("2.1.42", True)) == (3, 1, 1)
    assert count.commits == {BRANCH: git(mirrors / "some+project" / "repo", "rev-parse", BRANCH).strip()}


def test_a_ref_prefix_reads_every_ref_under_it_and_a_session_counts_once_over_all_refs(mirrors):
    refs = corpus.count_eligible(str(mirrors), "some/project", "refs/entire/checkpoints/")
    assert sorted(refs.commits) == ["refs/entire/checkpoints/ZZ/01ABCDEFZZ", "refs/entire/checkpoints/v2/full/current"]
    assert sorted((s.session, s.path, s.eligible) for s in refs.sessions) == [
        ("s-one", "d4/0000000005/0/raw_transcript", True), ("s-three", "0/full.jsonl", True)]
    both = corpus.count_eligible(str(mirrors), "some/project", BRANCH, "refs/entire/checkpoints/")
    assert sorted(s.session for s in both.sessions) == ["s-long", "s-one", "s-three", "s-two"]
    assert next(s for s in both.sessions if s.session == "s-one").ref == BRANCH, "its larger file"
    assert (len(both.eligible), both.newer_than("2.1.200")) == (2, 1)


def test_a_transcript_the_mirror_lacks_is_counted_apart_and_a_symlink_not_at_all(mirrors):
    repo = mirrors / "some+project" / "repo"
    missing = "0123456789abcdef0123456789abcdef01234567"
    present = git(repo, "hash-object", "-w", "--stdin", input=transcript("s-four", "2.1.50", 3)).strip()
    tree = git(repo, "mktree", "--missing",
               input=f"100644 blob {missing}\tfull.jsonl\n100644 blob {present}\tmetadata.json\n").strip()
    link = git(repo, "mktree", input=f"120000 blob {present}\tfull.jsonl\n").strip()
    outer = git(repo, "mktree", input=f"040000 tree {tree}\t0\n040000 tree {link}\t1\n").strip()
    git(repo, "update-ref", "refs/heads/partial", git(repo, "commit-tree", outer, "-m", "partial").strip())
    count = corpus.count_eligible(str(mirrors), "some/project", "refs/heads/partial")
    assert (count.files, count.absent, count.sessions) == (0, 1, [])


def test_the_script_prints_counts_and_says_which_mirror_is_missing(mirrors, capsys):
    assert corpus.main(["--mirrors", str(mirrors), "--count", "some/project", BRANCH, "refs/entire/checkpoints/"]) == 0
    out = capsys.readouterr().out
    assert f"| some/project | {BRANCH} refs/entire/checkpoints/ | 7 (0) | 1 | 4 | 2 | 1 | 1 | 2.1.45–2.1.230 | 4 (2) |" \
        in out, out
    assert "parser" not in out, "counts only: no transcript text"
    assert corpus.main(["--mirrors", str(mirrors), "--count", "other/project", BRANCH]) == 2
    assert "no mirror of other/project" in capsys.readouterr().err
    assert corpus.main(["--mirrors", str(mirrors), "--count", "some/project", "refs/heads/nothing"]) == 2
    assert "has no refs/heads/nothing" in capsys.readouterr().err
