"""Repositories with a backlog of results that came back and were never received, built in
a second with benchmarks/generate.py (fast-import), as the delivery benchmark builds them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.runner import ROOT


def _generator():
    spec = importlib.util.spec_from_file_location("refocus_bench_generate", ROOT / "benchmarks" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def waiting_results(root: Path, n: int) -> tuple[Path, Path, list[str]]:
    """``root/src`` and ``root/dest`` holding ``n`` results never received, plus the
    generator's handful of open refocuses (one of them a blocked result, also waiting);
    the ids of every waiting result, oldest first."""
    generate = _generator()
    src, dest = generate.generate(str(root), n + len(generate.ACTIVE), waiting=n)
    ids = sorted(p.stem for p in (Path(dest) / "docs" / "refocus").glob("*.md")
                 if "status: result" in p.read_text() or "status: blocked" in p.read_text())
    return Path(src), Path(dest), ids
