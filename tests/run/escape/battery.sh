#!/bin/sh
# SPDX-License-Identifier: ISC
# The escape battery (README.md here): attacks that try to get a system
# call past the pins from inside a pinned process, judged by their effect.
#
# usage: battery.sh SYSPIN PROGDIR [MODE...]
#   SYSPIN   the syspin binary (its runtime is found next to it, as
#            `syspin run` finds it, or from $SYSPIN_RT)
#   PROGDIR  where meson built escape, escape_* and libescape_*.so
#   MODE     default strict jit runtime runexec nobody trusted noexec attach
#            attachnobody (all when none is given): `syspin run`,
#            --strict, --allow-jit, SYSPIN_SUPERVISE=0 (exec refused by
#            default), the same with --exec=any, as user nobody,
#            --exec=trusted, --exec=none, and `syspin run -p` pinning the
#            attack once it runs (held before main by libescape_hold.so),
#            as root and as nobody
#
# Every attack gets a fresh MARK path and every `syspin run` a fresh
# --cache-dir.  An attack first runs unpinned: if its effect does not
# happen there it proves nothing ("skip").  Pinned, the effect happening
# is an escape, whatever the exit status.  Controls do the legitimate
# thing and must exit 0 (with their effect, where they have one).
#
# Output: "ok   NAME MODE: stopped (status S)", "ESCAPE NAME MODE: ...",
# "known NAME MODE: documented route" (the routes in KNOWN below, not
# failures), "skip ...", "ok   control NAME MODE" / "FAIL control ...",
# a table, and "battery: N stopped, M escaped, K controls failed, J
# skipped".  Exit 0 when nothing escaped and every control passed.
set -u
[ $# -ge 2 ] || { echo "usage: battery.sh SYSPIN PROGDIR [MODE...]" >&2; exit 2; }
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
P=$(cd "$2" && pwd)
shift 2
MODES=${*:-default strict jit runtime runexec nobody trusted noexec attach attachnobody}
RT=${SYSPIN_RT:-$(dirname "$SYSPIN")/../runtime/libsyspin-rt.so}
[ -r "$RT" ] && RT=$(cd "$(dirname "$RT")" && pwd)/$(basename "$RT") || RT=
unset SYSPIN_CACHE_DIR SYSPIN_FLAGS SYSPIN_FILLING SYSPIN_DLOPEN \
    SYSPIN_REPORT_DIR SYSPIN_BIN SYSPIN_SUPERVISE SYSPIN_VERBOSE \
    LD_PRELOAD LD_AUDIT
PY=
for p in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
	[ -n "$p" ] && [ -x "$p" ] && { PY=$p; break; }
done

# Documented routes: "NAME:MODE ..." reported as known, not as escapes.
# Exec of a file the attacker wrote is pinned as written (docs/run.md);
# --exec=trusted / --exec=none are meant to close it.  The same holds for
# a library it wrote and dlopens: with --exec=any its table says what it
# passes to syscall() (later-written), as an exec'd copy would.  The
# runtime alone cannot tell the tree's processes from others: a signal
# that dumps core reaches a process outside (docs/threat-model.md; its
# --scope=signals closes it).
KNOWN="exec-memfd:default exec-memfd:jit exec-memfd:runtime exec-memfd:nobody
exec-tmp:default exec-tmp:jit exec-tmp:runtime exec-tmp:nobody
exec-memfd:runexec exec-tmp:runexec
exec-memfd:attach exec-tmp:attach exec-memfd:attachnobody exec-tmp:attachnobody
later-written:attach later-written:attachnobody
chroot-interp:default chroot-interp:jit chroot-interp:nobody
chroot-interp:runexec
later-written:default later-written:jit later-written:nobody
preload-true:runexec preload-self:runexec preload-rt-true:runexec
preload-rt-self:runexec audit-true:runexec audit-self:runexec
ldso-preload:runexec ldso-audit:runexec
env-clear:runexec env-filling:runexec env-flags-a:runexec
env-flags-j:runexec env-flags-t:runexec env-dlopen:runexec
env-cachedir:runexec forged-table:runexec
sigquit-victim:runtime sigquit-victim:runexec sigsegv-victim:runtime
sigsegv-victim:runexec sigqgroup-victim:runtime sigqgroup-victim:runexec
tty-quit:runtime tty-quit:runexec tty-fg:runtime tty-fg:runexec
tty-quit-own:runtime tty-quit-own:runexec
tty-join:runtime tty-join:runexec tty-other:runtime tty-other:runexec
tty-own:runtime tty-own:runexec tty-intr-own:runtime tty-intr-own:runexec
tty-fg-pid:runtime tty-fg-pid:runexec
tty-noctty:runtime tty-noctty:runexec pid-reuse:runexec
tty-ctty-other:runtime tty-ctty-other:runexec
tty-devtty:runtime tty-devtty:runexec
pidfd-swap:runtime pidfd-swap:runexec"

ATTACKS="wrong-site libc-site
remap-libc
memfd shm-file tmpfile tmp-file memfd-fixed shm-fixed tmpfile-fixed tmp-fixed
shared-double-memfd shared-double-shm
mprotect pkey-mprotect mremap-exec personality
mremap-span mremap-tail
rescue-mmap rescue-keyctl later-written later-newline
key-session key-user key-usersession
unix-cmd unix-link unix-race unix-abstract unix-vfork tmux-run
perf-super perf-every perf-uprobe ldso-execve clock-set
execstack execstack-far
dlopen-raw
preload-true preload-self preload-rt-true preload-rt-self audit-true audit-self
ldso-preload ldso-audit dt-audit slot-map slot-reexec page-zero
ctypes-python libc-syscall
exec-memfd exec-tmp
ptrace-parent mem-parent vmwrite-parent getfd-parent
ptrace-victim mem-victim vmwrite-victim getfd-victim
prlimit-parent prlimit-victim sigquit-victim sigsegv-victim sigqgroup-victim
tiocsti tioclinux tty-quit tty-quit-own tty-fg
tty-join tty-other tty-own tty-intr-own tty-fg-pid tty-noctty tty-ctty-other
tty-devtty
exec-race reexec-rewrite range-end mount-new pid-reuse chroot-interp pidfd-swap
prlimit-uffd any-site anyparam-nocaller anyparam-compared musl-cp park-exec conn-exec
ownfilter-trace0 ownfilter-traceffff ownfilter-mkdir
user-notif fake-pin fake-seal stackmove ldso-skip-entry ldso-vmclone
filter-swap filter-sealed filter-stack
env-flags-a env-flags-t env-flags-j env-filling env-dlopen env-clear env-cachedir
forged-table forged-table-rerun forged-default forged-default-rerun
filter"
CONTROLS="mkdir-ok dlopen-ok filter-ok python-modules sh-pipe sh-kill pty-jobs
unix-tree unix-allowed node-jit java-jit key-decoy"

# ESC_ONLY="NAME..." runs only those attacks and controls;
# ESC_VERBOSE=1 shows the output of every pinned run.
if [ -n "${ESC_ONLY:-}" ]; then
	keep() { for x in $1; do case " $ESC_ONLY " in *" $x "*) echo "$x";; esac; done; }
	ATTACKS=$(keep "$ATTACKS")
	CONTROLS=$(keep "$CONTROLS")
