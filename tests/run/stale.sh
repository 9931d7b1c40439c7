#!/bin/sh
# SPDX-License-Identifier: ISC
# A file rewritten in place, its size and mtime put back (what its owner,
# the tree's user, can do: rsync --inplace -t, or an attacker), is another
# file to the cache: its ctime moved, so the next run analyses it again
# and pins what it now holds.  Before, the cache named a table by device,
# inode, size and mtime, and believed the old bytes' table: the new
# program's own call was killed (and `cache verify` said ok).
# usage: stale.sh SYSPIN GETPID GETUID (two builds of stale.c)
set -u
SYSPIN=$1 A=$2 B=$3
T=$(mktemp -d /tmp/syspin-stale.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
cp "$A" "$T/a" && cp "$B" "$T/b"
# the same size: an ELF file may end in any bytes
n=$(stat -c %s "$T/a" "$T/b" | sort -n | tail -1)
truncate -s "$n" "$T/a" "$T/b"
cp "$T/a" "$T/prog"
touch -d '2020-01-01 00:00:00' "$T/prog"
"$SYSPIN" run --cache-dir "$T/cache" "$T/prog" >"$T/out" 2>&1
st=$?
[ $st = 0 ] || { echo "FAIL first run: status $st"; cat "$T/out"; exit 1; }
id0=$(stat -c '%d %i %s %Y' "$T/prog")
cat "$T/b" >"$T/prog"
touch -d '2020-01-01 00:00:00' "$T/prog"
[ "$(stat -c '%d %i %s %Y' "$T/prog")" = "$id0" ] ||
    { echo "FAIL: the swap changed more than the bytes and ctime"; exit 1; }
"$T/prog" || { echo "FAIL: the new program fails unpinned"; exit 1; }
"$SYSPIN" run --cache-dir "$T/cache" "$T/prog" >"$T/out" 2>&1
st=$?
if [ $st = 0 ] && ! grep -q "not pinned" "$T/out"; then
	echo "ok   rewritten in place, mtime put back: analysed again (status 0)"
else
	echo "FAIL rewritten in place: status $st (the old table believed?)"
	sed 's/^/     | /' "$T/out" | head -5
	fail=1
fi
"$SYSPIN" cache verify --cache-dir "$T/cache" >"$T/out" 2>&1
echo "note: cache verify: $(tail -1 "$T/out")"
exit $fail
