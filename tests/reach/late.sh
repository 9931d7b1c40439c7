#!/bin/sh
# SPDX-License-Identifier: ISC
# An object dlopen'ed later calls what the start-up objects never reach
# (late_main.c): the site is pruned (scan --reach says so), and the call
# is still allowed under `syspin run`, enforced and audited; a jump to a
# pruned site that no loaded library imports is still a violation, also
# after another library's call made the closure.
# usage: late.sh SYSPIN LATE_MAIN LATE_LIB LATE_LIB2
set -u
T=$(mktemp -d /tmp/syspin-reach-late.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
"$1" scan --reach "$2" >"$T/scan" 2>&1
if grep -q '^  numbers pruned (.*getppid' "$T/scan"; then
	echo "ok   getppid is pruned at start-up"
else
	echo "FAIL getppid is not pruned at start-up: nothing tested"
	sed 's/^/     | /' "$T/scan"; fail=1
fi
for mode in "" --audit; do
	"$1" run $mode --cache-dir "$T/cache" "$2" "$3" >"$T/out" 2>&1
	st=$?
	if [ $st = 0 ] && ! grep -q '^syspin: ' "$T/out"; then
		echo "ok   ${mode:-enforced}: the late object's getppid runs"
	else
		echo "FAIL ${mode:-enforced}: status $st"
		sed 's/^/     | /' "$T/out"; fail=1
	fi
done
# A library that does not import getppid: a jump to libc's getppid (its
# address from libc's symbol table) is refused, enforced, and reported
# under --audit; unpinned it runs.
if "$2" "$4" --call getppid >"$T/out" 2>&1; then
	echo "ok   unpinned: the jump to getppid runs"
else
	echo "FAIL unpinned: the jump to getppid: status $?"
	sed 's/^/     | /' "$T/out"; fail=1
fi
"$1" run --cache-dir "$T/cache" "$2" "$4" --call getppid >"$T/out" 2>&1
st=$?
if [ $st != 0 ] && grep -q '^syspin: .*getppid' "$T/out"; then
	echo "ok   enforced: the jump to a pruned getppid is refused ($st)"
else
	echo "FAIL enforced: the jump to a pruned getppid: status $st"
	sed 's/^/     | /' "$T/out"; fail=1
fi
"$1" run --audit --cache-dir "$T/cache" "$2" "$4" --call getppid \
    >"$T/out" 2>&1
st=$?
if [ $st = 0 ] && grep -q '^syspin: .*getppid' "$T/out"; then
	echo "ok   audit: the jump to a pruned getppid is reported"
else
	echo "FAIL audit: the jump to a pruned getppid: status $st"
	sed 's/^/     | /' "$T/out"; fail=1
fi
# getsid's call (LATE_LIB2) makes the closure with its names; then
# LATE_LIB is loaded and its getppid must be judged with its names too.
# A library importing getppid makes the same jump allowed.
for args in "$4 $3" "$3 --call getppid" "$4 $3 --call getppid"; do
	"$1" run --cache-dir "$T/cache" "$2" $args >"$T/out" 2>&1
	st=$?
	if [ $st = 0 ] && ! grep -q '^syspin: ' "$T/out"; then
		echo "ok   enforced: $(echo "$args" | sed "s|$T/||g;s|[^ ]*/||g") runs"
	else
		echo "FAIL enforced: $args: status $st"
		sed 's/^/     | /' "$T/out"; fail=1
	fi
done
# The second run of the same objects reuses the first one's result
# ("q-" in the cache): the same pins, no facts loaded.
for i in 1 2; do
	"$1" run -v --cache-dir "$T/c2" "$2" "$3" 2>&1 |
	    sed -n 's/.*\]: its code can reach \(.*\)/\1/p' \
	    >"$T/v$i"
done
if [ -s "$T/v1" ] && cmp -s "$T/v1" "$T/v2" && ls "$T/c2" | grep -q '^q-'; then
	echo "ok   reused: $(cat "$T/v2")"
else
	echo "FAIL reuse: '$(cat "$T/v1")' then '$(cat "$T/v2")'"; fail=1
fi
exit $fail
