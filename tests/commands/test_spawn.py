"""`git refocus spawn`: the brief, refs, index and bootstrap in both repos; bad input changes nothing."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from tests.gitrepo import git, make_repo, refs
from tests.runner import refocus, spawn_args


def test_spawn_writes_brief_refs_index_and_bootstrap(spawned):
    src, dest, out = spawned
    rid, sid = out["id"], out["child_session_id"]
    assert rid.startswith("20") and rid.endswith("-mcp-standard-" + sid[:6])
    assert out["relaunch_command"] == f"cd {shlex.quote(str(dest.resolve()))} && claude --session-id {sid}"
    brief = (dest / "docs/refocus" / f"{rid}.md").read_text()
    assert brief.startswith("---\nid: " + rid + "\nstatus: reserved\n")
    headings = [ln for ln in brief.splitlines() if ln.startswith("## ")]
    assert headings == ["## Why this branch exists", "## Inherited context", "## Open questions / desired deliverables",
                        "## Hard rule for child", "## Pointer back", "## Result"]
    for repo in (src, dest):
        assert f"refs/refocus/{rid}" in refs(repo), f"ref missing in {repo.name}"
        assert "refs/notes/refocus" in refs(repo)
        assert (repo / ".gitignore").read_text().splitlines().count("docs/refocus/INDEX.md") == 1
        assert (repo / "CLAUDE.md").read_text().startswith("> 🔀 **Session history (refocus)**")
        assert "mcp-standard" in (repo / "docs/refocus/INDEX.md").read_text()
        assert git(repo, "check-ignore", "docs/refocus/INDEX.md").strip() == "docs/refocus/INDEX.md"
    assert "| outgoing | reserved |" in (src / "docs/refocus/INDEX.md").read_text()
    assert "| incoming | reserved |" in (dest / "docs/refocus/INDEX.md").read_text()
    # the event commit holds the event JSON (versioned) and the brief snapshot
    event = json.loads(git(dest, "show", f"refs/refocus/{rid}:event.json"))
    assert event["schema"] == 1 and event["kind"] == "spawned"
    assert git(dest, "show", f"refs/refocus/{rid}:brief.md") == brief
    assert refs(src)[f"refs/refocus/{rid}"] == refs(dest)[f"refs/refocus/{rid}"], "both repos hold the same event log"
    notes = git(dest, "log", "-1", "--notes=refocus", "--format=%N")
    assert f"refocus {rid} spawned role=dest status=reserved" in notes


def test_bootstrap_is_idempotent(repos):
    src, dest = repos
    refocus(*spawn_args(dest, "one"), cwd=src)
    refocus(*spawn_args(dest, "two"), cwd=src)
    for repo in (src, dest):
        assert (repo / ".gitignore").read_text().count("docs/refocus/INDEX.md") == 1
        assert (repo / "CLAUDE.md").read_text().count("docs/refocus/INDEX.md") == 2  # one line, two links


@pytest.mark.parametrize("env", [{"SESSION_REFOCUS_ROLE": "child"}, "session"])
def test_children_cannot_fork(spawned, env):
    src, dest, out = spawned
    other = make_repo(dest.parent / "other")
    if env == "session":
        env = {"CLAUDE_CODE_SESSION_ID": out["child_session_id"]}
    before = (refs(dest), refs(other))
    r = refocus(*spawn_args(other, "nested"), cwd=dest, env=env, check=False)
    assert r.returncode == 3
    assert r.stderr.startswith("error: Architectural violation: Child sessions cannot fork.")
    assert "suggested_follow_ups" in r.stderr and "git refocus complete" in r.stderr
    assert (refs(dest), refs(other)) == before
    assert not (other / "docs").exists()


def tree_state(*repos):
    out = {}
    for repo in repos:
        files = subprocess.run(["find", str(repo), "-path", "*/.git/objects", "-prune", "-o", "-type", "f", "-print"],
                               capture_output=True, text=True).stdout.split("\n")
        out[str(repo)] = (sorted(f for f in files if "/.git/refocus/cache" not in f), refs(repo))
    return out


@pytest.mark.parametrize("args,needle", [
    (["--slug", "../x"], "invalid slug"),
    (["--slug", "Upper"], "invalid slug"),
    (["--slug", ""], "invalid slug"),
    (["--dest", "missing"], "does not exist"),
    (["--dest", "file"], "is not a directory"),
    (["--dest", "plain"], "not inside a git repository"),
    (["--no-done-when"], "--done-when"),
])
def test_bad_spawn_input_changes_nothing(repos, tmp_path, args, needle):
    src, dest = repos
    (tmp_path / "file").write_text("x")
    (tmp_path / "plain").mkdir()
    target, slug = dest, "ok"
    if args[0] == "--dest":
        target = tmp_path / args[1]
    elif args[0] == "--slug":
        slug = args[1]
    before = tree_state(src, dest)
    cmd = ["spawn", str(target), "--slug", slug, "--reason", "r"]
    if args != ["--no-done-when"]:
        cmd += ["--done-when", "d"]
    r = refocus(*cmd, cwd=src, check=False)
    assert r.returncode == 1, r
    assert needle in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert tree_state(src, dest) == before


def test_destination_with_a_newline_is_refused(repos, tmp_path):
    src, _ = repos
    weird = tmp_path / "a\nb"
    weird.mkdir()
    make_repo(weird)
    before = tree_state(src)
    r = refocus("spawn", weird, "--slug", "x", "--reason", "r", "--done-when", "d", cwd=src, check=False)
    assert r.returncode == 1 and "newline" in r.stderr and r.stderr.count("\n") == 1
    assert tree_state(src) == before


def test_paths_with_spaces_quotes_are_shell_quoted(tmp_path):
    src = make_repo(tmp_path / "my src")
    dest = make_repo(tmp_path / "it's a \"dest\"")
    out = refocus(*spawn_args(dest), cwd=src).json
    cmd = out["relaunch_command"]
    assert shlex.split(cmd)[1] == str(dest.resolve())
    assert (dest / "docs/refocus" / f"{out['id']}.md").exists()


def test_reason_and_summary_with_quotes_and_unicode_round_trip(repos):
    src, dest = repos
    reason = 'He said "don\'t" — then: `rm -rf /`? #not-a-comment'
    out = refocus("spawn", dest, "--slug", "quotes", "--reason", reason, "--done-when", "ünïcode: yes", "--json", cwd=src).json
    shown = refocus("show", out["id"], "--json", cwd=dest).json
    assert reason in shown["brief"]
    from gitrefocus.model.brief import Brief

    doc = Brief.parse((dest / "docs/refocus" / f"{out['id']}.md").read_bytes(), "t")
    assert doc.meta["done_when"] == ["ünïcode: yes"]


def test_stale_reserved_warning(repos):
    src, dest = repos
    refocus(*spawn_args(dest, "old"), cwd=src, env={"GIT_REFOCUS_NOW": "2026-01-01T00:00:00Z"})
    r = refocus(*spawn_args(dest, "new"), cwd=src, env={"GIT_REFOCUS_NOW": "2026-01-03T00:00:00Z"})
    assert "still un-launched after 48 h" in r.stderr
    st = refocus("status", "--json", cwd=src, env={"GIT_REFOCUS_NOW": "2026-01-03T00:00:00Z"}).json
    assert [u["slug"] for u in st["outgoing"]["unlaunched"]] == ["old"]


def test_stale_reserved_warnings_name_the_oldest_few_and_count_the_rest(repos):
    """A history with many un-launched refocuses (a thousand at 100k entries) gets three named
    and a count, not a line each."""
    src, dest = repos
    for n in range(6):
        refocus(*spawn_args(dest, f"old-{n}"), cwd=src, env={"GIT_REFOCUS_NOW": f"2026-01-0{1 + n % 2}T00:00:00Z"})
    refocus(*spawn_args(dest, "young"), cwd=src, env={"GIT_REFOCUS_NOW": "2026-01-09T00:00:00Z"})
    r = refocus(*spawn_args(dest, "new"), cwd=src, env={"GIT_REFOCUS_NOW": "2026-01-09T01:00:00Z"})
    named = [line for line in r.stderr.splitlines() if "still un-launched" in line]
    assert len(named) == 3 and all("-old-" in line for line in named), r.stderr
    assert "up to 3 more reserved refocus(es) may be un-launched" in r.stderr, r.stderr
    st = refocus("status", "--json", cwd=src, env={"GIT_REFOCUS_NOW": "2026-01-09T01:00:00Z"}).json
    assert len(st["outgoing"]["unlaunched"]) == 6


def test_chain_cycle_refused_and_depth_warned(tmp_path):
    a, b, c = (make_repo(tmp_path / n) for n in "abc")
    first = refocus(*spawn_args(b, "first"), cwd=a).json
    second = refocus(*spawn_args(c, "second", "--parent", first["id"]), cwd=b).json
    r = refocus(*spawn_args(a, "third", "--parent", second["id"]), cwd=c, check=False)
    assert r.returncode == 3 and "cycle" in r.stderr
    git(b, "config", "refocus.maxChainDepth", "1")
    r = refocus(*spawn_args(c, "again", "--parent", first["id"]), cwd=b)
    assert "chain is 2 deep" in r.stderr


def test_commit_flag_commits_only_what_the_command_wrote(repos):
    src, dest = repos
    (dest / "unrelated.txt").write_text("leave me alone")
    git(dest, "add", "unrelated.txt")
    out = refocus(*spawn_args(dest, "scoped", "--commit"), cwd=src).json
    files = git(dest, "show", "--name-only", "--format=%s", "HEAD").split()
    assert files[0] == f"refocus({out['id']}):" and "unrelated.txt" not in files
    assert f"docs/refocus/{out['id']}.md" in files and ".gitignore" in files
    assert "A  unrelated.txt" in git(dest, "status", "--short"), "the user's staged change stays staged"


def test_alternatives_and_pushback_reach_the_frontmatter_and_the_childs_context(repos):
    """What the source ruled out travels with the brief: in the frontmatter (alternatives_considered,
    reviewer_pushback) and in the Inherited context the child is handed."""
    src, dest = repos
    out = refocus(*spawn_args(dest, "tls"), "--alternative", "Pinning OpenSSL 1.1 — the distro ships 3.x only",
                  "--pushback", '"No, keep the certificates in certs/, not in the repo root"', "--json", cwd=src).json
    brief = (dest / "docs/refocus" / f"{out['id']}.md").read_text()
    import yaml

    meta = yaml.safe_load(brief.split("---\n")[1])
    assert meta["alternatives_considered"] == ["Pinning OpenSSL 1.1 — the distro ships 3.x only"], meta
    assert meta["reviewer_pushback"] == ['"No, keep the certificates in certs/, not in the repo root"']
    context = brief.split("## Inherited context\n", 1)[1].split("\n## ", 1)[0]
    assert "- Already considered and rejected (do not re-propose): Pinning OpenSSL 1.1" in context
    assert '- The user pushed back: "No, keep the certificates in certs/' in context
    empty = refocus(*spawn_args(dest, "x"), "--alternative", " ", cwd=src, check=False)
    assert empty.returncode == 1 and "--alternative cannot be empty" in empty.stderr
