#!/bin/sh
# SPDX-License-Identifier: ISC
# Static programs under `syspin run` (no LD_PRELOAD: pinned from outside by
# the supervisor, lib/supervise): glibc -static, -static-pie, musl -static
# and Go.  Each runs pinned with the same output and status as unpinned and
# shows a seccomp filter of its own; a raw system call from a site not
# pinned for it is killed before it runs (the directory it would create
# does not exist), with the exact diagnostic line, also as nobody (no
# kernel log).  Without ptrace (SYSPIN_SUPERVISE=0) a static program is
# refused, never run unpinned.
# usage: static.sh SYSPIN RUNTIME PROGRAM...   (sattack_*, swork_*, *gosys)
set -u
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
SYSPIN=$(abs "$1") RT=$(abs "$2")
shift 2
T=$(mktemp -d /tmp/syspin-static.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
fail=0

run() {
	"$SYSPIN" run --cache-dir "$T/cache" "$@"
}

bad() {
	echo "FAIL $1"; shift
	for f in "$@"; do sed 's/^/     | /' "$f"; done
	fail=1
}

# The same output (thread ids aside) and status, pinned and not.
same() {	# name, program...
	name=$1
	shift
	"$@" 2>&1 | sed 's/tid [0-9]*/tid N/' >"$T/want"
	st0=$?
	run "$@" 2>&1 | sed 's/tid [0-9]*/tid N/' >"$T/got"
	st1=$?
	if [ $st0 = $st1 ] && cmp -s "$T/want" "$T/got"; then
		echo "ok   $name: same output pinned ($(head -1 "$T/got"))"
	else
		bad "$name: output or status differs ($st0 / $st1)" "$T/want" \
		    "$T/got"
	fi
}

attack() {	# name, sattack
	"$2" ok >"$T/out" 2>&1
	grep -q '^Seccomp:	0' "$T/out" || bad "$1: filtered unpinned" "$T/out"
	run "$2" ok >"$T/out" 2>&1 || bad "$1: ok pinned failed" "$T/out"
	# One filter: the image's own, the guard's rules folded in.
	if grep -q '^Seccomp:	2' "$T/out" &&
	    [ "$(sed -n 's/^Seccomp_filters:	//p' "$T/out")" -ge 1 ]; then
		echo "ok   $1: pinned (its own filter)"
	else
		bad "$1: no filter of its own" "$T/out"
	fi
	"$2" mkdir 0 "$T/made" >"$T/out" 2>&1
	[ -d "$T/made" ] || bad "$1: the attack does not work unpinned" \
	    "$T/out"
	rmdir "$T/made" 2>/dev/null
	run "$2" mkdir 0 "$T/made" >"$T/out" 2>&1
	st=$?
	if [ $st = 159 ] && [ ! -d "$T/made" ] && grep -q "^syspin: $(basename \
	    "$2")\[[0-9]*\]: pinsyscalls addr 0x[0-9a-f]*($(basename \
	    "$2")+0x[0-9a-f]*[^)]*) code 83 (mkdir): not pinned here" "$T/out"; then
		echo "ok   $1: raw mkdir from the getpid site killed (159)"
	else
		bad "$1: attack not stopped as expected (status $st)" "$T/out"
	fi
}

for p in "$@"; do
	p=$(abs "$p")
	case $(basename "$p") in
	sattack_*) attack "$(basename "$p")" "$p" ;;
	swork_*) same "$(basename "$p")" "$p" ;;
	*gosys) same "go" "$p"; same "go setuid (all-threads replay)" "$p" \
	    setuid ;;
	esac
done

# As nobody: no kernel log, the line still exact.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$T/b/cli" "$T/b/runtime" "$T/home"
	cp "$SYSPIN" "$T/b/cli/syspin"
	cp "$RT" "$T/b/runtime/libsyspin-rt.so"
	for p in "$@"; do
		case $(basename "$p") in sattack_glibc) cp "$p" "$T/b/sa" ;; esac
	done
	chmod -R a+rX "$T/b"
	chown nobody "$T/home"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	    env -i PATH=/usr/bin:/bin HOME="$T/home" "$T/b/cli/syspin" run \
	    "$T/b/sa" mkdir 0 "$T/home/made" >"$T/out" 2>&1
	st=$?
	if [ $st = 159 ] && [ ! -d "$T/home/made" ] && grep -q \
	    '^syspin: sa\[[0-9]*\]: pinsyscalls addr .* code 83 (mkdir): not pinned here' \
	    "$T/out"; then
		echo "ok   as nobody: killed, exact line without the kernel log"
	else
		bad "as nobody: status $st" "$T/out"
	fi
fi

# Without the supervisor a static program cannot be pinned: refused.
for p in "$@"; do
	case $(basename "$p") in sattack_glibc) sa=$(abs "$p") ;; esac
done
SYSPIN_SUPERVISE=0 run "$sa" ok >"$T/out" 2>&1
st=$?
[ $st = 2 ] && ! grep -q '^ok' "$T/out" &&
    echo "ok   unsupervised: static refused (2)" ||
    bad "unsupervised static: status $st" "$T/out"
exit $fail
