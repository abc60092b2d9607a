"""The type checker sees both halves of gitrefocus.model.records: a misuse of a record class
fails mypy as it would for a dataclass, and so does an error inside the run-time module that
makes the classes (it is ordinary checked code, not a branch the checker skips)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

from tests.runner import ROOT

# Each line that must fail carries "# E: <mypy error code>".
MISUSE = textwrap.dedent("""\
    from __future__ import annotations

    from gitrefocus.model.records import asdict, dataclass, field, replace


    @dataclass(frozen=True, slots=True)
    class Point:
        x: int
        y: int = 0
        tags: list[str] = field(default_factory=list)


    ok = Point(1, 2, ["a"])
    Point("one")  # E: arg-type
    Point(1, z=2)  # E: call-arg
    replace(ok, x="one")  # E: arg-type
    ok.x = 3  # E: misc
    total: str = ok.y  # E: assignment
    shown: dict[str, object] = asdict(ok)
""")

# A deliberate error put into the run-time module (in a copy mypy reads in its place).
INJECTED = "\n\ndef _deliberate() -> int:\n    return fields(object)  # E: return-value\n"


def mypy(tmp_path, target: str, *shadows: tuple[str, str]) -> list[tuple[str, int, str]]:
    """(file name, line, error code) of every error mypy reports on ``target`` (a file, or
    ``-p gitrefocus``: the package as `mypy` checks it), with pyproject.toml's configuration and
    each (module path, text) of ``shadows`` read instead of that file of the package."""
    args = [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
            "--show-error-codes", "--no-error-summary"]
    for rel, text in shadows:
        shadow = tmp_path / rel.replace("/", "_")
        shadow.write_text(text, encoding="utf-8")
        args += ["--shadow-file", str(ROOT / rel), str(shadow)]
    proc = subprocess.run(args + target.split(), capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    found = []
    for line in proc.stdout.splitlines():
        m = re.match(r"(.+?):(\d+): error: .*\[([a-z-]+)\]$", line)
        if m:
            found.append((m.group(1).rsplit("/", 1)[-1], int(m.group(2)), m.group(3)))
    return found


def expected(name: str, text: str, offset: int = 0) -> list[tuple[str, int, str]]:
    return [(name, offset + n, m.group(1)) for n, line in enumerate(text.splitlines(), 1)
            if (m := re.search(r"# E: ([a-z-]+)", line))]


@pytest.mark.slow
def test_a_misused_record_fails_mypy_as_a_misused_dataclass_does(tmp_path):
    snippet = tmp_path / "snippet.py"
    snippet.write_text(MISUSE, encoding="utf-8")
    assert mypy(tmp_path, str(snippet)) == expected("snippet.py", MISUSE), "the misuses, and only they, fail"


@pytest.mark.slow
def test_an_error_in_the_records_runtime_fails_mypy(tmp_path):
    runtime = "gitrefocus/model/record_runtime.py"
    source = (ROOT / runtime).read_text(encoding="utf-8")
    assert mypy(tmp_path, "-p gitrefocus", (runtime, source + INJECTED)) == expected(
        "record_runtime.py", INJECTED, len(source.splitlines())), "the package check reads the runtime"
