#!/bin/sh
# SPDX-License-Identifier: ISC
# A cache that cannot be written is no attack: a directory nobody may
# write, a HOME that does not exist (system users), none at all, a full
# file system.  Each time the program runs with its own output and status,
# syspin says once that tables are made again each run, and an attack is
# still killed.  The runtime alone (SYSPIN_SUPERVISE=0, or no ptrace),
# which reads its tables from the directory, is refused with one line, and
# so is an explicit --cache-dir that cannot be made.  First the library's side
# (test_cache_keep).  Users are switched with setpriv (root); the full
# file system is a tmpfs: each part skipped, with a message, without.
# usage: unwritable.sh SYSPIN RUNTIME ATTACK TEST_CACHE_KEEP
set -u
"$4" || exit 1
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "skip: the rest needs root and setpriv"; exit 0
fi
T=$(mktemp -d /tmp/syspin-unwritable.XXXXXX)
trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir -p "$T/b/cli" "$T/b/runtime" "$T/home" "$T/ro"
cp "$1" "$T/b/cli/syspin"
cp "$2" "$T/b/runtime/libsyspin-rt.so"
cp "$3" "$T/b/attack"
chmod -R a+rX "$T/b"
chown nobody "$T/home"
chmod 700 "$T/home"
chmod 555 "$T/ro"
S=$T/b/cli/syspin
A=$T/b/attack
fail=0

# as WHO HOME CMD...: as nobody (or root), HOME "" unset.
as() {
	who=$1 h=$2
	shift 2
	if [ "$who" = root ]; then
		set -- env -i PATH=/usr/bin:/bin LC_ALL=C ${h:+HOME=$h} "$@"
	else
		set -- setpriv --reuid=nobody --regid="$(id -g nobody)" \
		    --clear-groups env -i PATH=/usr/bin:/bin LC_ALL=C \
		    ${h:+HOME=$h} "$@"
	fi
	"$@" >"$T/out" 2>"$T/err"
}

bad() {
	echo "FAIL $1"
	sed 's/^/     out| /' "$T/out"
	sed 's/^/     err| /' "$T/err"
	fail=1
}

# name status want-status want-stdout: and stderr exactly $LINE.
clean() {
	if [ "$2" != "$3" ]; then bad "$1: status $2, want $3"
	elif [ "$(cat "$T/out")" != "$4" ]; then bad "$1: output differs"
	elif [ "$(wc -l <"$T/err")" != 1 ] || ! grep -q "$LINE" "$T/err"
	then bad "$1: stderr is not the one line: $LINE"
	else echo "ok   $1"
	fi
}

# name status: killed, the diagnostic line and $LINE once, nothing else.
killed() {
	if [ "$2" != 159 ]; then bad "$1: status $2, want 159"
	elif ! grep -q '^syspin: attack\[[0-9]*\]: pinsyscalls addr 0x[0-9a-f]*(libc.so.6+0x[0-9a-f]*[^)]*) code 59 (execve): not pinned here' "$T/err"
	then bad "$1: no diagnostic line"
	elif [ "$(grep -c "$LINE" "$T/err")" != 1 ] ||
	    [ "$(wc -l <"$T/err")" != 2 ]
	then bad "$1: not the diagnostic and the one line: $LINE"
	else echo "ok   $1"
	fi
}

# name status want-status pattern: refused with that one line.
refused() {
	if [ "$2" != "$3" ]; then bad "$1: status $2, want $3"
	elif [ -s "$T/out" ]; then bad "$1: the program ran"
	elif [ "$(wc -l <"$T/err")" != 1 ] || ! grep -q "$4" "$T/err"
	then bad "$1: stderr is not the one line: $4"
	else echo "ok   $1"
	fi
}

# The cases every cache takes: WHO HOME RUNS [--cache-dir DIR].
cases() {
	who=$1 h=$2 runs=$3
	shift 3
	for n in $runs; do
		as "$who" "$h" "$S" run "$@" sh -c 'ls -d / /etc | sort -r'
		clean "$what: ls | sort, run $n" $? 0 "$(printf '/etc\n/')"
	done
	as "$who" "$h" "$S" run "$@" "$A" libc-wrong-nr
	killed "$what: attack killed" $?
	as "$who" "$h" "$S" run "$@" --fill-cache /bin/true
	refused "$what: --fill-cache refused" $? 2 "^syspin: run: "
	as "$who" "$h" env SYSPIN_SUPERVISE=0 "$S" run "$@" /bin/true
	refused "$what: the runtime alone refused" $? 2 \
	    "^syspin: run: .*: the runtime alone (SYSPIN_SUPERVISE=0) needs a cache it can write$"
}

what="a cache dir nobody cannot write"
LINE="^syspin: $T/ro: cannot write (Permission denied): tables are made again each run$"
cases nobody "$T/home" "1 2" --cache-dir "$T/ro"
as nobody "$T/home" "$S" run --cache-dir "$T/ro" "$A" own-nr-ok
clean "$what: control" $? 0 ""
# The cache itself is as good as ever.
as nobody "$T/home" "$S" cache verify --cache-dir "$T/ro"
[ $? = 0 ] || bad "$what: cache verify"
[ -z "$(ls -A "$T/ro")" ] || bad "$what: files left in it"

# Without ptrace (a seccomp filter here; Yama or a container elsewhere)
# the runtime alone would run the program: refused, after the one line.
if command -v python3 >/dev/null; then
	cat >"$T/noptrace.py" <<'EOF'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
