"""git refocus for Codex CLI and Gemini CLI: the hooks, written into each client's user-level
configuration by ``init --codex`` / ``init --gemini`` and taken out by ``init --undo`` (for
Codex, trusted the way its own hooks panel trusts them), and the agent's surface in its own
format — the /refocus and /refocus-complete commands and the refocus-drift skill of the Claude
Code plugin, as Codex skills and as Gemini CLI TOML commands and a skill (docs/agents.md).

Both clients read hooks in the shape Claude Code does (event -> matcher groups -> command
handlers); what differs is the file, the events' names, the timeout's unit and the gate:
Codex runs a hook only once trusted (trust is keyed to the hook's content, recorded in its
``config.toml``), so after writing, ``codex app-server`` is asked for the hooks it sees
(``hooks/list``) and ours are recorded as trusted with the hash it reports
(``config/batchWrite``). Nothing else in the user's files is changed: other hooks and settings
are kept, ours are recognised by their command and never duplicated.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.ops import setup, teardown
from gitrefocus.store import atomic

COMMAND = "git refocus hook {} --agent {}"
# agent -> event -> (handler, matcher or None, timeout); timeouts in the client's unit
HOOKS: dict[str, dict[str, tuple[str, str | None, int]]] = {
    "codex": {"SessionStart": ("session-start", "startup|resume|clear|compact", 10),
              "Stop": ("stop", None, 10),
              "SessionEnd": ("session-end", None, 3)},
    "gemini": {"SessionStart": ("session-start", "*", 10000),
               "AfterAgent": ("stop", None, 10000),
               "SessionEnd": ("session-end", None, 5000)},
}
APP_SERVER_TIMEOUT = 60


def config_file(agent: str, env: Mapping[str, str] = os.environ) -> tuple[str, str]:
    """(path, name shown to people) of the file holding ``agent``'s user-level hooks."""
    home = env.get("HOME") or os.path.expanduser("~")
    if agent == "codex":
        codex_home = env.get("CODEX_HOME") or os.path.join(home, ".codex")
        return os.path.join(codex_home, "hooks.json"), ("$CODEX_HOME/hooks.json" if env.get("CODEX_HOME")
                                                        else "~/.codex/hooks.json")
    return os.path.join(home, ".gemini", "settings.json"), "~/.gemini/settings.json"


def command(agent: str, handler: str) -> str:
    return COMMAND.format(handler, agent)


def entries(agent: str) -> dict[str, dict[str, Any]]:
    """Our hook entry for each event, in the client's shape."""
    out = {}
    for event, (handler, matcher, timeout) in HOOKS[agent].items():
        hook: dict[str, object] = {"type": "command", "command": command(agent, handler), "timeout": timeout}
        if agent == "gemini":
            hook = {"name": f"git-refocus-{handler}", **hook}
        out[event] = {**({"matcher": matcher} if matcher else {}), "hooks": [hook]}
    return out


def _ours(entry: object, agent: str) -> bool:
    mine = {command(agent, handler) for handler, _, _ in HOOKS[agent].values()}
    return isinstance(entry, dict) and any(isinstance(h, dict) and h.get("command") in mine
                                           for h in entry.get("hooks") or [])


def _read(path: str, shown: str) -> dict[str, Any]:
    atomic.refuse_symlinks(path, "read")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise RefocusError(f"{shown} is not valid JSON ({exc}); fix it and run this again.") from None
    except OSError as exc:
        raise RefocusError(f"cannot read {shown}: {exc.strerror}.") from None
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise RefocusError(f"{shown} must hold a JSON object whose 'hooks' is an object.")
    return data


def merged(current: dict[str, Any], agent: str) -> dict[str, Any]:
    """``current`` with our entries in (an older entry of ours replaced, others kept)."""
    hooks = dict(current.get("hooks") or {})
    for event, entry in entries(agent).items():
        groups = list(hooks.get(event) or []) if isinstance(hooks.get(event), list) else []
        at = [i for i, e in enumerate(groups) if _ours(e, agent)]
        if not at:
            groups.append(entry)
        elif groups[at[0]] != entry and len(groups[at[0]].get("hooks") or []) == 1:
            groups[at[0]] = entry
        hooks[event] = groups
    return {**current, "hooks": hooks}


def without(current: dict[str, Any], agent: str) -> dict[str, Any]:
    """``current`` with our entries out (an event left with none is dropped)."""
    hooks = current.get("hooks")
    if not isinstance(hooks, dict):
        return current
    kept = {}
    for event, groups in hooks.items():
        left = [e for e in groups if not _ours(e, agent)] if isinstance(groups, list) else groups
        if left:
            kept[event] = left
    out = {k: v for k, v in current.items() if k != "hooks"}
    return {**out, "hooks": kept} if kept else out


def install(agent: str, env: Mapping[str, str] = os.environ, dry_run: bool = False) -> list[str]:
    """Merge our hooks into the agent's user-level file; the files changed."""
    path, shown = config_file(agent, env)
    current = _read(path, shown)
    new = merged(current, agent)
    if new == current:
        return []
    if not dry_run:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic.write_text(path, json.dumps(new, indent=2) + "\n")
    return [path]


