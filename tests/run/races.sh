#!/bin/sh
# SPDX-License-Identifier: ISC
# Programs that race the supervisor's bookkeeping (races.c): each must
# end pinned, within the time it gets, with the output and status it has
# unpinned.  A hang is a failure (timeout(1) ends the tree with syspin).
# usage: races.sh SYSPIN RACES
set -u
SYSPIN=$1 RACES=$2
T=$(mktemp -d /tmp/syspin-races.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
for c in "forkexec 40 3" "forkexec 40 1" "leader-exit 30" "clone-map 300" \
    "clone-connect 300"; do
	# shellcheck disable=SC2086
	"$RACES" $c >"$T/plain" 2>&1
	want=$?
	for opt in "" --exec=trusted; do
		# shellcheck disable=SC2086
		timeout -k 5 60 "$SYSPIN" run $opt --cache-dir "$T/cache" -- \
		    "$RACES" $c >"$T/pinned" 2>&1
		st=$?
		if [ $st -ne $want ] || ! cmp -s "$T/plain" "$T/pinned"; then
			echo "FAIL $c $opt: status $st (unpinned $want)"
			sed 's/^/     | /' "$T/pinned" | head -5
			fail=1
		else
			echo "ok   $c $opt"
		fi
	done
done
exit $fail
