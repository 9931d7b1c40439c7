#!/bin/sh
# SPDX-License-Identifier: ISC
# The runtime (no supervisor) says why it cannot pin, in one line, even
# when argv[0] is long: a 480-byte name once left no room for the reason
# (exit 127, no message), a 600-byte one made die() write past its buffer.
# The process's filters are full beforehand (fullstack.c), so the runtime's
# own is refused: "too many nested pinned programs".
# usage: rt_die.sh RUNTIME FULLSTACK
set -u
RT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
FULL=$2
T=$(mktemp -d /tmp/syspin-rtdie.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0

for len in 8 480 600 4000; do
	name=$(printf "%${len}s" "" | tr ' ' x)
	# SYSPIN_BIN=/bin/false: no cache is filled (the default one least).
	env -i PATH=/usr/bin:/bin HOME="$T" SYSPIN_BIN=/bin/false \
	    FULLSTACK_PRELOAD="$RT" "$FULL" /bin/true "$name" 2>"$T/err"
	st=$?
	lines=$(wc -l <"$T/err")
	want='^syspin: x+\[[0-9]+\]: cannot pin: too many nested pinned'
	want="$want programs \\(.*Limits\\)\$"
	if [ $st = 127 ] && [ "$lines" = 1 ] && grep -Eq "$want" "$T/err"
	then
		echo "ok   argv[0] of $len bytes: $(cut -c1-40 "$T/err")..."
	else
		echo "FAIL argv[0] of $len bytes: status $st, $lines lines" \
		    "(want 127, one line with the reason):"
		cut -c1-300 "$T/err" | sed 's/^/     | /'
		fail=1
	fi
done
exit $fail
