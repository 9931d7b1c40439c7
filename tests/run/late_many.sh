#!/bin/sh
# SPDX-License-Identifier: ISC
# Hundreds of objects dlopen'ed one after another, each calling a site
# the program's own code cannot reach (blind round 11: the supervisor's
# work per load grew with every object loaded before it, each late
# mapping's file opened and every late object's facts loaded again at
# every stop: 800 loads took 7.5 s, 2200 did not end in 600 s).  The
# supervisor's CPU for 12 times the loads must stay within 30 times (a
# quadratic path takes 144), and no call is killed.
# usage: late_many.sh SYSPIN LATE_MANY LIB
set -u
S=$1 MAIN=$2 LIB=$3
T=$(mktemp -d /tmp/syspin-latemany.XXXXXX)
trap 'rm -rf "$T"' EXIT
small=50 big=600
i=0
while [ $i -lt $big ]; do cp "$LIB" "$T/$i.so"; i=$((i + 1)); done
cpu() {	# n: the supervisor's and the tree's CPU, in ms
	/usr/bin/env time -f "%U %S" -o "$T/time" "$S" run --cache-dir "$T/cache" \
	    "$MAIN" "$T" "$1" 2>"$T/err" || {
		echo "FAIL $1 loads: status $?"; sed 's/^/     | /' "$T/err"
		exit 1; }
	if grep -q '^syspin: ' "$T/err"; then
		echo "FAIL $1 loads:"; sed 's/^/     | /' "$T/err"; exit 1
	fi
	awk '{ printf "%d\n", ($1 + $2) * 1000 + 1 }' "$T/time"
}
cpu $big >/dev/null		# the facts of every copy, cached
a=$(cpu $small) b=$(cpu $big)
a2=$(cpu $small) b2=$(cpu $big)
[ "$a2" -lt "$a" ] && a=$a2
[ "$b2" -lt "$b" ] && b=$b2
if [ "$b" -le $((a * 30)) ]; then
	echo "ok   $small loads: $a ms, $big loads: $b ms"
	exit 0
fi
echo "FAIL $small loads: $a ms, $big loads: $b ms (more than 30 times)"
exit 1
