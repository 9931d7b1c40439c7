#!/bin/sh
# SPDX-License-Identifier: ISC
# Programs that make code at run time or dlopen what they call syscall()
# from: each case is skipped when its program is absent.
# - node without --allow-jit: one line saying that --allow-jit allows it
#   (the supervisor sees the refused PROT_EXEC mprotect); with it: runs.
# - java through /usr/bin/java -> /etc/alternatives -> jvm/bin/java: its
#   libjli.so is found by $ORIGIN of the real path; libjvm.so, dlopen'ed
#   after the filter, calls syscall(SYS_gettid): allowed by its own table
#   (lib/supervise/later.c), or with --dlopen in the kernel.
# - valgrind: its tool maps its translation cache at fixed addresses, and
#   makes every call at one site of unknown number: refused (code outside
#   the late-code band) or killed (a number its tool issues nowhere else),
#   with one line.
# usage: jit.sh SYSPIN
set -u
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/syspin-jit.XXXXXX)
trap 'rm -rf "$T"' EXIT
R="$SYSPIN run --cache-dir $T/cache"
fail=0 ran=0

ok() { echo "ok   $1"; ran=$((ran + 1)); }
bad() { echo "FAIL $1"; sed 's/^/     | /' "$T/err" | tail -5; fail=1; }

if command -v node >/dev/null; then
	$R -- node -e 'console.log(1)' >"$T/out" 2>"$T/err"
	n=$(grep -c "^syspin: .*PROT_EXEC refused.*--allow-jit allows it" \
	    "$T/err")
	[ "$n" = 1 ] && ok "node refused, one line" || bad "node refused ($n)"
	$R --allow-jit -- node -e 'console.log(1+1)' >"$T/out" 2>"$T/err"
	[ $? = 0 ] && [ "$(cat "$T/out")" = 2 ] && ok "node --allow-jit" ||
	    bad "node --allow-jit"
else
	echo "skip node: not installed"
fi

if command -v java >/dev/null; then
	$R --allow-jit -- java -version >"$T/out" 2>"$T/err"
	st=$?
	if grep -q "libjli.so\|libraries are not all known" "$T/err"; then
		bad "java: libjli.so by \$ORIGIN of the real path"
	fi
	# libjvm.so, dlopen'ed after the filter, passes gettid and futex to
	# syscall(): the supervisor finds them in its table at each call.
	[ $st = 0 ] && grep -q "version" "$T/err" &&
	    ! grep -q "^syspin:" "$T/err" && ok "java" || bad "java"
	# --dlopen pins them in the kernel instead.
	jvm=$(dirname "$(readlink -f "$(command -v java)")")/../lib/server/libjvm.so
	$R --allow-jit --dlopen "$jvm" -- java -version >"$T/out" 2>"$T/err"
	[ $? = 0 ] && grep -q "version" "$T/err" &&
	    ! grep -q "^syspin:" "$T/err" && ok "java --dlopen libjvm.so" ||
	    bad "java --dlopen"
else
	echo "skip java: not installed"
fi

# valgrind puts its translations at addresses of its own choosing, fixed:
# code outside the late-code band, refused even with --allow-jit, and
# said so in one line.  Before that, its tool makes its own calls and its
# guest's at one `syscall` whose number it reads from memory: such a site
# issues only what the tool issues at its other sites (blind round 15),
# so its first other call is a violation, said in one line.
if command -v valgrind >/dev/null; then
	$R --allow-jit -- valgrind --version >"$T/out" 2>"$T/err"
	[ $? != 0 ] && grep -Eq "^syspin: .*(mmap with PROT_EXEC refused: new code may only go into the late-code band|memcheck.*: not pinned here)" "$T/err" &&
	    ok "valgrind refused, one line" || bad "valgrind --allow-jit"
else
	echo "skip valgrind: not installed"
fi
[ $ran = 0 ] && [ $fail = 0 ] && exit 77
exit $fail
