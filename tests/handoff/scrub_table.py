"""Secrets that survive, and look-alikes wrongly redacted, on every path a transcript takes.

    .venv/bin/python -m tests.handoff.scrub_table            # the table, tune and held-out splits
    .venv/bin/python -m tests.handoff.scrub_table --details  # and every survivor / false redaction

Each fake secret of ``tests/data/secret_kinds.jsonl`` and each look-alike of
``tests/data/secret_lookalikes.jsonl`` is placed the ways a transcript carries them
(:func:`placements`), each placement behind its own marker (``ref-00042:``). The
transcripts then go through the real paths:

* ``complete --save-transcript`` — the CLI, in a spawned refocus, reading the saved file;
* ``handoff --spine`` — the CLI's output;
* the brief — ``handoff``'s brief, one transcript per kind (first message, correction,
  constraint, vocabulary and cut quotes are the brief's own);
* the extractor input — everything ``handoff --extractor-cmd`` hands the command (its
  stdin and the spine or chunk files it names), captured by the command itself.

A placement counts for a path when its marker reaches the path's output. A secret
*survives* when any 10-character piece of its random part does (a constant prefix
such as ``sk-ant-api03-`` is not a leak); a look-alike is *wrongly redacted* when a
redaction appears in its placement. Real public transcripts are measured separately
by ``tests/handoff/real_transcripts.py``.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tests.handoff import secret_corpus
from tests.handoff.transcript import Session, text, tool_use
from tests.runner import ROOT, source_env

MARK_RE = re.compile(r"ref-(\d{5})")
REDACTED = "[redacted:"
USER_CAP = 6000      # prepare.USER_CAP: a longer user message is cut in the middle
QUOTE_CAP = 200


@dataclass
class Placement:
    id: int
    item: dict
    how: str
    carrier: str          # user | assistant | bash | write | read | mcp
    text: str
    checks: list[str]     # the strings whose pieces must not survive (secrets only)

    @property
    def marker(self) -> str:
        return f"ref-{self.id:05d}"


@dataclass
class Tally:
    shown: int = 0
    bad: int = 0
    examples: list[str] = field(default_factory=list)


# -- placing ----------------------------------------------------------------------------------
_COMMANDS = ("mysql ", "curl ", "docker ", "sshpass ", "redis-cli ", "openssl ", "PGPASSWORD=")


def _value(item: dict) -> str:
    """The secret as its kind carries it: the bare token, or its natural context."""
    plain = item.get("plain")
    return plain.format(secret=item["secret"]) if plain else item["secret"]


def _assigned(item: dict) -> str:
    """What an assignment to the kind's variable holds: a URL or connection string whole."""
    value = _value(item)
    if item.get("plain") and ("://" in value or value.startswith(("DefaultEndpoints", "Server=", "PuTTY"))):
        return value
    return item["secret"]


def _env_line(name: str, value: str) -> str:
    if "\n" in value or re.search(r"[\s;&|'\"]", value):
        return f'{name}="{value}"'
    return f"{name}={value}"


def _yaml(key: str, value: str, indent: str = "  ") -> str:
    if "\n" in value:
        body = "\n".join(indent + "  " + line for line in value.splitlines())
        return f"{indent}{key}: |\n{body}"
    if re.search(r"[:#{}\[\],&*!|>'\"%@`]", value):
        return f"{indent}{key}: '{value}'"
    return f"{indent}{key}: {value}"


def _command(item: dict, variant: int) -> str:
    value, secret = _value(item), item["secret"]
    if value.startswith(_COMMANDS):
        return value
    if "\n" in secret:
        return f"printf '%s\\n' '{_assigned(item)}' > key.pem && chmod 600 key.pem"
    if "://" in value:
        return f'curl -fsS "{value}"' if variant else f"psql {shlex.quote(value)}"
    if variant:
        return f"curl -sS -H 'Authorization: Bearer {secret}' https://api.example.com/v1/me"
    return f"export {item['name'].upper().replace('-', '_')}={shlex.quote(_assigned(item))} && ./deploy.sh"


def _numbered(lines: list[str]) -> str:
    """What the Read tool returns: ``cat -n`` with an arrow."""
    return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(lines, 1))


