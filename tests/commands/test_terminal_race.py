"""One terminal event wins: `complete` in the destination racing `abandon` in the source.

Both run at once on a started refocus. Exactly one exits 0; the other exits 4 with one
sentence naming the winner and changes nothing: a losing `complete` promotes no material
change into docs/context/ and writes no Result into the brief; a losing `abandon` leaves
the brief as the completion wrote it. Both repositories agree on the winner, and doctor
finds both consistent.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.runner import refocus, source_env, spawn_args

ROUNDS = 4
CHANGE = "architecture.md=Servers speak SSH-stdio"


def _start(args, cwd):
    return subprocess.Popen([sys.executable, "-m", "gitrefocus", *args], cwd=str(cwd), env=source_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def race_once(src, dest):
    rid = refocus(*spawn_args(dest, f"race-{len(list((dest / 'docs/refocus').glob('*.md')))}"), cwd=src).json["id"]
    refocus("start", rid, cwd=dest)
    complete = _start(["complete", rid, "--summary", "the child's result", "--material-change", CHANGE], dest)
    abandon = _start(["abandon", rid, "--reason", "the source gave up"], src)
    results = {}
    for name, proc in (("complete", complete), ("abandon", abandon)):
        out, err = proc.communicate(timeout=120)
        results[name] = (proc.returncode, err)
    return rid, results


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_racing_complete_and_abandon_have_one_winner_and_the_loser_changes_nothing(wired, round_):
    src, dest = wired
    rid, results = race_once(src, dest)
    codes = sorted(code for code, _ in results.values())
    assert codes == [0, 4], results
    winner = "complete" if results["complete"][0] == 0 else "abandon"
    loser = "abandon" if winner == "complete" else "complete"
    lines = [ln for ln in results[loser][1].splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in results[loser][1], results[loser]
    won_as = "completed" if winner == "complete" else "abandoned"
    assert won_as in lines[0], lines[0]
    status = "result" if winner == "complete" else "abandoned"
    for repo in (src, dest):
        assert refocus("show", rid, "--json", cwd=repo).json["status"] == status, (repo, results)
    brief = (dest / "docs/refocus" / f"{rid}.md").read_text()
    assert f"status: {status}" in brief
    context = dest / "docs/context/architecture.md"
    promoted = context.exists() and rid in context.read_text()
    if winner == "abandon":
        assert not promoted, "the losing complete promoted its material change"
        assert "the child's result" not in brief, "the losing complete wrote its Result into the brief"
    else:
        assert promoted and "the child's result" in brief
    for repo in (src, dest):
        model = refocus("doctor", "--json", cwd=repo, check=False).json
        assert model["clean"], (repo, model["findings"])
