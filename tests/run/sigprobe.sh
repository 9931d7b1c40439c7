#!/bin/sh
# SPDX-License-Identifier: ISC
# A process of the tree that sandboxed itself (Landlock's signal scope;
# as root, CAP_KILL dropped) and answers the supervisor's signal-0 check
# of its permission with its own filter cannot have the supervisor send a
# core-dumping signal for it (blind round 21: five calls, every mode).
# Each case also runs unpinned (its sandbox holds there), and the
# controls check that a process with no filter of its own still dumps
# another's core, pinned as unpinned.  (As nobody: checked by hand, the
# escape battery runs its programs from a copy nobody can read.)
#
# usage: sigprobe.sh SYSPIN SIGPROBE
set -u
SYS=$1 PROBE=$2
CACHE=$(mktemp -d /tmp/syspin-sigprobe.XXXXXX)
trap 'rm -rf "$CACHE"' EXIT
fail=0
unpinned() { "$PROBE" "$@" >/dev/null 2>&1; echo $?; }
pinned() { "$SYS" run --cache-dir "$CACHE" "$PROBE" "$@" >/dev/null 2>&1; echo $?; }
expect() {	# what got want
	if [ "$2" = 77 ]; then
		echo "skip $1: this kernel cannot make the sandbox"
	elif [ "$2" = "$3" ]; then
		echo "ok   $1"
	else
		echo "FAIL $1: status $2, want $3 (0 the victim died, 1 alive)"
		fail=1
	fi
}
sandboxes=scope
[ "$(id -u)" = 0 ] && sandboxes="scope cap"
for how in kill tkill tgkill pidfd sigqueue; do
	for sb in $sandboxes; do
		expect "$how $sb unpinned, own filter" "$(unpinned $how 1 $sb)" 1
		expect "$how $sb pinned" "$(pinned $how 0 $sb)" 1
		expect "$how $sb pinned, own filter" "$(pinned $how 1 $sb)" 1
	done
	expect "$how control unpinned" "$(unpinned $how 0 none)" 0
	expect "$how control pinned" "$(pinned $how 0 none)" 0
done
exit $fail
