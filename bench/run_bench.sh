#!/bin/sh
# SPDX-License-Identifier: ISC
# make bench, syspin run: per-syscall cost and start-up cost, each stated as
# ratios against baselines measured in the same run (this machine is noisy:
# compare ratios, not absolute numbers).
# usage: bench/run_bench.sh BUILD
set -eu
B=$(cd "${1:-build}" && pwd)
SYSPIN=$B/cli/syspin
RT=$B/runtime/libsyspin-rt.so
LOOP=$B/bench/libgetppid_loop.so
ROUNDS=${ROUNDS:-5}
CALLS=${CALLS:-1000000}
SPAWNS=${SPAWNS:-300}
for f in "$SYSPIN" "$RT" "$LOOP" "$B/bench/spawn_bench" "$B/bench/rt_phases"; do
	[ -e "$f" ] || { echo "run_bench: $f missing (ninja -C $B)" >&2; exit 2; }
done
PY=$(python3 -c 'import sys; print(sys.executable)')
T=$(mktemp -d /tmp/syspin-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
C=$T/cache
mkdir "$T/report"

# Warm cache: python3 with ctypes, /bin/true, the phase timer.
"$SYSPIN" run --cache-dir "$C" "$PY" -c 'import ctypes' >/dev/null
"$SYSPIN" run --cache-dir "$C" /bin/true
"$SYSPIN" run --cache-dir "$C" "$B/bench/rt_phases" "$C" 1 >/dev/null

# ---- per-syscall cost: getppid() from libc, in python3 ----
percall() {	# mode -> ns per call ($PREFIX: a command to run python under)
	${PREFIX:-} "$PY" - "$LOOP" "$1" "$CALLS" "$T/nrs" <<'EOF'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.sp_loop.restype = ctypes.c_double
mode, calls = sys.argv[2], int(sys.argv[3])
if mode.endswith("30"):
    # 30 C extension modules dlopen'ed first: late code, in the band,
    # no stop per call (they are judged by the kernel filter)
    import importlib, os, sysconfig
    d = sysconfig.get_config_var("DESTSHARED") or ""
    n = 0
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if n == 30 or not f.endswith(".so"):
            continue
        try:
            importlib.import_module(f.split(".")[0])
            n += 1
        except Exception:
            pass
    assert n == 30, n
if mode == "minip":
    assert lib.sp_min_ip_filter() == 0
elif mode == "allowlist":
    nrs = [int(x) for x in open(sys.argv[4]).read().split()]
    arr = (ctypes.c_int * len(nrs))(*nrs)
    assert lib.sp_allow_list(arr, len(nrs)) == 0
lib.sp_loop(calls // 10)
print("%.1f" % min(lib.sp_loop(calls) for _ in range(3)))
EOF
}

# The syspin process first: its report lists the numbers it pins.
SYSPIN_CACHE_DIR=$C SYSPIN_REPORT_DIR=$T/report LD_PRELOAD=$RT percall syspin \
    >/dev/null
awk '$1 == "pin" { print $2 }' "$T"/report/*.layout | sort -nu >"$T/nrs"
nsites=$(grep -c '^pin\|^any' "$T"/report/*.layout | head -1 | cut -d: -f2)
: >"$T/percall"
# --deny: 50 numbers the loop never calls (administration, obsolete),
# narrowed in the same filter: getppid's path is the same
DENY50=$(echo acct adjtimex bpf chroot clock_adjtime clock_settime \
    create_module delete_module finit_module fsconfig fsmount fsopen fspick \
    get_kernel_syms init_module ioperm iopl kexec_file_load kexec_load \
    lookup_dcookie mount move_mount nfsservctl open_tree perf_event_open \
    pivot_root query_module quotactl reboot setdomainname sethostname \
    settimeofday swapoff swapon sysfs umount2 uselib ustat vhangup _sysctl \
    afs_syscall getpmsg putpmsg security tuxcall vserver modify_ldt \
    fanotify_init name_to_handle_at open_by_handle_at | tr ' ' ,)
r=0
while [ $r -lt "$ROUNDS" ]; do
	for m in bare allowlist minip syspin supervised supervised30 \
	    supdeny50; do
		if [ $m = syspin ]; then
			v=$(SYSPIN_CACHE_DIR=$C LD_PRELOAD=$RT percall $m)
		elif [ $m = supdeny50 ]; then
			v=$(PREFIX="$SYSPIN run --cache-dir $C --deny $DENY50" \
			    percall $m)
		elif [ $m = supervised ] || [ $m = supervised30 ]; then
			v=$(PREFIX="$SYSPIN run --cache-dir $C" percall $m)
		else
			v=$(percall $m)
		fi
		echo "$m $v" >>"$T/percall"
	done
	r=$((r + 1))
done
med() { awk -v m="$1" '$1 == m { print $2 }' "$2" | sort -n |
    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
bare=$(med bare "$T/percall")
allow=$(med allowlist "$T/percall")
minip=$(med minip "$T/percall")
sp=$(med syspin "$T/percall")
sup=$(med supervised "$T/percall")
sup30=$(med supervised30 "$T/percall")
deny50=$(med supdeny50 "$T/percall")
insns=$("$B/bench/rt_phases" "$C" 1 | sed 's/ instructions.*//; s/.* //')
echo
echo "syspin run: per-syscall cost (getppid from libc in python3, $CALLS calls,"
echo "best of 3, median of $ROUNDS processes each)"
awk -v b="$bare" -v a="$allow" -v m="$minip" -v s="$sp" -v u="$sup" \
    -v u30="$sup30" -v d="$deny50" -v n="$(wc -l <"$T/nrs")" -v p="$nsites" 'BEGIN {
	printf "  bare                          %7.1f ns\n", b
	printf "  libseccomp allow-list (%d nrs) %7.1f ns  %.2fx bare\n", n, a, a / b
	printf "  minimal IP-reading filter     %7.1f ns  %.2fx bare\n", m, m / b
	printf "  runtime alone (%d pins)      %7.1f ns  %.2fx bare, %.2fx minimal IP filter (target <= 1.10)\n", p, s, s / b, s / m
	printf "  syspin run (supervised)       %7.1f ns  %.2fx bare, %.2fx minimal IP filter (target <= 1.10)\n", u, u / b, u / m
	printf "  the same, 30 C modules loaded %7.1f ns  %.2fx bare, %.2fx minimal IP filter (target <= 1.10)\n", u30, u30 / b, u30 / m
	printf "  syspin run --deny (50 numbers) %6.1f ns  %.2fx syspin run without (same filter: target <= 1.05)\n", d, d / u
}'
echo "  (filters over BPF_MAXINSNS are split by number ranges: tests/bpf"
echo "   test_generate and test_kernel check the split programs' decisions)"

# ---- reachable-only pins: what pruning leaves, per program ----
echo
echo "reachable-only pins (syspin scan --reach): (site, number) pairs, sites,"
echo "distinct numbers, before -> after; the pairs are what a ROP chain may use"
for p in /bin/true /bin/ls "$PY" /bin/sh /usr/bin/git /usr/sbin/nginx \
    /usr/bin/redis-server /usr/bin/sqlite3; do
	[ -x "$p" ] || { echo "  $p: not installed"; continue; }
	"$SYSPIN" scan --reach --json "$p" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
t = r["total"]
w = " (dlsym: every export)" if r["dlsym_widened"] else ""
print("  %-22s pairs %4d -> %4d  sites %4d -> %4d  numbers %3d -> %3d%s" % (
    r["program"].split("/")[-1], t["pairs"], t["reachable_pairs"], t["sites"],
    t["reachable_sites"], t["numbers"], t["reachable_numbers"], w))'
done

# ---- start-up: warm cache ----
"$SYSPIN" run --no-reach --cache-dir "$C" /bin/true
set -- $("$B/bench/spawn_bench" "$SPAWNS" /bin/true \
    -- /usr/bin/env /bin/true \
    -- "$SYSPIN" run --cache-dir "$C" /bin/true \
    -- SYSPIN_SUPERVISE=0 "$SYSPIN" run --cache-dir "$C" /bin/true \
    -- LD_PRELOAD="$RT" SYSPIN_CACHE_DIR="$C" /bin/true \
    -- "$SYSPIN" run --no-reach --cache-dir "$C" /bin/true \
    -- "$SYSPIN" -V)
true_us=$1
floor=
if command -v strace >/dev/null 2>&1; then
	floor=$("$B/bench/spawn_bench" "$SPAWNS" /usr/bin/env /bin/true \
	    -- "$(command -v strace)" -f -qq -e trace=none -o /dev/null \
	    /bin/true)
fi
echo
echo "syspin run: start-up, warm cache (median of $SPAWNS spawns, interleaved)"
awk -v t="$1" -v e="$2" -v s="$3" -v n="$4" -v r="$5" -v f="$6" -v v="$7" 'BEGIN {
	printf "  /bin/true                         %7.0f us\n", t
	printf "  env /bin/true                     %7.0f us\n", e
	printf "  syspin run -- /bin/true           %7.0f us  %.2fx env /bin/true (target <= 1.5; pinned from outside)\n", s, s / e
	printf "  syspin run --no-reach -- /bin/true %6.0f us  %.2fx env /bin/true (every site pinned)\n", f, f / e
	printf "  floor: syspin -V (its own exec)   %7.0f us  %.2fx env /bin/true\n", v, v / e
	printf "  the runtime alone (SYSPIN_SUPERVISE=0) %4.0f us  %.2fx env /bin/true\n", n, n / e
	printf "  /bin/true + runtime preloaded     %7.0f us  +%.0f%% over /bin/true\n", r, 100 * (r - t) / t
}'
# The physical floor of a supervisor: a tracer's exec and the stops of
# one traced exec, with nothing pinned (strace, same run, own baseline).
[ -n "$floor" ] && set -- $floor && awk -v e="$1" -v s="$2" 'BEGIN {
	printf "  floor: strace -f, nothing traced  %7.0f us  %.2fx env /bin/true (ptrace alone)\n", s, s / e
}'
phases=$("$B/bench/rt_phases" "$C" 101)
echo "  where the constructor's time goes ($insns-instruction filter):"
echo "    $phases"
echo "$phases" | awk -v t="$true_us" '{
	for (i = 1; i < NF; i++)
		if ($i ~ /^(layout|tables|place|generate|install|seal)$/)
			sum += $(i + 1)
	printf "  constructor (sum of phases) %.0f us = %.0f%% of /bin/true (target <= 25%%)\n", sum, 100 * sum / t
}'

# ---- deep exec chains: calls the supervisor checks ----
cat >"$T/deep.sh" <<'EOS'
level=$1
[ "$level" -lt "$DEPTH" ] && exec /bin/sh "$0" $((level + 1))
best=
for i in 1 2 3; do
	s=$(date +%s%N)
	dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null
	e=$(date +%s%N)
	t=$(( (e - s) / 40000 ))
	[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
done
echo "$best"
EOS
d1=$(DEPTH=1 sh "$T/deep.sh" 1)
p1=$(DEPTH=1 "$SYSPIN" run --cache-dir "$C" /bin/sh "$T/deep.sh" 1)
p14=$(DEPTH=14 "$SYSPIN" run --cache-dir "$C" /bin/sh "$T/deep.sh" 1)
echo
echo "deep exec chains: dd bs=1 (read+write), ns per call, best of 3"
awk -v d="$d1" -v a="$p1" -v b="$p14" 'BEGIN {
	printf "  unpinned                      %7.0f ns\n", d
	printf "  syspin run, depth 1           %7.0f ns  %.2fx unpinned\n", a, a / d
	printf "  syspin run, depth 14          %7.0f ns  %.1fx depth 1 (past the kernel limit: checked by the supervisor)\n", b, b / a
}'
