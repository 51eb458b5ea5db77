#!/usr/bin/env zsh
# complete-zsh.zsh: what zsh's completion offers for a command line, as a
# person pressing Tab gets it.
#
#   zsh -f complete-zsh.zsh FPATH_DIR < LINES
#
# An interactive zsh runs on a pseudo-terminal (zsh/zpty) with compinit and
# FPATH_DIR first in its fpath.  Each line read from stdin is typed there
# followed by Tab; every match the completion functions add is printed, one
# per line, then a line "--- end".  compadd is wrapped to print the matches it
# is given once zsh has matched them against the word (what a listing would
# show), so nothing depends on how the terminal draws.  Exits 77 (skip) when
# zsh lacks zsh/zpty.

emulate -L zsh
zmodload zsh/zpty 2>/dev/null || { print -u2 "zsh/zpty is missing"; exit 77 }

local fpath_dir=${1:?usage: complete-zsh.zsh FPATH_DIR}
local init=$(mktemp) out line
trap 'zpty -d pd 2>/dev/null; rm -f $init' EXIT

cat > $init <<EOF
PS1='' PS2='' RPS1='' PROMPT_EOL_MARK=''
zle_bracketed_paste=()
fpath=(${(q)fpath_dir} \$fpath)
autoload -Uz compinit && compinit -u -D
unsetopt auto_list auto_menu list_ambiguous beep list_beep
zstyle ':completion:*' insert-tab false

compadd() {
  # Calls that only ask (-O, -A, -D) are _arguments' own bookkeeping.
  if [[ " \${@[1,(i)(-|--)]} " == *' -'[OAD]' '* ]]; then
    builtin compadd "\$@"
    return
  fi
  local -a __pd_matches
  local __pd_match
  builtin compadd -O __pd_matches "\$@"
  for __pd_match in \$__pd_matches; do
    print -r -- "PD-MATCH:\$__pd_match"
  done
  builtin compadd "\$@"
}

pd-complete() {
  print -r -- PD-START
  zle complete-word
  print -r -- PD-END
}
zle -N pd-complete
bindkey '^I' pd-complete
print -r -- PD-READY
EOF

zpty pd zsh -f -i || exit 1
zpty -w pd "source ${(q)init}"
zpty -rm pd out '*PD-READY*' || { print -u2 "the completing zsh did not start"; exit 1 }

while IFS= read -r line; do
  zpty -n -w pd "$line"$'\t'
  zpty -rm pd out '*PD-START*'
  zpty -rm pd out '*PD-END*' || { print -u2 "no answer for: $line"; exit 1 }
  # The matches, one per line; the terminal adds carriage returns and
  # cursor movements around them.  Parameter expansion, not a pipeline of
  # commands: four processes a line made the run slow on a busy machine.
  local -a got=(${(f)${out//$'\r'/}})
  got=(${(M)got:#*PD-MATCH:*})
  print -rl -- ${got#*PD-MATCH:}
  print -r -- "--- end"
  # Clear the line for the next one (Ctrl+U kills the whole line).
  zpty -n -w pd $'\x15'
done
