#!/bin/sh
# SPDX-License-Identifier: ISC
# A 32-bit (i386) program exec'd in a pinned tree cannot be pinned (syspin
# pins x86-64 code), and it can still trap from its own memory in 64-bit
# mode (elf32.py), where no image's filter pins anything.  So it is killed
# before its first instruction, with one line saying why; under --audit it
# runs unpinned and the line says so.  (ldd runs /lib/ld-linux.so.2 so on
# machines with libc6-i386: it was killed with "no AT_ENTRY".)
# usage: foreign.sh SYSPIN ELF32PY
set -u
SYSPIN=$1
T=$(mktemp -d /tmp/syspin-foreign.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
python3 "$2" "$T/p32" "$T/mark" && chmod +x "$T/p32" || exit 1

# run MODE...: the program from a pinned shell; sets st, lines, made.
run() {
	rm -rf "$T/mark"
	"$SYSPIN" run "$@" --cache-dir "$T/cache" -- sh -c '"$0"; echo "st=$?"' \
	    "$T/p32" >"$T/out" 2>"$T/err" </dev/null
	st=$(sed -n 's/^st=//p' "$T/out")
	lines=$(grep -c '^syspin: ' "$T/err")
	made=no
	[ -d "$T/mark" ] && made=yes
}
check() {	# what, condition...
	what=$1
	shift
	if "$@"; then
		echo "ok   $what"
	else
		echo "FAIL $what: status $st, mark made: $made, syspin said:"
		sed 's/^/     | /' "$T/err"
		fail=1
	fi
}

"$T/p32"
st=$?
if [ $st != 3 ] || [ ! -d "$T/mark" ]; then
	echo "skip: the 32-bit program does not run here (status $st):" \
	    "no IA-32 emulation"
	exit 77
fi

want='^syspin: p32\[[0-9]*\]: cannot pin: a 32-bit \(i386\) program: '
want="${want}syspin pins x86-64 programs only\$"
run
check "enforced: killed before its first instruction, one line" \
    sh -c '[ "$0" = 137 ] && [ "$1" = no ] && [ "$2" = 1 ] &&
    grep -Eq "$3" "$4"' "$st" "$made" "$lines" "$want" "$T/err"
run --audit
want='^syspin: audit: p32\[[0-9]*\]: cannot pin: a 32-bit \(i386\) '
want="${want}program: .* it runs unpinned \\(killed without --audit\\)\$"
check "--audit: runs unpinned, one line" \
    sh -c '[ "$0" = 3 ] && [ "$1" = yes ] && [ "$2" = 1 ] &&
    grep -Eq "$3" "$4"' "$st" "$made" "$lines" "$want" "$T/err"
if [ -x /lib/ld-linux.so.2 ] && command -v ldd >/dev/null; then
	"$SYSPIN" run --cache-dir "$T/cache" -- ldd /bin/true >"$T/out" 2>&1
	st=$? made=n/a
	check "ldd (probes /lib/ld-linux.so.2): runs" \
	    sh -c '[ "$0" = 0 ] && grep -q libc.so.6 "$1"' "$st" "$T/out"
fi
exit $fail
