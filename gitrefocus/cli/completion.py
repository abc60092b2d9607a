"""Shell completion for bash, zsh and fish: ``git refocus completion SHELL`` prints a
script; the script asks ``git-refocus __complete -- WORD...`` (hidden) for the
candidates of the last word: subcommands, options, choices, and the ids and
slugs this repository knows wherever an id is taken.
"""

from __future__ import annotations

import click

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

# Parameters that take a refocus id (any command, any module: matched by name).
ID_PARAMS = ("refocus_id", "parent", "related_ids")

BASH = r"""# git refocus completion for bash. Add to ~/.bashrc:
#   eval "$(git refocus completion bash)"
# `git refocus <TAB>` works through git's own completion (it calls _git_refocus),
# `git-refocus <TAB>` through the `complete` line below.
_git_refocus() {
    local i start=1
    for ((i = 0; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        refocus | git-refocus | */git-refocus) start=$((i + 1)); break ;;
        esac
    done
    local IFS=$'\n'
    COMPREPLY=($(git-refocus __complete -- "${COMP_WORDS[@]:start:COMP_CWORD-start+1}" 2>/dev/null | cut -f1))
}
complete -o bashdefault -o default -F _git_refocus git-refocus
"""

ZSH = r"""#compdef git-refocus
# git refocus completion for zsh. Either add to ~/.zshrc (after compinit):
#   eval "$(git refocus completion zsh)"
# or save it as _git-refocus in a directory on $fpath.
# `git refocus <TAB>` works through git's completion (user-commands below).
_git-refocus() {
    local -a reply
    local i start=2
    for ((i = 1; i < CURRENT; i++)); do
        if [[ ${words[i]} == refocus || ${words[i]:t} == git-refocus ]]; then
            start=$((i + 1)); break
        fi
    done
    reply=(${(f)"$(git-refocus __complete --zsh -- "${(@)words[start,CURRENT]}" 2>/dev/null)"})
    if (( ${#reply} )); then
        _describe -t refocus 'git refocus' reply
    else
        _files
    fi
}
zstyle ':completion:*:*:git:*' user-commands refocus:'concept-bound session forking for coding agents'
if [[ $funcstack[1] == _git-refocus ]]; then
    _git-refocus "$@"  # autoloaded from $fpath: this first call must complete too
elif (( $+functions[compdef] )); then
    compdef _git-refocus git-refocus
fi
"""

FISH = r"""# git refocus completion for fish. Save it where fish reads it at startup:
#   mkdir -p ~/.config/fish/conf.d && git refocus completion fish > ~/.config/fish/conf.d/git-refocus.fish
function __git_refocus_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l i (contains -i -- refocus $words; or contains -i -- git-refocus $words; or echo 1)
    set -l found (git-refocus __complete -- $words[(math $i + 1)..-1] "$cur" 2>/dev/null)
    if set -q found[1]
        printf '%s\n' $found
    else
        __fish_complete_path "$cur"  # a path argument (spawn DEST)
    end
end
complete -c git -n '__fish_seen_subcommand_from refocus' -f -a '(__git_refocus_complete)'
complete -c git -n '__fish_use_subcommand' -f -a refocus -d 'concept-bound session forking for coding agents'
complete -c git-refocus -f -a '(__git_refocus_complete)'
"""

SCRIPTS = {"bash": BASH, "zsh": ZSH, "fish": FISH}


def complete_ids(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Ids, and slugs that name exactly one refocus, that start with ``incomplete``."""
    from click.shell_completion import CompletionItem

    from gitrefocus.store import catalog
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.try_open(".")
    if ws is None:
        return []
    ids = sorted(catalog.known_ids(ws))
    slugs: dict[str, list[str]] = {}
    for rid in ids:
        slugs.setdefault(rid[11:-7], []).append(rid)
    items = [CompletionItem(rid) for rid in ids if rid.startswith(incomplete)]
    items += [CompletionItem(slug, help=named[0]) for slug, named in sorted(slugs.items())
              if len(named) == 1 and slug.startswith(incomplete) and slug != named[0]]
    return items


def candidates(words: list[str]) -> list[tuple[str, str]]:
    """(value, description) for the last of ``words`` (the words after `git refocus`)."""
    from click.shell_completion import ShellComplete

    from gitrefocus.cli import cli

    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        cmd = cli.get_command(ctx, name)
        for param in cmd.params if cmd is not None else ():
            if param.name in ID_PARAMS:
                param._custom_shell_complete = complete_ids  # what shell_complete= sets
    args, incomplete = (words[:-1], words[-1]) if words else ([], "")
    items = ShellComplete(cli, {}, "git refocus", "_GIT_REFOCUS_COMPLETE").get_completions(args, incomplete)
    return [(str(i.value), " ".join((i.help or "").split())) for i in items if i.type == "plain"]


@click.command()
@click.argument("shell", type=click.Choice(sorted(SCRIPTS)))
def completion(shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish.

    \b
    Examples (where each goes):
      bash:  eval "$(git refocus completion bash)"    in ~/.bashrc
      zsh:   eval "$(git refocus completion zsh)"     in ~/.zshrc (after compinit)
      fish:  mkdir -p ~/.config/fish/conf.d
             git refocus completion fish > ~/.config/fish/conf.d/git-refocus.fish

    Completes subcommands, options and their choices, and the ids and slugs
    of this repository wherever an id is taken; `git refocus <TAB>` and
    `git-refocus <TAB>` both work.
    """
    click.echo(SCRIPTS[shell], nl=False)


@click.command("__complete", hidden=True)
@click.option("--zsh", "zsh_format", is_flag=True, help="value:description lines, for zsh's _describe.")
@click.argument("words", nargs=-1)
def complete_words(zsh_format: bool, words: tuple[str, ...]) -> None:
    """Candidates for the last word, one per line (value TAB description): the completion scripts' backend."""
    for value, help_ in candidates(list(words)):
        if zsh_format:
            click.echo(value.replace(":", r"\:") + (":" + help_ if help_ else ""))
        else:
            click.echo(value + ("\t" + help_ if help_ else ""))
