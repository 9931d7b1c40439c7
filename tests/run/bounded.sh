#!/bin/sh
# SPDX-License-Identifier: ISC
# What the pinned tree execs is analysed by the supervisor, and the tree
# chooses it: a sparse 3 GiB static "program" took the supervisor to 24 GB
# until the OOM killer ended it.  Now the ELF stage refuses more than
# 1 GiB of executable code at once (lib/elf/elf.c), and the analysis runs
# in a child of the supervisor under memory and time limits
# (lib/supervise/fill.c): over either, the exec is refused with one line
# naming the file and the limit, the shell goes on, and the supervisor
# stays small.  The other cases are under the size limit (900 and 256
# MiB of zeros as code) and over the memory or the CPU time limit, which
# the test lowers (1.5 GiB; 2-3 s) by lowering the supervisor's own
# limits once the tree runs: the child's are never above its parent's.
# A watchdog kills syspin past RSS_MAX or TIME_MAX, so the unbounded
# supervisor fails fast.
# usage: bounded.sh SYSPIN
set -u
S=$1
T=$(mktemp -d /tmp/syspin-bounded.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
RSS_MAX=262144		# KB: the supervisor's own peak
TIME_MAX=60		# seconds, each case (~3 s on an idle machine)
AS=2147483648		# RLIMIT_AS of the commands that must not need it

# mkelf PATH SIZE: an ET_EXEC, one PT_LOAD R|X of SIZE bytes from offset
# 0 (`exit(0)` at the entry), made sparse: nothing on disk.
mkelf() {
	python3 - "$1" "$2" <<'EOF' || exit 1
import os, struct, sys
path, size = sys.argv[1], int(sys.argv[2])
base, entry = 0x400000, 0x400000 + 64 + 56
code = bytes([0xb8, 60, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05])
eh = b'\x7fELF' + bytes([2, 1, 1, 0]) + bytes(8) + struct.pack(
    '<HHIQQQIHHHHHH', 2, 62, 1, entry, 64, 0, 0, 64, 56, 1, 0, 0, 0)
ph = struct.pack('<IIQQQQQQ', 1, 5, 0, base, base, size, size, 0x1000)
with open(path, 'wb') as f:
    f.write(eh + ph + code)
    f.truncate(size)
os.chmod(path, 0o755)
EOF
}

now() {
	date +%s.%N
}

# watch PID: waits for it, polling its peak RSS (VmHWM, KB) into hwm;
# kills it past RSS_MAX or TIME_MAX (killed=yes).  secs: how long.
watch() {
	hwm=0 killed=no t0=$(now)
	while kill -0 "$1" 2>/dev/null; do
		h=$(sed -n 's/^VmHWM:[^0-9]*\([0-9]*\).*/\1/p' \
		    "/proc/$1/status" 2>/dev/null)
		[ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
		secs=$(echo "$t0 $(now)" | awk '{ printf "%.1f", $2 - $1 }')
		if [ "$hwm" -gt $RSS_MAX ] ||
		    awk "BEGIN { exit !($secs > $TIME_MAX) }"; then
			kill -9 "$1"
			killed=yes
		fi
		sleep 0.1
	done
	wait "$1"
	secs=$(echo "$t0 $(now)" | awk '{ printf "%.1f", $2 - $1 }')
	st=$(sed -n 's/^st=//p' "$T/out")
	lines=$(grep -c '^syspin: ' "$T/err")
}

check() {	# what, want (an ERE for syspin's one line)
	if [ "$killed" = no ] && [ "$st" = 137 ] && [ "$lines" = 1 ] &&
	    grep -Eq "$2" "$T/err"; then
		echo "ok   $1: refused in $secs s, syspin's peak RSS $hwm KB"
		return
	fi
	echo "FAIL $1: killed by the watchdog: $killed (${secs} s, peak" \
	    "RSS $hwm KB), shell's status ${st:-none}, syspin said:"
	sed 's/^/     | /' "$T/err"
	fail=1
}

mkelf "$T/big" $((3 << 30))
mkelf "$T/code900" $((900 << 20))
mkelf "$T/code256" $((256 << 20))
"$T/big" || { echo "skip: the sparse program does not run here"; exit 77; }

# An environment past what the supervisor reads (4 MiB) would hide what
# ld.so obeys after it (LD_AUDIT past 4 MiB of padding: blind round 4):
# such an image is refused, with one line.
if command -v python3 >/dev/null; then
	out=$( (ulimit -s 65536 && "$S" run --cache-dir "$T/envc" python3 -c '
import os, sys
env = {"PATH": "/usr/bin:/bin", "LD_AUDIT": "/nonexistent.so"}
for i in range(40):
    env["PAD%02d" % i] = "x" * (127 << 10)
os.execve("/bin/true", ["true"], env)') 2>&1)
	if echo "$out" | grep -Eq "^syspin: true\[[0-9]+\]: cannot pin: an \
environment of more than 4194304 bytes\$"; then
		echo "ok   an environment of 5 MiB: the image refused"
	else
		echo "FAIL an environment of 5 MiB:"
		echo "$out" | sed 's/^/     | /'
		fail=1
	fi
fi

# The ELF stage: scan (bad input: 2) and cache fill (a file failed: 1)
# refuse it at once, with the same sentence.  (Without the limit each
# took the machine's memory: they run under RLIMIT_AS here.)
limited=
command -v prlimit >/dev/null && limited="prlimit --as=$AS --"
limit="executable code of 3\\.0 GiB: over syspin's limit of 1 GiB"
for cmd in "2 scan" "1 cache fill --cache-dir $T/fill"; do
	# shellcheck disable=SC2086
	set -- $cmd
	want=$1
	shift
	# shellcheck disable=SC2086
	$limited "$S" "$@" "$T/big" >/dev/null 2>"$T/err"
	st=$?
	if [ $st != "$want" ] ||
	    ! grep -Eq "^syspin: $T/big: $limit\$" "$T/err"; then
		echo "FAIL syspin $*: status $st, want $want; said:"
		sed 's/^/     | /' "$T/err"
		fail=1
	fi
done

# 1: over the size limit, exec'd by a pinned shell.
"$S" run --cache-dir "$T/cache" -- sh -c '"$0"; echo "st=$?"' "$T/big" \
    >"$T/out" 2>"$T/err" </dev/null &
watch $!
check "3 GiB of code" "^syspin: big\\[[0-9]+\\]: cannot pin: $T/big: $limit\$"

# lowered PROG AS [cpu]: PROG exec'd in a pinned tree whose supervisor's
# limits are lowered (prlimit) once the tree runs: its RLIMIT_AS to AS,
# and with cpu its RLIMIT_CPU to 2-3 s more than it has used (a limit on
# the supervisor too: it uses little).
lowered() {
	prog=$1 as=$2 what=${3:-}
	rm -f "$T/ready" "$T/go"
	"$S" run --cache-dir "$T/cache" -- sh -c ': >"$0/ready"
		while [ ! -e "$0/go" ]; do sleep 0.1; done
		"$1"; echo "st=$?"' "$T" "$prog" >"$T/out" 2>"$T/err" \
	    </dev/null &
	pid=$!
	n=0
	while [ ! -e "$T/ready" ] && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	set -- --as="$as"
	[ "$what" = cpu ] && set -- "$@" --cpu="$(awk -v hz="$(getconf \
	    CLK_TCK)" '{ print int(($14 + $15) / hz) + 3 }' "/proc/$pid/stat")"
	prlimit --pid $pid "$@" || fail=1
	: >"$T/go"
	watch $pid
}

# 2: under it, over the memory limit.
if [ -z "$limited" ]; then
	echo "skip the memory and CPU time limits: no prlimit"
	exit $fail
fi
lowered "$T/code900" $((3 << 29))
check "900 MiB of code under 1.5 GiB" "^syspin: code900\\[[0-9]+\\]: \
cannot pin: $T/code900: its analysis needs more than 1\\.5 GiB of memory: \
over syspin's limit\$"

# 3: over the CPU time limit first (it would need over 2 GiB).
lowered "$T/code256" $AS cpu
check "256 MiB of code under a CPU time limit" "^syspin: code256\\[[0-9]+\\]: \
cannot pin: $T/code256: its analysis took over [0-9]+ s of CPU time: \
over syspin's limit\$"

# 4: the program syspin run is handed is analysed so too (blind round 6:
# 1 GiB of it took syspin itself to 15 GB): refused with one line, exit 1.
prlimit --as=$((3 << 29)) -- "$S" run --cache-dir "$T/cache2" -- \
    "$T/code900" >"$T/out" 2>"$T/err" </dev/null &
watch $!
want="^syspin: $T/code900: its analysis needs more than 1\\.5 GiB of memory: \
over syspin's limit\$"
if [ "$killed" = no ] && [ "$lines" = 1 ] && grep -Eq "$want" "$T/err"; then
	echo "ok   900 MiB of code run directly: refused in $secs s, syspin's" \
	    "peak RSS $hwm KB"
else
	echo "FAIL 900 MiB of code run directly: killed by the watchdog:" \
	    "$killed (${secs} s, peak RSS $hwm KB); syspin said:"
	sed 's/^/     | /' "$T/err"
	fail=1
fi
exit $fail