ins = lambda code, jt, jf, k: struct.pack("HBBI", code, jt, jf, k)
prog = b"".join([ins(0x20, 0, 0, 4), ins(0x15, 1, 0, 0xc000003e),
    ins(0x06, 0, 0, 0x7fff0000), ins(0x20, 0, 0, 0), ins(0x15, 0, 1, 101),
    ins(0x06, 0, 0, 0x00050001), ins(0x06, 0, 0, 0x7fff0000)])
buf = ctypes.create_string_buffer(prog)
class fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
p = fprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.byref(p), 0, 0):
    sys.exit("noptrace: " + os.strerror(ctypes.get_errno()))
os.execv(sys.argv[1], sys.argv[1:])
EOF
	as nobody "$T/home" python3 "$T/noptrace.py" "$S" run \
	    --cache-dir "$T/ro" /bin/echo hi
	st=$?
	if [ $st != 2 ] || [ -s "$T/out" ]; then
		bad "$what, no ptrace: status $st, want 2 and no output"
	elif [ "$(grep -c "$LINE" "$T/err")" != 1 ] ||
	    [ "$(wc -l <"$T/err")" != 2 ] ||
	    ! grep -q "^syspin: run: cannot supervise (ptrace: Operation not permitted), and the runtime alone needs a cache it can write: $T/ro: cannot write (Permission denied)$" "$T/err"
	then bad "$what, no ptrace: not the one line and the refusal"
	else echo "ok   $what, no ptrace: refused"
	fi
else
	echo "skip $what, no ptrace: no python3"
fi

what="HOME that does not exist"
LINE="^syspin: $T/nonexistent/.cache/syspin: cannot write (Permission denied): tables are made again each run$"
cases nobody "$T/nonexistent" 1
[ ! -e "$T/nonexistent" ] || bad "$what: it was made"

what="no HOME"
LINE="^syspin: no cache directory (HOME is not set): tables are made again each run$"
cases nobody "" 1

# An explicit --cache-dir that cannot be made is refused, as one whose
# parent is missing (a mistyped path is not guessed at).
as nobody "$T/home" "$S" run --cache-dir "$T/ro/cache" /bin/true
refused "--cache-dir that cannot be made" $? 2 \
    "^syspin: run: $T/ro/cache: Permission denied$"

# A full file system (as root: mount), then one with room for a few
# tables only (what fails is found while filling, not before).
mkdir "$T/full"
if mount -t tmpfs -o size=64k,mode=0755 syspin-test "$T/full" 2>"$T/err"
then
	mkdir -m 700 "$T/full/cache"
	dd if=/dev/zero of="$T/full/fill" bs=4096 2>/dev/null
	what="a full file system"
	LINE="^syspin: $T/full/cache: cannot write (No space left on device): tables are made again each run$"
	cases root "$T/home" 1 --cache-dir "$T/full/cache"
	rm -f "$T/full/fill" "$T/full/cache/"*
	dd if=/dev/zero of="$T/full/fill" bs=4096 count=10 2>/dev/null
	what="a nearly full file system"
	for n in 1 2; do
		as root "$T/home" "$S" run --cache-dir "$T/full/cache" \
		    sh -c 'ls -d / /etc | sort -r'
		clean "$what: ls | sort, run $n" $? 0 "$(printf '/etc\n/')"
	done
	as root "$T/home" "$S" run --cache-dir "$T/full/cache" "$A" \
	    libc-wrong-nr
	killed "$what: attack killed" $?
	umount "$T/full"
else
	echo "skip full file system: cannot mount a tmpfs: $(cat "$T/err")"
fi

# What the tree puts in its own cache under libc's table's name: a FIFO
# (its open blocked every later run for ever), a directory (libc was left
# with no pins).  Each is no table: made again, the run goes on.
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
key=$(stat -c 'f-%D-%i-%s' "$libc")-$(stat -c '%Y' "$libc").$(stat -c '%y' \
    "$libc" | sed 's/.*\.\([0-9]*\).*/\1/')
# %D prints the device in hex, as the cache names it
for what in fifo dir; do
	rm -rf "$T/planted"
	mkdir -p "$T/planted"
	"$S" run --cache-dir "$T/planted" true 2>/dev/null
	rm -rf "$T/planted/$key"
	if [ $what = fifo ]; then mkfifo "$T/planted/$key"; else
		mkdir "$T/planted/$key"; fi
	timeout -s KILL 60 "$S" run --cache-dir "$T/planted" \
	    sh -c 'ls -d / /etc | sort -r' >"$T/out" 2>"$T/err"
	st=$?
	if [ $st = 0 ] && [ "$(cat "$T/out")" = "$(printf '/etc\n/')" ]; then
		echo "ok   a $what under libc's table's name: the run goes on"
	else
		echo "FAIL a $what under libc's table's name: status $st"
		sed 's/^/     | /' "$T/err"; fail=1
	fi
	timeout -s KILL 60 "$S" run --cache-dir "$T/planted" "$A" \
	    libc-wrong-nr >/dev/null 2>"$T/err"
	st=$?
	if [ $st = 159 ] && grep -q '^syspin: attack\[[0-9]*\]: pinsyscalls addr .*code 59 (execve): not pinned here' "$T/err"; then
		echo "ok   a $what under libc's table's name: attack killed"
	else
		echo "FAIL a $what under libc's table's name: attack: status $st"
		sed 's/^/     | /' "$T/err"; fail=1
	fi
done
exit $fail