def _filler(n: int) -> str:
    words = "the deploy pipeline runs every night and pushes the build to the staging cluster".split()
    out = []
    while sum(len(w) + 1 for w in out) < n:
        out.append(words[len(out) % len(words)])
    return " ".join(out)[:n]


def placements(items: list[dict], start: int = 1, secrets: bool = True) -> list[Placement]:
    """Every item placed every way (look-alikes too: ``secrets=False`` checks nothing)."""
    out: list[Placement] = []
    n = start

    def add(item, how, carrier, body, checks=None):
        nonlocal n
        p = Placement(n, item, how, carrier, "", [])
        p.text = body.replace("{M}", p.marker)
        p.checks = (checks or [item["secret"]]) if secrets else []
        out.append(p)
        n += 1

    for i, item in enumerate(items):
        if not secrets:  # an ordinary string sits where ordinary strings sit, under a neutral name
            item = {**item, "secret": item["text"], "name": "BUILD_INFO", "plain": None}
        value, secret, name = _value(item), item["secret"], item["name"]
        assigned = _assigned(item)
        multiline = "\n" in secret
        key = "token" if secrets else "cluster-label"
        add(item, "plain", "user", f"{{M}}: for the record, {value} is what the deploy uses.")
        add(item, "json-escaped", "read", json.dumps({"ref": "{M}", "env": {name: assigned},
                                                      "note": f"rotate {value} soon"}, indent=2))
        add(item, "line-start", "read", f"{{M}}\n{value}\nready")
        add(item, "env-file", "write", f"# {{M}}\nAPP_ENV=staging\n{_env_line(name.upper().replace('-', '_'), assigned)}"
                                       f"\nLOG_LEVEL=info\n")
        add(item, "yaml", "read", _numbered(["# {M}", "service:", "  name: api",
                                             *_yaml(name.lower(), assigned).splitlines(), "  replicas: 2"]))
        if multiline:
            encoded = base64.b64encode(secret.encode()).decode()
            field = "client-key-data" if secrets else "certificate-authority-data"
            add(item, "kubeconfig", "read", "# {M}\napiVersion: v1\nkind: Config\nusers:\n- name: ci\n  user:\n"
                                            f"    {field}: {encoded}\n", [encoded] if secrets else None)
        else:
            add(item, "kubeconfig", "read", "# {M}\napiVersion: v1\nkind: Config\nusers:\n- name: ci\n  user:\n"
                                            f"{_yaml(key, secret, '    ')}\n")
        command = _command(item, i % 2) if secrets else f"grep -rn {shlex.quote(secret)} src/"
        add(item, "command", "bash", f"# {{M}}\n{command}")
        add(item, "tool-use-input", "mcp", json.dumps({"ref": "{M}", "path": "secret/data/app", name: assigned}))
        add(item, "assistant", "assistant", f"{{M}}: I exported {value} for the build.")
        add(item, "first-message", "user", f"{{M}}: please set up the deploy with {value}. It should push to main.")
        add(item, "correction", "user", f"No, that's wrong: {{M}}: use {value} instead of the old one.")
        add(item, "constraint", "user", f"You must always use {{M}}: {value} for the release build.")
        if "\n" not in value:
            add(item, "vocabulary", "user", f"{{M}}: by `{value}` I mean the deploy credential.")
        # where a quote or a long message is cut: the secret straddles the cut
        add(item, "cut-quote", "user", f"No, that's wrong: {{M}} {_filler(QUOTE_CAP - 40)} {value} is the one.")
        head = USER_CAP * 2 // 3
        lead = f"{{M}}: {_filler(head - 8 - 16)} "
        add(item, "cut-long-message", "user", lead + value + " " + _filler(USER_CAP))
    return out


