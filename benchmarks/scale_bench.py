"""Every command at 4 / 1k / 10k (/ 100k) refocuses, as ratios to anchors.

    .venv/bin/python benchmarks/scale_bench.py [--sizes 4,1000,10000,100000] [--runs 5]
        [--code DIR] [--sync]

--realistic uses the history of benchmarks/realistic.py, --busy N keeps N cores busy while measuring
(not while the histories are made); every size is measured in turn within each run, so a figure
and the one it is a ratio to are taken under the same load;
the peak RSS of every command is printed beside the times.

Hermetic (a fresh HOME and no system git config), ``git refocus ...`` run as
a user runs it (a new process each time), medians of --runs, "cold" meaning
the tool's cache (.git/refocus/cache) removed, the code byte-compiled
first as an install leaves it. Repositories come from
benchmarks/generate.py (fast-import). --code runs another checkout of
gitrefocus (e.g. a `git worktree add` of the old code) for a before/after in the
same run. Targets (docs/ARCHITECTURE.md, "Performance targets"), printed as MET / NOT MET:

- hook (first start, resume, idle), spawn, start, complete, receive: within
  1.5x of the same command at the smallest size;
- list / status / index: cold <= 2.5x, warm <= 1.5x the anchor `git
  for-each-ref refs/refocus | git cat-file --batch` reading every state.json;
  peak RSS at 100k <= 300 MiB;
- with --sync: a no-op `sync` <= 2x a no-op `git fetch` + `git push`.

The floor, `git refocus --version` (the interpreter and the CLI starting, no
work), is printed beside them, and so is the interpreter alone (`python -c
pass`): where the anchor is cheaper than the floor, a listing ratio says how
fast Python starts, not how the tool scales.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402

HOOK_CASES = ("hook first start", "hook resume", "hook idle")
FLAT = ("spawn", "start", "complete", "receive") + HOOK_CASES
LISTING = ("list", "status", "index")


def hermetic_env(home: str, code: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CLAUDE", "SESSION_REFOCUS"))
           and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"), GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="Bench",
               GIT_COMMITTER_EMAIL="b@example.com", PYTHONPATH=code)
    return env


class Runner:
    def __init__(self, env: dict[str, str]):
        self.env = env
        self.last_rss = 0  # KiB: the peak RSS of the last process run

    def run(self, args: list[str], cwd: str, stdin: str | None = None, shell: bool = False) -> tuple[float, int, str]:
        """(seconds, peak RSS in KiB, stdout) of one process (reaped with wait4 for its own rusage)."""
        import threading

        t0 = time.perf_counter()
        proc = subprocess.Popen(args, cwd=cwd, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, shell=shell)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        err: list[bytes] = []
        reader = threading.Thread(target=lambda: err.append(proc.stderr.read()))  # type: ignore[union-attr]
        reader.start()
        if stdin is not None:
            proc.stdin.write(stdin.encode())
        proc.stdin.close()
        out = proc.stdout.read()
        reader.join()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - t0
        self.last_rss = usage.ru_maxrss
        if proc.returncode != 0:
            raise RuntimeError(f"{args} failed in {cwd}: {b''.join(err).decode()[-2000:]}")
        return elapsed, usage.ru_maxrss, out.decode()

    def rss(self, args: list[str], cwd: str) -> tuple[float, int]:
        t0 = time.perf_counter()
        proc = subprocess.Popen(args, cwd=cwd, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        self.last_rss = usage.ru_maxrss
        return time.perf_counter() - t0, usage.ru_maxrss

    def refocus(self, *args: str, cwd: str, stdin: str | None = None) -> tuple[float, str]:
        t, _, out = self.run([sys.executable, "-m", "gitrefocus", *args], cwd, stdin)
        return t, out


class Size:
    """One history and what was measured on it."""

    def __init__(self, size: int, code: str, root: str, realistic: bool):
        home = os.path.join(root, "home")
        os.makedirs(home, exist_ok=True)
        self.r = r = Runner(hermetic_env(home, code))
        # made by a process of its own: a child forked from a process that grew while making 100k
        # refocuses would report that growth as its own peak RSS (the high-water mark survives exec)
        made = subprocess.run([sys.executable, __file__, "--make", str(size), root, code]
                              + (["--realistic"] if realistic else []),
                              check=True, capture_output=True, text=True, env=r.env)
        self.src, self.dest = json.loads(made.stdout.splitlines()[-1])
        self.root = root
        self.out: dict[str, list[float]] = {}
        r.refocus("list", cwd=self.src)  # warm the source's cache once, as any earlier command would

    def add(self, name: str, t: float) -> None:
        self.out.setdefault(name, []).append(t)
        if not name.startswith(("peak RSS", "rss ")):
            self.out.setdefault(f"rss {name}", []).append(self.r.last_rss / 1024)

    def listings(self) -> None:
        r, dest, add = self.r, self.dest, self.add
        cache = os.path.join(dest, ".git", "refocus", "cache")
        anchor = "git for-each-ref --format='%(objectname):state.json' refs/refocus | git cat-file --batch >/dev/null"
        add("floor: git refocus --version", r.refocus("--version", cwd=dest)[0])
        add("interpreter: python -c pass", r.run([sys.executable, "-c", "pass"], dest)[0])
        add("anchor: for-each-ref | cat-file --batch", r.run(["sh", "-c", anchor], dest)[0])
        shutil.rmtree(cache, ignore_errors=True)
        t, kib = r.rss([sys.executable, "-m", "gitrefocus", "list"], dest)
        add("list cold", t)
        add("peak RSS list cold (MiB)", kib / 1024)
        add("list warm", r.refocus("list", cwd=dest)[0])
        shutil.rmtree(cache, ignore_errors=True)
        add("status cold", r.refocus("status", cwd=dest)[0])
        add("status warm", r.refocus("status", cwd=dest)[0])
        shutil.rmtree(cache, ignore_errors=True)
        add("index cold", r.refocus("index", cwd=dest)[0])
        add("index warm", r.refocus("index", cwd=dest)[0])

    def flat(self, i: int) -> None:
        r, src, dest, add = self.r, self.src, self.dest, self.add
        spawn_args = ["spawn", dest, "--reason", "bench", "--done-when", "x", "--json"]
        t, text = r.refocus(*spawn_args, "--slug", f"hooked-{i}", cwd=src)
        add("spawn", t)
        child = json.loads(text)
        sid, rid = child["child_session_id"], child["id"]
        add("hook first start", r.refocus("hook", "session-start", cwd=dest, stdin=json.dumps(
            {"session_id": sid, "cwd": dest, "source": "startup"}))[0])
        add("hook resume", r.refocus("hook", "session-start", cwd=dest, stdin=json.dumps(
            {"session_id": sid, "cwd": dest, "source": "resume"}))[0])
        add("hook idle", r.refocus("hook", "session-start", cwd=dest, stdin=json.dumps(
            {"session_id": f"idle-{i}", "cwd": dest, "source": "startup"}))[0])
        add("complete", r.refocus("complete", rid, "--summary", "done", "--no-material-changes", "bench",
                                  cwd=dest)[0])
        add("receive", r.refocus("receive", rid, cwd=src)[0])
        t, text = r.refocus(*spawn_args, "--slug", f"started-{i}", cwd=src)
        add("start", r.refocus("start", json.loads(text)["id"], cwd=dest)[0])

    def sync(self, runs: int) -> None:
        r, dest, add = self.r, self.dest, self.add
        remote = os.path.join(self.root, "remote.git")
        subprocess.run(["git", "init", "-q", "--bare", remote], check=True, env=r.env)
        subprocess.run(["git", "-C", dest, "remote", "add", "origin", remote], check=True, env=r.env)
        r.refocus("sync", "origin", cwd=dest)
        plain = ("git -c core.hooksPath=/dev/null fetch -q --no-tags --prune origin "
                 "'+refs/refocus/*:refs/refocus-remotes/origin/refocus/*' "
                 "'+refs/notes/refocus*:refs/refocus-remotes/origin/notes/refocus*' && "
                 "git -c core.hooksPath=/dev/null push -q origin 'refs/refocus/*:refs/refocus/*'")
        for _ in range(runs):
            add("anchor: no-op git fetch + push", r.run(["sh", "-c", plain], dest)[0])
            add("sync no-op", r.refocus("sync", "origin", cwd=dest)[0])


def measure_all(sizes: list[int], runs: int, code: str, root: str, sync: bool,
                realistic: bool = False, busy: int = 0) -> dict[int, dict[str, list[float]]]:
    """Every size's history made first, then each run measures every size in turn: a figure
    and the one it is a ratio to (the same command at the smallest size, or the anchor) are
    taken minutes apart at most, under the same load, not one size's whole run after another's."""
    made = {}
    for n in sizes:
        t0 = time.perf_counter()
        made[n] = Size(n, code, os.path.join(root, str(n)), realistic)
        print(f"{n} entries made in {time.perf_counter() - t0:.0f} s", flush=True)
    # the busy cores from here: they load the measuring, not the making of histories
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    try:
        for i in range(runs):
            for n in sizes:
                made[n].listings()
            for n in sizes:
                made[n].flat(i)
            print(f"run {i + 1} of {runs} measured", flush=True)
        if sync:
            for n in sizes:
                made[n].sync(runs)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    return {n: m.out for n, m in made.items()}


def med(values: list[float]) -> float:
    return statistics.median(values)


def report(results: dict[int, dict[str, list[float]]], runs: int) -> bool:
    sizes = sorted(results)
    base = results[sizes[0]]
    ok = True

    def verdict(ratio: float, limit: float) -> str:
        nonlocal ok
        ok = ok and ratio <= limit
        return f"{ratio:5.2f}x {'MET' if ratio <= limit else 'NOT MET'} (<= {limit}x)"

    print(f"\nmedians of {runs} runs; seconds unless said")
    print("| entries | list warm / cold | status warm / cold | index warm / cold | anchor read | spawn | start | "
          "complete | receive | hook first / resume / idle | peak RSS (list cold) | floor |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        m = {k: med(v) for k, v in results[n].items()}
        print(f"| {n} | {m['list warm']:.2f} / {m['list cold']:.2f} | {m['status warm']:.2f} / {m['status cold']:.2f} "
              f"| {m['index warm']:.2f} / {m['index cold']:.2f} | {m['anchor: for-each-ref | cat-file --batch']:.2f} "
              f"| {m['spawn']:.2f} | {m['start']:.2f} | {m['complete']:.2f} | {m['receive']:.2f} "
              f"| {m['hook first start']:.2f} / {m['hook resume']:.2f} / {m['hook idle']:.2f} "
              f"| {m['peak RSS list cold (MiB)']:.0f} MiB | {m['floor: git refocus --version']:.2f} |")
    for n in sizes[1:]:
        m = {k: med(v) for k, v in results[n].items()}
        print(f"\n{n} entries:")
        for name in FLAT:
            print(f"  {name:<18} vs {sizes[0]} entries: {verdict(m[name] / med(base[name]), 1.5)}")
        anchor = m["anchor: for-each-ref | cat-file --batch"]
        floor = m["floor: git refocus --version"]
        for name in LISTING:
            if n <= 1000:  # bound by Python's start: the target is the tool's own start + 1.5x the anchor
                for kind in ("cold", "warm"):
                    limit = floor + 1.5 * anchor
                    t = m[f"{name} {kind}"]
                    ok = ok and t <= limit
                    print(f"  {name + ' ' + kind:<18} {t:.3f} s vs floor + 1.5x anchor {limit:.3f} s: "
                          f"{'MET' if t <= limit else 'NOT MET'}")
                continue
            print(f"  {name + ' cold':<18} vs anchor:     {verdict(m[name + ' cold'] / anchor, 2.5)}")
            print(f"  {name + ' warm':<18} vs anchor:     {verdict(m[name + ' warm'] / anchor, 1.5)}")
        print(f"  floor (`git refocus --version`, no work): {floor:.2f} s = {floor / anchor:.2f}x the anchor")
        python = m["interpreter: python -c pass"]
        print(f"  the interpreter alone (`python -c pass`): {python:.3f} s = {python / anchor:.2f}x the anchor")
        if n >= 100_000:
            rss = m["peak RSS list cold (MiB)"]
            ok = ok and rss <= 300
            print(f"  peak RSS list cold: {rss:.0f} MiB {'MET' if rss <= 300 else 'NOT MET'} (<= 300 MiB)")
    print("\npeak RSS of each command (MiB, median):")
    names = [k[4:] for k in base if k.startswith("rss ") and not k.startswith(("rss floor", "rss interpreter",
                                                                                   "rss anchor"))]
    print("| entries | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for n in sizes:
        print(f"| {n} | " + " | ".join(f"{med(results[n].get('rss ' + k, [0])):.0f}" for k in names) + " |")
    for n in sizes:
        if "sync no-op" in results[n]:
            m = {k: med(v) for k, v in results[n].items()}
            fetch_push = m["anchor: no-op git fetch + push"]
            print(f"  sync no-op at {n}: {m['sync no-op']:.2f} s vs fetch + push {fetch_push:.2f} s: "
                  f"{verdict(m['sync no-op'] / fetch_push, 2.0)}; the interpreter alone is "
                  f"{m['interpreter: python -c pass'] / fetch_push:.2f}x")
    return ok


def make(size: int, root: str, realistic: bool) -> None:
    """Make one size's history (the ``--make`` mode: see :class:`Size`) and print its two paths."""
    env = dict(os.environ)
    if realistic:
        import realistic as history

        src, dest = history.generate_realistic(os.path.join(root, "repos"), size, env=env)
        for repo in (src, dest):  # the setup every taking-part repository has, and its INDEX.md
            subprocess.run([sys.executable, "-m", "gitrefocus", "init"], cwd=repo, env=env, check=True,
                           capture_output=True)
            subprocess.run([sys.executable, "-m", "gitrefocus", "index"], cwd=repo, env=env, check=True,
                           capture_output=True)
    else:
        src, dest = generate.generate(os.path.join(root, "repos"), size, env=env)
    print(json.dumps([src, dest]))


