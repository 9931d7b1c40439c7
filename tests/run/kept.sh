#!/bin/sh
# SPDX-License-Identifier: ISC
# syspin run -p and what a process made before it (blind round 23,
# tests/run/kept.c): each works unpinned; attached, it is refused with
# status 2 and the process goes on as it was (an executable mapping
# that grows down, READ_IMPLIES_EXEC, /proc/PID/mem of a process outside
# held through another procfs mount, a main thread in vfork, a seccomp
# listener of a process outside, a thread keyring that links the
# persistent keyring where the cache's key is, a process outside sharing
# its memory, a userfaultfd, a thread with a descriptor table of its
# own, a descriptor set to signal SIGQUIT on I/O or on a change in a
# directory, with or without O_ASYNC, a descriptor in flight in a socket
# of its own, in a message of no bytes too, an exit signal SIGQUIT to its
# parent outside, another process's environ and maps held), or the
# attach goes on and what it made is of no use (an io_uring registered
# and its descriptor closed: ENOSYS; a request armed in it: cancelled); under --exec=trusted a library
# written after the process started is refused, one older is not.
# usage: kept.sh SYSPIN KEPT ATTACHEE
set -u
SYS=$1 KEPT=$2 ATT=$3
D=$(mktemp -d /tmp/syspin-kept.XXXXXX)
P= S= V= M=
cleanup() {
	[ -n "$P" ] && kill -9 "$P" 2>/dev/null
	[ -n "$S" ] && kill "$S" 2>/dev/null
	[ -n "$V" ] && kill "$V" 2>/dev/null
	[ -n "$M" ] && umount "$M" 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

start() {	# MODE [ARG]: P its pid, fd 7 its fifo
	rm -f "$D/fifo" "$D/out"
	mkfifo "$D/fifo"
	"$KEPT" "$1" "$D/fifo" ${2:-} >"$D/out" 2>&1 &
	P=$!
	exec 7<>"$D/fifo"
	for i in $(seq 50); do
		grep -q ready "$D/out" 2>/dev/null && return 0
		sleep 0.1
	done
	wait "$P"
	rc=$?
	P=
	return $rc
}
ask() { printf %s "$1" >&7; sleep 0.3; }
# syspin run [OPTION] -p P in the background (S), until P is filtered
attach_bg() {
	timeout 20 "$SYS" run --cache-dir "$D/c" ${1:-} -p "$P" >"$D/sys" 2>&1 &
	S=$!
	for i in $(seq 50); do
		grep -q 'Seccomp:[[:space:]]*2' /proc/"$P"/status && break
		sleep 0.1
	done
}
stop() { ask q; wait "$P"; st=$?; P=; }

# refused: MODE [ARG] WHAT: status 2 with WHAT said; it serves on.
refused() {
	timeout 20 "$SYS" run --cache-dir "$D/c" -p "$P" >/dev/null 2>"$D/err"
	rc=$?
	ask p
	if [ $rc = 2 ] && grep -q "$2" "$D/err" && grep -q ping "$D/out" &&
	    grep -q 'TracerPid:[[:space:]]*0$' /proc/"$P"/status; then
		ok "$1: refused, left as it was"
	else
		bad "$1: status $rc, $(cat "$D/err" "$D/out")"
	fi
	stop
}

# the cache and its key made (the keyring case looks for the key)
"$SYS" run --cache-dir "$D/c" /bin/true || bad "syspin run /bin/true"
if start growsdown; then
	ask g
	grep -q grown "$D/out" && ok "growsdown: grows unpinned" ||
	    bad "growsdown: baseline $(cat "$D/out")"
	refused growsdown "grows down"
else
	bad "growsdown: did not start"
fi
if start rie; then
	ask g
	grep -q "mapped r.x" "$D/out" && ok "rie: reading implies exec unpinned" ||
	    bad "rie: baseline $(cat "$D/out")"
	refused rie READ_IMPLIES_EXEC
else
	bad "rie: did not start"
fi
if start listener; then
	refused listener "seccomp listener"
else
	bad "listener: did not start"
fi
if start clonevm; then
	refused clonevm "shares the memory"
	pkill -KILL -P $$ -x kept 2>/dev/null	# the sibling: ours
else
	bad "clonevm: did not start"
fi
start uffd
case $? in
0)	refused uffd "userfaultfd" ;;
77)	echo "skip uffd: no userfaultfd for us here" ;;
*)	bad "uffd: did not start" ;;
esac
mkdir "$D/dn"
for m in files async inflight owner sigonly dnotify inflight0; do
	if start $m "$D/dn"; then
		case $m in
		files) refused $m "descriptor table of its own" ;;
		async|owner|sigonly|dnotify)
			refused $m "dumps core, to whom F_SETOWN" ;;
		inflight) refused $m "something queued" ;;
		inflight0) refused $m "a message queued" ;;
		esac
	else
		bad "$m: did not start"
	fi
