"""The agent's surface: the plugin shipped in the package, its one source of hook data, and the
three ways `init --claude` installs it (project, --user, --plugin)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from gitrefocus.claude import install, settings
from tests.gitrepo import make_repo
from tests.runner import ROOT, refocus

PLUGIN = ROOT / "gitrefocus" / "claude" / "plugin"


def frontmatter(path: Path) -> dict:
    import yaml

    text = path.read_text()
    assert text.startswith("---\n"), f"{path} has no frontmatter"
    return yaml.safe_load(text.split("---\n")[1])


def test_settings_snippet_and_plugin_hooks_come_from_one_table():
    shipped = json.loads((ROOT / "hooks/settings.json").read_text())
    plugin = json.loads((PLUGIN / "hooks/hooks.json").read_text())
    assert shipped == settings.snippet(), "hooks/settings.json drifted from claude/settings.py (regenerate it)"
    assert plugin == settings.snippet(plugin=True), "the plugin's hooks.json drifted from claude/settings.py"
    # the only difference: the plugin's copy says --plugin, so it can stand aside
    assert json.loads(json.dumps(plugin).replace(" --plugin", "")) == shipped
    matcher = shipped["hooks"]["SessionStart"][0]["matcher"].split("|")
    assert matcher == ["startup", "resume", "clear", "compact", "fork"]


def test_manifests_name_the_plugin_and_its_marketplace():
    manifest = json.loads((PLUGIN / ".claude-plugin/plugin.json").read_text())
    market = json.loads((PLUGIN / ".claude-plugin/marketplace.json").read_text())
    assert manifest["name"] == install.PLUGIN and market["name"] == install.MARKETPLACE
    assert [(p["name"], p["source"]) for p in market["plugins"]] == [(install.PLUGIN, "./")]


def test_commands_and_skill_have_distinct_names_and_say_what_they_do():
    names = {}
    for rel in install.COPIED:
        meta = frontmatter(PLUGIN / rel)
        names[meta["name"]] = meta["description"]
    # a skill named like a command shadows it: /refocus would load the skill instead
    assert sorted(names) == ["handoff", "refocus", "refocus-complete", "refocus-drift"]
    skill = names["refocus-drift"]
    assert "CONCEPT" in skill and "not for a small fix there" in skill and "a client and its server" in skill
    body = (PLUGIN / "commands/refocus.md").read_text()
    for needed in ("SESSION_REFOCUS_ROLE", "git refocus spawn", "--json", "SPAWNED", "relaunch_command",
                   "--oneshot", "git refocus pickup <id> --run", "git refocus receive", "git refocus handoff --json"):
        assert needed in body, f"/refocus does not mention {needed}"
    done = " ".join((PLUGIN / "commands/refocus-complete.md").read_text().split())
    for needed in ("git refocus show", "material changes", "--no-material-changes", "--commit", "--status blocked",
                   "Save the full transcript into the repository? [y/N]", "--save-transcript", "where git-lfs is installed"):
        assert needed in done, f"/refocus-complete does not mention {needed}"
    handoff = (PLUGIN / "commands/handoff.md").read_text()
    for needed in ("git refocus handoff prepare", "--json", "chunked", "git refocus handoff reduce",
                   "in ONE message", "Agent", "Task", "run_in_background", "launch",
                   "git refocus handoff finalize --sections", "prepare --warm", "Write"):
        assert needed in handoff, f"/handoff does not mention {needed}"
    rubric = " ".join((PLUGIN / "skills/refocus-drift/SKILL.md").read_text().split())
    for needed in ("Another concept, at home elsewhere", "Independent resumption", "--related-id", "Children never fork",
                   "A small fix in another repository", "One concept spanning two repositories", "If the user declines",
                   "stop the drifted work here", "quick lookup", "full transcript"):
        assert needed in rubric, f"the skill does not teach {needed}"


# what the client's default permission mode refuses under `Bash(git refocus:*)` without asking
# (2.1.330 and 2.1.197): expansions, redirections, heredocs, pipes, sequences, a `cd` first
REFUSED = re.compile(r"\$|[<>|;`]|&&|^cd ")


# the plan directory of the handoff pipeline, where /refocus and /handoff have the agent read and write
PLAN_DIR = "~/.cache/git-refocus/handoff/**"


@pytest.mark.parametrize("rel, allowed", [
    ("commands/refocus.md", f"Bash(git refocus:*), Read({PLAN_DIR}), Edit({PLAN_DIR})"),
    ("commands/refocus-complete.md", "Bash(git refocus:*)"),
    ("commands/handoff.md", f"Bash(git refocus:*), Agent, Task, Read({PLAN_DIR}), Edit({PLAN_DIR})"),
])
def test_every_command_a_step_gives_runs_under_the_commands_own_allowed_tools(rel, allowed):
    text = (PLUGIN / rel).read_text()
    assert frontmatter(PLUGIN / rel)["allowed-tools"] == allowed
    spans = [s for s in re.findall(r"`([^`]+)`", text)
             if s.startswith(("git ", "cd ")) and s not in ("git refocus …", "git refocus")]
    assert spans, rel
    for span in spans:
        assert span.startswith("git refocus "), f"{rel}: `{span}` is not a git refocus command"
        plain = re.sub(r"'[^']*'|<[A-Za-z_-]+>", "''", span)  # quoted values and <placeholders> are the model's to fill
        assert not REFUSED.search(plain), f"{rel}: `{span}` needs a shell form the default permission mode refuses"


def test_handoff_without_a_transcript_reads_the_session_it_runs_in(tmp_path, hermetic):
    from gitrefocus.model.session import encode_project_dir

    repo = tmp_path / "r"
    repo.mkdir()
    sid = "4f2c1a9e-1111-4222-8333-444455556666"
    project = hermetic / ".claude" / "projects" / encode_project_dir(str(repo.resolve()))
    project.mkdir(parents=True)
    line = {"type": "user", "uuid": "u1", "sessionId": sid, "cwd": str(repo),
            "message": {"role": "user", "content": "We decided to keep the parser streaming."}}
    (project / f"{sid}.jsonl").write_text(json.dumps(line) + "\n")
    out = refocus("handoff", "--json", cwd=repo, env={"CLAUDE_CODE_SESSION_ID": sid}).json
    assert out["session_id"] == sid
    none = refocus("handoff", "--json", cwd=repo, check=False)
    assert none.returncode == 2 and "name a transcript or a session id" in none.stderr


def test_installed_package_ships_every_plugin_file_including_the_dot_directory():
    try:
        dist = metadata.distribution("git-refocus")
    except metadata.PackageNotFoundError:
        pytest.skip("git-refocus is not installed in this environment (scripts/setup-venv installs it)")
    shipped = {str(f) for f in dist.files or ()}
    wanted = {f"gitrefocus/claude/plugin/{p.relative_to(PLUGIN).as_posix()}" for p in PLUGIN.rglob("*") if p.is_file()}
    assert "gitrefocus/claude/plugin/.claude-plugin/plugin.json" in wanted
    assert wanted <= shipped, f"not in the installed package (pyproject package-data): {sorted(wanted - shipped)}"


def test_plugin_copy_of_a_hook_stands_aside_when_settings_wire_it(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    env = {"HOME": str(home), "CLAUDE_PROJECT_DIR": str(project)}
    assert not settings.registered_in_settings("session-start", env)
    (project / ".claude/settings.local.json").write_text(json.dumps(settings.snippet(plugin=True)))
    assert not settings.registered_in_settings("session-start", env), "the plugin's own command does not count"
    (project / ".claude/settings.json").write_text("{not json")
    assert not settings.registered_in_settings("session-start", env)
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/settings.json").write_text(json.dumps(settings.snippet()))
    assert settings.registered_in_settings("session-start", env)
    assert settings.registered_in_settings("stop", {**env, "CLAUDE_CONFIG_DIR": str(home / ".claude")})
    assert not settings.registered_in_settings("stop", {**env, "CLAUDE_CONFIG_DIR": str(tmp_path / "elsewhere")})


def run_hook(args, payload, cwd, env):
    return subprocess.run([sys.executable, "-m", "gitrefocus", "hook", *args], cwd=cwd, input=json.dumps(payload),
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def test_plugin_hook_is_silent_when_project_settings_run_it_and_speaks_otherwise(spawned, tmp_path):
    src, dest, out = spawned
    payload = {"session_id": out["child_session_id"], "cwd": str(dest), "source": "startup"}
    env = {"CLAUDE_PROJECT_DIR": str(dest)}
    refocus("init", "--claude", cwd=dest)
    stood_aside = run_hook(["session-start", "--plugin"], payload, dest, env)
    assert stood_aside.returncode == 0 and stood_aside.stdout == ""
    assert refocus("show", out["id"], "--json", cwd=dest).json["status"] == "reserved", "the plugin copy did nothing"
    (dest / ".claude/settings.json").unlink()
    spoke = run_hook(["session-start", "--plugin"], payload, dest, env)
    assert f"child session of refocus {out['id']}" in spoke.stdout
    assert refocus("show", out["id"], "--json", cwd=dest).json["status"] == "in-progress"


def test_older_matcher_of_our_hook_is_upgraded_in_place(tmp_path):
    old = settings.snippet()
    old["hooks"]["SessionStart"][0]["matcher"] = "startup|resume|clear|compact"
    new = settings.merged(old)
    assert new["hooks"]["SessionStart"] == settings.snippet()["hooks"]["SessionStart"]


def test_init_claude_installs_commands_skill_and_hooks_in_the_project_idempotently(tmp_path):
    repo = make_repo(tmp_path / "r")
    first = refocus("init", "--claude", cwd=repo)
    for rel in install.COPIED:
        assert (repo / ".claude" / rel).read_bytes() == (PLUGIN / rel).read_bytes()
        assert f"rm {repo / '.claude' / rel}" in first.stdout, "each change prints its undo"
    hooks = json.loads((repo / ".claude/settings.json").read_text())["hooks"]
    assert hooks == settings.snippet()["hooks"]
    again = refocus("init", "--claude", "--json", cwd=repo).json
    assert again["changed"] == 0 and again["undo"] == []


def test_init_claude_keeps_an_edited_command_and_says_so(tmp_path):
    repo = make_repo(tmp_path / "r")
    mine = repo / ".claude/commands/refocus.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own /refocus\n")
    done = refocus("init", "--claude", "--json", cwd=repo).json
    assert mine.read_text() == "my own /refocus\n"
    assert any(".claude/commands/refocus.md differs from the shipped version" in w for w in done["warnings"])
    assert (repo / ".claude/commands/refocus-complete.md").exists()


def test_init_claude_user_installs_in_home_even_outside_a_repository(tmp_path, hermetic):
    outside = tmp_path / "plain"
    outside.mkdir()
    done = refocus("init", "--claude", "--user", cwd=outside)
    for rel in install.COPIED:
        assert (hermetic / ".claude" / rel).read_bytes() == (PLUGIN / rel).read_bytes()
    assert json.loads((hermetic / ".claude/settings.json").read_text())["hooks"] == settings.snippet()["hooks"]
    assert "remove the `git refocus hook` entries from ~/.claude/settings.json" in done.stdout
    assert not (outside / ".gitignore").exists()
    assert "nothing to change" in refocus("init", "--claude", "--user", cwd=outside).stdout
    assert refocus("init", "--claude", cwd=outside, check=False).returncode != 0, "project scope needs a repository"


def test_init_claude_plugin_without_claude_prints_the_two_commands(tmp_path):
    outside = tmp_path / "plain"
    outside.mkdir()
    empty_path = tmp_path / "bin"
    empty_path.mkdir()
    (empty_path / "git").symlink_to(subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip())
    done = refocus("init", "--claude", "--plugin", cwd=outside, env={"PATH": str(empty_path)})
    assert f"claude plugin marketplace add {install.plugin_dir()}" in done.stdout
    assert f"claude plugin install {install.PLUGIN_ID}" in done.stdout
    assert "not on PATH" in done.stdout
    told = refocus("init", "--claude", "--plugin", "--json", cwd=outside, env={"PATH": str(empty_path)}).json
    assert told["changed"] == 0 and len(told["by_hand"]) == 2, "printed steps are not reported as done"


def test_handoff_runs_under_its_own_allowed_tools():
    """Every command /handoff has the agent run is a plain `git refocus` call (the default permission
    mode refuses variables, redirections and heredocs under Bash(git refocus:*)), and the plan
    directory it reads and writes is the one its rules name."""
    import re

    from gitrefocus.handoff import plandir

    meta = frontmatter(PLUGIN / "commands/handoff.md")
    allowed = [t.strip() for t in meta["allowed-tools"].split(",")]
    assert "Bash(git refocus:*)" in allowed and "Agent" in allowed and "Task" in allowed
    where = "~/" + os.path.relpath(plandir.cache_root(), os.path.expanduser("~")) + "/**"
    assert f"Read({where})" in allowed and f"Edit({where})" in allowed, allowed
    body = (PLUGIN / "commands/handoff.md").read_text()
    commands = re.findall(r"`(git refocus [^`]*)`", body)
    assert len(commands) >= 4
    for command in commands:
        assert not re.search(r"\$|[<>|]|\\", command.replace("<ARGUMENT>", "").replace("<directory>", "")
                             .replace("<sections_dir>", "")), f"/handoff asks for a refused construct: {command}"
