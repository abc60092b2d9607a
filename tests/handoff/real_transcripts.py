"""The scrubber on real public Claude Code transcripts, read from a local mirror by pointer.

The public repository ``entireio/cli`` keeps several hundred real Claude Code transcripts on
its branch ``entire/checkpoints/v1``. No text of them is committed here: the files in
tests/data/ hold pointers (commit, path, line, character offset, length, a hash of the
text) and labels, and this script reads the text from a mirror of that repository when one
is present (``$REFOCUS_REAL_TRANSCRIPTS`` or /work/.mirror/entireio+cli/repo).

Files are split by a hash of their path: about a third are held out. The rules were
adjusted looking only at redactions in the tune split; every redaction in the held-out
split was judged once, by reading it in context, and the verdict recorded in
``tests/data/real_redactions.tsv``.

    python -m tests.handoff.real_transcripts              # the table (needs the mirror)
    python -m tests.handoff.real_transcripts --list tune  # every redaction of a split, in context
    python -m tests.handoff.real_transcripts --write      # refresh the pointer files (keeps verdicts)
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from gitrefocus.handoff.scrub import find

DATA = Path(__file__).resolve().parent.parent / "data"
REDACTIONS_FILE = DATA / "real_redactions.tsv"
LOOKALIKES_FILE = DATA / "real_lookalikes.tsv"
REPOSITORY = "entireio/cli"
BRANCH = "entire/checkpoints/v1"
COMMIT = "394f81fab87f71aa8938d91ff7a067c524ff344b"
MIRROR = Path(os.environ.get("REFOCUS_REAL_TRANSCRIPTS", "/work/.mirror/entireio+cli/repo"))
PER_SHAPE_PER_FILE = 3

# shapes of strings that are not secrets: what a scrubber tends to take for one
LOOKALIKE_SHAPES = {
    "commit-id": re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])"),
    "sha256": re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])"),
    "uuid": re.compile(r"(?<![0-9a-f-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])"),
    "base64-image": re.compile(r"data:image/[a-z+]+;base64,[A-Za-z0-9+/]{40,200}"),
    "base64-blob": re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{60,200}={0,2}(?![A-Za-z0-9+/=])"),
    "eyj-single-segment": re.compile(r"(?<![\w.-])eyJ[A-Za-z0-9_-]{16,}={0,2}(?![\w.-])"),
    "ipfs-cid": re.compile(r"(?<!\w)(?:Qm[1-9A-HJ-NP-Za-km-z]{44}|bafy[a-z2-7]{50,})(?!\w)"),
    "stripe-publishable": re.compile(r"(?<!\w)pk_(?:live|test)_[A-Za-z0-9]{20,}"),
    "placeholder": re.compile(r"(?i)(?:<your[-_ ][\w -]{2,30}>|\$\{[A-Z_]*(?:TOKEN|KEY|SECRET|PASSWORD)[A-Z_]*\}"
                              r"|your[-_](?:api[-_])?(?:key|token|secret|password)(?:[-_]here)?)"),
    "csrf": re.compile(r"(?i)(?:csrf|xsrf)[\w-]*[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9_=+/-]{16,}"),
    "integrity": re.compile(r"sha(?:256|384|512)-[A-Za-z0-9+/]{40,}={0,2}"),
    "claude-id": re.compile(r"(?<!\w)(?:msg|toolu|req|srvtoolu)_01[A-Za-z0-9]{20,}"),
    "secret-named-code": re.compile(r"(?i)(?:token|secret|password|api_?key)\w*\s*(?::=|=)\s*[A-Za-z_][\w.]*\("),
}


def split_of(path: str) -> str:
    return "held" if int(hashlib.sha256(path.encode()).hexdigest(), 16) % 3 == 0 else "tune"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def available() -> bool:
    return (MIRROR / "HEAD").exists() or (MIRROR / ".git").exists()


def _git(*args: str) -> bytes:
    return subprocess.run(["git", "-C", str(MIRROR), *args], capture_output=True, check=True).stdout


def transcripts() -> list[tuple[str, str]]:
    """(path, blob) of every full transcript on the branch whose blob the mirror holds."""
    listing = _git("ls-tree", "-r", COMMIT).decode().splitlines()
    rows = [(line.split("\t", 1)[1], line.split()[2]) for line in listing if line.endswith("full.jsonl")]
    check = subprocess.run(["git", "-C", str(MIRROR), "cat-file", "--batch-check"], capture_output=True, check=True,
                           input="\n".join(b for _, b in rows).encode()).stdout.decode().splitlines()
    present = {line.split()[0] for line in check if line.split()[1:2] == ["blob"]}
    return [(p, b) for p, b in rows if b in present]


def lines_of(blob: str) -> list[str]:
    return _git("cat-file", "blob", blob).decode("utf-8", "replace").split("\n")


# -- the scrubber on each line -------------------------------------------------------------
def redactions(split: str):
    """(path, line, column, length, kind, hash, context) of every redaction the scrubber makes on
    the JSONL text of the split's transcripts (what ``complete --save-transcript`` saves)."""
    for path, blob in transcripts():
        if split_of(path) != split:
            continue
        for number, line in enumerate(lines_of(blob), 1):
            for start, end, kind in find(line):
                context = line[max(0, start - 90):start] + "⟦" + line[start:end] + "⟧" + line[end:end + 40]
                yield path, number, start, end - start, kind, digest(line[start:end]), context