done
# its exit signal, SIGQUIT, goes to its parent outside (round 24)
if start exitsig; then
	PP=$P
	P=$(sed -n 's/^ready //p' "$D/out")
	refused exitsig "exit signal"
	P=$PP
	stop
	[ "$st" = 0 ] && ok "exitsig: ends as it would have (0)" ||
	    bad "exitsig: status $st"
else
	bad "exitsig: did not start"
fi
# an owner outside set before, no signal chosen (SIGIO), O_ASYNC set
# after: the owner is set again inside the domain, so --scope=signals
# keeps SIGIO from the process outside (round 24); unpinned it dies
for how in none scope; do
	sleep 30 &
	V=$!
	if start ownout "$V"; then
		if [ $how = scope ]; then
			attach_bg --scope=signals
		fi
		ask g
		sleep 0.3
		if [ $how = none ]; then
			kill -0 "$V" 2>/dev/null &&
			    bad "ownout: baseline: SIGIO did not reach $V" ||
			    ok "ownout: unpinned, SIGIO reaches the owner"
		else
			kill -0 "$V" 2>/dev/null &&
			    ok "ownout: --scope=signals keeps SIGIO inside" ||
			    bad "ownout: SIGIO reached the process outside:" \
			    "$(cat "$D/out" "$D/sys")"
		fi
		stop
		[ -n "$S" ] && { wait "$S"; S=; }
	else
		bad "ownout: did not start"
	fi
	kill "$V" 2>/dev/null
	V=
done
# another process's environment and mappings held open through /proc
sleep 30 &
V=$!
for f in environ maps; do
	if start procmem /proc/"$V"/$f; then
		refused "procmem $f" "a process outside in /proc"
	else
		bad "procmem $f: did not start"
	fi
done
# a namespace it is not in, held (setns would join it): one of its own
# in another mount namespace made for the check (root)
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	unshare -m sleep 30 &
	W=$!
	sleep 0.3
	if start procmem /proc/"$W"/ns/mnt; then
		refused "procmem ns/mnt" "a namespace it is not in"
	else
		bad "procmem ns/mnt: did not start"
	fi
	kill "$W"
else
	echo "skip procmem ns/mnt: not root, or no unshare"
fi
kill "$V"
V=
start keythread
case $? in
0)	refused keythread "reaches the key" ;;
77)	echo "skip keythread: no persistent keyring here" ;;
*)	bad "keythread: did not start" ;;
esac
# a main thread in vfork does not stop: refused after 2 s, and alive
if start vfork; then
	timeout 20 "$SYS" run --cache-dir "$D/c" -p "$P" >/dev/null 2>"$D/err"
	rc=$?
	sleep 0.5
	if [ $rc = 2 ] && kill -0 "$P" 2>/dev/null; then
		ok "vfork: refused ($(sed 's/^syspin: //' "$D/err")), alive"
	else
		bad "vfork: status $rc, alive: $(kill -0 "$P" 2>&1 && echo yes)"
	fi
	sleep 3
	stop
	[ "$st" = 0 ] && ok "vfork: ends as it would have (0)" ||
	    bad "vfork: status $st"