# -- transcripts ---------------------------------------------------------------------------------
def transcript(places: list[Placement], path: Path, cwd: str) -> Path:
    s = Session(cwd=cwd)
    s.user("Set up the deploy for the api service.")
    for p in places:
        if p.carrier == "user":
            s.user(p.text)
            s.assistant(text("Noted."))
        elif p.carrier == "assistant":
            s.assistant(text(p.text))
            s.user("ok")
        elif p.carrier == "bash":
            s.bash(p.text, "done")
        elif p.carrier == "write":
            tid = "toolu_01" + f"{p.id:020d}"
            s.assistant(tool_use("Write", {"file_path": f"{cwd}/.env", "content": p.text}, tid))
            s.tool_result(tid, f"File created successfully at: {cwd}/.env", extra={"filePath": f"{cwd}/.env"})
        elif p.carrier == "read":
            tid = "toolu_01" + f"{p.id:020d}"
            s.assistant(tool_use("Read", {"file_path": f"{cwd}/config/{p.marker}.txt"}, tid))
            s.tool_result(tid, p.text, extra={"type": "text", "file": {"filePath": f"{cwd}/config/x", "content": p.text}})
        elif p.carrier == "mcp":
            tid = "toolu_01" + f"{p.id:020d}"
            s.assistant(tool_use("mcp__vault__write", json.loads(p.text), tid))
            s.tool_result(tid, "written")
    s.assistant(text("The deploy is configured."))
    return s.write(path)


def _segments(output: str) -> dict[int, str]:
    """Each marker's stretch of the output (to the next marker), for every time it appears."""
    out: dict[int, list[str]] = defaultdict(list)
    marks = list(MARK_RE.finditer(output))
    for m, nxt in zip(marks, marks[1:] + [None]):
        out[int(m.group(1))].append(output[m.start():nxt.start() if nxt else len(output)])
    return {k: "\n".join(v) for k, v in out.items()}


def _random_part(line: str, other: str) -> str:
    """``line`` less the prefix and suffix it shares with the same kind's other value."""
    best = ""
    for ref in other.splitlines() or [""]:
        start = 0
        while start < min(len(line), len(ref)) and line[start] == ref[start]:
            start += 1
        end = 0
        while end < min(len(line), len(ref)) - start and line[-1 - end] == ref[-1 - end]:
            end += 1
        core = line[start:len(line) - end]
        if not best or len(core) < len(best):
            best = core
    return best


def _pieces(check: str, other: str | None) -> list[str]:
    """10-character pieces of a secret's random part: what it shares with the other split's
    value of the same kind (``sk-ant-api03-``, a JWT's header, ``-----BEGIN``) is not a leak."""
    out = []
    for line in check.splitlines():
        line = _random_part(line.strip(), other or "")
        if len(line) < 6:
            continue
        if len(line) < 10:
            pieces = [line]
        else:
            pieces = [line[i:i + 10] for i in range(len(line) - 9)]
        out.extend(pieces)
    return out


def _escaped_forms(piece: str) -> list[str]:
    once = json.dumps(piece)[1:-1]
    return [piece, once, json.dumps(once)[1:-1]]


def judge(places: list[Placement], output: str, tally: Tally, others: dict[str, str], secrets: bool) -> None:
    segments = _segments(output)
    for p in places:
        seg = segments.get(p.id)
        if seg is None:
            continue
        tally.shown += 1
        if secrets:
            leaked = [piece for check in p.checks for piece in _pieces(check, others.get(p.item["kind"]))
                      if any(form in seg for form in _escaped_forms(piece))]
            if leaked:
                tally.bad += 1
                tally.examples.append(f"{p.item['kind']} / {p.how}: …{leaked[0]}…")
        elif REDACTED in seg:
            tally.bad += 1
            kind = re.search(r"\[redacted: ([\w-]+)\]", seg)
            tally.examples.append(f"{p.item['what']} / {p.how} [{kind.group(1) if kind else '?'}]: "
                                  f"{p.item['text'][:90]!r}")


