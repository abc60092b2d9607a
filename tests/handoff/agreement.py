"""Two readers of the same sessions: how far they agree, and the built-in extractors scored against each.

    .venv/bin/python -m tests.handoff.agreement                  # the retired-4 set read twice (README)
    .venv/bin/python -m tests.handoff.agreement --set retired-7  # the sixth fresh set read twice
    .venv/bin/python -m tests.handoff.agreement --set held-out   # the ninth fresh set read twice

The first reader's labels are ``sentences.tsv`` and ``briefs.tsv``; the second reader's, written
independently from the transcripts and spines before either reader's labels or any score on those
sessions was looked at, are one pair of files per set read twice (:data:`SETS`): a reading (path,
pointer, labels: the same sentences) and graded briefs (the same columns as ``briefs.tsv``, for
the same graded sessions). Printed:

- per cue family, over the sentences whose speaker the family applies to: how many each reader
  labelled, how many both, raw agreement and Cohen's kappa;
- the cue families as the extractors decide them (``classify.families``), scored against the first
  reader, the second, and only the sentences both readers agree on (for that family);
- per brief section, how many of one reader's required items the other reader lists at all (as a
  required or an acceptable item sharing a pointer), both ways;
- the built-in briefs scored against each reader's gold items, and against both: a claim is right
  only when it lands on an item of each reader, and the required items are the ones both readers
  require (an item of the first reader's that shares a pointer with a required one of the second's).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.handoff import corpus
from tests.handoff.corpus import (
    DATA,
    DEFAULT_MIRRORS,
    FAMILY_ROLES,
    SECTION_TITLES,
    SECTIONS,
    Gold,
    Graded,
    MirrorMissing,
    Pointer,
    Score,
    _tsv,
    table,
)

# the sets read by a second reader: (its sentence labels, its graded briefs)
SETS = {"retired-4": ("second_reading.tsv", "second_briefs.tsv"),
        "retired-7": ("second_reading_6.tsv", "second_briefs_6.tsv"),
        "held-out": ("second_reading_9.tsv", "second_briefs_9.tsv")}


@dataclass
class Agreement:
    """Two readers' yes/no on one family over the same sentences."""

    both: int = 0
    first_only: int = 0
    second_only: int = 0
    neither: int = 0

    def add(self, first: bool, second: bool) -> None:
        if first and second:
            self.both += 1
        elif first:
            self.first_only += 1
        elif second:
            self.second_only += 1
        else:
            self.neither += 1

    @property
    def total(self) -> int:
        return self.both + self.first_only + self.second_only + self.neither

    @property
    def raw(self) -> float:
        return (self.both + self.neither) / self.total if self.total else float("nan")

    @property
    def kappa(self) -> float:
        """Cohen's kappa: agreement beyond what two readers with these label rates reach by chance."""
        n = self.total
        if not n:
            return float("nan")
        p1 = (self.both + self.first_only) / n
        p2 = (self.both + self.second_only) / n
        chance = p1 * p2 + (1 - p1) * (1 - p2)
        return (self.raw - chance) / (1 - chance) if chance < 1 else float("nan")


def _golds(name: str, data: Path) -> dict[str, list[Gold]]:
    out: dict[str, list[Gold]] = {}
    for row in _tsv(name, data):
        pointers = [corpus._line_pointer(p) if p.endswith(":*") else Pointer.parse(p) for p in row["pointers"].split("|")]
        out.setdefault(row["path"], []).append(Gold(row["section"], row["item"], pointers, row["kind"] == "required",
                                                    row["note"]))
    return out


def overlap(a: Gold, b: Gold) -> bool:
    """Two gold items of one section name the same thing: a pointer of each on one line, the same
    field and overlapping spans (a whole-record pointer overlaps anything on its line)."""
    if a.section != b.section:
        return False
    for p in a.pointers:
        for q in b.pointers:
            if p.line != q.line:
                continue
            if p.field == "*" or q.field == "*" or (p.field == q.field and p.start < q.end and q.start < p.end):
                return True
    return False


def cue_tables(mirrors: str, data: Path, reading: str = SETS["retired-4"][0]
               ) -> tuple[dict[str, Agreement], dict[str, dict[str, Score]], int]:
    from gitrefocus.handoff import classify

    srcs = corpus.sources(data)
    first = {(r["path"], r["pointer"]): set(filter(None, r["labels"].split(","))) for r in _tsv("sentences.tsv", data)}
    agree = {family: Agreement() for family in FAMILY_ROLES}
    scores = {reader: {family: Score() for family in FAMILY_ROLES} for reader in ("first", "second", "both")}
    found: dict[str, dict] = {}
    count = 0
    for row in _tsv(reading, data):
        key = (row["path"], row["pointer"])
        if key not in first:
            raise ValueError(f"{reading}: {row['path']} {row['pointer']} is no sentence of sentences.tsv")
        source = srcs[row["path"]]
        if row["path"] not in found:
            source.load(mirrors)
            found[row["path"]] = corpus.contexts(source, mirrors)
        p = Pointer.parse(row["pointer"])
        sentence = p.text(source)
        ctx = found[row["path"]].get((p.line, p.field, p.start, p.end))
        if ctx is None:
            continue
        count += 1
        second = set(filter(None, row["labels"].split(",")))
        taken = classify.families(sentence, ctx)
        for family, roles in FAMILY_ROLES.items():
            if ctx.role not in roles:
                continue
            a, b, fired = family in first[key], family in second, family in taken
            agree[family].add(a, b)
            for reader, wanted in (("first", a), ("second", b), ("both", a if a == b else None)):
                if wanted is None:
                    continue
                s = scores[reader][family]
                s.tp += fired and wanted
                s.fp += fired and not wanted
                s.fn += wanted and not fired
    return agree, scores, count


