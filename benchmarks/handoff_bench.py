"""Benchmark: the whole `handoff`, cold, on a ~100 MB synthetic Claude Code transcript.

Targets: the cold handoff (fresh interpreter, no cache, built-in extractors)
<= 2x a bare ``json.loads`` pass over the same file, and the read (``prepare``:
the transcript to the spine) <= 1x, measured in the same run (paired rounds,
medians); <= 150 MB peak RSS at any size (try ``--mb 500``). ``handoff prepare``
(the agent pipeline's first step: the read, then the plan directory — spine or
chunks, prompts, git facts) is measured beside them.

    .venv/bin/python benchmarks/handoff_bench.py            # ~100 MB
    .venv/bin/python benchmarks/handoff_bench.py --mb 20    # quicker
    .venv/bin/python benchmarks/handoff_bench.py --busy 1   # with one core kept busy meanwhile
    .venv/bin/python benchmarks/handoff_bench.py --mb 500 --runs 1  # memory at scale
    .venv/bin/python benchmarks/handoff_bench.py --keep DIR # keep the data
    .venv/bin/python benchmarks/handoff_bench.py --no-hyperscan         # the scrubber's pure path
    .venv/bin/python benchmarks/handoff_bench.py --files A.jsonl B.jsonl  # real transcripts instead
    .venv/bin/python benchmarks/handoff_bench.py --no-compile  # each start compiles the sources too
    .venv/bin/python benchmarks/handoff_bench.py --dense       # the line-dense file of earlier rounds

The package's modules are byte-compiled first (``compileall``, into their ``__pycache__``), as
``pip install`` leaves them: with ``PYTHONDONTWRITEBYTECODE`` set (as on the machines these
figures come from) every fresh interpreter would otherwise compile the sources again, ~20 ms
that no installed copy pays. ``--no-compile`` measures that way (earlier rounds did).

``--files`` measures transcripts you have (real sessions: tool output, secrets-shaped
strings and base64 the synthetic one lacks) in one interpreter per figure: the read and
the whole handoff of every file, against a bare ``json.loads`` pass over the same files.

The transcript is written to a temporary directory (never committed). It
mirrors what Claude Code 2.1 writes: split assistant lines sharing
``message.id``, signature-only and plaintext thinking, tool calls whose results
are duplicated in ``toolUseResult``, progress/attachment/file-history/queue/system
records, an in-file sidechain, subagent files, a resume replay that repeats
earlier records, a few multi-megabyte tool results and a broken line.

Its shape follows the 688 real transcripts of the public mirror docs/secrets.md names (710 MB):
the mix of record types by lines and bytes, ~3.4 kB a line (theirs: 3.6 kB over all, 3.5 kB
the median file, 1.8 kB the tenth percentile), progress records hanging off the tool call
(a subagent's streamed ``agent_progress`` the largest of them) rather than in the chain its
result follows. ``--dense`` writes the file of earlier rounds instead: the same mix of types
in smaller lines (1.9 kB a line, nearly twice as many lines per MB), progress records in the
chain. The reader's cost goes by lines, ``json.loads``'s by bytes, so that file weighs the
reader's Python per record about twice as heavily as a typical session does.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = ("the parser lexer token cache index spine brief commit hook session value error test line "
         "return function module config branch merge result event note ref schema pointer é 日本 "
         "\"quoted\" back\\slash tab\t").split(" ")


class Writer:
    """Writes records the way Claude Code does, with a parentUuid chain."""

    def __init__(self, fh, rng: random.Random, session_id: str, cwd: str):
        self.fh, self.rng, self.sid, self.cwd = fh, rng, session_id, cwd
        self.parent: str | None = None
        self.clock = 1_735_689_600.0
        self.size = 0
        self.lines: list[str] = []  # a window of recent lines, for the resume replay

    def text(self, n: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(max(1, n // 6)))

    def stamp(self, advance: float = 0.7) -> str:
        self.clock += advance
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(self.clock)) + f".{int(self.clock * 1000) % 1000:03d}Z"

    def emit(self, record: dict, chain: bool = True) -> str:
        if chain:
            record = {"parentUuid": self.parent, "isSidechain": record.pop("isSidechain", False),
                      "userType": "external", "cwd": self.cwd, "sessionId": self.sid, "version": "2.1.3",
                      "gitBranch": "main", **record}
            record.setdefault("uuid", str(uuidlib.UUID(int=self.rng.getrandbits(128), version=4)))
            record.setdefault("timestamp", self.stamp())
            self.parent = record["uuid"]
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        self.fh.write(line)
        self.size += len(line.encode())
        self.lines.append(line)
        if len(self.lines) > 3000:
            del self.lines[:1000]
        return record.get("uuid", "")

    def user(self, text: str) -> None:
        self.emit({"type": "file-history-snapshot", "messageId": str(uuidlib.uuid4()),
                   "snapshot": {"trackedFileBackups": {}, "timestamp": self.stamp(0)},
                   "isSnapshotUpdate": False}, chain=False)
        self.emit({"type": "user", "message": {"role": "user", "content": text}})

    def assistant_step(self, dense: bool = False) -> None:
        """One model response (a line per content block) and its tool's result. ``dense``: the
        shape of rounds before the real transcripts were measured (smaller lines, progress records
        in the main chain); otherwise sized and linked as the real ones are (see ``--dense``)."""
        rng = self.rng
        msg_id = "msg_" + base64.b32encode(rng.randbytes(15)).decode().lower()
        usage = {"input_tokens": rng.randint(1, 9), "cache_creation_input_tokens": rng.randint(0, 9000),
                 "cache_read_input_tokens": rng.randint(0, 90000), "output_tokens": rng.randint(1, 900),
                 "service_tier": "standard"}
        base = {"model": "claude-sonnet-4-5", "id": msg_id, "type": "message", "role": "assistant",
                "stop_reason": None, "stop_sequence": None, "usage": usage}
        stamp = self.stamp()
        blocks = []
        if rng.random() < 0.6:
            if rng.random() < 0.5:
                blocks.append({"type": "thinking", "thinking": "",
                               "signature": base64.b64encode(rng.randbytes(600)).decode()})
            else:
                blocks.append({"type": "thinking", "thinking": self.text(600 if dense else 1400),
                               "signature": base64.b64encode(rng.randbytes(300)).decode()})
        if rng.random() < 0.5:
            blocks.append({"type": "text", "text": self.text(rng.randint(80, 1200))})
        tool = rng.choice(["Bash", "Read", "Read", "Edit", "Grep"] + ([] if dense else ["Task"] * (rng.random() < 0.15)))
        tool_id = "toolu_" + base64.b32encode(rng.randbytes(15)).decode()
        edit = (200, 240) if dense else (800, 900)
        inputs = {"Bash": {"command": "pytest -q tests/" if dense else self.text(rng.randint(20, 800)),
                           "description": "Run tests"},
                  "Read": {"file_path": f"{self.cwd}/src/mod{rng.randint(1, 80)}.py"},
                  "Edit": {"file_path": f"{self.cwd}/src/mod{rng.randint(1, 80)}.py",
                           "old_string": self.text(edit[0]), "new_string": self.text(edit[1])},
                  "Grep": {"pattern": "def \\w+", "path": "src"}}.get(tool) or \
            {"description": "Explore the code", "prompt": self.text(600), "subagent_type": "Explore"}
        blocks.append({"type": "tool_use", "id": tool_id, "name": tool, "input": inputs})
        for block in blocks:  # one line per content block, sharing message.id
            self.emit({"type": "assistant", "message": {**base, "content": [block]},
                       "requestId": "req_" + msg_id[4:], "timestamp": stamp})
        call = self.parent
        for _ in range(rng.randint(1, 8) if tool == "Bash" else 1):
            self.emit({"type": "progress", "data": {"type": "hook_progress" if tool != "Bash" else "bash_progress",
                                                    "hookEvent": "PostToolUse", "output": self.text(120)},
                       "toolUseID": tool_id, "parentToolUseID": tool_id})
        if tool == "Task":  # the subagent's messages streamed as they come, each with all before it
            seen: list[dict] = []
            for _ in range(rng.randint(5, 30)):
                seen.append({"type": "assistant", "message": {"role": "assistant", "content": [
                    {"type": "text", "text": self.text(rng.randint(100, 500))}]}})
                self.emit({"type": "progress", "data": {"type": "agent_progress", "agentId": "a1b2c3d",
                                                        "prompt": inputs["prompt"], "message": seen[-1],
                                                        "normalizedMessages": seen[-20:]},
                           "toolUseID": tool_id, "parentToolUseID": tool_id})
        if not dense:
            self.parent = call  # progress records hang off the call; its result follows the call
        big = rng.random() < 0.0002
        n = 3_000_000 if big else int(rng.paretovariate(1.3) * (700 if dense else 1150))
        n = min(n, 3_000_000)
        body = "\n".join(f"{i:>5}\t{self.text(70)}" for i in range(max(1, n // 75)))
        result = {"type": "tool_result", "tool_use_id": tool_id, "content": body,
                  "is_error": rng.random() < 0.05}
        extra = {"stdout": body, "stderr": "", "interrupted": False} if tool == "Bash" \
            else {"type": "text", "file": {"filePath": inputs.get("file_path", ""), "content": body}}
        self.emit({"type": "user", "message": {"role": "user", "content": [result]}, "toolUseResult": extra})
        if rng.random() < 0.05:
            self.emit({"type": "attachment", "attachment": {"type": "hook_success", "content": self.text(200)}})

    def sidechain(self, steps: int) -> None:
        saved = self.parent
        self.parent = None
        self.emit({"type": "user", "isSidechain": True, "agentId": "a1b2c3d",
                   "message": {"role": "user", "content": "Investigate " + self.text(200)}})
        for _ in range(steps):
            self.emit({"type": "assistant", "isSidechain": True, "agentId": "a1b2c3d",
                       "message": {"id": "msg_side" + str(self.rng.random()), "role": "assistant",
                                   "content": [{"type": "text", "text": self.text(300)}]}})
        self.parent = saved


def generate(directory: str, target_mb: float, seed: int = 7, dense: bool = False) -> str:
    """Write a session under ``directory``; returns the main transcript's path. ``dense``: the
    shape of earlier rounds (see ``--dense``)."""
    rng = random.Random(seed)
    session_id = str(uuidlib.UUID(int=rng.getrandbits(128), version=4))
    path = os.path.join(directory, f"{session_id}.jsonl")
    target = int(target_mb * 1_000_000)
    with open(path, "w", encoding="utf-8") as fh:
        w = Writer(fh, rng, session_id, "/home/dev/project")
        turn = 0
        replayed = False
        while w.size < target:
            turn += 1
            w.user(("No, that's wrong: " if rng.random() < 0.1 else "") + w.text(rng.randint(60, 1500)))
            for _ in range(rng.randint(1, 12)):
                w.assistant_step(dense)
            if not dense:  # the client's note at the end of a turn
                w.emit({"type": "system", "subtype": "turn_duration", "durationMs": rng.randint(900, 900_000),
                        "isMeta": False, "content": w.text(rng.randint(40, 400)), "level": "info"})
            if turn % 150 == 0:
                w.sidechain(20)
            if turn % 40 == 0:
                w.emit({"type": "queue-operation", "operation": "enqueue", "timestamp": w.stamp(0),
                        "sessionId": session_id, "content": w.text(60)}, chain=False)
            if not replayed and w.size > target // 2:
                replayed = True  # a resume replays earlier records with the same uuids
                for line in w.lines[-2000:]:
                    fh.write(line)
                    w.size += len(line.encode())
                fh.write('{"type":"user","message":{"role":"user","content":"truncated by a cr\n')
        fh.write(json.dumps({"type": "summary", "summary": "Benchmark session", "leafUuid": w.parent}) + "\n")
    agents = os.path.join(directory, session_id, "subagents")
    os.makedirs(agents)
    for n in range(3):
        with open(os.path.join(agents, f"agent-a{n}.jsonl"), "w", encoding="utf-8") as fh:
            sub = Writer(fh, rng, session_id, "/home/dev/project")
            sub.emit({"type": "user", "isSidechain": True, "message": {"role": "user", "content": "Search " + sub.text(90)}})
            for _ in range(30):
                sub.assistant_step(dense)
    return path


_FILES_CHILDREN = {
    "baseline": """
