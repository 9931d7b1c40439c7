#!/bin/sh
# SPDX-License-Identifier: ISC
# OpenBSD cases under `syspin run` (docs/openbsd-conformance.md): a
# program's own pin table, empty (10) or not (2, 3), sigreturn (21, 22),
# a dlopen'ed library's raw syscall (36).  Every attack must work without
# syspin run (so it is real) and be killed with it (159); every control
# must survive with it.
# usage: check_run.sh SYSPIN RUNPIN RUNPIN_EMPTY DLRAW_SO
set -u
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
SYSPIN=$(abs "$1") RUNPIN=$(abs "$2") EMPTY=$(abs "$3") DLRAW=$(abs "$4")
T=$(mktemp -d /tmp/syspin-obsd-run.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0

check() {	# what want got
	if [ "$2" = "$3" ]; then
		echo "ok   $1 ($3)"
	else
		echo "FAIL $1: status $3, want $2"
		sed 's/^/     | /' "$T/out"
		fail=1
	fi
}

plain() {	# what want PROG ARGS...
	what=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>&1
	check "$what, not pinned" "$want" $?
}

pinned() {	# what want [run options] -- PROG ARGS...
	what=$1 want=$2
	shift 2
	opts=
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	# shellcheck disable=SC2086
	"$SYSPIN" run $opts --cache-dir "$T/cache" "$@" >"$T/out" 2>&1
	check "$what, syspin run$opts" "$want" $?
}

# The tables must be what the cases assume.
"$SYSPIN" scan "$EMPTY" >"$T/out" 2>&1
if grep -q "pin section: .openbsd.syscalls is authoritative" "$T/out" &&
    grep -q "not in pin section" "$T/out"; then
	echo "ok   runpin_empty: empty table, authoritative"
else
	echo "FAIL runpin_empty: scan:"; cat "$T/out"; fail=1
fi
"$SYSPIN" scan "$RUNPIN" >"$T/out" 2>&1
if grep -q "pin section: .openbsd.syscalls is authoritative" "$T/out"; then
	echo "ok   runpin: own table, authoritative"
else
	echo "FAIL runpin: scan:"; cat "$T/out"; fail=1
fi

# As root the kernel's record tells why it was killed: the diagnostic line
# must name the trap and the number (it may be rate-limited: then only
# "killed by SIGSYS").
why() {	# what pattern
	[ -r /dev/kmsg ] || return 0
	grep -q "$2" "$T/out" && return 0
	grep -q "killed by SIGSYS" "$T/out" && return 0
	echo "FAIL $1: diagnostic does not say \"$2\":"
	sed 's/^/     | /' "$T/out"
	fail=1
}

# Case 10: an empty table; libc keeps working.
plain "10 own trap, empty table" 0 "$EMPTY" own
pinned "10 own trap, empty table" 159 -- "$EMPTY" own
why 10 "(runpin_empty+0x[0-9a-f]*) code 39 (getpid): not pinned here"
pinned "10 libc, empty table" 0 -- "$EMPTY" libc

# Cases 1-3 with a dynamic program's own table.
pinned "listed number at its trap" 0 -- "$RUNPIN" listed
pinned "libc next to the own table" 0 -- "$RUNPIN" libc
plain "3 unlisted number at a listed trap" 0 "$RUNPIN" wrongnr
pinned "3 unlisted number at a listed trap" 159 -- "$RUNPIN" wrongnr
why 3 "(runpin+0x[0-9a-f]*) code 102 (getuid): not pinned here"
plain "2 trap the table omits" 0 "$RUNPIN" unlisted
pinned "2 trap the table omits" 159 -- "$RUNPIN" unlisted
why 2 "(runpin+0x[0-9a-f]*) code 39 (getpid): not pinned here"

# Case 21 (and 22).
pinned "21a signal handler returns through __restore_rt" 0 -- \
    "$RUNPIN" signal
plain "21 rt_sigreturn from elsewhere" 0 "$RUNPIN" sigret-own
pinned "21 rt_sigreturn from elsewhere" 159 -- "$RUNPIN" sigret-own
why 21b "(runpin+0x[0-9a-f]*) code 15 (rt_sigreturn): not pinned here"
plain "21 exit_group from the trampoline" 42 "$RUNPIN" tramp-other
pinned "21 exit_group from the trampoline" 159 -- "$RUNPIN" tramp-other
why 21c "(libc.so.6+0x[0-9a-f]*) code 231 (exit_group): not pinned here"

# Case 36: syspin's rule (docs/run.md): code mapped after the filter is
# outside the pinned image, allowed by default; --strict refuses the
# executable mapping, so dlopen fails.
plain "36 dlopen, raw syscall" 0 "$RUNPIN" dlopen "$DLRAW"
pinned "36 dlopen, raw syscall" 0 -- "$RUNPIN" dlopen "$DLRAW"
pinned "36 dlopen refused" 3 --strict -- "$RUNPIN" dlopen "$DLRAW"
if ! grep -q "runpin: dlopen: .*failed to map segment" "$T/out"; then
	echo "FAIL 36 --strict: no dlopen error"; cat "$T/out"; fail=1
fi
exit $fail
