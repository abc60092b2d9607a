"""spawn → start → complete / abandon through the real CLI, on real repos."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from tests.helpers import git, make_repo, refocus, spawn_args


def refs(repo) -> dict[str, str]:
    out = git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
    return dict(line.split() for line in out.splitlines())


def event_kinds(repo, rid) -> list[str]:
    log = git(repo, "log", "--reverse", "--format=%s", f"refs/refocus/{rid}")
    return [line.split(": ", 1)[1] for line in log.splitlines()]


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


def test_round_trip_with_material_changes(spawned):
    src, dest, out = spawned
    rid = out["id"]
    started = refocus("start", rid, "--json", cwd=dest).json
    assert started["status"] == "in-progress" and started["launched_at"]
    assert (dest / ".git/refocus/active").read_text().strip() == rid
    done = refocus("complete", "--summary", "Wrote the standard.", "--dod", "1", "--dod", "Review integrated",
                   "--artifact", "MCPSTANDARD.md=the standard", "--follow-up", "../code-executor:migrate:needs migration",
                   "--material-change", "architecture.md=MCP servers speak SSH-stdio",
                   "--material-change", "interfaces.md=tools are namespaced", "--json", cwd=dest).json
    assert done["status"] == "result" and done["source_updated"]
    brief = (dest / "docs/refocus" / f"{rid}.md").read_text()
    assert "status: result" in brief and "completed_at: 20" in brief
    assert "- [x] MCPSTANDARD.md exists" in brief and "- [x] Review integrated" in brief
    assert "- architecture.md — MCP servers speak SSH-stdio" in brief
    arch = (dest / "docs/context/architecture.md").read_text()
    assert arch.startswith("# Architecture\n") and f"(refocus {rid}): MCP servers speak SSH-stdio" in arch
    assert not (dest / ".git/refocus/active").exists()
    assert event_kinds(dest, rid) == ["spawned", "started", "completed"]
    assert refs(src)[f"refs/refocus/{rid}"] == refs(dest)[f"refs/refocus/{rid}"]
    status = refocus("status", "--json", cwd=src).json
    waiting = status["outgoing"]["results_waiting"]
    assert [w["id"] for w in waiting] == [rid] and waiting[0]["result"]["summary"] == "Wrote the standard."
    got = refocus("receive", "--json", cwd=src).json
    assert got["received"][0]["id"] == rid
    assert refocus("status", "--json", cwd=src).json["outgoing"]["results_waiting"] == []
    assert event_kinds(src, rid)[-1] == "received"
    assert event_kinds(dest, rid)[-1] == "received", "receipt travels back to the dest copy"


def test_complete_without_material_changes_enumeration_is_refused(spawned):
    src, dest, out = spawned
    refocus("start", out["id"], cwd=dest)
    before = refs(dest)
    r = refocus("complete", "--summary", "x", cwd=dest, check=False)
    assert r.returncode == 1 and "material changes" in r.stderr
    assert refs(dest) == before
    ok = refocus("complete", "--summary", "x", "--no-material-changes", "investigation only", "--json", cwd=dest).json
    assert ok["status"] == "result"
    assert "N/A — investigation only" in (dest / "docs/refocus" / f"{out['id']}.md").read_text()


def test_promotion_never_duplicates(spawned):
    src, dest, out = spawned
    (dest / "docs/context").mkdir(parents=True)
    (dest / "docs/context/gotchas.md").write_text("# Gotchas\n- old\n")
    from gitrefocus.model.result import MaterialChange
    from gitrefocus.ops import promote
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.open(str(dest))
    change = [MaterialChange("gotchas.md", "webhooks arrive out of order")]
    promote.promote(ws, out["id"], change, "2026-04-26")
    promote.promote(ws, out["id"], change, "2026-04-26")
    assert (dest / "docs/context/gotchas.md").read_text().count("webhooks arrive out of order") == 1


def test_blocked_then_abandon(spawned):
    src, dest, out = spawned
    rid = out["id"]
    refocus("start", rid, cwd=dest)
    r = refocus("complete", "--status", "blocked", "--summary", "needs auth service first",
                "--follow-up", "../auth:token-api:needs a token endpoint", "--no-material-changes", "blocked", "--json", cwd=dest).json
    assert r["status"] == "blocked"
    a = refocus("abandon", rid, "--reason", "re-spawning after auth lands", "--json", cwd=src).json
    assert a["status"] == "abandoned"
    brief = (dest / "docs/refocus" / f"{rid}.md").read_text()
    assert "status: abandoned" in brief and "reason: re-spawning after auth lands" in brief
    again = refocus("abandon", rid, "--reason", "x", cwd=src, check=False)
    assert again.returncode == 1 and "from abandoned" in again.stderr


def test_illegal_transitions_name_the_current_status(spawned):
    src, dest, out = spawned
    rid = out["id"]
    r = refocus("complete", rid, "--summary", "x", "--no-material-changes", "n/a", cwd=dest, check=False)
    assert r.returncode == 1 and "it is reserved" in r.stderr
    refocus("start", rid, cwd=dest)
    refocus("complete", rid, "--summary", "x", "--no-material-changes", "n/a", cwd=dest)
    r = refocus("start", rid, cwd=dest, check=False)
    assert r.returncode == 1 and "from result to in-progress" in r.stderr


def test_second_start_warns_but_continues(spawned):
    src, dest, out = spawned
    refocus("start", out["id"], "--session-id", "11111111-1111-4111-8111-111111111111", cwd=dest)
    r = refocus("start", out["id"], "--session-id", "22222222-2222-4222-8222-222222222222", cwd=dest)
    assert "already opened" in r.stderr and "11111111" in r.stderr


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
    target, slug, extra = dest, "ok", []
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


def test_unknown_id_is_one_clear_error(repos):
    src, _ = repos
    r = refocus("show", "nope", cwd=src, check=False)
    assert r.returncode == 1 and r.stderr == "error: unknown refocus id 'nope' (see `git refocus list`).\n"


def test_paths_with_spaces_quotes_are_shell_quoted(tmp_path):
    src = make_repo(tmp_path / "my src")
    dest = make_repo(tmp_path / "it's a \"dest\"")
    out = refocus(*spawn_args(dest), cwd=src).json
    cmd = out["relaunch_command"]
    assert shlex.split(cmd)[1] == str(dest.resolve())
    assert (dest / "docs/refocus" / f"{out['id']}.md").exists()


def test_result_json_validation(spawned, tmp_path):
    src, dest, out = spawned
    refocus("start", out["id"], cwd=dest)
    before = refs(dest)
    cases = {
        "missing.json": ({"summary": "x", "artifacts": []}, "missing required field 'status'"),
        "status.json": ({"status": "great", "summary": "x", "artifacts": []}, "unknown status 'great'"),
        "arts.json": ({"status": "completed", "summary": "x", "artifacts": "a"}, "'artifacts' must be a list"),
        "nojson.json": ("{not json", "not valid JSON"),
    }
    for name, (obj, needle) in cases.items():
        path = tmp_path / name
        path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
        r = refocus("complete", "--from-json", path, "--no-material-changes", "n/a", cwd=dest, check=False)
        assert r.returncode == 1 and needle in r.stderr, (name, r)
    assert refs(dest) == before
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"status": "partial", "summary": "half done", "artifacts": [{"path": "a.md", "summary": "A"}],
                                "metadata": {"session_id": "s"}, "errors": ["e1"], "next_steps": "finish",
                                "material_changes": [{"file": "conventions.md", "summary": "use kebab ids"}]}))
    r = refocus("complete", "--from-json", good, "--json", cwd=dest).json
    assert r["status"] == "blocked" and r["result"]["return_status"] == "partial"
    assert (dest / "docs/context/conventions.md").exists()


def test_hand_edited_status_is_imported_as_event(spawned):
    src, dest, out = spawned
    rid = out["id"]
    path = dest / "docs/refocus" / f"{rid}.md"
    text = path.read_text().replace("status: reserved", "status: abandoned").replace("reason: null", "reason: wrong dest")
    path.write_text(text + "\nA note the user added.\n")
    listed = refocus("list", "--json", cwd=dest).json
    assert listed["entries"][0]["status"] == "abandoned"
    assert event_kinds(dest, rid)[-1] == "edited"
    assert "A note the user added." in path.read_text()


def test_illegal_hand_edit_is_reported_not_imported(spawned):
    src, dest, out = spawned
    rid = out["id"]
    path = dest / "docs/refocus" / f"{rid}.md"
    path.write_text(path.read_text().replace("status: reserved", "status: result"))
    r = refocus("status", "--json", cwd=dest)
    assert "not a legal transition" in r.stderr
    assert event_kinds(dest, rid) == ["spawned"]
    r = refocus("start", rid, cwd=dest, check=False)
    assert r.returncode == 1 and "not a legal transition" in r.stderr


def test_show_list_pickup(spawned):
    src, dest, out = spawned
    rid = out["id"]
    shown = refocus("show", rid[-6:], "--json", cwd=dest).json
    assert shown["id"] == rid and shown["events"][0]["kind"] == "spawned"
    assert shown["brief"].startswith("---\n")
    text = refocus("show", "mcp-standard", cwd=src).stdout
    assert "# Events (outgoing" in text
    prompt = refocus("pickup", rid, cwd=dest).stdout
    assert "You are a leaf" in prompt and "1. MCPSTANDARD.md exists" in prompt
    assert refocus("list", cwd=src).stdout.splitlines()[1].startswith(rid)


def test_stale_reserved_warning(repos):
    src, dest = repos
    refocus(*spawn_args(dest, "old"), cwd=src, env={"GIT_REFOCUS_NOW": "2026-01-01T00:00:00Z"})
    r = refocus(*spawn_args(dest, "new"), cwd=src, env={"GIT_REFOCUS_NOW": "2026-01-03T00:00:00Z"})
    assert "still un-launched after 48 h" in r.stderr
    st = refocus("status", "--json", cwd=src, env={"GIT_REFOCUS_NOW": "2026-01-03T00:00:00Z"}).json
    assert [u["slug"] for u in st["outgoing"]["unlaunched"]] == ["old"]


def test_chain_cycle_refused_and_depth_warned(tmp_path):
    a, b, c = (make_repo(tmp_path / n) for n in "abc")
    first = refocus(*spawn_args(b, "first"), cwd=a).json
    second = refocus(*spawn_args(c, "second", "--parent", first["id"]), cwd=b).json
    r = refocus(*spawn_args(a, "third", "--parent", second["id"]), cwd=c, check=False)
    assert r.returncode == 3 and "cycle" in r.stderr
    git(b, "config", "refocus.maxChainDepth", "1")
    r = refocus(*spawn_args(c, "again", "--parent", first["id"]), cwd=b)
    assert "chain is 2 deep" in r.stderr


def test_gc_archives_old_results(spawned):
    src, dest, out = spawned
    rid = out["id"]
    refocus("start", rid, cwd=dest)
    refocus("complete", rid, "--summary", "x", "--no-material-changes", "n/a", cwd=dest)
    dry = refocus("gc", "--dry-run", "--json", cwd=dest, env={"GIT_REFOCUS_NOW": "2099-01-01T00:00:00Z"}).json
    assert dry["archived"] and (dest / "docs/refocus" / f"{rid}.md").exists()
    git(dest, "add", f"docs/refocus/{rid}.md")
    git(dest, "commit", "-q", "-m", "brief")
    done = refocus("gc", "--json", cwd=dest, env={"GIT_REFOCUS_NOW": "2099-01-01T00:00:00Z"}).json
    assert git(dest, "status", "--short", "docs/refocus").startswith("R  "), "tracked briefs are git-mv'ed"
    target = dest / done["archived"][0]["to"]
    assert target.exists() and "/archive/20" in str(target)
    assert refocus("list", "--all", "--json", cwd=dest).json["entries"][0]["archived"]


def test_destination_with_a_newline_is_refused(repos, tmp_path):
    src, _ = repos
    weird = tmp_path / "a\nb"
    weird.mkdir()
    make_repo(weird)
    before = tree_state(src)
    r = refocus("spawn", weird, "--slug", "x", "--reason", "r", "--done-when", "d", cwd=src, check=False)
    assert r.returncode == 1 and "newline" in r.stderr and r.stderr.count("\n") == 1
    assert tree_state(src) == before


def test_reason_and_summary_with_quotes_and_unicode_round_trip(repos):
    src, dest = repos
    reason = 'He said "don\'t" — then: `rm -rf /`? #not-a-comment'
    out = refocus("spawn", dest, "--slug", "quotes", "--reason", reason, "--done-when", "ünïcode: yes", "--json", cwd=src).json
    shown = refocus("show", out["id"], "--json", cwd=dest).json
    assert reason in shown["brief"]
    from gitrefocus.model.brief import Brief

    doc = Brief.parse((dest / "docs/refocus" / f"{out['id']}.md").read_bytes(), "t")
    assert doc.meta["done_when"] == ["ünïcode: yes"]


def test_commit_flag_commits_only_what_the_command_wrote(repos):
    src, dest = repos
    (dest / "unrelated.txt").write_text("leave me alone")
    git(dest, "add", "unrelated.txt")
    out = refocus(*spawn_args(dest, "scoped", "--commit"), cwd=src).json
    files = git(dest, "show", "--name-only", "--format=%s", "HEAD").split()
    assert files[0] == f"refocus({out['id']}):" and "unrelated.txt" not in files
    assert f"docs/refocus/{out['id']}.md" in files and ".gitignore" in files
    assert "A  unrelated.txt" in git(dest, "status", "--short"), "the user's staged change stays staged"