import json, sys, time
t0 = time.perf_counter()
for path in sys.argv[1:]:
    with open(path, 'rb') as fh:
        for line in fh:
            try:
                json.loads(line)
            except ValueError:
                pass
print(f"{time.perf_counter() - t0:.3f}")
""",
    "prepare": """
import sys, time
t0 = time.perf_counter()
from gitrefocus.handoff import prepare, transcript_paths
for path in sys.argv[1:]:
    prepare.prepare(transcript_paths.resolve(path))
print(f"{time.perf_counter() - t0:.3f}")
""",
    "handoff": """
import sys, time
t0 = time.perf_counter()
from gitrefocus.handoff import pipeline
for path in sys.argv[1:]:
    pipeline.handoff(path, use_cache=False)
print(f"{time.perf_counter() - t0:.3f}")
""",
}

_CHILDREN = {
    # the same bytes through json.loads only: the anchor every figure is a ratio to
    "baseline": """
import json, sys, time
t0 = time.perf_counter()
with open(sys.argv[1], 'rb') as fh:
    for line in fh:
        try:
            json.loads(line)
        except ValueError:
            pass
print(f"{time.perf_counter() - t0:.3f}")
""",
    # prepare alone (for information: where the time goes)
    "prepare": """
import sys, time
t0 = time.perf_counter()
from gitrefocus.handoff import prepare, transcript_paths
plan = prepare.prepare(transcript_paths.resolve(sys.argv[1]))
print(f"{time.perf_counter() - t0:.3f} {plan.stats['spine_messages']} {plan.stats['spine_chars']} "
      f"{plan.stats['lines']} {plan.stats['duplicate_records']} {len(plan.chunks)}")
