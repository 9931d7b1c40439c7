#!/bin/sh
# SPDX-License-Identifier: ISC
# The attack suite: every attack must be stopped under `syspin run` (killed
# by SIGSYS, 159; for replacing libc text, refused with EPERM, 3) and must
# succeed without it (0, or 66 when libc text was replaced), which shows the
# attack is real.  Every control must survive under `syspin run`.
# usage: attacks.sh SYSPIN ATTACK
set -u
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ATTACK=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
CACHE=$(mktemp -d /tmp/syspin-attacks.XXXXXX)
trap 'rm -rf "$CACHE"' EXIT
fail=0

run() {
	"$SYSPIN" run --cache-dir "$CACHE" "$@" >"$CACHE/out" 2>&1
}

check() {	# name expected-status-list status
	for want in $2; do
		[ "$3" = "$want" ] && { echo "ok   $1 ($3)"; return; }
	done
	echo "FAIL $1: status $3, want one of: $2"
	sed 's/^/     | /' "$CACHE/out"
	fail=1
}

kmsg=no
[ -r /dev/kmsg ] && kmsg=yes

attack() {	# mode, unpinned statuses, pinned statuses, [syspin options]
	mode=$1 base=$2 pinned=$3
	shift 3
	"$ATTACK" "$mode" >"$CACHE/out" 2>&1
	check "$mode unpinned (attack works)" "$base" $?
	run "$@" "$ATTACK" "$mode"
	st=$?
	check "$mode pinned (attack stopped)" "$pinned" $st
	# The kernel's record may be rate-limited: the line must be there,
	# with or without the address.
	if [ $st = 159 ] && ! grep -q "^syspin: attack\[[0-9]*\]: " \
	    "$CACHE/out"; then
		echo "FAIL $mode: no diagnostic line"; fail=1
	fi
}

control() {	# mode, [syspin options]
	mode=$1
	shift
	run "$@" "$ATTACK" "$mode"
	check "$mode pinned (control survives)" 0 $?
}

attack own-nr 0 159
control own-nr-ok
attack mid-insn 0 159
control mid-insn-ok
attack libc-wrong-nr 0 159
control libc-right-nr
# The setxid handler's `syscall` in libc may issue any number unless
# libc's symbols (libc6-dbg) let the analysis show which.
"$ATTACK" setxid-gadget >"$CACHE/out" 2>&1
case $? in
77) echo "skip setxid-gadget: no setxid handler found in this libc" ;;
*)	libc=/lib/x86_64-linux-gnu/libc.so.6
	id=$(readelf -n "$libc" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	if [ -f "/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" ]; then
		attack setxid-gadget 0 159
	else
		echo "skip setxid-gadget: no debug file for libc (libc6-dbg): the handler may issue any number libc issues"
	fi ;;
esac
# Reachable-only pins: this program never execs, so libc's execve stub is
# pinned for nothing in its process; with --no-reach (every site pinned)
# the same call runs.
libc=/lib/x86_64-linux-gnu/libc.so.6
sym() {
	nm -D --defined-only "$libc" |
	    sed -n "s/^\([0-9a-f]*\) . $1@@.*/\1/p" | head -1
}
ATTACK_DELTA=$((0x$(sym execve) - 0x$(sym getpid)))
export ATTACK_DELTA
attack rop-execve 0 159
run --no-reach "$ATTACK" rop-execve
check "rop-execve --no-reach (every site pinned: the call runs)" 0 $?
unset ATTACK_DELTA
attack srop 0 159
control srop-ok
# Some kernels run no 32-bit calls at all (IA-32 emulation off, or a
# hypervisor without it): int $0x80 then faults with SIGSEGV everywhere.
"$ATTACK" int80 >/dev/null 2>&1
if [ $? = 139 ]; then
	echo "skip int80: int \$0x80 faults on this machine (no IA-32 emulation)"
else
	attack int80 0 159
fi
control int80-ok
attack filter 0 159
control filter-ok
attack thread 0 159
control thread-ok
attack jit 0 "159 3"
# A refused PROT_EXEC call fails with EACCES and is explained, once.
n=$(grep -c "^syspin: attack\[[0-9]*\]: mprotect with PROT_EXEC refused: .*--allow-jit allows it" "$CACHE/out")
[ "$n" = 1 ] && echo "ok   jit: one line names --allow-jit" ||
    { echo "FAIL jit: $n lines naming --allow-jit"; sed 's/^/     | /' "$CACHE/out"; fail=1; }
run --strict /bin/sh -c 'exec /bin/true'
grep -q "^syspin: sh\[[0-9]*\]: execve of /bin/true refused: syspin run --strict allows no exec" "$CACHE/out" &&
    echo "ok   --strict: exec refused with one line" ||
    { echo "FAIL --strict exec"; sed 's/^/     | /' "$CACHE/out"; fail=1; }
# With --allow-jit the code runs, in the late-code band: no system call
# of its own.
attack jit 0 159 --allow-jit
control jit-ok --allow-jit
attack munmap 66 "159 3"
attack mapfixed 66 "159 3"
attack mremap 66 "159 3"
control remap-own
control vsyscall-ok

# The diagnostic names the number and where it is pinned (root only).  The
# kernel rate-limits its audit printks (other tests kill processes too):
# retry, and when no record ever comes, say so instead of judging the line.
diag() {	# name, pattern, command...
	name=$1 pat=$2
	shift 2
	for try in 1 2 3 4 5; do
		run "$@"
		if grep -q "$pat" "$CACHE/out"; then
			echo "ok   $name"; return
		fi
		sleep 1
	done
	# No record: the direct child's line says so, a grandchild gets none.
	if grep -q "no seccomp audit record" "$CACHE/out" ||
	    ! grep -q "^syspin: attack\[" "$CACHE/out"; then
		echo "skip $name: the kernel's audit record never came (rate limit)"
	else
		echo "FAIL $name:"; cat "$CACHE/out"; fail=1
	fi
}

if [ $kmsg = yes ]; then
	# (nowhere: the program never execs, and ld.so's exec site is not
	# pinned where ld.so is the interpreter)
	diag "diagnostic line" "pinsyscalls addr 0x[0-9a-f]*(libc.so.6+0x[0-9a-f]*[^)]*) code 59 (execve): not pinned here; execve is pinned \(at\|nowhere\)" \
	    "$ATTACK" libc-wrong-nr
	# A grandchild, reaped by the shell: the line comes from the
	# kernel's record, and the shell goes on.
	diag "diagnostic line for a grandchild" "^syspin: attack\[[0-9]*\]: pinsyscalls addr 0x[0-9a-f]*(attack+0x[0-9a-f]*[^)]*) code 59 (execve): not pinned here" \
	    sh -c "'$ATTACK' own-nr; echo shell saw \$?"
	grep -q "^shell saw 159" "$CACHE/out" ||
	    { echo "FAIL the shell did not go on"; fail=1; }
fi
exit $fail