fi
# another procfs mount's /proc/PID/mem of a process outside (root)
if [ "$(id -u)" = 0 ] && mkdir "$D/proc" && mount -t proc proc "$D/proc" \
    2>/dev/null; then
	M=$D/proc
	sleep 30 &
	V=$!
	if start procmem "$M/$V/mem"; then
		refused procmem "a process outside in /proc"
	else
		bad "procmem: did not start"
	fi
	umount "$M" && M=
	kill "$V"
	V=
else
	echo "skip procmem: cannot mount procfs"
fi
# a ring registered and its descriptor closed: entered before, not after
start uring
case $? in
0)	ask g
	grep -q "^enter 0 " "$D/out" && ok "uring: entered unpinned" ||
	    bad "uring: baseline $(cat "$D/out")"
	attach_bg
	ask g
	grep -q "^enter -1 38" "$D/out" &&
	    ok "uring: attached, entering it is ENOSYS" ||
	    bad "uring: after the attach $(cat "$D/out" "$D/sys")"
	stop
	wait "$S"
	rc=$?
	S=
	[ $rc = 0 ] && ok "uring: syspin run -p ends with it (0)" ||
	    bad "uring: syspin run -p status $rc: $(cat "$D/sys")"
	;;
77)	echo "skip uring: no IORING_SETUP_NO_MMAP or registered rings here" ;;
*)	bad "uring: did not start" ;;
esac
# a ring hidden with a request armed before: a poll linked to an openat
# with a personality of before (no domain) of another's environ; the
# attach cancels it (round 24); unpinned the write opens it
sleep 30 &
V=$!
for how in none attach; do
	start uringarm /proc/"$V"/environ
	case $? in
	0)	if [ $how = attach ]; then
			attach_bg
		fi
		ask g
		sleep 0.3
		if [ $how = none ]; then
			grep -q "^opened" "$D/out" &&
			    ok "uringarm: unpinned, the armed openat runs" ||
			    bad "uringarm: baseline $(cat "$D/out")"
		else
			grep -q "^not opened" "$D/out" &&
			    ok "uringarm: attached, the armed openat is gone" ||
			    bad "uringarm: after the attach $(cat "$D/out" \
			    "$D/sys")"
		fi
		stop
		[ -n "$S" ] && { wait "$S"; S=; }
		;;
	77)	echo "skip uringarm: no IORING_SETUP_NO_MMAP or registered" \
		    "rings here" ;;
	*)	bad "uringarm: did not start" ;;
	esac
done
kill "$V"
V=
# --exec=trusted: code files judged against when the process started
if [ "$(id -u)" = 0 ]; then
	mkfifo "$D/fifo2"
	# (a file changed within 3 s of the start counts as changed after)
	age=$(( $(date +%s) - $(stat -c %Z "$ATT") ))
	[ "$age" -lt 5 ] && sleep $((5 - age))
	"$ATT" "$D/fifo2" "$D/made" >/dev/null 2>&1 &
	A=$!
	sleep 0.3
	timeout 20 "$SYS" run --cache-dir "$D/c" --exec=trusted -p "$A" >/dev/null \
	    2>"$D/err" &
	S=$!
	sleep 1
	if kill -0 "$S" 2>/dev/null; then
		ok "--exec=trusted: a program older than its process: attached"
	else
		bad "--exec=trusted, older: $(cat "$D/err")"
	fi
	kill -9 "$A"
	wait "$S" 2>/dev/null
	S=
	cp "$ATT" "$D/young"
	"$D/young" "$D/fifo2" "$D/made" >/dev/null 2>&1 &
	A=$!
	sleep 0.3
	touch "$D/young"
	timeout 20 "$SYS" run --cache-dir "$D/c" --exec=trusted -p "$A" >/dev/null \
	    2>"$D/err"
	rc=$?
	[ $rc = 2 ] && grep -q "not a trusted file" "$D/err" &&
	    kill -0 "$A" 2>/dev/null &&
	    ok "--exec=trusted: a program changed since its process started: refused" ||
	    bad "--exec=trusted, changed: status $rc, $(cat "$D/err")"
	kill -9 "$A"
fi
exit $fail