""",
    # `git refocus handoff prepare`: the plan directory the /handoff command's agent works from
    "plan": """
import os, sys, tempfile, time
t0 = time.perf_counter()
from gitrefocus.handoff import agent
with tempfile.TemporaryDirectory() as tmp:
    doc = agent.prepare_plan(sys.argv[1], cwd=os.getcwd(), directory=os.path.join(tmp, "plan"))
    print(f"{time.perf_counter() - t0:.3f} {doc['mode']}")
""",
    # the whole command, cold: no cache, built-in extractors, in a fresh interpreter
    "handoff": """
import sys, time
t0 = time.perf_counter()
from gitrefocus.handoff import pipeline
result = pipeline.handoff(sys.argv[1], use_cache=False)
print(f"{time.perf_counter() - t0:.3f} {len(result.brief.text.splitlines())}")
""",
}


def _run(code: str, *paths: str) -> tuple[float, float, str]:
    """Run ``code`` in a fresh interpreter; (wall seconds, peak RSS MB, stdout)."""
    import resource

    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True,
                          cwd=os.path.dirname(paths[0]), env=dict(os.environ, PYTHONPATH=ROOT))
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{proc.stderr}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss = usage.ru_maxrss / 1024  # KiB on Linux
    # CPU seconds too: on a loaded machine wall time also counts waiting for a core
    return wall, rss, f"{usage.ru_utime + usage.ru_stime:.3f} {proc.stdout.strip()}"


def _measure(kind: str, *paths: str) -> tuple[float, float, str]:
    """One measurement from a dedicated, small parent process: RUSAGE_CHILDREN is the
    peak over every child ever waited for, and Linux keeps ru_maxrss across exec, so
    each figure needs a parent of its own that holds nothing big."""
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--_measure", kind, *paths],
        capture_output=True, text=True, cwd=ROOT,
    )
    if proc.returncode != 0:
        raise SystemExit(f"benchmark failed:\n{proc.stderr}")
    wall, rss, out = proc.stdout.strip().split(" ", 2)
    return float(wall), float(rss), out


def _paired(path: str, runs: int) -> list[tuple[tuple, tuple, tuple, tuple]]:
    """``runs`` rounds of (baseline, prepare, handoff, plan), interleaved so load hits all alike."""
    return [(_measure("baseline", path), _measure("prepare", path), _measure("handoff", path),
             _measure("plan", path)) for _ in range(runs)]


def _compile(skip: bool) -> None:
    """Byte-compile the package, as an installed copy is (see the module's docstring)."""
    if not skip:
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "gitrefocus")], check=True)


