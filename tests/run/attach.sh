#!/bin/sh
# SPDX-License-Identifier: ISC
# syspin run -p PID: a running process (tests/run/attachee.c, three
# threads, two blocked) pinned in place.  Before: a chain's mkdir from
# getppid's `syscall` works (the baseline).  After: every thread has the
# filter, the process serves on, cannot open the supervisor's memory
# (each thread is in the tree's Landlock domain), the same chain in it or
# in a child it forks dies, and syspin run ends with its status.  Refused (status 2,
# the process left as it was): no such process, an ancestor of syspin,
# a process already traced, one with seccomp filters of its own, another
# user's.
# usage: attach.sh SYSPIN ATTACHEE
set -u
SYS=$1 ATT=$2
D=$(mktemp -d /tmp/syspin-attach.XXXXXX)
P= S=
cleanup() {
	[ -n "$P" ] && kill -9 "$P" 2>/dev/null
	[ -n "$S" ] && kill "$S" 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

start() {	# [filter]: starts the attachee, P its pid
	rm -f "$D/fifo" "$D/out"
	mkfifo "$D/fifo"
	"$ATT" "$D/fifo" "$D/made" "$@" >"$D/out" 2>&1 &
	P=$!
	exec 7<>"$D/fifo"
	for i in $(seq 50); do
		grep -q ready "$D/out" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
ask() {		# byte: a request, then the answer's time
	printf %s "$1" >&7
	sleep 0.5
}
pinned_all() {	# every thread of P has a filter
	for i in $(seq 100); do
		all=yes
		for t in /proc/"$P"/task/*; do
			grep -q 'Seccomp_filters:[[:space:]]*[1-9]' "$t/status" \
			    2>/dev/null || all=no
		done
		[ $all = yes ] && return 0
		sleep 0.1
	done
	return 1
}

# refusals
true & dead=$!
wait $dead
"$SYS" run --cache-dir "$D/c" -p "$dead" >/dev/null 2>"$D/err"
[ $? = 2 ] && grep -q "no such process" "$D/err" &&
    ok "refused: no such process" || bad "no such process: $(cat "$D/err")"
"$SYS" run --cache-dir "$D/c" -p $$ >/dev/null 2>"$D/err"
[ $? = 2 ] && ok "refused: an ancestor of syspin" ||
    bad "an ancestor: $(cat "$D/err")"
# another user's process (root's, asked as nobody): left as it was
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	sleep 30 &
	R=$!
	chmod 755 "$D"
	mkdir -m 700 "$D/nc" && chown nobody "$D/nc"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	    "$SYS" run --cache-dir "$D/nc" -p "$R" >/dev/null 2>"$D/err"
	rc=$?
	[ $rc = 2 ] && grep -q "another user" "$D/err" &&
	    ! grep -q 'Seccomp_filters:[[:space:]]*[1-9]' /proc/"$R"/status &&
	    grep -q 'TracerPid:[[:space:]]*0$' /proc/"$R"/status &&
	    ok "refused: another user's process, left as it was" ||
	    bad "another user's: status $rc, $(cat "$D/err")"
	kill "$R"
fi
start filter || bad "the attachee did not start"
"$SYS" run --cache-dir "$D/c" -p "$P" >/dev/null 2>"$D/err"
[ $? = 2 ] && grep -q "seccomp filters of its own" "$D/err" &&
    ok "refused: seccomp filters of its own" ||
    bad "own filters: $(cat "$D/err")"
ask p
grep -q "ping 1" "$D/out" && ok "refused: left running" ||
    bad "not running after the refusal"
kill -9 "$P"; wait "$P" 2>/dev/null; P=
# an io_uring made before: its requests would run outside the domain
if start uring; then
	"$SYS" run --cache-dir "$D/c" -p "$P" >/dev/null 2>"$D/err"
	[ $? = 2 ] && grep -q "io_uring" "$D/err" &&
	    ok "refused: an io_uring of its own" ||
	    bad "an io_uring: $(cat "$D/err")"
else
	echo "skip io_uring: none here"
fi
kill -9 "$P" 2>/dev/null; wait "$P" 2>/dev/null; P=

# attached
start || bad "the attachee did not start"
ask a
if [ -d "$D/made" ]; then
	ok "unpinned: the chain's mkdir works"
	rmdir "$D/made"
else
	bad "unpinned: the chain's mkdir failed: $(cat "$D/out")"
fi
"$SYS" run --cache-dir "$D/c" -p "$P" >"$D/sys" 2>&1 &
S=$!
pinned_all && ok "every thread has the filter" ||
    bad "not every thread pinned: $(cat "$D/sys")"
"$SYS" run --cache-dir "$D/c" -p "$P" >/dev/null 2>"$D/err"
[ $? = 2 ] && grep -q "already traced" "$D/err" &&
    ok "refused: already traced" || bad "traced twice: $(cat "$D/err")"
ask p
grep -q "ping 1" "$D/out" && ok "it serves on" ||
    bad "it does not serve: $(cat "$D/out")"
# in the tree's Landlock domain: not into the supervisor's memory (root's
# CAP_SYS_PTRACE would open it)
ask m
grep -q "tracer mem refused" "$D/out" &&
    ok "the supervisor's memory: out of reach" ||
    bad "the supervisor's memory: $(grep tracer "$D/out")"
ask f
grep -q "child signal 31" "$D/out" && [ ! -d "$D/made" ] &&
    ok "a child it forks: the chain dies" ||
    bad "the child's chain: $(cat "$D/out")"
ask a
wait "$S"
rc=$?
S=
[ $rc = 159 ] && [ ! -d "$D/made" ] &&
    ok "the chain dies (syspin run: 159)" ||
    bad "the chain: status $rc, $(cat "$D/out" "$D/sys")"
P=
# a process that ends well, with another beside it (-p PID,PID): the
# first's status, once both are done
start || bad "the attachee did not start"
sleep 30 &
Z=$!
"$SYS" run --cache-dir "$D/c" -p "$P,$Z" >"$D/sys" 2>&1 &
S=$!
pinned_all || bad "not pinned"
grep -q 'Seccomp_filters:[[:space:]]*[1-9]' /proc/"$Z"/status &&
    ok "-p PID,PID: the second pinned too" || bad "-p PID,PID: $Z not pinned"
ask q
kill "$Z"
wait "$S"
rc=$?
S= P=
[ $rc = 0 ] && ok "its status (0)" || bad "status $rc: $(cat "$D/sys")"
# what it made before that no pin takes back (blind round 22): it traces
# a process outside, it holds one's /proc/PID/mem open: refused
if command -v python3 >/dev/null; then
	sleep 30 &
	Q=$!
	for how in trace mem; do
		python3 -c '
import ctypes, os, sys, time
q = int(sys.argv[2])
if sys.argv[1] == "trace":
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(0x4206, q, None, None) != 0:	# PTRACE_SEIZE
        sys.exit(1)
else:
    fd = os.open("/proc/%d/mem" % q, os.O_RDWR)
print("holding", flush=True)
time.sleep(20)' "$how" "$Q" >"$D/hold" 2>&1 &
		H=$!
		sleep 1
		if grep -q holding "$D/hold"; then
			"$SYS" run --cache-dir "$D/c" -p "$H" >/dev/null 2>"$D/err"
			[ $? = 2 ] && grep -q "traces process\|mem open" "$D/err" &&
			    ok "refused: it holds a process outside ($how)" ||
			    bad "$how of a process outside: $(cat "$D/err")"
		else
			echo "skip $how: $(cat "$D/hold")"
		fi
		kill "$H" 2>/dev/null
	done
	kill "$Q" 2>/dev/null
fi
# a process whose session keyring links the persistent keyring, where the
# cache's key is (a session of its own, not the user's): refused
if command -v python3 >/dev/null; then
	python3 -c '
import ctypes, sys, time
k = ctypes.CDLL(None).syscall
k.restype = ctypes.c_long
if k(250, 1, None) < 0 or k(250, 22, -1, -3) < 0:	# join; persistent
    sys.exit(1)
print("linked", flush=True)
time.sleep(20)' >"$D/key" 2>&1 &
	K=$!
	sleep 1
	if grep -q linked "$D/key"; then
		"$SYS" run --cache-dir "$D/c" -p "$K" >/dev/null 2>"$D/err"
		[ $? = 2 ] && grep -q "reaches the key" "$D/err" &&
		    ok "refused: its keyrings reach the cache's key" ||
		    bad "a keyring with the key: $(cat "$D/err")"
	else
		echo "skip keyrings: no persistent keyring here"
	fi
	kill "$K" 2>/dev/null
fi
exit $fail
