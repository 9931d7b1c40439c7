#!/bin/sh
# SPDX-License-Identifier: ISC
# `syspin run` as an ordinary user (nobody): its own cache under $HOME,
# no_new_privs set (no CAP_SYS_ADMIN), real programs unchanged, attacks
# killed, and a cache directory others can write refused.  Needs root to
# switch users (setpriv); skipped (77) otherwise.  The binaries are copied
# into a directory nobody can read, since the build tree may not be.
# usage: unpriv.sh SYSPIN RUNTIME ATTACK
set -u
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "skip: needs root and setpriv"; exit 77
fi
T=$(mktemp -d /tmp/syspin-unpriv.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir -p "$T/b/cli" "$T/b/runtime" "$T/home"
cp "$1" "$T/b/cli/syspin"
cp "$2" "$T/b/runtime/libsyspin-rt.so"
cp "$3" "$T/b/attack"
chmod -R a+rX "$T/b"
chown nobody "$T/home"
chmod 700 "$T/home"
fail=0

as_nobody() {
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	    env -i PATH=/usr/bin:/bin HOME="$T/home" LC_ALL=C "$@"
}

check() {	# name, want, got
	if [ "$3" = "$2" ]; then
		echo "ok   $1 ($3)"
	else
		echo "FAIL $1: status $3, want $2"
		sed 's/^/     | /' "$T/out"
		fail=1
	fi
}

S=$T/b/cli/syspin
as_nobody "$S" run sh -c 'ls -d / /etc | sort -r; grep ^NoNewPrivs /proc/self/status' \
    >"$T/out" 2>&1
check "ls | sort as nobody" 0 $?
printf '/etc\n/\nNoNewPrivs:\t1\n' | cmp -s - "$T/out" ||
    { echo "FAIL output differs (or no_new_privs not set):"; cat "$T/out"; fail=1; }
[ -d "$T/home/.cache/syspin" ] && [ "$(stat -c %U "$T/home/.cache/syspin")" = nobody ] ||
    { echo "FAIL no cache of nobody's own in \$HOME/.cache/syspin"; fail=1; }

as_nobody "$S" run "$T/b/attack" own-nr-ok >"$T/out" 2>&1
check "control as nobody" 0 $?
as_nobody "$S" run "$T/b/attack" libc-wrong-nr >"$T/out" 2>&1
check "attack as nobody (killed)" 159 $?
# No kernel log as nobody: the supervisor's line comes from the registers.
grep -q '^syspin: attack\[[0-9]*\]: pinsyscalls addr 0x[0-9a-f]*(libc.so.6+0x[0-9a-f]*[^)]*) code 59 (execve): not pinned here' "$T/out" ||
    { echo "FAIL no exact diagnostic line as nobody:"; cat "$T/out"; fail=1; }
as_nobody "$S" run "$T/b/attack" jit >"$T/out" 2>&1
check "jit as nobody (refused)" 3 $?

# An execute-only program (root's, mode 711) makes its process one nobody
# may not read, not even as its tracer: refused with the reason, not
# with an unreadable /proc file's name.
cp /bin/echo "$T/b/xo" && chmod 711 "$T/b/xo"
as_nobody "$S" run sh -c "$T/b/xo hi" >"$T/out" 2>&1
check "an execute-only program as nobody (refused)" 137 $?
grep -q '^syspin: xo\[[0-9]*\]: cannot pin: the program is not readable by this user (execute-only)' "$T/out" ||
    { echo "FAIL no reason for the execute-only program:"; cat "$T/out"; fail=1; }

# A cache directory that others may write is refused, not used.
mkdir "$T/open" && chmod 777 "$T/open"
as_nobody "$S" run --cache-dir "$T/open" true >"$T/out" 2>&1
check "group/world-writable cache refused" 2 $?
exit $fail
