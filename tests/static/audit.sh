#!/bin/sh
# SPDX-License-Identifier: ISC
# `syspin run --audit`: nothing is killed; every violation is reported once
# per (program, number, site), with the diagnostic line, however often it
# happens and in however many processes (a static PIE lands elsewhere each
# time: sites are object+offset).  Enforcing, the same programs die.
# usage: audit.sh SYSPIN SATTACK_STATIC SATTACK_STATIC_PIE ATTACK
set -u
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
SYSPIN=$(abs "$1") SA=$(abs "$2") SP=$(abs "$3") ATTACK=$(abs "$4")
T=$(mktemp -d /tmp/syspin-audit.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0

check() {	# name, want status, want audit lines, status
	n=$(grep -c '^syspin: audit: .*pinsyscalls addr .* (program /' "$T/out")
	if [ "$4" = "$2" ] && [ "$n" = "$3" ]; then
		echo "ok   $1 ($4, $n report lines)"
	else
		echo "FAIL $1: status $4 (want $2), $n report lines (want $3)"
		sed 's/^/     | /' "$T/out"
		fail=1
	fi
}

au() {
	"$SYSPIN" run --audit --cache-dir "$T/cache" "$@" >"$T/out" 2>&1
}

au "$SA" attack2
check "three violations, three sites" 0 3 $?
grep -q '^survived' "$T/out" || { echo "FAIL attack2 did not survive"; fail=1; }
au "$SA" loop
check "one violation 1000 times" 0 1 $?
au /bin/sh -c '"$0" loop; "$0" loop; env -i "$0" loop' "$SP"
check "static PIE, three processes" 0 1 $?
au /bin/sh -c '"$0" libc-wrong-nr; "$0" libc-wrong-nr' "$ATTACK"
check "dynamic, two processes" 0 1 $?
grep -q 'code 59 (execve): not pinned here' "$T/out" ||
    { echo "FAIL no execve line"; fail=1; }
# Without IA-32 emulation int $0x80 faults (SIGSEGV) before any filter.
"$SA" int80 >/dev/null 2>&1
if [ $? = 139 ]; then
	echo "skip int 0x80: it faults on this machine (no IA-32 emulation)"
else
	au "$SA" int80
	check "int 0x80" 0 1 $?
fi
"$SYSPIN" run --cache-dir "$T/cache" "$SA" attack2 >"$T/out" 2>&1
check "enforcing, the same program" 159 0 $?
exit $fail
