#!/bin/sh
# SPDX-License-Identifier: ISC
# Nested pinned execs.  An exec of the program the process already runs
# (a shell's `exec sh`, a server re-exec'ing itself) is moved to the
# earlier image's addresses and judged by its filter: no filter is added.
# Every other pinned image stacks its seccomp filter, one a level: at its
# entry point the start-up slots are sealed whole, and no entry filter is
# added (lib/supervise/entry.c: ld.so's exec sites are not pinned where it
# is the interpreter).  Filters can never be removed, and the kernel caps
# all of a process's
# filters together at 32768 instructions (MAX_INSNS_PER_PATH, counting each
# filter in its converted form plus 4): a chain of pinned execs (wrapper
# scripts, pyenv shims, make -> sh -> cc -> ...) runs out of room after
# about ten libc-sized filters.  Past that point the supervisor installs
# one all-TRACE instruction and checks each call of the deeper images
# against their own programs (docs/run.md).  This checks that:
# - every level runs, the first ones pinned afresh in the kernel (one
#   filter more than their parent), the deeper ones adding none;
# - at the deepest level, attacks are still stopped exactly as in the
#   kernel (own number from the wrong place, the middle of an instruction,
#   libc's execve site with another number, a thread, JIT memory), the
#   controls still run, and the killed ones get the diagnostic line.
# usage: nested.sh SYSPIN ATTACK
set -u
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ATTACK=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
T=$(mktemp -d /tmp/syspin-nested.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
DEPTH=16

# Shell builtins only between levels: each level adds at most the filter
# of its own image.
cat >"$T/nest.sh" <<'EOS'
level=$1
filters=
while read -r k v; do
	[ "$k" = "Seccomp_filters:" ] && filters=$v
done </proc/self/status
echo "level $level filters $filters"
[ "$level" -lt "$DEPTH" ] && exec "$SH$((level + 1))" "$0" $((level + 1))
for m in own-nr own-nr-ok mid-insn mid-insn-ok libc-wrong-nr \
    libc-right-nr thread thread-ok jit; do
	"$ATTACK" $m >/dev/null 2>&1
	echo "attack $m $?"
done
EOS

want() {	# mode, statuses
	got=$(sed -n "s/^attack $1 //p" "$T/out")
	for w in $2; do
		[ "$got" = "$w" ] && { echo "ok   $1 at level $DEPTH ($got)"; return; }
	done
	echo "FAIL $1 at level $DEPTH: status '$got', want one of: $2"; fail=1
}
attacks() {
	want own-nr 159
	want own-nr-ok 0
	want mid-insn 159
	want mid-insn-ok 0
	want libc-wrong-nr 159
	want libc-right-nr 0
	want thread 159
	want thread-ok 0
	want jit "159 3"
	n=$(grep -c '^syspin: attack\[[0-9]*\]: pinsyscalls addr 0x' "$T/out")
	[ "$n" -ge 4 ] || { echo "FAIL $n diagnostic lines, want one per kill"; fail=1; }
}

# The same shell at every level (by other names): one filter for all.
for i in $(seq 1 $DEPTH); do ln -s /bin/sh "$T/same$i"; done
SH=$T/same DEPTH=$DEPTH ATTACK=$ATTACK "$SYSPIN" run --cache-dir "$T/cache" \
    /bin/sh "$T/nest.sh" 1 >"$T/out" 2>&1
st=$?
sed 's/^/     | /' "$T/out"
[ $st = 0 ] || { echo "FAIL status $st, want 0"; fail=1; }
counts=$(sed -n 's/^level [0-9]* filters //p' "$T/out" | sort -u)
if [ "$(grep -c '^level [0-9]* filters' "$T/out")" = $DEPTH ] &&
    [ "$(echo "$counts" | wc -l)" = 1 ] && [ "$counts" = 1 ]; then
	echo "ok   $DEPTH execs of one shell share its filters ($counts)"
else
	echo "FAIL one shell: filter counts '$(echo $counts)', want 1 at all $DEPTH levels"
	fail=1
fi
attacks

# Levels pinned in the kernel (a filter more than their parent).
grown() {
	grep '^level' "$T/out" | awk 'NR == 1 { prev = $4; next }
	    $4 == prev + 1 { n++; prev = $4; next } { exit }
	    END { print n + 1 }'
}

# A different file at every level: each is pinned afresh.  With every
# site pinned (--no-reach) the filters outgrow the kernel's total.
for i in $(seq 1 $DEPTH); do cp /bin/sh "$T/sh$i"; done
SH=$T/sh DEPTH=$DEPTH ATTACK=$ATTACK "$SYSPIN" run --cache-dir "$T/cache" \
    --no-reach "$T/sh1" "$T/nest.sh" 1 >"$T/out" 2>&1
st=$?
sed 's/^/     | /' "$T/out"
[ $st = 0 ] || { echo "FAIL status $st, want 0"; fail=1; }
levels=$(grep -c '^level [0-9]* filters' "$T/out")
[ "$levels" = $DEPTH ] || { echo "FAIL $levels levels ran, want $DEPTH"; fail=1; }

# Filter counts: +1 per level while they fit, then flat.
grep '^level' "$T/out" | awk '
	NR == 1 { prev = $4; next }
	$4 == prev + 1 && !flat { grew++; prev = $4; next }
	{ if ($4 > prev + 1 || $4 < prev || (flat && $4 != prev)) bad = 1
	  if (!flat) first_flat = $2; flat = 1; prev = $4 }
	END {
		if (bad) { print "FAIL filter counts jump"; exit 1 }
		if (grew < 4) { print "FAIL only " grew " levels pinned in the kernel"; exit 1 }
		if (!flat) { print "FAIL every level fit in the kernel: nothing checked here"; exit 1 }
		print "ok   " grew + 1 " levels pinned in the kernel, checked by the supervisor from level " first_flat
	}' || fail=1
full=$(grown)

attacks

# Reachable-only pins (the default) make smaller filters: more levels fit.
SH=$T/sh DEPTH=$DEPTH ATTACK=$ATTACK "$SYSPIN" run --cache-dir "$T/cache" \
    "$T/sh1" "$T/nest.sh" 1 >"$T/out" 2>&1
st=$?
reach=$(grown)
if [ $st = 0 ] && [ "$reach" -gt "$full" ]; then
	echo "ok   reachable-only pins: $reach levels fit in the kernel," \
	    "$full with every site"
else
	echo "FAIL reachable-only pins: status $st, $reach levels fit," \
	    "$full with every site"
	sed 's/^/     | /' "$T/out"; fail=1
fi

# --audit past the limit: the checked call runs, and is reported once.
cat >"$T/audit.sh" <<'EOS'
level=$1
[ "$level" -lt "$DEPTH" ] && exec "$SH$((level + 1))" "$0" $((level + 1))
"$ATTACK" own-nr >/dev/null 2>&1
echo "attack own-nr $?"
EOS
SH=$T/sh DEPTH=$DEPTH ATTACK=$ATTACK "$SYSPIN" run --audit --cache-dir "$T/cache" \
    --no-reach "$T/sh1" "$T/audit.sh" 1 >"$T/out" 2>&1
if grep -q '^attack own-nr 0$' "$T/out" && [ "$(grep -c \
    '^syspin: audit: attack\[[0-9]*\]: .*code 59 (execve): not pinned here.*checked by the supervisor' \
    "$T/out")" = 1 ]; then
	echo "ok   --audit at level $DEPTH: the call runs, one report"
else
	echo "FAIL --audit at level $DEPTH"; sed 's/^/     | /' "$T/out"; fail=1
fi
exit $fail