def main() -> int:
    if sys.argv[1:2] == ["--make"]:
        make(int(sys.argv[2]), sys.argv[3], "--realistic" in sys.argv[5:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4,1000,10000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--code", default=os.path.dirname(HERE), help="the gitrefocus checkout to measure")
    ap.add_argument("--sync", action="store_true", help="also a no-op sync against a local bare remote")
    ap.add_argument("--realistic", action="store_true",
                    help="the realistic history of benchmarks/realistic.py (1%% reserved, 1%% in progress, 78%% "
                         "results, 20%% abandoned over three years; briefs committed, notes, local state) instead "
                         "of generate.py's fixed open handful")
    ap.add_argument("--busy", type=int, default=0, metavar="N", help="keep N cores busy while measuring")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    # byte-compiled first, as `pip install` leaves an installed package: a checkout whose modules
    # are compiled again on every run (PYTHONDONTWRITEBYTECODE set) costs each command ~50 ms more
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(args.code, "gitrefocus")], check=True)
    with tempfile.TemporaryDirectory(prefix="refocus-scale-") as root:
        results = measure_all(sizes, args.runs, os.path.realpath(args.code), root, args.sync, args.realistic,
                              args.busy)
    print(f"history: {'realistic (benchmarks/realistic.py)' if args.realistic else 'generate.py'}; "
          f"{args.busy} core(s) kept busy; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ok = report(results, args.runs)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
