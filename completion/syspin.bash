# SPDX-License-Identifier: ISC
# bash completion for syspin(1): its commands, each command's options (as
# its --help lists them), and after `run`/`trace`/`filter` the program and
# its own arguments completed as a command line.
_syspin()
{
	local cur prev words cword cmd i
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}
	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W "scan run trace filter embed cache help
		    --help --version" -- "$cur"))
		return
	fi
	cmd=${words[1]}
	case $cmd in
	help)
		COMPREPLY=($(compgen -W "scan run trace filter embed cache" \
		    -- "$cur"))
		return ;;
	cache)
		if [ "$cword" -eq 2 ]; then
			COMPREPLY=($(compgen -W "fill list verify clear help" \
			    -- "$cur"))
			return
		fi ;;
	run|trace|filter)
		# the program and what follows it: a command line of its own
		for ((i = 2; i < cword; i++)); do
			case ${words[i]} in
			--) _command_offset $((i + 1)) 2>/dev/null; return ;;
			-c|--cache-dir|--dlopen|-o|--output|--log-fd|--deny|\
			--allow|--allow-socket|-p|--allow-list|--systemd|\
			--export) ((i++)); continue ;;
			-*) continue ;;
			*) _command_offset "$i" 2>/dev/null; return ;;
			esac
		done ;;
	esac
	case $prev in
	-c|--cache-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--dlopen|-o|--output|--allow-list|--systemd|--export) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--exec) COMPREPLY=($(compgen -W "any trusted none" -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		local sub=$cmd
		[ "$cmd" = cache ] && sub="cache ${words[2]}"
		COMPREPLY=($(compgen -W "$(syspin $sub --help 2>/dev/null |
		    grep -o -- '--[a-z][a-z-]*\|^ *-[a-zA-Z]\b' | tr -d ' ' |
		    sort -u)" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _syspin syspin
