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
# must name the trap and the number.  The kernel rate-limits its audit
# printks; without a record the line says only "killed by SIGSYS".
# syspin run reads only records that arrive after the program starts, so
# an old record of a reused pid can never be printed: every trap here is
# inside an image, and a line saying otherwise is a failure.
why() {	# what pattern
	[ -r /dev/kmsg ] || return 0
	grep -q "$2" "$T/out" && return 0
	if grep -q "killed by SIGSYS" "$T/out"; then
		echo "skip $1 diagnostic: no audit record (rate limit)"
		return 0
	fi
	echo "FAIL $1: diagnostic does not say \"$2\":"
	sed 's/^/     | /' "$T/out"
	fail=1
}

# Case 10: an empty table; libc keeps working.
plain "10 own trap, empty table" 0 "$EMPTY" own
pinned "10 own trap, empty table" 159 -- "$EMPTY" own
why 10 "(runpin_empty+0x[0-9a-f]*[^)]*) code 39 (getpid): not pinned here"
pinned "10 libc, empty table" 0 -- "$EMPTY" libc

# Cases 1-3 with a dynamic program's own table.
pinned "listed number at its trap" 0 -- "$RUNPIN" listed
pinned "libc next to the own table" 0 -- "$RUNPIN" libc
plain "3 unlisted number at a listed trap" 0 "$RUNPIN" wrongnr
pinned "3 unlisted number at a listed trap" 159 -- "$RUNPIN" wrongnr
why 3 "(runpin+0x[0-9a-f]*[^)]*) code 102 (getuid): not pinned here"
plain "2 trap the table omits" 0 "$RUNPIN" unlisted
pinned "2 trap the table omits" 159 -- "$RUNPIN" unlisted
why 2 "(runpin+0x[0-9a-f]*[^)]*) code 39 (getpid): not pinned here"

# Case 26: the record names the number and the trap instruction itself
# (the kernel's ip is the address after it): rp_getpid_at is
# "movl %edi,%eax" (2 bytes), then the trap.
if [ -r /dev/kmsg ] && command -v nm >/dev/null; then
	sym=$(nm "$RUNPIN" | sed -n 's/^0*\([0-9a-f]*\) T rp_getpid_at$/\1/p')
	at=$(printf '0x%x' $((0x$sym + 2)))
	for try in 1 2 3 4 5; do
		pinned "26 trace record" 159 -- "$RUNPIN" wrongnr
		grep -q "killed by SIGSYS" "$T/out" || break
		sleep 1
	done
	if grep -q "(runpin+$at[^)]*) code 102 (getuid)" "$T/out"; then
		echo "ok   26 the line names runpin+$at, code 102"
	elif grep -q "killed by SIGSYS" "$T/out"; then
		echo "skip 26: no audit record (rate limit)"
	else
		echo "FAIL 26: want runpin+$at code 102:"; cat "$T/out"; fail=1
	fi
fi

# Case 16: Linux's ld.so has no table; syspin run pins it by analysis.
# Case 17: binding, lazy or immediate, is a write to the GOT on Linux, no
# system call (OpenBSD's kbind): both work pinned.
interp=$(readelf -l "$RUNPIN" 2>/dev/null |
    sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
if [ -n "$interp" ]; then
	"$SYSPIN" scan "$interp" >"$T/out" 2>&1
	if [ $? = 0 ] && ! grep -q "pin section" "$T/out"; then
		echo "ok   16 $interp: no table, analysed"
	else
		echo "FAIL 16 $interp: scan:"; cat "$T/out"; fail=1
	fi
fi
pinned "16/17 lazy binding, ld.so pinned by analysis" 0 -- \
    env -u LD_BIND_NOW "$RUNPIN" libc
pinned "17 immediate binding" 0 -- env LD_BIND_NOW=1 "$RUNPIN" libc

# Case 21 (and 22).
pinned "21a signal handler returns through __restore_rt" 0 -- \
    "$RUNPIN" signal
plain "21 rt_sigreturn from elsewhere" 0 "$RUNPIN" sigret-own
pinned "21 rt_sigreturn from elsewhere" 159 -- "$RUNPIN" sigret-own
why 21b "(runpin+0x[0-9a-f]*[^)]*) code 15 (rt_sigreturn): not pinned here"
plain "21 exit_group from the trampoline" 42 "$RUNPIN" tramp-other
pinned "21 exit_group from the trampoline" 159 -- "$RUNPIN" tramp-other
why 21c "(libc.so.6+0x[0-9a-f]*[^)]*) code 231 (exit_group): not pinned here"

# Case 36, as on OpenBSD: code mapped after the filter (the late-code
# band) makes no system call of its own; --strict refuses the executable
# mapping, so dlopen fails.
plain "36 dlopen, raw syscall" 0 "$RUNPIN" dlopen "$DLRAW"
pinned "36 dlopen, raw syscall" 159 -- "$RUNPIN" dlopen "$DLRAW"
pinned "36 dlopen refused" 3 --strict -- "$RUNPIN" dlopen "$DLRAW"
if ! grep -q "runpin: dlopen: .*failed to map segment" "$T/out"; then
	echo "FAIL 36 --strict: no dlopen error"; cat "$T/out"; fail=1
fi
exit $fail
