#!/bin/sh
# SPDX-License-Identifier: ISC
# Separate debug files (lib/elf/debugfile.c).  A stripped copy of the
# symbol fixture, with its .symtab installed apart as DIR/.build-id/xx/
# yyyy.debug, must infer what the data objects' extents prove exactly like
# the original (a global nothing writes, a pointer published through a
# global); without the debug file (or with another build's under its
# name) that inference gives up (any number), as it must.  (Function
# names are not taken from debug files: the runtime models that need
# them stay the original's.)  And where this machine has
# libc's debug file (Debian's libc6-dbg), the setxid signal handler's
# number, read through the global pointer __nptl_setxid publishes, is the
# setxid family: libc has no site left that may issue any number.
# usage: debugfile.sh SYSPIN FX_SYMBOLS OTHER_FIXTURE
set -u
SYSPIN=$1 FX=$2 OTHER=$3
T=$(mktemp -d /tmp/syspin-debugfile.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0

id_of() { readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -1; }
scan() {	# dir file: the site lines
	SYSPIN_DEBUG_DIR=$1 "$SYSPIN" scan "$2" | grep '^  0x'
}

id=$(id_of "$FX")
[ -n "$id" ] || { echo "FAIL no build-id in $FX"; exit 1; }
dir=$T/debug/.build-id/$(echo "$id" | cut -c1-2)
mkdir -p "$dir"
objcopy --only-keep-debug "$FX" "$dir/$(echo "$id" | cut -c3-).debug"
strip -o "$T/stripped" "$FX"

scan "" "$FX" >"$T/orig"
scan "$T/debug" "$T/stripped" >"$T/with"
scan "" "$T/stripped" >"$T/without"
# The sites data objects decide: the constant global and the published
# pointer, at the same addresses as in the original.
objs='constant    72 fcntl$\|callers     105 setuid, 106 setgid$'
grep "$objs" "$T/orig" >"$T/orig.objs"
grep "$objs" "$T/with" >"$T/with.objs"
if [ "$(wc -l <"$T/orig.objs")" = 3 ] && cmp -s "$T/orig.objs" "$T/with.objs"; then
	echo "ok   stripped + debug file: what data objects prove, as the original"
else
	echo "FAIL stripped + debug file differs from the original:"
	diff "$T/orig.objs" "$T/with.objs" | sed 's/^/     | /'; fail=1
fi
n=$(grep -c 'callers     105 setuid, 106 setgid$' "$T/with")
[ "$n" = 2 ] && echo "ok   published pointer resolved (2 sites)" ||
    { echo "FAIL $n sites resolved through the published pointer, want 2"; fail=1; }
if grep -q 'callers     105 setuid, 106 setgid$' "$T/without" &&
    ! grep -q 'unresolved' "$T/without"; then
	echo "FAIL without symbols the published pointer cannot be shown"; fail=1
else
	echo "ok   without the debug file: unresolved"
fi

# Another build's debug file under this build-id's name: not used.
objcopy --only-keep-debug "$OTHER" "$dir/$(echo "$id" | cut -c3-).debug"
scan "$T/debug" "$T/stripped" >"$T/other"
if cmp -s "$T/without" "$T/other"; then
	echo "ok   a debug file of another build is ignored"
else
	echo "FAIL a debug file of another build was used"; fail=1
fi

libc=/lib/x86_64-linux-gnu/libc.so.6
lid=$(id_of "$libc")
if [ -n "$lid" ] && [ -f "/usr/lib/debug/.build-id/$(echo "$lid" | cut -c1-2)/$(echo "$lid" | cut -c3-).debug" ]; then
	"$SYSPIN" scan "$libc" >"$T/libc"
	setxid='callers     105 setuid, 106 setgid, 113 setreuid, 114 setregid, 116 setgroups, 117 setresuid, 119 setresgid$'
	n=$(grep -c "$setxid" "$T/libc")
	u=$(grep -c ' unresolved ' "$T/libc")
	if [ "$n" -ge 2 ] && [ "$u" = 0 ]; then
		echo "ok   libc with libc6-dbg: the setxid handler issues the setxid family; nothing unresolved"
	else
		echo "FAIL libc with its debug file: $n setxid sites, $u unresolved"
		grep ' unresolved ' "$T/libc" | sed 's/^/     | /'; fail=1
	fi
	SYSPIN_DEBUG_DIR= "$SYSPIN" scan "$libc" | grep -c ' unresolved ' >"$T/n"
	[ "$(cat "$T/n")" = 1 ] && echo "ok   libc without it: the handler stays unresolved" ||
	    { echo "FAIL libc without its debug file: $(cat "$T/n") unresolved, want 1"; fail=1; }
else
	echo "skip libc: no debug file for $libc (libc6-dbg)"
fi
exit $fail