# -- the paths -------------------------------------------------------------------------------------
class Sandbox:
    """A HOME, git config and two repositories, as the test suite's hermetic fixture makes them."""

    def __init__(self, root: Path):
        self.root = root
        home = root / "home"
        home.mkdir()
        (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[user]\n\tname = Ada\n\temail = a@x.org\n")
        self.env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
                    "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".local/state"),
                    "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache"),
                    "GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "false", "CLAUDE_CONFIG_DIR": None,
                    "CLAUDE_CODE_SESSION_ID": None, "SESSION_REFOCUS_ROLE": None, "SESSION_REFOCUS_ID": None}
        self.home = home

    def run(self, *args, cwd, check=True) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "gitrefocus", *map(str, args)], cwd=str(cwd),
                              env=source_env(self.env), capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise RuntimeError(f"git refocus {' '.join(map(str, args))}: {proc.stderr}")
        return proc

    def repo(self, name: str) -> Path:
        path = self.root / name
        path.mkdir()
        env = source_env(self.env)
        for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "initial"]):
            subprocess.run(["git", "-C", str(path), *args], env=env, check=True, capture_output=True)
        return path


def save_path(box: Sandbox, places: list[Placement], name: str) -> str:
    """``complete --save-transcript`` in a spawned refocus; the saved file's text."""
    src, dest = box.repo(f"{name}-src"), box.repo(f"{name}-dest")
    out = json.loads(box.run("spawn", dest, "--slug", "scrub", "--reason", "measure the scrubber",
                             "--done-when", "saved", "--json", cwd=src).stdout)
    rid, sid = out["id"], out["child_session_id"]
    box.run("start", rid, "--session-id", sid, cwd=dest)
    from gitrefocus.store.transcripts import encode_project_dir

    project = box.home / ".claude/projects" / encode_project_dir(str(dest.resolve()))
    transcript(places, project / f"{sid}.jsonl", str(dest))
    box.run("complete", rid, "--summary", "measured", "--no-material-changes", "n/a", "--save-transcript", "--json",
            cwd=dest)
    return (dest / "docs/refocus/transcripts" / f"{rid}.jsonl").read_text(encoding="utf-8")


def spine_path(box: Sandbox, places: list[Placement], name: str) -> str:
    work = box.root / f"{name}-spine"
    work.mkdir()
    path = transcript(places, work / "t.jsonl", str(work))
    return box.run("handoff", path, "--spine", cwd=work).stdout


def extractor_path(box: Sandbox, places: list[Placement], name: str) -> str:
    """What an extractor command is handed: its stdin, and every file its prompt names."""
    work = box.root / f"{name}-extractor"
    work.mkdir()
    path = transcript(places, work / "t.jsonl", str(work))
    seen = work / "seen.txt"
    q = shlex.quote(str(seen))
    cmd = (f'for f in "$REFOCUS_HANDOFF_SPINE" "$REFOCUS_HANDOFF_CHUNK"; do [ -f "$f" ] && cat "$f" >> {q}; done; '
           f"cat >> {q}; exit 3")
    box.run("handoff", path, "--no-cache", "--extractor-cmd", cmd, cwd=work, check=False)
    return seen.read_text(encoding="utf-8") if seen.exists() else ""


BRIEF_HOWS = ("first-message", "correction", "constraint", "vocabulary", "cut-quote", "plain", "assistant")


def brief_path(box: Sandbox, places: list[Placement], name: str) -> str:
    """The brief, one transcript per first message (each kind's or look-alike's first-message
    placement opens its own session; corrections and constraints follow, a dozen at most, the
    way the brief's extractors quote them)."""
    from gitrefocus.handoff import pipeline

    work = box.repo(f"{name}-brief")  # a repository: the brief reads its git state
    groups: list[list[Placement]] = []
    current: list[Placement] = []
    for p in places:
        if p.how not in BRIEF_HOWS:
            continue
        if p.how == "first-message" or len(current) >= 24:
            if current:
                groups.append(current)
            current = []
        current.append(p)
    if current:
        groups.append(current)
    briefs = []
    for n, group in enumerate(groups):
        first = [p for p in group if p.how == "first-message"]
        ordered = first + [p for p in group if p.how != "first-message"]
        path = transcript_brief(ordered, work / f"{n}.jsonl", str(work))
        briefs.append(pipeline.handoff(str(path), cwd=str(work), use_cache=False).brief.text)
    return "\n".join(briefs)


def transcript_brief(places: list[Placement], path: Path, cwd: str) -> Path:
    s = Session(cwd=cwd)
    for p in places:
        if p.carrier == "assistant":
            s.assistant(text(p.text))
        else:
            s.user(p.text)
            s.assistant(text("I'll do it that way."))
    return s.write(path)


