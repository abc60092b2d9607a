"""Benchmark: `git refocus health` against the git CLI doing the same counts.

    .venv/bin/python benchmarks/health_bench.py [--commits 100000] [--runs 5] [--keep]

Generates (once, cached under /tmp) a linear repository of N commits made with
`git fast-import`, with 10 context files under docs/context last edited at
depths from 1 to ~N commits. Then, in the same run and alternating, times:

  git CLI   for each file: `git log -1 --format=%H -- FILE`, then
            `git rev-list --count C..HEAD` (20 processes, one after another)
  health    `git refocus health --json` (a fresh process, as a user runs it),
            cold (its HEAD cache removed before each run) and warm

and checks that both give the same counts. Timings are taken twice: on the
fresh fast-import output (no commit-graph, as libgit2 always sees it), and
after `git commit-graph write --reachable` (what `git gc` leaves behind).
Target (docs/ARCHITECTURE.md, "Performance targets"): health ≤ 1.5 × the git CLI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONTEXT = "docs/context"
# depth (commits between the last change and HEAD) of each context file, as a fraction of N
DEPTHS = (0, 0.00003, 0.0001, 0.0005, 0.002, 0.01, 0.05, 0.2, 0.6, 0.99)


def depths_for(n: int) -> list[int]:
    return [min(n - 2, max(0, int(round(f * n)))) for f in DEPTHS]


def generate(path: Path, n: int) -> None:
    """A linear history of n commits; context file k last changed at depth depths[k]."""
    tmp = path.with_name(path.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp)], check=True)
    depths = depths_for(n)
    # commit index (0 = root) at which each context file is last written
    last_write = {n - 1 - d: k for k, d in enumerate(depths)}
    proc = subprocess.Popen(["git", "-C", str(tmp), "fast-import", "--quiet"], stdin=subprocess.PIPE)
    out = proc.stdin
    t0 = 1_600_000_000

    def data(text: str) -> bytes:
        raw = text.encode()
        return b"data %d\n" % len(raw) + raw + b"\n"

    for i in range(n):
        when = t0 + i * 60
        chunks = [
            b"commit refs/heads/main\n",
            b"mark :%d\n" % (i + 1),
            b"committer Bench <bench@example.com> %d +0000\n" % when,
            data(f"change {i}"),
        ]
        if i:
            chunks.append(b"from :%d\n" % i)
        chunks.append(b"M 100644 inline src/module%03d.py\n" % (i % 500) + data(f"# revision {i}\nvalue = {i}\n"))
        if i == 0:
            for k in range(len(depths)):
                chunks.append(b"M 100644 inline %s/ctx%02d.md\n" % (CONTEXT.encode(), k) + data(f"# Context {k}\n"))
        elif i in last_write or i % 997 == 0:
            # every file is also edited now and then before its last change
            for k, d in enumerate(depths):
                if i == n - 1 - d or (i % 997 == 0 and i < n - 1 - d and (i // 997) % len(depths) == k):
                    chunks.append(b"M 100644 inline %s/ctx%02d.md\n" % (CONTEXT.encode(), k)
                                  + data(f"# Context {k}\n\nedited at commit {i}\n"))
        out.write(b"".join(chunks))
    out.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run(["git", "-C", str(tmp), "checkout", "-q", "main"], check=True)
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)


def git_cli_counts(repo: Path, files: list[str]) -> dict[str, int]:
    counts = {}
    for f in files:
        c = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%H", "--", f],
                           capture_output=True, text=True, check=True).stdout.strip()
        n = subprocess.run(["git", "-C", str(repo), "rev-list", "--count", f"{c}..HEAD"],
                           capture_output=True, text=True, check=True).stdout.strip()
        counts[f] = int(n)
    return counts


def health_counts(repo: Path, *, cold: bool) -> dict[str, int]:
    if cold:
        shutil.rmtree(repo / ".git" / "refocus" / "cache", ignore_errors=True)
    exe = ROOT / ".venv" / "bin" / "git-refocus"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "gitrefocus"]
    proc = subprocess.run([*cmd, "health", "--json"], cwd=repo, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"git refocus health failed: {proc.stderr.strip()}")
    model = json.loads(proc.stdout)
    return {c["path"]: c["commits_since"] for c in model["context"]}


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    value = fn(*args, **kwargs)
    return time.perf_counter() - t, value


def measure(repo: Path, files: list[str], runs: int, label: str) -> dict:
    cli, cold, warm = [], [], []
    expected = None
    for _ in range(runs):
        t, expected = timed(git_cli_counts, repo, files)
        cli.append(t)
        t, got = timed(health_counts, repo, cold=True)
        cold.append(t)
        if got != expected:
            raise SystemExit(f"MISMATCH ({label}, cold): health {got} != git {expected}")
        t, got = timed(health_counts, repo, cold=False)
        warm.append(t)
        if got != expected:
            raise SystemExit(f"MISMATCH ({label}, warm): health {got} != git {expected}")
    med = {k: statistics.median(v) for k, v in (("cli", cli), ("cold", cold), ("warm", warm))}
    print(f"\n[{label}]  median of {runs} runs, counts identical: {sorted(expected.values())}")
    print(f"  git CLI (log -1 + rev-list --count, x{len(files)})  {med['cli'] * 1000:8.0f} ms")
    print(f"  git refocus health --json, cold cache        {med['cold'] * 1000:8.0f} ms   ratio {med['cold'] / med['cli']:.2f}x")
    print(f"  git refocus health --json, warm cache        {med['warm'] * 1000:8.0f} ms   ratio {med['warm'] / med['cli']:.2f}x")
    return med


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--regenerate", action="store_true", help="rebuild the cached repository")
    args = ap.parse_args()
    base = Path(os.environ.get("TMPDIR", "/tmp")) / f"git-refocus-health-bench-{args.commits}"
    repo = base / "repo"
    if args.regenerate or not (repo / ".git").is_dir():
        base.mkdir(parents=True, exist_ok=True)
        t, _ = timed(generate, repo, args.commits)
        print(f"generated {args.commits} commits in {t:.1f} s at {repo}")
    else:
        print(f"using cached repository {repo}")
    # measure without a commit-graph first, then with one
    graph = repo / ".git" / "objects" / "info" / "commit-graph"
    graphs = repo / ".git" / "objects" / "info" / "commit-graphs"
    graph.unlink(missing_ok=True)
    shutil.rmtree(graphs, ignore_errors=True)
    files = sorted(f"{CONTEXT}/{p.name}" for p in (repo / CONTEXT).iterdir())
    print(f"{len(files)} context files, last changed at depths {depths_for(args.commits)}; "
          f"{os.cpu_count()} CPUs; {subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.strip()}")
    no_graph = measure(repo, files, args.runs, "no commit-graph")
    subprocess.run(["git", "-C", str(repo), "commit-graph", "write", "--reachable"], check=True,
                   capture_output=True)
    with_graph = measure(repo, files, args.runs, "after git commit-graph write --reachable")
    worst = max(no_graph["cold"] / no_graph["cli"], with_graph["cold"] / with_graph["cli"])
    print(f"\nworst cold ratio {worst:.2f}x (target <= 1.5x): {'OK' if worst <= 1.5 else 'MISSED'}")
    return 0 if worst <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