def _busy(cores: int) -> list[subprocess.Popen]:
    """``cores`` processes that keep a core each busy until stopped (by their pid)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]


def _repo(directory: str) -> None:
    """A small git repository for the transcript's session (Code-state reads it)."""
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="b",
               GIT_COMMITTER_EMAIL="b@example.com", GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "init", "-q", directory], check=True, env=env)
    with open(os.path.join(directory, "README"), "w") as fh:
        fh.write("bench\n")
    subprocess.run(["git", "-C", directory, "add", "README"], check=True, env=env)
    subprocess.run(["git", "-C", directory, "commit", "-q", "-m", "init"], check=True, env=env)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="transcript size in MB (default 100)")
    parser.add_argument("--keep", metavar="DIR", help="write the data into DIR and keep it")
    parser.add_argument("--runs", type=int, default=3, help="paired rounds (medians are reported)")
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="keep N cores busy with spinning processes while measuring")
    parser.add_argument("--no-hyperscan", action="store_true",
                        help="measure the scrubber's pure path (no Hyperscan gate, as where its wheel is missing)")
    parser.add_argument("--files", nargs="+", metavar="JSONL", help="measure these transcripts instead")
    parser.add_argument("--no-compile", action="store_true",
                        help="do not byte-compile the package first (each start compiles its sources)")
    parser.add_argument("--dense", action="store_true",
                        help="the line-dense synthetic file of earlier rounds (1.9 kB a line, not 3.4 kB)")
    parser.add_argument("--_measure", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.no_hyperscan:
        os.environ["GIT_REFOCUS_NO_HYPERSCAN"] = "1"  # inherited by every child
    if args._measure:
        kind, *paths = args._measure
        if kind.startswith("files-"):
            wall, rss, out = _run(_FILES_CHILDREN[kind[6:]], *paths)
        else:
            wall, rss, out = _run(_CHILDREN[kind], *paths)
        print(f"{wall:.3f} {rss:.1f} {out}")
        return 0
    _compile(args.no_compile)
    if args.files:
        return _files(args)
    directory = args.keep or tempfile.mkdtemp(prefix="handoff-bench-")
    os.makedirs(directory, exist_ok=True)
    try:
        t = time.perf_counter()
        path = generate(directory, args.mb, dense=args.dense)
        if not os.path.isdir(os.path.join(directory, ".git")):
            _repo(directory)
        size = os.path.getsize(path) / 1e6
        print(f"generated {size:.1f} MB {'dense ' if args.dense else ''}transcript in {time.perf_counter() - t:.1f} s: "
              f"{path}")
        spinners = _busy(args.busy)
        try:
            rounds = _paired(path, args.runs)
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
        if args.busy:
            print(f"measured with {args.busy} core(s) kept busy by spinning processes")
        med = statistics.median
        bw, pw, hw = (med(r[i][0] for r in rounds) for i in range(3))
        brss, prss, hrss = (max(r[i][1] for r in rounds) for i in range(3))
        ratios = [r[2][0] / r[0][0] for r in rounds]   # paired: each round against its own anchor
        prep_ratios = [r[1][0] / r[0][0] for r in rounds]
        plan_ratios = [r[3][0] / r[0][0] for r in rounds]
        pl_w, pl_rss = med(r[3][0] for r in rounds), max(r[3][1] for r in rounds)
        plan_mode = rounds[-1][3][2].split()[-1]
        _, inner, messages, chars, lines, dups, chunks = rounds[-1][1][2].split()
        cpu = [float(r[2][2].split()[0]) / float(r[0][2].split()[0]) for r in rounds]
        print(f"medians of {args.runs} paired round(s), each process cold (fresh interpreter, no cache); "
              f"ratios are medians of each round's ratio to that round's anchor; load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}:")
        print(f"json.loads of every line   : {bw:6.2f} s wall  {brss:6.1f} MB peak RSS   (anchor)")
        print(f"handoff prepare (read)     : {pw:6.2f} s wall  {prss:6.1f} MB peak RSS   {med(prep_ratios):.2f}x "
              f"(rounds: {', '.join(f'{x:.2f}x' for x in prep_ratios)})")
        print(f"handoff prepare (plan dir) : {pl_w:6.2f} s wall  {pl_rss:6.1f} MB peak RSS   {med(plan_ratios):.2f}x "
              f"(rounds: {', '.join(f'{x:.2f}x' for x in plan_ratios)}; {plan_mode})")
        print(f"whole handoff, cold        : {hw:6.2f} s wall  {hrss:6.1f} MB peak RSS   {med(ratios):.2f}x "
              f"(rounds: {', '.join(f'{x:.2f}x' for x in ratios)})")
        print(f"  {lines} lines -> {messages} spine messages, {int(chars) / 1e3:.0f} k chars, "
              f"{chunks} chunk(s), {dups} duplicate records dropped")
        print(f"  CPU time (user+sys), handoff / anchor: {med(cpu):.2f}x "
              f"(rounds: {', '.join(f'{x:.2f}x' for x in cpu)})")
        cpu_of = lambda i: [float(r[i][2].split()[0]) / float(r[0][2].split()[0]) for r in rounds]  # noqa: E731
        print(f"  CPU time (user+sys), prepare / anchor: {med(cpu_of(1)):.2f}x, plan dir / anchor: "
              f"{med(cpu_of(3)):.2f}x (less sensitive than wall time to other load on the machine)")
        ok_t, ok_m = med(ratios) <= 2.0, max(hrss, pl_rss) <= 150.0
        ok_p = med(prep_ratios) <= 1.0  # the read; the plan directory adds rendering it and reading git
        print(f"target handoff <= 2x json.loads : {'ok' if ok_t else 'MISSED'} ({med(ratios):.2f}x)")
        print(f"target read <= 1x json.loads    : {'ok' if ok_p else 'MISSED'} ({med(prep_ratios):.2f}x wall, "
              f"{med(cpu_of(1)):.2f}x CPU; plan directory {med(plan_ratios):.2f}x wall, {med(cpu_of(3)):.2f}x CPU)")
        print(f"target <= 150 MB RSS            : {'ok' if ok_m else 'MISSED'} ({max(hrss, pl_rss):.1f} MB)")
        return 0 if ok_t and ok_m and ok_p else 1
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)


