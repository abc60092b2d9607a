"""The real-session corpus script (tests/handoff/corpus.py) on a small synthetic corpus whose
"public repository" the test builds, and the committed corpus's own consistency (no mirror
needed: it holds pointers and labels only)."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.gitrepo import git, make_repo
from tests.handoff import corpus

FIXTURE = Path(__file__).resolve().parent.parent / "data" / "handoff_corpus_fixture"


def mirrors(tmp_path: Path) -> tuple[Path, Path]:
    """(mirrors dir, data dir): the fixture's transcripts committed to <mirrors>/synthetic+corpus/repo,
    and the fixture's TSVs with that commit filled in."""
    repo = make_repo(tmp_path / "mirrors" / "synthetic+corpus" / "repo")
    for path in (FIXTURE / "fixture").rglob("*.jsonl"):
        target = repo / path.relative_to(FIXTURE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    git(repo, "add", "fixture")
    git(repo, "commit", "-qm", "transcripts")
    commit = git(repo, "rev-parse", "HEAD").strip()
    data = tmp_path / "data"
    data.mkdir()
    for name in ("sessions.tsv", "sentences.tsv", "briefs.tsv"):
        (data / name).write_text((FIXTURE / name).read_text().replace("COMMIT", commit))
    return tmp_path / "mirrors", data


def test_the_script_prints_both_tables_from_the_mirror(tmp_path, capsys):
    where, data = mirrors(tmp_path)
    assert corpus.main(["--data", str(data), "--mirrors", str(where)]) == 0
    out = capsys.readouterr().out
    held, tuning = out.split("## tuning")
    assert held.startswith("## held-out: 1 sessions, 9 labelled sentences, 1 graded briefs")
    for row in ("| correction | 1.00 | 1.00 | 1 | 0 | 0 |", "| dead-end | 1.00 | 1.00 | 1 | 0 | 0 |",
                "| constraint |  n/a |  n/a | 0 | 0 | 0 |",
                "| what the user asked | 1.00 | 1.00 | 2 | 0 | 1 | 0 |", "| dead ends | 1.00 | 1.00 |",
                "| open threads | 1.00 | 1.00 | 1 | 0 | 1 | 0 |", "| constraints & corrections | 1.00 | 1.00 |",
                "| concluded & decided | 1.00 | 0.00 | 1 | 0 | 0 | 1 |"):
        assert row in held, row
    assert "| correction | 1.00 | 1.00 | 1 | 0 | 0 |" in tuning, "the same session, labelled alike, on the other side"


def test_the_script_lists_a_splits_misses_only_when_asked(tmp_path, capsys):
    where, data = mirrors(tmp_path)
    (data / "sentences.tsv").write_text((data / "sentences.tsv").read_text().replace(
        "L9:c0:20-43:fb8e0a24f4b202ad\t\n", "L9:c0:20-43:fb8e0a24f4b202ad\topen-thread\n"))
    assert corpus.main(["--data", str(data), "--mirrors", str(where)]) == 0
    assert " missed" not in capsys.readouterr().out.replace("| missed |", "")
    assert corpus.main(["--data", str(data), "--mirrors", str(where), "--split", "held-out",
                        "--show", "held-out"]) == 0
    out = capsys.readouterr().out
    assert "open-thread missed [assistant] 'Want me to commit this?'" in out
    assert "concluded missed: regex-cause — the regex stops at the dot" in out
    assert "## tuning" not in out


def test_without_the_mirror_the_script_says_what_is_missing(tmp_path, capsys):
    _, data = mirrors(tmp_path)
    assert corpus.main(["--data", str(data), "--mirrors", str(tmp_path / "nowhere")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no mirror of synthetic/corpus" in captured.err
    assert "holds pointers only" in captured.err and "synthetic+corpus/repo" in captured.err


def test_a_file_that_differs_from_the_labelled_one_is_refused(tmp_path, capsys):
    where, data = mirrors(tmp_path)
    repo = where / "synthetic+corpus" / "repo"
    path = repo / "fixture" / "one" / "0" / "full.jsonl"
    path.write_text(path.read_text().replace("cents", "pence"))
    git(repo, "commit", "-qam", "changed")
    (data / "sessions.tsv").write_text((data / "sessions.tsv").read_text().replace(
        git(repo, "rev-parse", "HEAD~1").strip(), git(repo, "rev-parse", "HEAD").strip()))
    assert corpus.main(["--data", str(data), "--mirrors", str(where)]) == 2
    assert "is not the file the corpus was labelled on" in capsys.readouterr().err


def test_a_session_named_by_key_is_read_from_its_chunks(tmp_path, capsys):
    """A session of another repository is named by its key column (its path, ``0/full.jsonl`` at the
    root of a per-checkpoint ref, repeats), and a transcript the Entire CLI cut in chunks is read
    joined back."""
    where, data = mirrors(tmp_path)
    repo = where / "synthetic+corpus" / "repo"
    whole = (FIXTURE / "fixture" / "one" / "0" / "full.jsonl").read_bytes().rstrip(b"\n").split(b"\n")
    (repo / "0").mkdir()
    (repo / "0" / "full.jsonl.001").write_bytes(b"\n".join(whole[:2]))
    (repo / "0" / "full.jsonl.002").write_bytes(b"\n".join(whole[2:]))
    git(repo, "add", "0")
    git(repo, "commit", "-qm", "a chunked transcript")
    commit = git(repo, "rev-parse", "HEAD").strip()
    joined = corpus.read_transcript(str(repo), commit, "0/full.jsonl")
    assert joined == b"\n".join(whole)
    assert corpus.read_transcript(str(repo), commit, "1/full.jsonl") is None
    key = corpus.session_key("synthetic/corpus", commit, "0/full.jsonl")
    assert key == f"synthetic/corpus@{commit[:12]}:0/full.jsonl"
    sha = __import__("hashlib").sha256(joined).hexdigest()
    head, rest = (data / "sessions.tsv").read_text().split("\n", 1)
    (data / "sessions.tsv").write_text(head + "\tkey\n" + rest)
    with (data / "sessions.tsv").open("a") as out:
        out.write(f"synthetic/corpus\t{commit}\t0/full.jsonl\t{sha}\theld-out\tno\t2.1.200\t{key}\n")
    source = corpus.sources(data)[key]
    assert source.key == key and source.load(str(where)) == joined
    assert "fixture/one/0/full.jsonl" in corpus.sources(data), "sessions without a key keep their path"


def test_the_seventh_rounds_client_buckets():
    assert [corpus.fine_client_bucket(v) for v in ("2.0.76", "2.1.5", "2.1.20", "2.1.42", "2.1.43", "2.1.99",
                                                   "2.1.100", "2.1.232")] == \
        ["2.0", "2.1.0-19", "2.1.20-42", "2.1.20-42", "2.1.43-99", "2.1.43-99", "2.1.100+", "2.1.100+"]


# -- the committed corpus ---------------------------------------------------------------------------
def test_the_committed_corpus_is_pointers_and_labels_split_by_the_rule():
    sessions = corpus.sources()
    assert len(sessions) >= 30
    old = {path: s for path, s in sessions.items() if s.split in ("tuning", "retired")}
    assert all(s.split == corpus.split_of(path) for path, s in old.items()), "split by the hash rule"
    first = [path for path, s in sessions.items() if s.split == "retired-2"]
    second = [path for path, s in sessions.items() if s.split == "retired-3"]
    third = [path for path, s in sessions.items() if s.split == "retired-4"]
    fourth = [path for path, s in sessions.items() if s.split == "retired-5"]
    fifth = [path for path, s in sessions.items() if s.split == "retired-6"]
    assert len(first) >= 15 and len(second) >= 15 and len(third) >= 16 and len(fourth) >= 16 and len(fifth) >= 16, \
        "the first five fresh sets, now tuned on"
    checkpoints = {"/".join(p.split("/")[:2]) for p in old}
    assert all(corpus.split_of(p) == "retired" and "/".join(p.split("/")[:2]) not in checkpoints
               for p in first + second + third + fourth), \
        "drawn from the side nobody tuned on, outside the old corpus's checkpoints"
    assert all("/".join(p.split("/")[:2]) not in checkpoints for p in fifth), \
        "the fifth filled from the other side of the old split, outside the old corpus's checkpoints too"
    fresh = [path for path, s in sessions.items() if s.split == "retired-7"]
    assert len(fresh) >= 16, "the sixth (from both sides of the old split), now tuned on"
    assert all("/".join(p.split("/")[:2]) not in checkpoints for p in fresh)
    sets = [{"/".join(p.split("/")[:2]) for p in group} for group in (first, second, third, fourth, fifth, fresh)]
    assert all(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1:]), "the fresh sets share no checkpoint"
    rows = corpus._tsv("sentences.tsv", corpus.DATA)
    assert len(rows) >= 600
    families = set(corpus.FAMILY_ROLES)
    for row in rows:
        assert row["path"] in sessions
        corpus.Pointer.parse(row["pointer"])
        assert set(filter(None, row["labels"].split(","))) <= families, row
        assert row["role"] in ("user", "assistant") and row["draw"] in ("random", "boundary")
    assert len([r for r in rows if sessions[r["path"]].split == "retired-4"]) >= 300
    assert len([r for r in rows if sessions[r["path"]].split == "retired-5"]) >= 300
    assert len([r for r in rows if sessions[r["path"]].split == "retired-6"]) >= 300
    assert len([r for r in rows if sessions[r["path"]].split == "retired-7"]) >= 300
    seventh = {key: s for key, s in sessions.items() if s.split == "retired-8"}
    eighth = {key: s for key, s in sessions.items() if s.split == "retired-9"}
    ninth = {key: s for key, s in sessions.items() if s.split == "held-out"}
    assert len(seventh) >= 16, "the seventh fresh set, from many repositories, now tuned on"
    assert len(eighth) >= 16, "the eighth fresh set, from many repositories, now tuned on"
    assert len(ninth) >= 16, "the ninth fresh set, held out, from many repositories"
    for group in (seventh, eighth, ninth):
        assert all(s.repo in corpus.OTHER_SOURCES and key == corpus.session_key(s.repo, s.commit, s.path)
                   for key, s in group.items()), "named by repository, commit and path; none from entireio/cli"
        per_repo = Counter(s.repo for s in group.values())
        assert max(per_repo.values()) <= corpus.MANY_PER_REPO and len(per_repo) >= 6
    sets = (set(seventh), set(eighth), set(ninth))
    assert all(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1:]), "the three share no session"
    assert len([r for r in rows if sessions[r["path"]].split == "retired-8"]) >= 300
    assert len([r for r in rows if sessions[r["path"]].split == "retired-9"]) >= 300
    briefs = corpus._tsv("briefs.tsv", corpus.DATA)
    graded = {r["path"] for r in briefs}
    assert len(graded) >= 15 and graded == {p for p, s in sessions.items() if s.graded}
    assert len(graded & set(third)) >= 8 and len(graded & set(fourth)) >= 8 and len(graded & set(fifth)) >= 8
    assert len(graded & set(fresh)) >= 8 and len(graded & set(seventh)) >= 8 and len(graded & set(eighth)) >= 8
    assert len(graded & set(ninth)) >= 8
    assert all(r["section"] in corpus.SECTIONS and r["kind"] in ("required", "ok") for r in briefs)
    for r in briefs:
        for p in r["pointers"].split("|"):
            corpus._line_pointer(p) if p.endswith(":*") else corpus.Pointer.parse(p)


def test_the_second_reading_reads_the_same_sentences_and_sessions():
    sentences = {(r["path"], r["pointer"]) for r in corpus._tsv("sentences.tsv", corpus.DATA)}
    second = corpus._tsv("second_reading.tsv", corpus.DATA)
    assert len(second) >= 300 and all((r["path"], r["pointer"]) in sentences for r in second)
    families = set(corpus.FAMILY_ROLES)
    assert all(set(filter(None, r["labels"].split(","))) <= families for r in second)
    briefs = corpus._tsv("second_briefs.tsv", corpus.DATA)
    graded = {p for p, s in corpus.sources().items() if s.graded}
    assert {r["path"] for r in briefs} <= graded and len({r["path"] for r in briefs}) >= 8
    assert all(r["section"] in corpus.SECTIONS and r["kind"] in ("required", "ok") for r in briefs)


@pytest.mark.parametrize("split", ["retired-7", "held-out"])
def test_a_later_sets_second_reading_reads_its_sentences_and_graded_sessions(split):
    """The second reading of the sixth fresh set (retired-7: second_reading_6.tsv) and of the ninth
    (held-out: second_reading_9.tsv) reads every sentence of its set in sentences.tsv (and no other),
    once; its graded briefs grade exactly the set's sessions that have a graded brief."""
    from tests.handoff.agreement import SETS

    reading, graded = SETS[split]
    srcs = corpus.sources()
    held = [(r["path"], r["pointer"]) for r in corpus._tsv("sentences.tsv", corpus.DATA)
            if srcs[r["path"]].split == split]
    second = corpus._tsv(reading, corpus.DATA)
    keys = [(r["path"], r["pointer"]) for r in second]
    assert len(keys) == len(set(keys)) and set(keys) == set(held) and len(held) >= 300
    assert all(set(filter(None, r["labels"].split(","))) <= set(corpus.FAMILY_ROLES) for r in second)
    roles = {(r["path"], r["pointer"]): r["role"] for r in corpus._tsv("sentences.tsv", corpus.DATA)}
    for r in second:
        for family in filter(None, r["labels"].split(",")):
            assert roles[(r["path"], r["pointer"])] in corpus.FAMILY_ROLES[family], r
    briefs = corpus._tsv(graded, corpus.DATA)
    assert {r["path"] for r in briefs} == {p for p, s in srcs.items() if s.split == split and s.graded}
    assert all(r["section"] in corpus.SECTIONS and r["kind"] in ("required", "ok") for r in briefs)
    for r in briefs:
        for p in r["pointers"].split("|"):
            corpus._line_pointer(p) if p.endswith(":*") else corpus.Pointer.parse(p)


@pytest.mark.parametrize("name", ["sessions.tsv", "sentences.tsv", "briefs.tsv", "second_reading.tsv",
                                  "second_briefs.tsv", "second_reading_6.tsv", "second_briefs_6.tsv",
                                  "second_reading_9.tsv", "second_briefs_9.tsv"])
def test_no_transcript_text_is_committed(name):
    """Pointers, hashes, labels and the labeller's own short notes: no field is long enough to
    hold a quoted message."""
    for row in corpus._tsv(name, corpus.DATA):
        assert all(len(value) <= 200 for key, value in row.items() if key != "pointers"), row


def test_the_agreement_script_compares_two_readers_of_the_same_sentences_and_briefs(tmp_path, capsys):
    from tests.handoff import agreement

    where, data = mirrors(tmp_path)
    # the second reader: session one's sentences alike but for one decision not taken and one
    # correction called a constraint too; its brief without the open thread, the dead end acceptable only
    rows = [ln for ln in (data / "sentences.tsv").read_text().splitlines()[1:] if ln.startswith("fixture/one")]
    second = ["path\tpointer\tlabels"]
    for row in rows:
        path, _, _, pointer, labels = row.split("\t")
        labels = {"intent,decision": "intent", "correction": "correction,constraint"}.get(labels, labels)
        second.append(f"{path}\t{pointer}\t{labels}")
    (data / "second_reading.tsv").write_text("\n".join(second) + "\n")
    briefs = [ln for ln in (data / "briefs.tsv").read_text().splitlines()
              if not ln.startswith("fixture/two") and "\topen\t" not in ln]
    (data / "second_briefs.tsv").write_text("\n".join(briefs).replace("\trequired\tthe float", "\tok\tthe float") + "\n")
    assert agreement.main(["--data", str(data), "--mirrors", str(where)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## cue families: 9 sentences read twice")
    # decision: 2 of the 9 sentences for the first reader, 1 for the second: raw 8/9,
    # kappa (8/9 - (2/9*1/9 + 7/9*8/9)) / (1 - 58/81) = 0.61
    assert "| decision | 2 | 1 | 1 | 0.89 | 0.61 |" in out
    assert "| correction | 1 | 1 | 1 | 1.00 | 1.00 |" in out
    assert "| constraint | 0 | 1 | 0 | 0.67 | 0.00 |" in out, "(of the 3 user sentences)"
    against_first, against_second, against_both = out.split("### the extractors' cue families")[1:4]
    assert "| decision | 0.67 | 1.00 | 2 | 1 | 0 |" in against_first
    assert "| decision | 0.33 | 1.00 | 1 | 2 | 0 |" in against_second
    assert "| decision | 0.50 | 1.00 | 1 | 1 | 0 |" in against_both, "the sentence they disagree on is left out"
    assert "| dead ends | 1 | 1 | 0 | 0 |" in out and "| open threads | 1 | 0 | 0 | 0 |" in out
    briefs_first, briefs_second, briefs_both = out.split("### the built-in briefs")[1:4]
    assert "| open threads | 1.00 | 1.00 | 1 | 0 | 1 | 0 |" in briefs_first
    assert "| open threads | 0.00 |  n/a | 0 | 1 | 0 | 0 |" in briefs_second
    assert "| dead ends | 1.00 |  n/a |" in briefs_both, "a dead end only one reader requires is not required"


def test_the_agreement_script_compares_the_set_it_is_asked_for(tmp_path, capsys):
    from tests.handoff import agreement

    where, data = mirrors(tmp_path)
    rows = [ln for ln in (data / "sentences.tsv").read_text().splitlines()[1:] if ln.startswith("fixture/one")]
    # the retired-7 set's second reader calls every sentence nothing; the retired-4 set's reader agrees
    # with the first on everything
    (data / "second_reading_6.tsv").write_text("path\tpointer\tlabels\n" + "".join(
        f"{row.split(chr(9))[0]}\t{row.split(chr(9))[3]}\t\n" for row in rows))
    (data / "second_briefs_6.tsv").write_text((data / "briefs.tsv").read_text())
    assert agreement.main(["--data", str(data), "--mirrors", str(where)]) == 1
    assert "no second reading of the retired-4 set" in capsys.readouterr().err
    assert agreement.main(["--data", str(data), "--mirrors", str(where), "--set", "retired-7"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## cue families: 9 sentences read twice")
    assert "| decision | 2 | 0 | 0 | 0.78 | 0.00 |" in out and "| correction | 1 | 0 | 0 | 0.67 | 0.00 |" in out
    (data / "second_reading.tsv").write_text("path\tpointer\tlabels\n" + "".join(
        f"{row.split(chr(9))[0]}\t{row.split(chr(9))[3]}\t{row.split(chr(9))[4]}\n" for row in rows))
    (data / "second_briefs.tsv").write_text((data / "briefs.tsv").read_text())
    assert agreement.main(["--data", str(data), "--mirrors", str(where)]) == 0
    out = capsys.readouterr().out
    assert "| decision | 2 | 2 | 2 | 1.00 | 1.00 |" in out, "the default set reads its own files"


def test_cohens_kappa_is_zero_at_chance_and_one_when_the_readers_agree():
    from tests.handoff.agreement import Agreement

    assert Agreement(both=5, neither=5).kappa == 1.0
    assert Agreement(both=1, first_only=1, second_only=1, neither=1).kappa == 0.0
    assert abs(Agreement(both=20, first_only=2, second_only=4, neither=334).kappa - 0.861) < 0.001
