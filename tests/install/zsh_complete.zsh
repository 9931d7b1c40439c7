# SPDX-License-Identifier: ISC
# Completes WORDS in an interactive zsh whose fpath has COMPDIR and whose
# PATH finds SYSPIN's directory first, then runs the line completed with
# "echo" in front: prints the line as completed.
# usage: zsh zsh_complete.zsh COMPDIR BINDIR WORDS
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='%% '; fpath=($1 \$fpath); PATH=$2:\$PATH; autoload -Uz compinit; compinit -u; setopt nobeep"
sleep 1
zpty -w -n z "$3"$'\t'
sleep 2
zpty -w -n z $'\001echo \n'
sleep 1
out=
while zpty -r -t z line 2>/dev/null; do out+=$line; done
zpty -d z
print -r -- "$out"
