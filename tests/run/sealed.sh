#!/bin/sh
# SPDX-License-Identifier: ISC
# The start-up region sealed whole at the entry point (lib/supervise/
# startup.c): every mapping around libc (the objects, their data, the
# holes ld.so left in an over-aligned object's room, the unused room) is
# sealed, so that nothing can be mapped, unmapped or made executable
# there; no entry filter is installed for it (the image has as many
# filters as a static program, which has no entry point stop).  Unpinned,
# the same program sees nothing sealed (the check bites).
# usage: sealed.sh SYSPIN SEALED [SEALED_STATIC]
set -u
SYSPIN=$1
PROG=$2
STATIC=${3:-}
T=$(mktemp -d /tmp/syspin-sealed.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
get() { sed -n "s/^$1 //p" "$T/$2"; }

"$PROG" >"$T/bare" 2>&1 || { echo "FAIL unpinned run:"; cat "$T/bare"; exit 1; }
"$SYSPIN" run --cache-dir "$T/cache" "$PROG" >"$T/pinned" 2>&1 ||
    { echo "FAIL pinned run:"; cat "$T/pinned"; exit 1; }
sed 's/^/     | unpinned: /' "$T/bare"
sed 's/^/     | pinned:   /' "$T/pinned"

set -- $(get region bare)
if [ "${3:-x}" = 0 ] && [ "$(get mprotect-data bare)" = 0 ]; then
	echo "ok   unpinned: nothing sealed, libc's data protection changes"
else
	echo "FAIL unpinned: $3 sealed, mprotect $(get mprotect-data bare)"
	fail=1
fi
set -- $(get region pinned)
if [ "$#" = 3 ] && [ "$2" = "$3" ] && [ "$1" -ge 4294967296 ]; then
	echo "ok   pinned: the region around libc ($2 mappings, $1 bytes) all sealed"
else
	echo "FAIL pinned: region '$*' (span, mappings, sealed): want all sealed, >= 4 GiB"
	fail=1
fi
if [ "$(get align pinned)" = in-region ]; then
	echo "ok   the 2 MiB-aligned library lies in the sealed region"
else
	echo "FAIL the 2 MiB-aligned library is $(get align pinned)"
	fail=1
fi
for c in mprotect-data map-room; do
	if [ "$(get $c pinned)" = 1 ]; then	# EPERM
		echo "ok   $c: EPERM"
	else
		echo "FAIL $c: errno $(get $c pinned), want 1 (EPERM)"
		fail=1
	fi
done
if [ -n "$STATIC" ]; then
	"$SYSPIN" run --cache-dir "$T/cache" "$STATIC" >"$T/static" 2>&1
	if [ "$(get filters pinned)" = "$(get filters static)" ]; then
		echo "ok   no entry filter: $(get filters pinned) filters, as a static program"
	else
		echo "FAIL filters: $(get filters pinned), a static program $(get filters static)"
		cat "$T/static"
		fail=1
	fi
else
	echo "skip the filter count: no static libc to build the static program"
fi
exit $fail
