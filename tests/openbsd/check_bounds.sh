#!/bin/sh
# SPDX-License-Identifier: ISC
# PINSYSCALL (assembly) and syspin_syscallN (C) refuse, at build time, a
# number < 0 or >= SYS_MAXSYSCALL (512): one such entry would make OpenBSD
# (and syspin) reject the whole table.  Each bad number must fail to
# compile with the header's message; the good ones (0, 511) must compile,
# so a failure is the bound's doing.  A number that is not a constant
# cannot be pinned exactly and must not compile either.
# usage: check_bounds.sh INCLUDE_DIR CC [CC_ARGS...]
set -u
INC=$1
shift
T=$(mktemp -d /tmp/syspin-obsd-bounds.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0

cat >"$T/c.c" <<'X'
#include <syspin/pinsyscall.h>
long f(long n);
long f(long n) { (void)n; return syspin_syscall0(NR); }
X
cat >"$T/s.S" <<'X'
#include <syspin/pinsyscall.h>
	.text
#ifdef SYSTRAP
	SP_SYSTRAP(NR)
#else
	movl	$1, %eax
97:	syscall
	PINSYSCALL(NR, 97b)
#endif
X
CMSG='syspin_syscall: number < 0 or >= SYS_MAXSYSCALL'
SMSG='PINSYSCALL: number < 0 or >= SYS_MAXSYSCALL would void the table'

try() {	# what good|bad|bad:MSG file [defines...]
	what=$1 want=$2 src=$3
	shift 3
	"$CC_CMD" $CC_ARGS -I"$INC" "$@" -c "$T/$src" -o "$T/out.o" \
	    >"$T/log" 2>&1
	rc=$?
	case $want in
	good)
		[ $rc = 0 ] && { echo "ok   $what compiles"; return; }
		echo "FAIL $what: does not compile:" ;;
	bad)
		[ $rc != 0 ] && { echo "ok   $what refused"; return; }
		echo "FAIL $what: compiles" ;;
	bad:*)
		if [ $rc != 0 ] && grep -qF "${want#bad:}" "$T/log"; then
			echo "ok   $what refused"; return
		fi
		echo "FAIL $what: status $rc, want a failure saying" \
		    "\"${want#bad:}\":" ;;
	esac
	sed 's/^/     | /' "$T/log"
	fail=1
}

CC_CMD=$1
shift
CC_ARGS="$*"
for nr in 512 -1 1000 -512; do
	try "syspin_syscall0($nr)" "bad:$CMSG" c.c -DNR="$nr"
	try "PINSYSCALL($nr)" "bad:$SMSG" s.S -DNR="$nr"
done
try "SP_SYSTRAP(512)" "bad:$SMSG" s.S -DNR=512 -DSYSTRAP
try "syspin_syscall0(n), n not a constant" bad c.c -DNR=n
for nr in 0 39 511; do
	try "syspin_syscall0($nr)" good c.c -DNR="$nr"
	try "PINSYSCALL($nr)" good s.S -DNR="$nr"
done
try "SP_SYSTRAP(511)" good s.S -DNR=511 -DSYSTRAP
exit $fail