fi

# The table (one row per attack or control, one column per mode), where
# the time went, the sums; status 0 when nothing escaped and every
# control passed.
summary() {
	echo
	awk -v modes="$MODES" -v order="$ATTACKS $CONTROLS" '
	{ cell[$1 " " $2] = $3 }
	END {
		nm = split(modes, m, " ")
		na = split(order, a, " ")
		printf "%-22s", ""
		for (j = 1; j <= nm; j++) printf " %-8s", m[j]
		printf "\n"
		for (i = 1; i <= na; i++) {
			printf "%-22s", a[i]
			for (j = 1; j <= nm; j++) {
				c = cell[a[i] " " m[j]]
				printf " %-8s", c == "" ? "." : c
			}
			printf "\n"
		}
	}' "$W/results"
	# Where the time went (the battery runs alone in CI: keep it short).
	echo
	awk '{ t[$1] += $2; all += $2 } END {
		for (a in t) printf "%8.1f s  %s\n", t[a] / 1000, a
		printf "%8.1f s  (all)\n", all / 1000 }' "$W/times" | sort -rn | head -n 16
	echo
	echo "battery: $n_base attack baselines worked unpinned (per user), $n_known known (documented routes)"
	echo "battery: $n_ok stopped, $n_esc escaped, $n_ctl controls failed, $n_skip skipped"
	[ $n_esc = 0 ] && [ $n_ctl = 0 ]
}

# Attacks and controls that touch what every run shares (ns_last_pid,
# the user's keyrings, the clock): each runs alone, while no other lane
# runs anything (a key linked into the user's keyring makes every `syspin
# run` refuse; a fork elsewhere takes the pid ns_last_pid was set for).
SERIAL="pid-reuse prlimit-uffd key-session key-user key-usersession
clock-set key-decoy exec-race"

