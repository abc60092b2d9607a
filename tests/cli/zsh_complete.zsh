# zsh -f zsh_complete.zsh BEFORE-COMPINIT AFTER-COMPINIT LINE
# Types LINE and TAB into a real interactive zsh (under zpty, compinit loaded) and prints the
# candidates compsys offers, one a line; exits 1 if the completion never finished.
# compadd is wrapped to print what it would add; marks before and after show where they are.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT= RPROMPT= ; $1"
zpty -w z 'autoload -U compinit; compinit -u -D'
zpty -w z "$2"
zpty -w z 'bindkey "^I" complete-word'
zpty -w z 'mark () { print -r -- "@@MA""RK@@" }; compprefuncs=(mark); comppostfuncs=(mark exit)'
zpty -w z 'compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a hits; builtin compadd -A hits "$@"; local r=$? h
  for h in $hits; do print -r -- "@@HI""T@@$h"; done; return r }'
zpty -n -w z "$3"$'\t'
local out chunk
integer marks=0 deadline=$(( SECONDS + 30 ))
while (( marks < 2 && SECONDS < deadline )); do
  if zpty -r -t z chunk; then out+=$chunk; else sleep 0.05; fi
  marks=${#${(M)${(f)out}:#*@@MARK@@$'\r'}}
done
zpty -d z
for line in ${(f)out}; do [[ $line == @@HIT@@* ]] && print -r -- ${${line#@@HIT@@}%$'\r'}; done
(( marks == 2 ))
