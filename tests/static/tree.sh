#!/bin/sh
# SPDX-License-Identifier: ISC
# Every image of a supervised tree is pinned: a shell script starting static
# and dynamic children, with and without `env -i` (LD_PRELOAD gone), shows
# a filter of their own in every process (Seccomp 2, one filter more than
# the shell), and a child issuing a system call its image does not pin
# there dies (159), whichever way it was started.  The supervisor's death
# kills the tree (PTRACE_O_EXITKILL), even a process stopped at a
# violation, whose call then never runs.
# A non-PIE static image exec'ing another one lands where the first was:
# the first one's filter (which cannot be removed) sees calls at addresses
# it pinned for its own code; the second one runs under its own pins all
# the same (Free Pascal's fpc -> ppcx64 does this).
# usage: tree.sh SYSPIN SATTACK_STATIC SATTACK_STATIC_PIE ATTACK SATTACK_O0
set -u
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
SYSPIN=$(abs "$1") SA=$(abs "$2") SP=$(abs "$3") ATTACK=$(abs "$4")
SA0=$(abs "$5")
T=$(mktemp -d /tmp/syspin-tree.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0

bad() {
	echo "FAIL $1"
	sed 's/^/     | /' "$T/out"
	fail=1
}

# Each line: "NAME FILTERS" for one process of the tree.
cat >"$T/tree.sh" <<'EOS'
f() { echo "$1 $(sed -n 's/^Seccomp_filters:	//p' "$2")" \
    "$(sed -n 's/^Seccomp:	//p' "$2")"; }
f sh /proc/$$/status
grep -h Seccomp /proc/self/status | tr '\n' ' ' | sed 's/^/grep: /'; echo
env -i /bin/grep -h Seccomp /proc/self/status | tr '\n' ' ' | sed 's/^/env-i-grep: /'; echo
"$SA" ok | tr '\n' ' ' | sed 's/^/static: /'; echo
env -i "$SP" ok | tr '\n' ' ' | sed 's/^/env-i-static-pie: /'; echo
sh -c '"$SA" ok' | tr '\n' ' ' | sed 's/^/sh-static: /'; echo
"$SA" attack; echo "static-attack $?"
env -i "$SP" attack; echo "env-i-static-pie-attack $?"
env -i "$ATTACK" libc-wrong-nr; echo "env-i-dynamic-attack $?"
sh -c '"$SA" ok && env -i "$SA" attack'; echo "nested-attack $?"
"$SA" exec "$SA0" ok | tr '\n' ' ' | sed 's/^/same-address: /'; echo
"$SA" exec "$SA0" attack; echo "same-address-attack $?"
EOS
export SA SP ATTACK SA0
"$SYSPIN" run --cache-dir "$T/cache" /bin/sh "$T/tree.sh" >"$T/out" 2>&1
st=$?
[ $st = 0 ] || bad "tree: status $st"
sh_f=$(sed -n 's/^sh \([0-9]*\) 2$/\1/p' "$T/out")
[ -n "$sh_f" ] || bad "the shell is not pinned"
# Every process has Seccomp 2 and more filters than the shell.
for who in grep env-i-grep static env-i-static-pie sh-static same-address; do
	line=$(grep "^$who: " "$T/out")
	n=$(echo "$line" | sed -n 's/.*Seccomp_filters:	\([0-9]*\).*/\1/p')
	if echo "$line" | grep -q 'Seccomp:	2' && [ -n "$n" ] &&
	    [ "$n" -gt "${sh_f:-99}" ]; then
		echo "ok   $who: pinned ($n filters, the shell $sh_f)"
	else
		bad "$who: not pinned afresh ($line)"
	fi
done
for who in static-attack env-i-static-pie-attack env-i-dynamic-attack \
    nested-attack same-address-attack; do
	if grep -q "^$who 159$" "$T/out"; then
		echo "ok   $who: killed (159)"
	else
		bad "$who: not killed"
	fi
done
n=$(grep -c '^syspin: .*pinsyscalls addr .*: not pinned here' "$T/out")
[ "$n" = 5 ] && echo "ok   5 diagnostic lines" || bad "$n diagnostic lines, want 5"

# The supervisor dies: the whole tree dies with it.
"$SYSPIN" run --cache-dir "$T/cache" /bin/sh -c 'echo $$ >"$0"; exec sleep 30' \
    "$T/pid" >"$T/out" 2>&1 &
sup=$!
for i in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/pid" ] && break; sleep 0.2; done
kill -9 $sup
wait $sup 2>/dev/null
sleep 0.3
# Dead: gone, or a zombie its new parent (pid 1) has yet to reap.
dead() {
	! grep -q '^State:	[^Z]' "/proc/$1/status" 2>/dev/null
}
if [ -s "$T/pid" ] && dead "$(cat "$T/pid")"; then
	echo "ok   supervisor killed: the tree is gone"
else
	bad "a process outlived its supervisor"
fi

# Stopped at a violation when the supervisor dies: the call never runs.
"$SYSPIN" run --cache-dir "$T/cache" "$SA" mkdir 1 "$T/made" \
    >"$T/out" 2>&1 &
sup=$!
kill -STOP $sup
sleep 2
kill -9 $sup
wait $sup 2>/dev/null
sleep 0.3
if [ ! -d "$T/made" ] && ! pgrep -r RSDT -f "$SA mkdir" >/dev/null; then
	echo "ok   violation pending, supervisor killed: killed, no mkdir"
else
	bad "the violating call ran or the process survived"
	pkill -9 -f "$SA mkdir"
fi
exit $fail