def brief_tables(mirrors: str, data: Path, graded: str = SETS["retired-4"][1]
                 ) -> tuple[dict[str, list[int]], dict[str, dict[str, Graded]], int]:
    """(per section: [first's required, of them listed by second, second's required, of them listed
    by first]; the built-in briefs' scores per reader; sessions)."""
    firsts, seconds = _golds("briefs.tsv", data), _golds(graded, data)
    lists = {s: [0, 0, 0, 0] for s in SECTIONS}
    for path, second in seconds.items():
        first = firsts.get(path, [])
        for g in first:
            if g.required:
                lists[g.section][0] += 1
                lists[g.section][1] += any(overlap(g, h) for h in second)
        for h in second:
            if h.required:
                lists[h.section][2] += 1
                lists[h.section][3] += any(overlap(h, g) for g in first)
    scores = {reader: {s: Graded() for s in SECTIONS} for reader in ("first", "second", "both")}
    sessions = 0
    srcs = corpus.sources(data)
    for path in sorted(seconds):
        source = srcs[path]
        sections = corpus.builtin_sections(source, mirrors)
        sessions += 1
        first, second = firsts.get(source.key, []), seconds[source.key]
        items = corpus.brief_items(sections)
        for reader, golds in (("first", first), ("second", second)):
            for item in items:
                scores[reader][item.section].correct += any(g.section == item.section and corpus._matches(item, g, source)
                                                            for g in golds)
                scores[reader][item.section].false += not any(g.section == item.section and
                                                              corpus._matches(item, g, source) for g in golds)
            for g in golds:
                if g.required:
                    hit = any(item.section == g.section and corpus._matches(item, g, source) for item in items)
                    scores[reader][g.section].found += hit
                    scores[reader][g.section].missed += not hit
        for item in items:
            right = all(any(g.section == item.section and corpus._matches(item, g, source) for g in golds)
                        for golds in (first, second))
            scores["both"][item.section].correct += right
            scores["both"][item.section].false += not right
        for g in first:
            if g.required and any(h.required and overlap(g, h) for h in second):
                hit = any(item.section == g.section and (corpus._matches(item, g, source) or any(
                    h.required and overlap(g, h) and corpus._matches(item, h, source) for h in second))
                    for item in items)
                scores["both"][g.section].found += hit
                scores["both"][g.section].missed += not hit
    return lists, scores, sessions


def _fmt(x: float) -> str:
    return " n/a" if x != x else f"{x:.2f}".replace("-0.00", "0.00")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Agreement of two readers of the same sessions, and the "
                                                 "built-in extractors scored against each.")
    parser.add_argument("--data", default=str(DATA), help="the corpus directory (default: tests/data/handoff_corpus)")
    parser.add_argument("--mirrors", default=os.environ.get("GIT_REFOCUS_CORPUS_MIRRORS", DEFAULT_MIRRORS),
                        help="where the repository mirrors are (<owner>+<name>/repo)")
    parser.add_argument("--set", default="retired-4", choices=list(SETS),
                        help="which set read twice to compare (default: retired-4)")
    args = parser.parse_args(argv)
    data = Path(args.data)
    reading, graded = SETS[args.set]
    if not (data / reading).exists():
        print(f"no second reading of the {args.set} set in {data} ({reading})", file=sys.stderr)
        return 1
    try:
        agree, cues, count = cue_tables(args.mirrors, data, reading)
        lists, briefs, sessions = brief_tables(args.mirrors, data, graded)
    except MirrorMissing as exc:
        print(f"cannot print the tables: {exc}. The corpus holds pointers only (see {data / 'README.md'}).",
              file=sys.stderr)
        return 2
    print(f"## cue families: {count} sentences read twice\n")
    print("| cue family | first reader | second reader | both | raw agreement | Cohen's kappa |")
    print("|---|---|---|---|---|---|")
    total = Agreement()
    for family, a in agree.items():
        print(f"| {family} | {a.both + a.first_only} | {a.both + a.second_only} | {a.both} | {_fmt(a.raw)} | "
              f"{_fmt(a.kappa)} |")
        total.both, total.first_only = total.both + a.both, total.first_only + a.first_only
        total.second_only, total.neither = total.second_only + a.second_only, total.neither + a.neither
    print(f"| **all** | {total.both + total.first_only} | {total.both + total.second_only} | {total.both} | "
          f"{_fmt(total.raw)} | {_fmt(total.kappa)} |\n")
    for reader, title in (("first", "against the first reader"), ("second", "against the second reader"),
                          ("both", "on the sentences both readers agree on")):
        print(f"### the extractors' cue families {title}\n")
        print(table("cue family", cues[reader]) + "\n")
    print(f"## graded briefs: {sessions} sessions graded twice\n")
    print("| brief section | first reader's required | listed by the second | second reader's required | "
          "listed by the first |")
    print("|---|---|---|---|---|")
    for section, (a, a_in_b, b, b_in_a) in lists.items():
        print(f"| {SECTION_TITLES[section]} | {a} | {a_in_b} | {b} | {b_in_a} |")
    print(f"| **all** | {sum(v[0] for v in lists.values())} | {sum(v[1] for v in lists.values())} | "
          f"{sum(v[2] for v in lists.values())} | {sum(v[3] for v in lists.values())} |\n")
    for reader, title in (("first", "against the first reader"), ("second", "against the second reader"),
                          ("both", "against both readers")):
        print(f"### the built-in briefs {title}\n")
        print(table("brief section", briefs[reader], SECTION_TITLES) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