def uninstall(agent: str, env: Mapping[str, str] = os.environ, dry_run: bool = False) -> list[str]:
    path, shown = config_file(agent, env)
    current = _read(path, shown)
    new = without(current, agent)
    if new == current:
        return []
    if not dry_run:
        if new:
            atomic.write_text(path, json.dumps(new, indent=2) + "\n")
        else:
            teardown.remove_file(path, os.path.dirname(path))
    return [path]


# -- Codex's trust gate -------------------------------------------------------------------
class AppServer:
    """``codex app-server``: JSON-RPC 2.0, one message per line on stdio."""

    def __init__(self, codex: str, cwd: str, env: Mapping[str, str]):
        try:
            self.proc = subprocess.Popen([codex, "app-server"], cwd=cwd, env=dict(env), text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise RefocusError(f"could not start `codex app-server`: {exc.strerror}.") from None
        self.next_id = 0

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == self.next_id:
                if "error" in message:
                    raise RefocusError(f"`codex app-server` refused {method}: {message['error']}")
                result = message.get("result")
                return result if isinstance(result, dict) else {}
        raise RefocusError(f"`codex app-server` ended before answering {method}.")

    def notify(self, method: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def _with_app_server(codex: str, cwd: str, env: Mapping[str, str], work: Callable[[AppServer], list[dict[str, Any]]]
                     ) -> list[dict[str, Any]]:
    import threading

    server = AppServer(codex, cwd, env)
    timer = threading.Timer(APP_SERVER_TIMEOUT, server.proc.kill)  # a hung server must not hang init
    timer.start()
    try:
        server.call("initialize", {"clientInfo": {"name": "git-refocus", "version": "1"}})
        server.notify("initialized")
        return work(server)
    finally:
        timer.cancel()
        server.close()


def codex_hooks(codex: str, cwd: str, env: Mapping[str, str] = os.environ) -> list[dict[str, Any]]:
    """Our hooks as Codex sees them (``key``, ``currentHash``, ``trustStatus``)."""
    mine = {command("codex", handler) for handler, _, _ in HOOKS["codex"].values()}

    def listed(server: AppServer) -> list[dict[str, Any]]:
        data = server.call("hooks/list", {"cwds": [cwd]}).get("data") or [{}]
        return [h for h in (data[0].get("hooks") or []) if isinstance(h, dict) and h.get("command") in mine]

    return _with_app_server(codex, cwd, env, listed)


def trust_codex_hooks(codex: str, cwd: str, env: Mapping[str, str] = os.environ) -> list[str]:
    """Record our hooks as trusted in Codex's configuration, with the hash Codex itself
    reports for each (only ours: another hook's trust is the user's to give); the trust
    status of each afterwards."""
    mine = {command("codex", handler) for handler, _, _ in HOOKS["codex"].values()}

    def trust(server: AppServer) -> list[dict[str, Any]]:
        hooks = [h for h in ((server.call("hooks/list", {"cwds": [cwd]}).get("data") or [{}])[0].get("hooks") or [])
                 if isinstance(h, dict) and h.get("command") in mine]
        state = {h["key"]: {"trusted_hash": h["currentHash"]} for h in hooks
                 if h.get("trustStatus") != "trusted" and isinstance(h.get("key"), str)
                 and isinstance(h.get("currentHash"), str)}
        if state:
            server.call("config/batchWrite", {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert",
                                                         "value": state}]})
            after = (server.call("hooks/list", {"cwds": [cwd]}).get("data") or [{}])[0].get("hooks") or []
            hooks = [h for h in after if isinstance(h, dict) and h.get("command") in mine]
        return hooks

    return [str(h.get("trustStatus")) for h in _with_app_server(codex, cwd, env, trust)]


def _trust_step(cwd: str, env: Mapping[str, str], written: bool) -> setup.Step:
    """``written``: our hooks are already in the file (else the step trusts what init writes)."""
    codex = shutil.which("codex", path=env.get("PATH"))
    by_hand = ("trust the git-refocus hooks in Codex (it runs no hook it has not been told to trust): "
               "run `git refocus init --codex` again with `codex` on PATH, or trust them in Codex's hooks panel")
    if codex is None:
        return setup.Step("codex", by_hand, True)
    if written:
        seen = codex_hooks(codex, cwd, env)
        if seen and all(h.get("trustStatus") == "trusted" for h in seen):
            return setup.Step("codex", "Codex trusts the git-refocus hooks", False)

    def apply() -> None:
        statuses = trust_codex_hooks(codex, cwd, env)
        if not statuses or any(s != "trusted" for s in statuses):
            raise RefocusError(f"Codex did not record the git-refocus hooks as trusted ({', '.join(statuses) or 'none seen'}); "
                               "trust them in Codex's hooks panel.")

    return setup.Step("codex", "trust the git-refocus hooks in Codex (codex app-server: hooks/list, config/batchWrite)",
                      True, "Codex forgets the trust of a hook once it is removed", apply)


