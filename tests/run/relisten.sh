#!/bin/sh
# SPDX-License-Identifier: ISC
# syspin run -p of a prefork worker (tests/run/relisten.c): listen()
# again on the listener it shares with its master outside does not make
# it the tree's; unpinned the master reads the worker's 5 lines, attached
# none (blind round 25: they went through).
# usage: relisten.sh SYSPIN RELISTEN
set -u
SYS=$1 PROG=$2
D=$(mktemp -d /tmp/syspin-relisten.XXXXXX)
trap 'rm -rf "$D"' EXIT
fail=0
for how in bare pinned; do
	"$PROG" "$D/sock" >"$D/out" 2>&1 &
	M=$!
	for i in $(seq 50); do [ -s "$D/out" ] && break; sleep 0.1; done
	C=$(head -1 "$D/out")
	if [ $how = pinned ]; then
		timeout 30 "$SYS" run --cache-dir "$D/c" -p "$C" >"$D/sys" 2>&1 &
		for i in $(seq 50); do
			grep -q 'Seccomp:[[:space:]]*2' /proc/"$C"/status && break
			sleep 0.1
		done
	fi
	kill -USR1 "$C"
	wait "$M"
	got=$(sed -n 's/^read //p' "$D/out")
	want=5
	[ $how = pinned ] && want=0
	if [ "$got" = "$want" ]; then
		echo "ok   $how: the master outside read $got lines"
	else
		echo "FAIL $how: the master outside read $got lines, want $want"
		cat "$D/sys" 2>/dev/null
		fail=1
	fi
	wait
done
exit $fail
