#!/bin/sh
# SPDX-License-Identifier: ISC
# ld.so run by name to run a program (`ld.so [OPTION]... PROG ARG...`):
# the kernel maps ld.so only, and ld.so maps PROG and its libraries.  They
# must be pinned as when the kernel loads PROG (start-up slots, predicted
# from ld.so's arguments; sealed at PROG's entry, which a debug register
# stops since PROG is not mapped when the image is pinned).  Before, PROG
# and libc were late code: `ld.so /bin/echo x` was killed at its first
# call.  Attacks from PROG run so are still stopped; a PROG linked at a
# fixed address cannot have a slot and is refused with one line.
# usage: ldso.sh SYSPIN ATTACK ATTACK_NOPIE
set -u
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ATTACK=$2 NOPIE=$3
LDSO=$(sed -n 's/^[[:space:]]*\(\/[^ ]*ld-linux-x86-64[^ ]*\) .*/\1/p' \
    <<EOF2
$(ldd /bin/true)
EOF2
)
T=$(mktemp -d /tmp/syspin-ldso.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
[ -x "$LDSO" ] || { echo "skip: no x86-64 ld.so found"; exit 77; }
# Where the debug registers do not stop a tracee (some virtual machines),
# PROG's entry cannot be stopped: `ld.so PROG` is refused, said in one
# line, and every case that runs PROG must be refused so.
NODR=
"$SYSPIN" run --cache-dir "$T/cache" -- "$LDSO" /bin/true >"$T/dr" 2>&1
if [ $? = 137 ] && grep -q "debug registers do not stop" "$T/dr"; then
	NODR=1
	echo "note: this machine's debug registers do not stop: ld.so PROG is refused"
fi
# refused_here: the run was refused for that reason (NODR only).
refused_here() {
	[ -n "$NODR" ] && [ "$got" = 137 ] &&
	    grep -q "debug registers do not stop" "$T/got"
}
# excused: cmp_same's pinned run was refused for that reason.
excused() {
	got=$cmp_st
	cp "$T/out.enforced" "$T/got"
	refused_here && echo "refused (no debug registers here)"
}

# same NAME ARG...: `ld.so ARG...` alike unpinned and pinned.
. "$(dirname "$0")/compare.sh"
same() {
	name=$1
	shift
	CMP_PREFIX=$LDSO CMP_DIR= CMP_STDIN=/dev/null CMP_EXCUSE=excused \
	    cmp_same "ld.so $name" "$@"
}
# pinned NAME WANT ARG...: the status of `ld.so ARG...` pinned; its
# output must match PATTERN (in $pat).
pinned() {
	name=$1 st_want=$2
	shift 2
	"$SYSPIN" run --cache-dir "$T/cache" -- "$LDSO" "$@" >"$T/got" 2>&1 \
	    </dev/null
	got=$?
	if [ $got = "$st_want" ] && { [ -z "$pat" ] ||
	    grep -Eq "$pat" "$T/got"; }; then
		echo "ok   ld.so $name (status $got)"
	elif refused_here; then
		echo "ok   ld.so $name: refused (no debug registers here)"
	else
		echo "FAIL ld.so $name: status $got, want $st_want and /$pat/:"
		sed 's/^/     | /' "$T/got" | head -8
		fail=1
	fi
}

same "/bin/echo" /bin/echo x y
same "--library-path DIR ls" --library-path "$(dirname "$(readlink -f \
    /lib/x86_64-linux-gnu/libc.so.6)")" /bin/ls /
same "--preload libz" --preload "$(ldd /bin/sh /usr/bin/gzip | grep -o \
    '/[^ ]*libz[^ ]*' | head -1)" /bin/echo pre
same "--argv0 NAME sh" --argv0 named /bin/sh -c 'echo "$0"; ls / | head -2'
same "--inhibit-cache" --inhibit-cache /bin/echo nocache
same "--verify (no run)" --verify /bin/true
# What ld.so cannot run, it says itself (status 127), pinned as not;
# a device is never opened by the supervisor.
same "a missing PROG" "$T/missing"
same "a PROG that is no ELF file" /etc/hostname
same "a device as PROG" /dev/null
"$ATTACK" own-nr >/dev/null 2>&1
[ $? = 0 ] || { echo "FAIL: the attack does not work unpinned"; fail=1; }
pat='^syspin: ld-linux[^[]*\[[0-9]+\]: pinsyscalls addr 0x[0-9a-f]+\(attack\+'
pinned "ATTACK own-nr (a raw call of its own: stopped)" 159 "$ATTACK" own-nr
pinned "ATTACK mid-insn (stopped)" 159 "$ATTACK" mid-insn
pat=
pinned "ATTACK own-nr-ok (control)" 0 "$ATTACK" own-nr-ok
pat='cannot pin: ld.so runs .*: linked at a fixed address$'
pinned "a fixed-address PROG: refused, said" 137 "$NOPIE" own-nr-ok

# PROG's and libc's code sealed at PROG's entry (where the kernel shows
# seals: VmFlags "sl").
"$SYSPIN" run --cache-dir "$T/cache" -- "$LDSO" /bin/sleep 3 &
sleep 1.5
pid=$(pgrep -n -f "^$LDSO /bin/sleep 3")
if [ -n "$NODR" ]; then
	echo "skip seals: ld.so PROG is refused here"
elif [ -z "$pid" ] || ! grep -q '^VmFlags:.* sl' "/proc/$pid/smaps"; then
	echo "skip seals: no VmFlags sl here"
else
	n=$(awk '/^[0-9a-f]+-[0-9a-f]+ r-xp .*(sleep|libc\.so)/ { m = 1; next }
	    /^[0-9a-f]+-/ { m = 0 } m && /^VmFlags:.* sl/ { n++ }
	    END { print n + 0 }' "/proc/$pid/smaps")
	if [ "$n" -ge 2 ]; then
		echo "ok   ld.so /bin/sleep: its code and libc's sealed at entry"
	else
		echo "FAIL ld.so /bin/sleep: $n of its code mappings sealed"
		grep -A0 'r-xp' "/proc/$pid/maps"
		fail=1
	fi
fi
wait
exit $fail