# -- the agent's surface -------------------------------------------------------------------
# the plugin's files, and what each becomes for the agent: a skill (Codex runs no custom
# commands any more; a skill is named in its prompt and used when it fits, or asked for by
# name) or a Gemini CLI command (~/.gemini/commands/NAME.toml, /NAME in its prompt)
SURFACE = {
    "codex": (("commands/refocus.md", "skills/refocus/SKILL.md"),
              ("commands/refocus-complete.md", "skills/refocus-complete/SKILL.md"),
              ("skills/refocus-drift/SKILL.md", "skills/refocus-drift/SKILL.md")),
    "gemini": (("commands/refocus.md", "commands/refocus.toml"),
               ("commands/refocus-complete.md", "commands/refocus-complete.toml"),
               ("skills/refocus-drift/SKILL.md", "skills/refocus-drift/SKILL.md")),
}
NOTE = {
    "codex": "(git refocus, for Codex CLI: run each `git refocus …` step in your shell. A child session "
             "was started with GIT_REFOCUS_CHILD set; it never spawns.)",
    "gemini": "(git refocus, for Gemini CLI: run each `git refocus …` step with run_shell_command. A child "
              "session was started with GIT_REFOCUS_CHILD set; it never spawns.)",
}


def agent_dir(agent: str, env: Mapping[str, str] = os.environ) -> tuple[str, str]:
    """(directory, name shown) of the agent's user-level configuration."""
    path, shown = config_file(agent, env)
    return os.path.dirname(path), shown.rsplit("/", 1)[0]


def _frontmatter(text: str) -> tuple[dict[str, str], str]:
    """The ``key: value`` lines between the leading ``---`` lines, and the body after them."""
    if not text.startswith("---\n"):
        return {}, text
    head, _, body = text[4:].partition("\n---\n")
    meta = {}
    for line in head.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            meta[key.strip()] = value.strip()
    return meta, body.lstrip("\n")


def rendered(agent: str, source: str, target: str) -> bytes:
    """The plugin file ``source`` in the agent's format (``target`` says which)."""
    from gitrefocus.claude.install import shipped

    meta, body = _frontmatter(shipped(source).decode("utf-8"))
    name, description = meta.get("name", ""), meta.get("description", "")
    if target.endswith(".toml"):
        body = body.replace("`$ARGUMENTS`", "`{{args}}`").replace("$ARGUMENTS", "{{args}}")
        prompt = (NOTE[agent] + "\n\n" + body).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        return (f"# git-refocus: the /{name} command (init --gemini installed it; init --undo --gemini removes it)\n"
                f"description = {json.dumps(description)}\nprompt = \"\"\"\n{prompt}\"\"\"\n").encode("utf-8")
    body = body.replace("`$ARGUMENTS`", "what the user asked for").replace("$ARGUMENTS", "what the user asked for")
    return (f"---\nname: {name}\ndescription: {description}\n---\n\n{NOTE[agent]}\n\n{body}").encode("utf-8")


def surface_files(agent: str, env: Mapping[str, str] = os.environ) -> list[tuple[str, bytes, str]]:
    """(path, content, name shown) of each file of the agent's surface."""
    base, shown = agent_dir(agent, env)
    return [(os.path.join(base, *target.split("/")), rendered(agent, source, target), f"{shown}/{target}")
            for source, target in SURFACE[agent]]


def install_steps(agent: str, cwd: str, env: Mapping[str, str] = os.environ) -> list[setup.Step]:
    """``init --codex`` / ``init --gemini``: the agent's surface in its user-level directory,
    our hooks in its user-level file (and, for Codex, trusted)."""
    _, shown = config_file(agent, env)
    steps = [setup.file_step(path, data, name) for path, data, name in surface_files(agent, env)]
    missing = bool(install(agent, env, dry_run=True))
    if missing:
        steps.append(setup.Step(agent, f"merge the git-refocus hooks into {shown}", True,
                                f"git refocus init --undo --{agent}",
                                functools.partial(install, agent, env)))
    else:
        steps.append(setup.Step(agent, f"the git-refocus hooks are in {shown}", False))
    if agent == "codex":
        steps.append(_trust_step(cwd, env, written=not missing))
    return steps


def undo_steps(agent: str, env: Mapping[str, str] = os.environ) -> list[setup.Step]:
    """Our surface files still as installed (an edited one is kept and said), our hook entries."""
    _, shown = config_file(agent, env)
    base, _ = agent_dir(agent, env)
    out = []
    for path, data, name in surface_files(agent, env):
        current = setup.read_file(path)
        if current is None:
            continue
        if current == data:
            out.append(setup.Step("file", f"remove {name}", True,
                                  apply=functools.partial(teardown.remove_file, path, base)))
        else:
            out.append(setup.Step("file", f"{name} was edited; kept (remove it by hand)", False))
    if uninstall(agent, env, dry_run=True):
        out.append(setup.Step(agent, f"remove the `git refocus hook` entries from {shown}", True,
                              apply=functools.partial(uninstall, agent, env)))
    return out
