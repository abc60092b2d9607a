"""`git refocus tree` and the INDEX.md "Spawn tree" section."""

from __future__ import annotations

import re

import pytest

from tests.gitrepo import make_repo
from tests.runner import refocus


def spawn(src, dest, slug, *extra):
    return refocus("spawn", dest, "--slug", slug, "--reason", f"{slug} work", "--done-when", "d", *extra, "--json",
                   cwd=src).json["id"]


@pytest.fixture
def chain(tmp_path):
    """alpha → beta (first); beta → gamma (second, continues first); beta → gamma (sibling, related to first)."""
    a, b, c = (make_repo(tmp_path / n) for n in ("alpha", "beta", "gamma"))
    first = spawn(a, b, "first")
    second = spawn(b, c, "second", "--parent", first)
    sibling = spawn(b, c, "sibling", "--related-id", first)
    return a, b, c, first, second, sibling


def test_json_nests_children_across_repositories_and_names_related(chain):
    a, b, c, first, second, sibling = chain
    out = refocus("tree", "--json", cwd=a).json  # alpha knows only `first`: the chain continues in beta
    [root] = [r for r in out["roots"] if r["id"] == first]
    assert [ch["id"] for ch in root["children"]] == [second]
    assert root["children"][0]["dest_dir"] == str(c.resolve()) and root["status"] == "reserved"
    assert out["related"] == [sorted([first, sibling])]
    assert {r["id"] for r in out["roots"]} == {first, sibling}


def test_plain_text_when_piped(chain):
    a, b, c, first, second, sibling = chain
    text = refocus("tree", cwd=b).stdout
    assert re.search(rf"^{first}  reserved  \d+m  alpha → beta$", text, re.M), text
    assert re.search(rf"^└── {second}  reserved  \d+m  beta → gamma$", text, re.M), text
    assert f"  ~ related: {first}" in text
    assert "\x1b[" not in text


def test_rich_on_a_terminal(chain):
    import os
    import pty
    import subprocess
    import sys

    from tests.runner import source_env

    a, b, c, first, second, sibling = chain
    leader, follower = pty.openpty()
    proc = subprocess.run([sys.executable, "-m", "gitrefocus", "tree"], cwd=b, stdout=follower,
                          stderr=subprocess.PIPE, env=source_env({"COLUMNS": "200", "TERM": "xterm"}))
    os.close(follower)
    data = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    os.close(leader)
    assert proc.returncode == 0
    text = data.decode()
    assert "\x1b[" in text and first in text and second in text


def test_id_focuses_on_its_tree_from_the_root(chain):
    a, b, c, first, second, sibling = chain
    out = refocus("tree", second[-6:], "--json", cwd=b).json
    assert out["focus"] == second and [r["id"] for r in out["roots"]] == [first]
    assert refocus("tree", "nope", cwd=b, check=False).returncode == 1


def test_mermaid_output_and_global(chain, tmp_path):
    a, b, c, first, second, sibling = chain
    text = refocus("tree", "--mermaid", cwd=b).stdout
    assert text.startswith("flowchart TD\n") and "-->" in text and "-. related .-" in text
    out = refocus("tree", "--global", "--json", cwd=tmp_path).json
    assert {r["id"] for r in out["roots"]} == {first, sibling}


def test_index_md_carries_the_spawn_tree_when_more_than_one_entry(chain, tmp_path):
    a, b, c, first, second, sibling = chain
    index = (b / "docs/refocus/INDEX.md").read_text()
    block = index.split("## Spawn tree\n\n```mermaid\n", 1)[1].split("```", 1)[0]
    nodes = dict(re.findall(r'^  (n\d+)\["([a-z-]+) · ', block, re.M))
    names = {v: k for k, v in nodes.items()}
    assert set(names) == {"first", "second", "sibling"}
    assert f"  {names['first']} --> {names['second']}" in block
    assert f"  {names['first']} -. related .- {names['sibling']}" in block
    other = make_repo(tmp_path / "other")
    spawn(make_repo(tmp_path / "single"), other, "only")
    assert "## Spawn tree" not in (other / "docs/refocus/INDEX.md").read_text(), "one entry: no picture"


def test_mermaid_labels_cannot_break_out(tmp_path):
    src = make_repo(tmp_path / 'we"ird]dir')
    dest = make_repo(tmp_path / "dest")
    spawn(src, dest, "one")
    spawn(src, dest, "two")
    block = (dest / "docs/refocus/INDEX.md").read_text().split("```mermaid", 1)[1]
    assert 'we"ird]' not in block and "we_ird_dir" in block


def test_control_characters_in_a_directory_name_are_neutralised(tmp_path):
    src = make_repo(tmp_path / "evil\x1b[31mdir")
    dest = make_repo(tmp_path / "dest")
    spawn(src, dest, "one")
    text = refocus("tree", cwd=dest).stdout
    assert "\x1b" not in text and "evil?[31mdir → dest" in text