PATHS = {
    "complete --save-transcript": save_path,
    "handoff --spine": spine_path,
    "the brief": brief_path,
    "extractor input": extractor_path,
}


# the same paths called in-process, for the test suite: the functions the CLI commands call
def _save_inprocess(box: Sandbox, places: list[Placement], name: str) -> str:
    from gitrefocus.handoff.scrub import scrub_jsonl

    work = box.root / f"{name}-save"
    work.mkdir()
    return scrub_jsonl(transcript(places, work / "t.jsonl", str(work)).read_text(encoding="utf-8"))[0]


def _spine_inprocess(box: Sandbox, places: list[Placement], name: str) -> str:
    from gitrefocus.handoff import pipeline

    work = box.root / f"{name}-spine"
    work.mkdir()
    return pipeline.spine(str(transcript(places, work / "t.jsonl", str(work))), cwd=str(work))


IN_PROCESS = {**PATHS, "complete --save-transcript": _save_inprocess, "handoff --spine": _spine_inprocess}


def measure(split: str | None = None, paths=tuple(PATHS), in_process: bool = False
            ) -> dict[tuple[str, str, str], Tally]:
    """{(path, split, "secrets" | "look-alikes"): Tally}. ``in_process`` calls what the save and
    spine commands call instead of running the CLI (the brief is always in-process, the extractor
    input always goes through a real command)."""
    runners = IN_PROCESS if in_process else PATHS
    results: dict[tuple[str, str, str], Tally] = {}
    splits = [split] if split else list(secret_corpus.SPLITS)
    kinds_all = secret_corpus.kinds()
    others = {}
    for s in secret_corpus.SPLITS:
        for item in kinds_all:
            if item["split"] != s:
                others.setdefault((s, item["kind"]), item["secret"])
    with tempfile.TemporaryDirectory(prefix="scrub-table-") as tmp:
        box = Sandbox(Path(tmp))
        for s in splits:
            secret_places = placements([k for k in kinds_all if k["split"] == s])
            seen = set()
            looks = []
            for item in secret_corpus.lookalikes(s):
                if item["text"] not in seen:
                    seen.add(item["text"])
                    looks.append(item)
            look_places = placements(looks, start=len(secret_places) + 1, secrets=False)
            other = {k: v for (sp, k), v in others.items() if sp == s}
            for path in paths:
                run = runners[path]
                for corpus, places, secrets in (("secrets", secret_places, True),
                                                ("look-alikes", look_places, False)):
                    tally = results.setdefault((path, s, corpus), Tally())
                    output = run(box, places, f"{s}-{corpus}-{path.split()[0]}")
                    judge(places, output, tally, other, secrets)
    return results


def table(results) -> str:
    lines = []
    for split in secret_corpus.SPLITS:
        if not any(k[1] == split for k in results):
            continue
        title = ("tune split (rules adjusted on it)" if split == "tune" else
                 "held-out split (measured; its first measurement informed one change, see docs/secrets.md)")
        lines += ["", f"{title}:", "",
                  "| path | secrets that survived | look-alikes wrongly redacted |", "|---|---|---|"]
        for path in PATHS:
            sec, look = results.get((path, split, "secrets")), results.get((path, split, "look-alikes"))
            if sec is None:
                continue
            rate = f" ({100 * look.bad / look.shown:.2f}%)" if look.shown else ""
            lines.append(f"| `{path}` | {sec.bad} of {sec.shown} placements | {look.bad} of {look.shown}{rate} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    kinds = secret_corpus.kinds()
    looks = {i["text"] for i in secret_corpus.lookalikes()}
    print(f"corpus: {len({k['kind'] for k in kinds})} secret kinds ({len(kinds)} fake values), "
          f"{len(looks)} distinct look-alikes of {len({i['what'] for i in secret_corpus.lookalikes()})} shapes; "
          f"placements per item: {len({p.how for p in placements(kinds[:1])})}")
    results = measure()
    print(table(results))
    if "--details" in argv:
        for (path, split, corpus), tally in sorted(results.items()):
            for example in tally.examples:
                print(f"  {split} {path} {corpus}: {example}")
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    raise SystemExit(main())
