#!/bin/sh
# SPDX-License-Identifier: ISC
# tmp_cache.sh WANT SYSPIN ARG...: `SYSPIN run --cache-dir DIR ARG...` with
# a fresh cache directory, removed afterwards (a test never fills the
# user's cache); exits 0 when run's status is WANT.
set -u
want=$1
S=$2
shift 2
T=$(mktemp -d /tmp/syspin-run.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$S" run --cache-dir "$T/cache" "$@"
st=$?
[ "$st" = "$want" ] && exit 0
echo "syspin run $*: status $st, want $want"
exit 1
