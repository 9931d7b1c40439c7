#!/bin/sh
# SPDX-License-Identifier: ISC
# An orphan of the tree, adopted by a subreaper outside it, gives that
# subreaper its session keyring (KEYCTL_SESSION_TO_PARENT): unpinned it
# does (the baseline), pinned it must not, supervised and runtime alone.
# usage: keyparent.sh SYSPIN KEYPARENT
set -u
SYS=$1 K=$2
CACHE=$(mktemp -d /tmp/syspin-keyparent.XXXXXX)
trap 'rm -rf "$CACHE"' EXIT
fail=0
check() {	# name want cmd...
	name=$1 want=$2
	shift 2
	"$K" outer "$@" >/dev/null 2>&1
	got=$?
	if [ "$got" = "$want" ]; then
		echo "ok   $name"
	else
		echo "FAIL $name: status $got, want $want (1: the keyring went outside)"
		fail=1
	fi
}
check "unpinned: given" 1 "$K" inner
check "pinned: refused" 0 "$SYS" run --cache-dir "$CACHE" -- "$K" inner
check "pinned --strict: refused" 0 "$SYS" run --strict --cache-dir "$CACHE" -- "$K" inner
check "runtime alone: refused" 0 env SYSPIN_SUPERVISE=0 "$SYS" run --cache-dir "$CACHE" -- "$K" inner
exit $fail