def _files(args) -> int:
    """Paired rounds of (json.loads, read, whole handoff) over the given transcripts."""
    paths = [os.path.abspath(p) for p in args.files]
    size = sum(os.path.getsize(p) for p in paths) / 1e6
    spinners = _busy(args.busy)
    try:
        rounds = [tuple(_measure(f"files-{kind}", *paths) for kind in ("baseline", "prepare", "handoff"))
                  for _ in range(args.runs)]
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    med = statistics.median
    cpu = lambda r, i: float(r[i][2].split()[0]) / float(r[0][2].split()[0])  # noqa: E731
    print(f"{len(paths)} transcript(s), {size:.1f} MB; medians of {args.runs} paired round(s)"
          f"{f', {args.busy} core(s) kept busy' if args.busy else ''}"
          f"{', pure path (no Hyperscan)' if args.no_hyperscan else ''}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}:")
    print(f"json.loads of every line : {med(r[0][0] for r in rounds):6.2f} s wall   (anchor)")
    for i, name in ((1, "handoff prepare (read)  "), (2, "whole handoff, cold     ")):
        print(f"{name} : {med(r[i][0] for r in rounds):6.2f} s wall   {med(r[i][0] / r[0][0] for r in rounds):.2f}x "
              f"wall, {med(cpu(r, i) for r in rounds):.2f}x CPU   peak RSS {max(r[i][1] for r in rounds):.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
