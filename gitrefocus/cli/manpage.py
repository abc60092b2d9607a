"""Generate man/git-refocus.1 from the click commands, so the page and the CLI
cannot drift apart (a test compares the committed page with this output).

    python -m gitrefocus.manpage > man/git-refocus.1
"""

from __future__ import annotations

import inspect

import click

from gitrefocus import __version__
from gitrefocus.errors import __doc__ as EXIT_TABLE

HEADER = r""".TH GIT-REFOCUS 1 "" "git-refocus {version}" "Git Manual"
.nh
.ad l
.SH NAME
git-refocus \- concept-bound session forking for coding agents, recorded in git
.SH SYNOPSIS
.B git refocus
.RI [ --debug ]
.RB [ -C
.IR PATH ]
.I COMMAND
.RI [ ARGS ]
.SH DESCRIPTION
A session in repository A that drifts into work belonging to repository B
spawns a child session in B with a curated brief; the child completes with a
result that A later receives.
Briefs and results are markdown under
.IR docs/refocus/ ,
each refocus has an event log in
.BR refs/refocus/<id> ,
the audit trail lives in
.B refs/notes/refocus
(read it with
.BR "git log --notes=refocus" ),
and commits made for a refocus carry a
.B Refocus-Id:
trailer added by a commit-msg hook.
Every read command takes
.B --json
for a stable, versioned object.
"""

FOOTER = r""".SH FILES
.TP
.I docs/refocus/<id>.md
The brief and, once complete, the result (git-tracked, user-editable).
.TP
.I docs/refocus/INDEX.md
Generated overview; gitignored; never edit by hand.
.TP
.I $GIT_DIR/refocus/
Machine-local state: active id, session map, caches, errors.jsonl, loops/<session-id>.json. Never synced.
.TP
.I ${XDG_STATE_HOME:-~/.local/state}/git-refocus/repositories
The registry the \-\-global forms read: one work tree per line, added by init and spawn.
.SH CONFIGURATION
.BR refocus.staleReservedHours " (24), " refocus.recentDays " (30), " refocus.archiveDays " (90), "
.BR refocus.maxChainDepth " (5), " refocus.stalenessCommits " (5), " refocus.quietHours " (24), "
.BR refocus.contextDir " (docs/context), " refocus.budget " (standard), " refocus.searchPaths ", "
.BR refocus.contextSaveCommand ", " refocus.agent " (claude; the agent a spawned child runs in: claude, codex or gemini), "
.BR refocus.global " (true; false keeps a repository out of the registry), "
.BR refocus.globalIndex " (~/REFOCUS-INDEX.md), " refocus.remote " (where sync sends refocus data); "
.BR refocus.agreedRemote " and " refocus.agreedTranscripts " record the pushes you agreed to."
.SH ENVIRONMENT
.TP
.B SESSION_REFOCUS_ROLE, SESSION_REFOCUS_ID
Set for a child session by the SessionStart hook; a child cannot spawn.
.TP
.B CLAUDE_CODE_SESSION_ID, CODEX_SESSION_ID
The Claude Code or Codex CLI session running a command.
.TP
.B GIT_REFOCUS_CHILD, GIT_REFOCUS_SESSION
Set by the command that launches a Codex CLI or Gemini CLI child: the refocus it works on, and
(Gemini CLI, whose commands see no session id of their own) its session.
.TP
.B GIT_REFOCUS_NOW
Pretend the current UTC time is this ISO timestamp (tests and demos).
.TP
.B NO_COLOR
Disable colour (as do
.B --no-color
and
.BR color.ui=never ;
.B color.ui=always
colours even into a pipe).
.TP
.B GIT_PAGER, PAGER
.BR show ", " log " and " "list --all"
page through the pager git would use (GIT_PAGER, core.pager, PAGER, less) when
stdout is a terminal;
.B pager.refocus
set to false turns paging off, set to a command picks the pager;
.B --no-pager
turns it off for one command.
.SH EXIT STATUS
{exit_table}
.SH SEE ALSO
.BR git-notes (1),
.BR git-interpret-trailers (1),
.BR githooks (5)
"""


def _escape(text: str) -> str:
    out = []
    for line in text.replace("\\", "\\\\").splitlines():
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line.replace("-", "\\-"))
    return "\n".join(out)


def _paragraph(para: str) -> list[str]:
    """One help paragraph as roff. Click's \\b marks text laid out by hand: a
    list of "- " items becomes bullets, anything else (tables, examples) is
    kept line for line; other paragraphs are filled."""
    verbatim = para.startswith("\b\n")
    text = para.removeprefix("\b\n").strip("\n")
    rows = text.splitlines()
    if verbatim and rows and rows[0].startswith("- ") and all(r.startswith(("- ", "  ")) for r in rows):
        items: list[str] = []
        for r in rows:
            if r.startswith("- "):
                items.append(r[2:].strip())
            else:
                items[-1] += " " + r.strip()
        out = []
        for item in items:
            out += [".IP \\(bu 2", _escape(item)]
        return out
    if verbatim or text.startswith("  "):
        return [".PP", ".nf", _escape(text), ".fi"]
    return [".PP", _escape(text)]


def _usage(name: str, cmd: click.Command, ctx: click.Context) -> list[str]:
    """The usage lines ``--help`` prints (a command's own ``format_usage`` included), one per form."""
    formatter = click.HelpFormatter(width=10_000)  # one line per form, never wrapped
    cmd.format_usage(click.Context(cmd, info_name=name, parent=ctx), formatter)
    out = []
    for line in formatter.getvalue().splitlines():
        for prefix in ("Usage: ", "   or: "):
            if line.startswith(prefix):
                line = line[len(prefix):]
        if line.strip():
            out.append(line.rstrip())
    return out


def _command_section(name: str, cmd: click.Command, ctx: click.Context) -> list[str]:
    lines = [f".SS {_escape('git refocus ' + name)}"]
    lines += [".nf", *(_escape(line) for line in _usage(name, cmd, ctx)), ".fi"]
    for para in inspect.cleandoc(cmd.help or "").strip().split("\n\n"):
        lines += _paragraph(para)
    for param in cmd.get_params(ctx):
        record = param.get_help_record(ctx)
        if record and param.name != "help" and not isinstance(param, click.Argument):
            lines += [".TP", f".B {_escape(record[0])}", _escape(record[1])]
    if isinstance(cmd, click.Group):
        for sub in cmd.list_commands(ctx):
            sub_cmd = cmd.get_command(ctx, sub)
            if sub_cmd is not None:
                lines += _command_section(f"{name} {sub}", sub_cmd, ctx)
    return [line for line in lines if line != ""]


def render() -> str:
    from gitrefocus.cli import cli

    ctx = click.Context(cli, info_name="git refocus")
    body = [".SH COMMANDS"]
    for name in cli.list_commands(ctx):
        cmd = cli.get_command(ctx, name)
        assert cmd is not None, name  # list_commands names only commands it can load
        if not cmd.hidden:
            body += _command_section(name, cmd, ctx)
    table = "\n".join(
        f".TP\n.B {row.split('|')[1].strip()}\n{_escape(row.split('|')[2].strip())}"
        for row in EXIT_TABLE.splitlines() if row.startswith("| ") and row.split("|")[1].strip().isdigit()
    )
    return HEADER.format(version=__version__) + "\n".join(body) + "\n" + FOOTER.replace("{exit_table}", table)


if __name__ == "__main__":
    import sys

    sys.stdout.write(render())
