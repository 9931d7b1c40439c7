#!/bin/sh
# SPDX-License-Identifier: ISC
# Nested pinned execs.  Every pinned image stacks one more seccomp filter
# (filters can never be removed), and the kernel caps all of a process's
# filters together at 32768 instructions (MAX_INSNS_PER_PATH, counting each
# filter in its converted eBPF form plus 4), so a chain of pinned execs has
# a depth limit (docs/run.md).  This checks how that limit behaves: every
# level that runs is pinned afresh (its filter count is one more than its
# parent's), and the first level that cannot install its filter never runs:
# the runtime refuses with a clear message and exit status 127.
# usage: nested.sh SYSPIN
set -u
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/syspin-nested.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0

# Shell builtins only: no child processes, so each level adds exactly the
# filter of its own image.
cat >"$T/nest.sh" <<'EOS'
level=$1
filters=
while read -r k v; do
	[ "$k" = "Seccomp_filters:" ] && filters=$v
done </proc/self/status
echo "level $level filters $filters"
# Under the supervisor every process also has its guard filter (one more).
base=${2:-$((filters - 1))}
[ "$base" -le 1 ] && [ "$filters" = $((level + base)) ] ||
    { echo "level $level is not pinned afresh"; exit 9; }
exec /bin/sh "$0" $((level + 1)) "$base"
EOS

"$SYSPIN" run --cache-dir "$T/cache" /bin/sh "$T/nest.sh" 1 >"$T/out" 2>&1
st=$?
sed 's/^/     | /' "$T/out"
depth=$(grep -c '^level [0-9]* filters' "$T/out")
if [ $st != 127 ]; then
	echo "FAIL status $st, want 127 (the runtime refuses)"; fail=1
fi
if ! grep -q "^syspin: sh\[[0-9]*\]: cannot pin: .*too many nested pinned programs" "$T/out"; then
	echo "FAIL no clear message at the limit"; fail=1
fi
if grep -q "not pinned afresh" "$T/out"; then
	echo "FAIL a level ran without its own filter"; fail=1
fi
# With a libc-sized filter the limit is well above 5 and below 32.
if [ "$depth" -lt 5 ] || [ "$depth" -gt 32 ]; then
	echo "FAIL depth $depth out of the expected range"; fail=1
fi
[ $fail = 0 ] && echo "ok   nested pinned execs: $depth levels, then refused (127)"
exit $fail