# ESC_LANES=N (default: 2 where there are 2 CPUs or more) runs the modes
# in N batteries at once, each its own directory, and sums them up: most
# of the battery waits (terminals typed into with pauses, victims given
# time), and it runs alone in CI.
: "${ESC_LANES:=$( [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ] && echo 2 || echo 1)}"
set -- $MODES
if [ "$ESC_LANES" -gt 1 ] && [ $# -gt 1 ] && [ -z "${ESC_LANE_OUT:-}" ] &&
    command -v flock >/dev/null; then
	L=$(mktemp -d /tmp/escape-lanes.XXXXXX)
	trap 'rm -rf "$L"' EXIT
	trap 'exit 130' INT TERM
	i=0
	for m in $MODES; do	# round robin
		eval "lane_$((i % ESC_LANES))=\"\${lane_$((i % ESC_LANES)):-} $m\""
		i=$((i + 1))
	done
	pids=
	for i in $(seq 0 $((ESC_LANES - 1))); do
		eval "mm=\${lane_$i:-}"
		[ -n "$mm" ] || continue
		ESC_LANES=1 ESC_LANE_OUT=$L/$i ESC_LOCK=$L/lock \
		    sh "$0" "$SYSPIN" "$P" $mm >"$L/$i.log" 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p"; done
	for i in $(seq 0 $((ESC_LANES - 1))); do
		[ -f "$L/$i.log" ] && cat "$L/$i.log"
	done
	cat "$L"/*.results >"$L/results" 2>/dev/null
	cat "$L"/*.times >"$L/times" 2>/dev/null
	W=$L
	set -- 0 0 0 0 0 0
	for i in $(seq 0 $((ESC_LANES - 1))); do
		[ -f "$L/$i.counts" ] || { echo "battery: lane $i ended early"; exit 1; }
		read -r a b c d e f <"$L/$i.counts"
		set -- $(($1 + a)) $(($2 + b)) $(($3 + c)) $(($4 + d)) $(($5 + e)) $(($6 + f))
	done
	n_base=$1 n_known=$2 n_ok=$3 n_esc=$4 n_ctl=$5 n_skip=$6
	summary
	exit $?
fi

W=$(mktemp -d /tmp/escape-battery.XXXXXX)
VICTIM=
cleanup() {
	[ -n "$VICTIM" ] && kill "$VICTIM" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 755 "$W"
mkdir "$W/m" && chmod 1777 "$W/m"	# marks, caches, victim files
n_ok=0 n_esc=0 n_ctl=0 n_skip=0 n_known=0 n_base=0 seq=0
t_last=$(date +%s%N)	# for $W/times: milliseconds per attack and mode

# Around every attack and control when lanes run at once: those of
# $SERIAL exclusive, the others shared.
[ -n "${ESC_LOCK:-}" ] && exec 9>>"$ESC_LOCK"
lock() {	# name
	[ -n "${ESC_LOCK:-}" ] || return 0
	case " $(echo $SERIAL) " in
	*" $1 "*) flock -x 9 ;;
	*) flock -s 9 ;;
	esac
}
unlock() {
	[ -n "${ESC_LOCK:-}" ] && flock -u 9
	return 0
}

# Sets F to a new path under $W/m (not created).  No $(...): seq must
# survive.
fresh() {
	seq=$((seq + 1))
	F=$W/m/$1.$seq
}

# Sets NC to a new cache directory owned by the user who will run syspin
# (0700).
new_cache() {
	fresh cache
	NC=$F
	mkdir "$NC" && chmod 700 "$NC"
	[ "$WHO" = nobody ] && chown nobody "$NC"
}

# Runs "$@" as $WHO with a timeout; output in $W/out, status in $rc.
run_as() {
	if [ "$WHO" = nobody ]; then
		setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		    env -i PATH=/usr/bin:/bin HOME="$W/home" LC_ALL=C \
		    ESC_TMP="$W/m" $XENV timeout -k 5 "$TMO" "$@" \
		    >"${OUT:-$W/out}" 2>&1 </dev/null
	else
		env ESC_TMP="$W/m" $XENV timeout -k 5 "$TMO" "$@" \
		    >"${OUT:-$W/out}" 2>&1 </dev/null
	fi
	rc=$?
}

# Unpinned, with a shell of the same user as the parent.
bare() {
	run_as sh -c '"$@"; exit $?' sh "$@"
}

# Under `syspin run` in $MODE, with the cache $CACHE ("" = the default).
pinned() {
	if [ -n "$ATTACH" ]; then
		attached "$@"
	elif [ -n "$CACHE" ]; then
		run_as env $MENV "$SYS" run $MOPT --cache-dir "$CACHE" "$@"
	else
		run_as env $MENV "$SYS" run $MOPT "$@"
	fi
}

# Attach modes: "$@" starts unpinned and waits before main (the hold
# library's constructor) until `syspin run -p` (as $WHO, $CACHE) has
# pinned it; then the attack runs in the attached process, as code a
# server runs on request would.  rc: syspin run's status.
attached() {
	fresh held
	h=$F
	# the attack alone held (its parent, timeout, stays outside)
	(OUT=$W/out.held run_as env LD_PRELOAD="$E/libescape_hold.so" \
	    ESC_HOLD="$h" "$@") &
	hp=$!
	i=0
	while [ ! -s "$h" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
	if [ -s "$h" ]; then
		XENV= run_as env $MENV "$SYS" run $MOPT --cache-dir "$CACHE" \
		    -p "$(cat "$h")"
	else
		rc="not held" && : >"$W/out"
	fi
	wait $hp
	cat "$W/out.held" >>"$W/out"
}

# The command line of `syspin run` in $MODE, for a shell on the pty.
pinned_line() {
	echo "$MENV $SYS run $MOPT --cache-dir $CACHE"
}

# Sets line: the command line that runs ARG... on a shell's terminal,
# unpinned (how=bare) or under `syspin run` in $MODE.
shell_line() {
	if [ "$how" = bare ]; then
		line="$*"
	else
		line="$(pinned_line) $*"
	fi
}

# Sets E (programs), SYS, RTP for the user $WHO.
paths_for() {
	if [ "$WHO" = nobody ]; then
		E=$W/b/esc SYS=$W/b/cli/syspin RTP=$W/b/runtime/libsyspin-rt.so
	else
		E=$P SYS=$SYSPIN RTP=$RT
	fi
}

# Starts the victim outside the tree (as $WHO); sets INFO and VICTIM.
start_victim() {	# mark [group]
	fresh info
	INFO=$F
	if [ "$WHO" = nobody ]; then
		setpriv --reuid=nobody --regid="$(id -g nobody)" \
		    --clear-groups "$E/escape_victim" "$INFO" "$1" ${2:-} \
		    >/dev/null 2>&1 &
	else
		"$E/escape_victim" "$INFO" "$1" ${2:-} >/dev/null 2>&1 &
	fi
	VICTIM=$!
	i=0
	while [ ! -s "$INFO" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}

# A command server outside the tree (as $WHO): escape_box cmd-server on
# the unix socket $1 (a path, or @name), standing for tmux, screen or a
# session bus.  Sets SERVER.
start_server() {	# name
	fresh ready
	if [ "$WHO" = nobody ]; then
		setpriv --reuid=nobody --regid="$(id -g nobody)" \
		    --clear-groups "$E/escape_box" cmd-server "$1" "$F" \
		    >/dev/null 2>&1 &
	else
		"$E/escape_box" cmd-server "$1" "$F" >/dev/null 2>&1 &
	fi
	SERVER=$!
	i=0
	while [ ! -e "$F" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}

stop_server() {
	kill "$SERVER" 2>/dev/null
	wait "$SERVER" 2>/dev/null
}

# A tmux server outside the tree (as $WHO) on the socket $1.
start_tmux() {	# socket
	if [ "$WHO" = nobody ]; then
		setpriv --reuid=nobody --regid="$(id -g nobody)" \
		    --clear-groups env HOME="$W/home" TERM=xterm \
		    tmux -S "$1" new-session -d sleep 120 >/dev/null 2>&1
	else
		env TERM=xterm tmux -S "$1" new-session -d sleep 120 \
		    >/dev/null 2>&1
	fi
}

# For pid-reuse: once DIR/tid (a thread that exec'd) is free, an outside
# process (as $WHO) given that id through ns_last_pid; DIR/victim its pid.
pid_reuse_victim() {	# dir
	i=0
	while [ ! -s "$1/tid" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	tid=$(cat "$1/tid" 2>/dev/null) || return
	i=0
	while [ -e "/proc/$tid" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	for try in 1 2 3 4 5 6 7 8; do
		echo $((tid - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null ||
		    return
		if [ "$WHO" = nobody ]; then
			setpriv --reuid=nobody --regid="$(id -g nobody)" \
			    --clear-groups sleep 30 &
		else
			sleep 30 &
		fi
		v=$!
		[ "$v" = "$tid" ] && break
		kill $v
	done
	# setpriv has made it $WHO and exec'd sleep
	i=0
	while [ "$(cat "/proc/$v/comm" 2>/dev/null)" != sleep ] &&
	    [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
	echo "$v" >"$1/victim.tmp" && mv "$1/victim.tmp" "$1/victim"
	wait "$v" 2>/dev/null
}

stop_victim() {
	[ -n "$VICTIM" ] || return
	kill "$VICTIM" 2>/dev/null
	kill -- "-$VICTIM" 2>/dev/null	# a group of its own (sigqgroup)
	wait "$VICTIM" 2>/dev/null
	VICTIM=
}

# Runs attack NAME with effect MARK, through $1 (bare or pinned).
invoke() {	# how name mark
	how=$1 name=$2 mark=$3
	XENV= TMO=60
	case $name in
	execstack) $how "$E/escape_execstack" "$mark" ;;
	execstack-far) $how "$E/escape_execstack" "$mark" far ;;
	fake-pin|fake-seal|stackmove)
		$how "$E/escape_answer" $name "$mark" ;;
	filter-swap)
		# a parent rewrites its child's filter before seccomp(2) reads it
		TMO=120
		$how "$E/escape_swap" 8 "$E/escape_answer" rwx "$mark" ;;
	filter-sealed)
		# ... writing where the filter is, while the tree runs on
		TMO=120
		$how "$E/escape_swap" -s 8 "$E/escape_answer" rwx "$mark" ;;
	filter-stack)
		# ... below the stack pointer, where the kernel's copy is read
		# back: every program found on the child's stack made "allow"
		TMO=120
		$how "$E/escape_swap" -x 32 "$E/escape_answer" rwx "$mark" ;;
	ldso-skip-entry|ldso-vmclone)
		# a start-up object's constructor jumps past the entry point,
		# or makes a process sharing the memory: ld.so's exec site
		# after main started
		XENV="LD_LIBRARY_PATH=$E ESC_EARLY=${name#ldso-}"
		[ $name = ldso-skip-entry ] && XENV="LD_LIBRARY_PATH=$E ESC_EARLY=skip"
		$how "$E/escape_early" "$mark" ;;
	slot-map|slot-reexec|page-zero)
		$how "$E/escape_slot" $name "$mark" ;;
	dt-audit)
		# the program names its auditor; before any pin of syspin's,
		# nothing may run ld.so on it (`ld.so --list` did)
		XENV="LD_LIBRARY_PATH=$E ESC_MARK=$mark"
		$how "$E/escape_dtaudit" ;;
	ctypes-python)
		$how "$PY" -c 'import ctypes, sys
ctypes.CDLL(None).syscall(83, sys.argv[1].encode(), 0o755)' "$mark" ;;
	*-parent) $how "$E/escape" "${name%-parent}" "$mark" parent ;;
	*-victim)
		# sigqgroup: the victim's group has a leader catching SIGQUIT
		grp=
		[ $name = sigqgroup-victim ] && grp=group
		start_victim "$mark" $grp
		$how "$E/escape" "${name%-victim}" "$mark" "$INFO"
		i=0
		while [ ! -e "$mark" ] && [ $i -lt 20 ]; do sleep 0.05; i=$((i + 1)); done
		stop_victim ;;
	tiocsti)
		# An interactive shell outside the tree runs the attack on its
		# terminal, then reads what the attack pushed into its input.
		shell_line $E/escape tiocsti $mark
		TMO=40
		run_as "$E/escape_pty" -w 2500 -t 30 -l "$line" -l exit \
		    -- sh -i ;;
	tty-quit)
		# another login's terminal (a shell on a pty outside) runs a
		# program whose trap makes MARK on SIGQUIT; the attack sets
		# that terminal's quit character to 'q', then 'q' is typed
		fresh ttyname
		tn=$F
		TMO=40
		vic="sh -c 'trap \"mkdir $mark; exit\" QUIT; sleep 6 & wait'"
		run_as "$E/escape_pty" -w 1500 -t 30 -l "tty >$tn" \
		    -l "$vic" -w 4000 -l q -w 1500 -l exit -- sh -i &
		PTY=$!
		i=0
		while [ ! -s "$tn" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
		sleep 0.5
		$how "$E/escape" tty-quit "$mark" "$(cat "$tn" 2>/dev/null)"
		wait $PTY ;;
	tty-quit-own|tty-fg)
		# the run's own terminal: its quit character set to 'q' (and
		# syspin run killed), then a program outside in the foreground;
		# or its foreground given to a job outside, which reads a line
		shell_line $E/escape $name $mark
		TMO=40
		if [ $name = tty-fg ]; then
			vic="sh -c 'trap \"\" TTIN; i=0; while [ \$i -lt 40 ]; do
			    if read x; then mkdir $mark; exit; fi; sleep 0.2;
			    i=\$((i + 1)); done' &"
			run_as "$E/escape_pty" -w 1500 -t 30 -l "$vic" \
			    -l "$line \$!" -l hello -w 3000 -l exit -- sh -i
		else
			vic="sh -c 'trap \"mkdir $mark; exit\" QUIT; sleep 5'"
			run_as "$E/escape_pty" -w 1500 -t 30 -l "$line" \
			    -l "$vic" -l q -w 5000 -l exit -- sh -i
		fi ;;
	exec-race)
		# an exec in one thread while the leader's stop is held
		TMO=240
		$how "$E/escape_execrace" "$mark" "$E/escape" ;;
	reexec-rewrite)
		# a program rewritten in place (its times put back) re-execs
		$how "$E/escape_reexec" "$mark" ;;
	park-exec)
		# a thread execs while the leader is parked in a connect:
		# the new image has the leader's pid (round 23b); the retry
		# let it go on from its exec stop (round 24: 4 runs of 4
		# before the fix let one through within 250 tries)
		$how "$E/escape_parkexec" "$mark" 200 ;;
	conn-exec)
		# a thread execs while the leader's connects are remade by
		# calls injected in it (round 24: the remake resumed the
		# new image from its exec stop, 13 in 100 tries)
		$how "$E/escape_parkexec" "$mark" 40 conn ;;
	any-site)
		# a site whose number the analysis cannot read, reached
		# with a number its program issues nowhere
		$how "$E/escape_anysite" "$mark" ;;
	anyparam-nocaller)
		# a number-taking function nothing calls, reached from its
		# offset in the file (as a chain knows it)
		offs=$(nm "$E/escape_anyparam" 2>/dev/null | awk '
		    $3 == "lone_syscall" { l = $1 } $3 == "main" { m = $1 }
		    END { print l, m }')
		$how "$E/escape_anyparam" nocaller "$mark" $offs ;;
	anyparam-compared)
		# one whose address is taken only to be compared
		$how "$E/escape_anyparam" compared "$mark" ;;
	musl-cp)
		# musl's __syscall_cp_asm (every dynamic musl program):
		# pidfd_open, which musl issues nowhere, from its syscall
		$how "$E/escape_muslcp" "$mark" ;;
	range-end)
		# a trap written into a range's last two bytes: its ip is
		# the range's end
		$how "$E/escape_rangeend" "$mark" ;;
	mount-new)
		# root: a tracefs of its own, detached (then uprobes)
		$how "$E/escape_mount" "$mark" ;;
	pidfd-swap)
		# the pidfd judged swapped (dup2) for the victim's
		start_victim "$mark"
		$how "$E/escape_pidfdswap" "$mark" "$INFO"
		stop_victim ;;
	chroot-interp)
		# a trusted program exec'd in a root of the tree's own, whose
		# ld.so the tree wrote
		$how "$E/escape_interp" "$mark" "$E/escape_fakeld" ;;
	pid-reuse)
		# the id of a thread that exec'd, given to an outside process
		fresh dir
		mkdir -m 777 "$F"
		pid_reuse_victim "$F" &
		helper=$!
		$how "$E/escape_pidreuse" "$mark" "$F"
		kill "$(cat "$F/victim" 2>/dev/null)" 2>/dev/null
		wait $helper ;;
	prlimit-uffd)
		# prlimit64 of a thread whose exec, and the limit the call
		# reads, the tree holds (userfaultfd) until the thread's id
		# has gone to an outside process
		fresh dir
		mkdir -m 777 "$F"
		pid_reuse_victim "$F" &
		helper=$!
		$how "$E/escape_uffd" "$mark" "$F"
		kill $helper 2>/dev/null
		wait $helper 2>/dev/null
		kill "$(cat "$F/victim" 2>/dev/null)" 2>/dev/null ;;
	tty-intr-own)
		# the run's terminal's interrupt character made 'q' and
		# syspin run killed; then a program outside in the foreground
		if [ "$how" = bare ]; then
			line="ESC_KEEP_PARENT=1 $E/escape_tty intr-own $mark"
		else
			line="$(pinned_line) $E/escape_tty intr-own $mark"
		fi
		TMO=40
		vic="sh -c 'trap \"mkdir $mark; exit\" INT; sleep 2'"
		run_as "$E/escape_pty" -w 300 -t 30 -l "$line" -w 1500 \
		    -l "$vic" -w 500 -l q -w 2000 -l exit -- sh -i ;;
	tty-ctty-other)
		# another window's pty that no session has, held outside:
		# taken as our controlling terminal, then changed
		fresh ttyname
		tn=$F
		TMO=40
		run_as "$E/escape_pty" -n -t 30 -- sh -c "tty >$tn; sleep 3" &
		PTY=$!
		i=0
		while [ ! -s "$tn" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
		$how "$E/escape_tty" ctty-other "$mark" "$(cat "$tn" 2>/dev/null)"
		wait $PTY ;;
	tty-devtty)
		# the run's terminal through /dev/tty opened before a session
		# and a pty of our own
		shell_line $E/escape_tty devtty-own $mark
		TMO=40
		run_as "$E/escape_pty" -t 30 -- sh -c "$line" ;;
	tty-noctty)
		# syspin run on a pty that is no one's controlling terminal
		shell_line $E/escape_tty noctty-own $mark
		TMO=40
		run_as "$E/escape_pty" -n -t 30 -- sh -c "$line" ;;
	tty-fg-pid)
		# our terminal's foreground given to an outside process's
		# pid before it leads a group; it then makes one, and reads
		shell_line $E/escape_tty fg-pid $mark
		TMO=40
		run_as "$E/escape_pty" -w 300 -t 30 \
		    -l "sleep 6 | $E/escape_tty pgleader $mark &" \
		    -l "$line \$!" -w 2000 -l hello -w 2500 -l exit -- sh -i ;;
	tty-join|tty-own)
		# the run's own terminal: a job outside joined and given the
		# foreground (it reads a line); or locked, or its line
		# discipline made the null one (which outlive us), or hung up
		shell_line $E/escape_tty ${name#tty-} $mark
		TMO=40
		if [ $name = tty-join ]; then
			vic="sh -c 'trap \"\" TTIN; i=0; while [ \$i -lt 40 ]; do
			    if read x; then mkdir $mark; exit; fi; sleep 0.2;
			    i=\$((i + 1)); done' &"
			run_as "$E/escape_pty" -w 300 -t 30 -l "$vic" \
			    -l "$line \$!" -w 1500 -l hello -w 2000 -l exit \
			    -- sh -i
		else
			run_as "$E/escape_pty" -w 300 -t 30 -l "$line" \
			    -w 2000 -l exit -- sh -i
		fi ;;
	tty-other)
		# another login's terminal (a shell on a pty outside): locked,
		# resized, taken by force, made the console or hung up
		fresh ttyname
		tn=$F
		TMO=40
		run_as "$E/escape_pty" -w 300 -t 30 -l "tty >$tn" \
		    -l "sleep 3" -l exit -- sh -i &
		PTY=$!
		i=0
		while [ ! -s "$tn" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
		$how "$E/escape_tty" "${name#tty-}" "$mark" "$(cat "$tn" 2>/dev/null)"
		wait $PTY ;;
	mremap-span|mremap-tail|rescue-*|later-*|perf-*|ldso-execve|clock-set)
		$how "$E/escape_box" "$name" "$mark" ;;
	unix-cmd|unix-link|unix-race|unix-abstract|unix-vfork)
		fresh srv
		srv=$F
		[ $name = unix-abstract ] && srv="@syspin-esc-$seq-$$"
		start_server "$srv"
		a=$name
		[ $name = unix-abstract ] && a=unix-cmd
		if [ $name = unix-vfork ]; then
			# a thread let go by its vfork child takes the probe
			# of a judged connect
			$how "$E/escape_vforkconn" "$mark" "$srv"
		else
			$how "$E/escape_box" "$a" "$mark" "$srv"
		fi
		stop_server ;;
	tmux-run)
		fresh tmux
		start_tmux "$F"
		$how tmux -S "$F" run-shell "mkdir $mark"
		i=0
		while [ ! -e "$mark" ] && [ $i -lt 20 ]; do sleep 0.05; i=$((i + 1)); done
		tmux -S "$F" kill-server >/dev/null 2>&1 ;;
	key-session|key-user|key-usersession)
		# the persistent keyring linked into the caller's session (or
		# the user keyring) before syspin starts
		w=${name#key-}
		if [ "$how" = bare ]; then
			run_as "$E/escape_box" with-persistent $w \
			    "$E/escape_box" key-read "$mark"
		else
			run_as "$E/escape_box" with-persistent $w env $MENV \
			    "$SYS" run $MOPT --cache-dir "$CACHE" \
			    "$E/escape_box" key-read "$mark"
		fi ;;
	env-cachedir) $how "$E/escape_forge" cachedir "$mark" ;;
	forged-table|forged-default)
		if [ "$how" = bare ]; then
			# unpinned: forging a table of our own proves nothing,
			# the child's libc-site mkdir is the effect
			new_cache
			CACHE=$NC
		fi
		[ $name = forged-default ] && XENV="XDG_CACHE_HOME=$XDG"
		$how "$E/escape_forge" table "$mark" \
		    "$([ $name = forged-table ] && echo "$CACHE" || echo -)" ;;
	preload-rt-*)
		# the runtime preloaded by the tree's own choice, before the
		# attacker's constructor: it fills its tables with the syspin
		# under test (its default, /usr/local/bin/syspin, may be
		# absent: then nothing is pinned and no baseline works)
		XENV="SYSPIN_BIN=$SYS"
		$how "$E/escape" "$name" "$mark" "$RTP" ;;
	*) $how "$E/escape" "$name" "$mark" "$RTP" ;;
	esac
}

setv() { eval "v_$(echo "$1" | tr -c 'a-zA-Z0-9\n' _)=\$2"; }
getv() { eval "echo \${v_$(echo "$1" | tr -c 'a-zA-Z0-9\n' _):-}"; }

result() {	# name mode cell
	echo "$1 $2 $3" >>"$W/results"
	now=$(date +%s%N)
	echo "$1 $(( (now - t_last) / 1000000 ))" >>"$W/times"
	t_last=$now
}

show_out() {
	tail -n 6 "$W/out" | sed 's/^/     | /'
}

# Why an attack cannot be tried at all (prints the reason), or nothing.
not_here() {	# name
	case $1 in
	ctypes-python) [ -n "$PY" ] || echo "no python3" ;;
	tmux-run) command -v tmux >/dev/null || echo "no tmux" ;;
	preload-rt-*) [ -n "$RT" ] || echo "no libsyspin-rt.so next to syspin" ;;
	tioclinux)
		echo "TIOCLINUX needs a virtual console (/dev/ttyN); the battery's terminal is a pty" ;;
	forged-table-rerun|forged-default-rerun)
		;;	# run with their first half
	esac
}

# Unpinned: does the attack work at all (as $WHO)?
baseline() {	# name
	key="works_${WHO}_$1"
	[ -n "$(getv "$key")" ] && return
	why=$(not_here "$1")
	if [ -n "$why" ]; then
		setv "$key" "no:$why"
		return
	fi
	case $1 in
	*-rerun) setv "$key" yes; return ;;	# judged with the first half
	forged-default) [ "$WHO" = nobody ] || { setv "$key" "no:root's default cache is /var/cache/syspin, which the battery never touches"; return; } ;;
	esac
	fresh mark
	mark=$F
	new_cache
	XDG=$NC
	invoke bare "$1" "$mark"
	if [ -e "$mark" ]; then
		setv "$key" yes
		n_base=$((n_base + 1))
		[ -n "${ESC_VERBOSE:-}" ] && echo "works unpinned ($WHO): $1"
	else
		setv "$key" "no:status $rc: $(tail -n 1 "$W/out")"
	fi
}

# One attack in one mode.
attack() {	# name
	lock "$1"
	attack_one "$1"
	unlock
}

attack_one() {	# name
	name=$1
	# setting the clock matters where a file's age decides trust
	case $name:$MODE in clock-set:trusted|clock-set:noexec|clock-set:strict) ;;
	clock-set:*) result "$name" "$MODE" -; return ;;
	esac
	# attached, what acts before main or on syspin run's own command
	# line, environment and terminal has no meaning; what tries the
	# supervision of a tree's pids, terminals and mounts, which is the
	# default mode's once attached, runs there only (CI's time)
	[ -n "$ATTACH" ] && case $name in
	env-*|forged-*|preload-*|audit-*|ldso-preload|ldso-audit|dt-audit|\
	ldso-skip-entry|ldso-vmclone|tiocsti|tty-*|chroot-interp|\
	slot-reexec|pid-reuse|prlimit-uffd|mount-new|exec-race|tmux-run|\
	unix-vfork|unix-race)
		result "$name" "$MODE" -; return ;;
	esac
	baseline "$name"
	w=$(getv "works_${WHO}_$name")
	case $name in
	forged-table-rerun|forged-default-rerun)
		w=$(getv "works_${WHO}_${name%-rerun}") ;;
	esac
	if [ "$w" != yes ]; then
		rk="skipped_${WHO}_${name%-rerun}"
		if [ -z "$(getv "$rk")" ]; then
			u=
			[ "$WHO" = nobody ] && u=" (as nobody)"
			echo "skip $name$u: does not work here (${w#no:})"
			n_skip=$((n_skip + 1))
			setv "$rk" 1
		fi
		result "$name" "$MODE" skip
		return
	fi
	case $name in
	forged-table-rerun|forged-default-rerun)
		# The second run: --strict, the cache the first run forged.
		CACHE=$FORGED_CACHE XENV= TMO=60
		[ $name = forged-default-rerun ] && { CACHE=; XENV="XDG_CACHE_HOME=$XDG"; }
		fresh mark
		mark=$F
		saved=$MOPT
		MOPT="$MOPT --strict"
		pinned "$E/escape" libc-site "$mark"
		MOPT=$saved
		judge "$name" "$mark"
		return ;;
	forged-default)
		[ "$WHO" = nobody ] || { result "$name" "$MODE" skip; return; }
		new_cache
		CACHE= XDG=$NC ;;
	*)	new_cache
		CACHE=$NC ;;
	esac
	FORGED_CACHE=$CACHE
	fresh mark
	mark=$F
	invoke pinned "$name" "$mark"
	judge "$name" "$mark"
}

judge() {	# name mark
	[ -n "${ESC_VERBOSE:-}" ] && sed 's/^/     : /' "$W/out"
	if [ ! -e "$2" ]; then
		echo "ok   $1 $MODE: stopped (status $rc)"
		n_ok=$((n_ok + 1))
		result "$1" "$MODE" ok
	elif echo " $KNOWN " | tr '\n' ' ' | grep -q " $1:$MODE "; then
		echo "known $1 $MODE: documented route (status $rc)"
		n_known=$((n_known + 1))
		result "$1" "$MODE" known
	else
		echo "ESCAPE $1 $MODE: the effect happened (status $rc)"
		show_out
		n_esc=$((n_esc + 1))
		result "$1" "$MODE" ESCAPE
	fi
}

# Controls: the legitimate way; status 0, and the effect where there is one.
control() {	# name
	lock "$1"
	control_one "$1"
	unlock
}

control_one() {	# name
	fresh mark
	name=$1 mark=$F want_mark=yes XENV= TMO=60
	new_cache
	CACHE=$NC
	[ -n "$ATTACH" ] && case $name in pty-jobs|key-decoy)
		result "$name" "$MODE" -; return ;;
	esac
	case $name in
	sh-pipe|pty-jobs)
		# they exec: refused with --strict, --exec=none, and by default
		# without the supervisor (which cannot follow an exec)
		case $MODE in strict|noexec|runtime)
			result "$name" "$MODE" -; return ;;
		esac ;;
	dlopen-ok|python-modules)
		# --strict refuses every PROT_EXEC mapping: no dlopen at all
		[ $MODE = strict ] && { result "$name" "$MODE" -; return; } ;;
	node-jit|java-jit)
		[ $MODE = jit ] || { result "$name" "$MODE" -; return; } ;;
	unix-tree|unix-allowed)
		# the runtime alone makes no unix stream socket at all
		case $MODE in runtime|runexec) result "$name" "$MODE" -; return ;; esac
		[ $name = unix-tree ] && case $MODE in strict|noexec)
			result "$name" "$MODE" -; return ;; esac ;;
	esac
	case $name in
	mkdir-ok|dlopen-ok|filter-ok) pinned "$E/escape" "$name" "$mark" ;;
	key-decoy)
		# a key named as the cache's in the user keyring, not the key
		# (a tree planted it): the run goes on
		run_as "$E/escape_box" with-decoy env $MENV "$SYS" run $MOPT \
		    --cache-dir "$CACHE" "$E/escape" mkdir-ok "$mark" ;;
	python-modules)
		[ -n "$PY" ] || { echo "skip control python-modules: no python3"; result "$name" "$MODE" skip; return; }
		# the modules that import unpinned must import pinned
		if [ -z "${PYMODS+set}" ]; then
			PYMODS=$("$PY" -c 'import importlib
for m in ("json", "decimal", "ssl", "sqlite3", "ctypes", "hashlib", "zlib"):
    try:
        importlib.import_module(m); print(m)
    except ImportError:
        pass' | tr '\n' ' ')
			echo "python3 $PY: control imports $PYMODS"
		fi
		TMO=120
		pinned "$PY" -c 'import importlib, os, sys
for m in sys.argv[2:]:
    importlib.import_module(m)
os.mkdir(sys.argv[1])' "$mark" $PYMODS ;;
	sh-pipe)
		# ten pipelines: each child's new image lands anywhere; the
		# filters it inherits (its parent's) must let it start
		pinned sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do
			ls / | sort >/dev/null || exit 1; done && mkdir "$0"' \
		    "$mark" ;;
	sh-kill) want_mark=no; pinned sh -c 'kill -0 $$' ;;
	unix-tree)
		# a server of the tree's own, and a client of it (psql and a
		# postgres of the tree)
		fresh srv
		pinned sh -c '"$1" cmd-server "$2" "$2.ready" & i=0
		while [ ! -e "$2.ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
		"$1" unix-cmd "$3" "$2"; r=$?; kill $!; exit $r' sh \
		    "$E/escape_box" "$F" "$mark" ;;
	unix-allowed)
		# an outside socket the user names
		fresh srv
		srv=$F
		start_server "$srv"
		saved=$MOPT
		MOPT="$MOPT --allow-socket $srv"
		pinned "$E/escape_box" unix-cmd "$mark" "$srv"
		MOPT=$saved
		stop_server ;;
	pty-jobs)
		# job control: the shell puts `sleep` in a process group of its
		# own and makes it the terminal's foreground group
		want_mark=no TMO=40
		run_as "$E/escape_pty" -w 1500 -t 30 \
		    -l 'sleep 1 & wait; sleep 0.2; echo jobs-$((40+2))' \
		    -l exit -- env $MENV "$SYS" run $MOPT --cache-dir "$CACHE" sh -i
		grep -q '^jobs-42' "$W/out" || rc="$rc (no jobs-42 line)" ;;
	node-jit)
		command -v node >/dev/null || { echo "skip control node-jit: no node"; result "$name" "$MODE" skip; return; }
		want_mark=no TMO=120
		pinned node -e 'console.log(6 * 7)'
		grep -q '^42$' "$W/out" || rc="$rc (no 42)" ;;
	java-jit)
		command -v java >/dev/null || { echo "skip control java-jit: no java"; result "$name" "$MODE" skip; return; }
		want_mark=no TMO=300
		pinned java -version ;;
	esac
	if [ "$rc" = 0 ] && { [ $want_mark = no ] || [ -e "$mark" ]; }; then
		echo "ok   control $name $MODE"
		result "$name" "$MODE" ok
	else
		[ "$rc" = 0 ] && rc="0, but no effect"
		echo "FAIL control $name $MODE: status $rc"
		show_out
		n_ctl=$((n_ctl + 1))
		result "$name" "$MODE" FAIL
	fi
}

# Per mode: MOPT (options), MENV (environment), WHO.
mode_setup() {	# mode
	MOPT= MENV= WHO=root ATTACH=
	case $1 in
	default) ;;
	strict) MOPT=--strict ;;
	jit) MOPT=--allow-jit ;;
	runtime) MENV=SYSPIN_SUPERVISE=0 ;;
	runexec) MENV=SYSPIN_SUPERVISE=0 MOPT=--exec=any ;;
	nobody) WHO=nobody ;;
	trusted) MOPT=--exec=trusted ;;
	noexec) MOPT=--exec=none ;;
	attach) ATTACH=yes ;;
	attachnobody) ATTACH=yes WHO=nobody ;;
	*) echo "unknown mode $1"; return 1 ;;
	esac
	paths_for
	if [ $WHO = nobody ]; then
		if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
			echo "skip mode nobody: needs root and setpriv"
			return 1
		fi
		if [ ! -d "$W/b" ]; then
			mkdir -p "$W/b/cli" "$W/b/runtime" "$W/b/esc" "$W/home"
			cp "$SYSPIN" "$W/b/cli/syspin"
			[ -n "$RT" ] && cp "$RT" "$W/b/runtime/libsyspin-rt.so"
			for f in "$P"/escape "$P"/escape_* "$P"/libescape_*.so; do
				[ -f "$f" ] && cp "$f" "$W/b/esc/"
			done
			chmod -R a+rX "$W/b"
			chown nobody "$W/home" && chmod 700 "$W/home"
		fi
	fi
	case $1 in trusted|noexec)
		new_cache
		CACHE=$NC XENV= TMO=60
		pinned /bin/true
		if [ "$rc" != 0 ]; then
			echo "skip mode $1: syspin run $MOPT /bin/true: status $rc: $(head -n 1 "$W/out")"
			return 1
		fi ;;
	esac
	return 0
}

for MODE in $MODES; do
	echo "== mode $MODE"
	if ! mode_setup "$MODE"; then
		n_skip=$((n_skip + 1))
		for a in $ATTACKS $CONTROLS; do result "$a" "$MODE" skip; done
		continue
	fi
	for a in $ATTACKS; do
		attack "$a"
	done
	for c in $CONTROLS; do
		control "$c"
	done
done

if [ -n "${ESC_LANE_OUT:-}" ]; then	# the parent sums the lanes up
	cp "$W/results" "$ESC_LANE_OUT.results" 2>/dev/null
	cp "$W/times" "$ESC_LANE_OUT.times" 2>/dev/null
	echo "$n_base $n_known $n_ok $n_esc $n_ctl $n_skip" >"$ESC_LANE_OUT.counts"
	exit 0
fi
summary