def lookalikes(split: str):
    """(path, line, column, length, shape, hash) of look-alike-shaped strings in the split's files."""
    for path, blob in transcripts():
        if split_of(path) != split:
            continue
        seen: Counter = Counter()
        for number, line in enumerate(lines_of(blob), 1):
            for shape, regex in LOOKALIKE_SHAPES.items():
                if seen[shape] >= PER_SHAPE_PER_FILE:
                    continue
                for m in regex.finditer(line):
                    if seen[shape] >= PER_SHAPE_PER_FILE:
                        break
                    seen[shape] += 1
                    yield path, number, m.start(), m.end() - m.start(), shape, digest(m.group())


# -- the pointer files ------------------------------------------------------------------------
HEADER_R = "# repository\tcommit\tpath\tline\tcolumn\tlength\tsha256-16\tkind\tsplit\tverdict\twhy\n"
HEADER_L = "# repository\tcommit\tpath\tline\tcolumn\tlength\tsha256-16\tshape\tsplit\t[label]\n"


def read_tsv(path: Path) -> list[list[str]]:
    if not path.exists():
        return []
    return [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def write() -> None:
    """Pointers to every redaction now made (both splits), keeping recorded verdicts; a
    verdict whose redaction is no longer made is kept too, marked ``gone``."""
    old = {tuple(r[2:8]): r for r in read_tsv(REDACTIONS_FILE) if len(r) >= 11}
    rows = []
    for split in ("tune", "held"):
        for path, number, col, length, kind, h, _ in redactions(split):
            key = (path, str(number), str(col), str(length), h, kind)
            verdict, why = old.pop(key, [""] * 11)[9:11] if key in old else ("?", "")
            rows.append([REPOSITORY, COMMIT, *key, split, verdict, why])
    for key, row in old.items():
        rows.append(row[:9] + [row[9] if row[9].startswith("gone") else f"gone ({row[9]})", row[10]])
    with open(REDACTIONS_FILE, "w", encoding="utf-8") as fh:
        fh.write(HEADER_R)
        for row in rows:
            fh.write("\t".join(row) + "\n")
    labels = {tuple(r[2:7]): r[9] for r in read_tsv(LOOKALIKES_FILE) if len(r) >= 10}
    with open(LOOKALIKES_FILE, "w", encoding="utf-8") as fh:
        fh.write(HEADER_L)
        for split in ("tune", "held"):
            for path, number, col, length, shape, h in lookalikes(split):
                key = (path, str(number), str(col), str(length), h)
                label = [labels[key]] if key in labels else []
                fh.write("\t".join([REPOSITORY, COMMIT, *key, shape, split, *label]) + "\n")


# -- measuring --------------------------------------------------------------------------------
def measure_lookalikes() -> dict[str, tuple[int, int, int]]:
    """Per split: (look-alikes read, found unchanged, redacted); a pointer whose text no longer
    hashes the same is not counted."""
    out: dict[str, list[int]] = {}
    cache: dict[str, list[str]] = {}
    blobs = dict(transcripts())
    for row in read_tsv(LOOKALIKES_FILE):
        _, _, path, number, col, length, h, shape, split = row[:9]
        if row[9:10] == ["secret"]:
            continue  # the shape was found inside a secret (judged by reading it): not a look-alike
        tally = out.setdefault(split, [0, 0, 0])
        if path not in blobs:
            continue
        lines = cache.setdefault(path, lines_of(blobs[path]))
        line = lines[int(number) - 1]
        start, end = int(col), int(col) + int(length)
        if digest(line[start:end]) != h:
            continue
        tally[0] += 1
        if any(s < end and e > start for s, e, _ in find(line)):
            tally[2] += 1
        else:
            tally[1] += 1
    return {k: (v[0], v[1], v[2]) for k, v in out.items()}


def measure_redactions(split: str) -> tuple[int, int, int, int, Counter]:
    """A split's redactions now, against the verdicts: (redactions, judged true, judged false,
    not judged yet, kinds)."""
    verdicts = {tuple(r[2:8]): r[9] for r in read_tsv(REDACTIONS_FILE) if len(r) >= 10}
    true = false = unjudged = 0
    kinds: Counter = Counter()
    total = 0
    for path, number, col, length, kind, h, _ in redactions(split):
        total += 1
        kinds[kind] += 1
        verdict = verdicts.get((path, str(number), str(col), str(length), h, kind), "?")
        true += verdict == "true"
        false += verdict == "false"
        unjudged += verdict not in ("true", "false")
    return total, true, false, unjudged, kinds


def main(argv: list[str]) -> int:
    if not available():
        print(f"no mirror of {REPOSITORY} at {MIRROR}; set REFOCUS_REAL_TRANSCRIPTS to one.")
        return 0
    if argv[:1] == ["--write"]:
        write()
        print(f"wrote {REDACTIONS_FILE} and {LOOKALIKES_FILE}")
        return 0
    if argv[:1] == ["--list"]:
        split = argv[1] if len(argv) > 1 else "tune"
        for path, number, col, length, kind, h, context in redactions(split):
            print(f"{path}:{number}:{col} [{kind}] {context!r}")
        return 0
    files = transcripts()
    held = sum(1 for p, _ in files if split_of(p) == "held")
    print(f"{REPOSITORY} @ {COMMIT[:12]} ({BRANCH}): {len(files)} transcripts in the mirror, {held} held out")
    print("\n| split | redactions | judged true | judged false | false share | not judged | kinds |")
    print("|---|---|---|---|---|---|---|")
    for split in ("tune", "held"):
        total, true, false, unjudged, kinds = measure_redactions(split)
        rate = f"{100 * false / (true + false):.1f}%" if true + false else "-"
        print(f"| {split} | {total} | {true} | {false} | {rate} | {unjudged} | "
              + ", ".join(f"{k} ×{n}" for k, n in kinds.most_common()) + " |")
    gone = [r for r in read_tsv(REDACTIONS_FILE) if len(r) >= 10 and r[9].startswith("gone")]
    if gone:
        print(f"  and {len(gone)} redaction(s) judged earlier that the rules no longer make: "
              + "; ".join(sorted({f'{r[8]} {r[7]} {r[9]}: {r[10]}' for r in gone})))
    looks = measure_lookalikes()
    print("\n| split | real look-alikes read | left alone | redacted |")
    print("|---|---|---|---|")
    for split in ("tune", "held"):
        n, kept, red = looks.get(split, (0, 0, 0))
        print(f"| {split} | {n} | {kept} | {red} ({100 * red / n:.2f}%) |" if n else f"| {split} | 0 | 0 | 0 |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
