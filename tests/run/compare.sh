# SPDX-License-Identifier: ISC
# Sourced by tests/run/*.sh: run a command unpinned and under `syspin run`
# and compare what it did.  One helper, so that every such test judges
# "the same" the same way: the status and every byte of both streams.
#
# The caller sets SYSPIN (an absolute path) and T (its temporary
# directory), and fail=0; then `cmp_same NAME COMMAND...` prints
#   ok   NAME (status N, S s)
# or FAIL with the difference, and sets fail=1.  Knobs (variables, each
# may be set for one call: `CMP_OUT=0 cmp_same ...`):
#   CMP_MODES   the pinned runs, each compared with the unpinned one:
#               "enforced" (default) or "audit enforced" (--audit first)
#   CMP_RUNOPT  more options of syspin run (--allow-jit)
#   CMP_CACHE   the cache directory (default $T/cache)
#   CMP_PREFIX  a command put before COMMAND in every run, unpinned and
#               pinned alike (ld.so run by name)
#   CMP_DIR     where each run starts: "fresh" (a new, empty $T/w for
#               each run), a directory, or "" (where the caller is)
#   CMP_STDIN   the runs' standard input ("" : the caller's)
#   CMP_LIMIT   seconds each run may take (timeout(1)); "" : no limit
#   CMP_OUT=0   the output is not deterministic: the status only
#   CMP_SAY=1   syspin's own lines ("syspin: ...") are no output: set
#               apart, every one of them fails the case unless it
#               matches CMP_SAYOK; $T is written T in the output
#   CMP_EXCUSE  a function called when a pinned run differs; status 0
#               and a reason on stdout: "ok NAME: REASON" instead of FAIL
# After cmp_same: cmp_st (the last run's status), $T/out.plain and
# $T/out.MODE (the last mode run) are there to look at.

# cmp_run1 MODE COMMAND...: one run; MODE plain, audit or enforced.
cmp_run1() {
	_m=$1
	shift
	case ${CMP_DIR-fresh} in
	fresh) rm -rf "$T/w" && mkdir "$T/w" && chmod 777 "$T/w" && _d=$T/w ;;
	*) _d=${CMP_DIR:-.} ;;
	esac
	set -- ${CMP_PREFIX:+"$CMP_PREFIX"} "$@"
	case $_m in
	plain) ;;
	audit) set -- "$SYSPIN" run --audit ${CMP_RUNOPT:-} \
	    --cache-dir "${CMP_CACHE:-$T/cache}" -- "$@" ;;
	*) set -- "$SYSPIN" run ${CMP_RUNOPT:-} \
	    --cache-dir "${CMP_CACHE:-$T/cache}" -- "$@" ;;
	esac
	[ -n "${CMP_LIMIT:-}" ] && set -- timeout -k 5 "$CMP_LIMIT" "$@"
	if [ -n "${CMP_STDIN:-}" ]; then
		(cd "$_d" && "$@") >"$T/raw" 2>&1 <"$CMP_STDIN"
	else
		(cd "$_d" && "$@") >"$T/raw" 2>&1
	fi
	cmp_st=$?
	if [ "${CMP_SAY:-0}" = 1 ]; then
		grep -av '^syspin: ' "$T/raw" | sed "s|$T|T|g" >"$T/out.$_m"
		grep -a '^syspin: ' "$T/raw" |
		    { grep -v -e "${CMP_SAYOK:-^$}" || :; } >"$T/say.$_m"
	else
		mv "$T/raw" "$T/out.$_m"
		: >"$T/say.$_m"
	fi
}

# cmp_same NAME COMMAND...: alike unpinned and pinned (see above).
cmp_same() {
	_name=$1
	shift
	_t0=$(date +%s)
	cmp_run1 plain "$@"
	_want=$cmp_st
	_bad=
	for _m in ${CMP_MODES:-enforced}; do
		cmp_run1 "$_m" "$@"
		if [ "$cmp_st" != "$_want" ]; then
			_bad="$_bad $_m: status $cmp_st, unpinned $_want;"
		elif [ "${CMP_OUT:-1}" = 1 ] &&
		    ! cmp -s "$T/out.plain" "$T/out.$_m"; then
			_bad="$_bad $_m: output differs;"
		fi
		[ -s "$T/say.$_m" ] &&
		    _bad="$_bad $_m: syspin said $(wc -l <"$T/say.$_m") lines;"
		[ -n "$_bad" ] && break
	done
	if [ -z "$_bad" ]; then
		echo "ok   $_name (status $_want, $(($(date +%s) - _t0)) s)"
		return 0
	fi
	if [ -n "${CMP_EXCUSE:-}" ] && _why=$("$CMP_EXCUSE"); then
		echo "ok   $_name: $_why"
		return 0
	fi
	echo "FAIL $_name:$_bad"
	sed 's/^/     | /' "$T/say.$_m" | head -10
	diff "$T/out.plain" "$T/out.$_m" | head -20 | sed 's/^/     | /'
	fail=1
	return 1
}
