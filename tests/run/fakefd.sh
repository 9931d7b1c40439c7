#!/bin/sh
# SPDX-License-Identifier: ISC
# The supervisor believes no injected call's return it acts on: a filter
# of the tree's own skips memfd_create and leaves a descriptor of another
# file at its number (fakefd.c); the image is refused, and the file keeps
# its bytes (blind round 10: the supervisor wrote the filter into it).
# usage: fakefd.sh SYSPIN FAKEFD
set -u
SYSPIN=$1
FAKEFD=$2
T=$(mktemp -d /tmp/syspin-fakefd.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo original >"$T/file"
chmod 444 "$T/file"
"$SYSPIN" run --cache-dir "$T/cache" "$FAKEFD" "$T/file" /bin/true \
    >"$T/out" 2>&1
st=$?
sed 's/^/     | /' "$T/out"
if [ "$(cat "$T/file")" != original ]; then
	echo "FAIL the file the descriptor named was written"
	exit 1
fi
if [ $st = 0 ] || ! grep -q "cannot pin: the filter's memfd" "$T/out"; then
	echo "FAIL status $st: want the image refused with one line"
	exit 1
fi
echo "ok   refused (status $st), the file left as it was"
