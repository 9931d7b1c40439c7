# SPDX-License-Identifier: ISC
# Sourced by the server tests (tests/servers/NAME.sh SYSPIN).  Each starts
# a real server pinned, as root dropping to its service user, on loopback
# ports of its own (never the system instances' ones), loads it with the
# server's own tools, reloads it and stops it.
#   $T       a fresh directory every user can enter, removed on exit
#   $R       `syspin run` with a cache in $T (never the user's cache)
#   requires skips (77) unless root and the programs are installed
#   start    a server in the background; stopped waits for it
#   clean    no line of syspin's: no violation, refusal, "cannot pin"
#   pinned   a process runs under its filter, as its service user
#   ok/fail  one check; finish the exit status
set -u
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/syspin-servers.XXXXXX)
chmod 755 "$T"
R="$SYSPIN run --cache-dir $T/cache"
fails=0
bg=""

# Every `syspin run` left running is killed (EXITKILL takes its tree).
cleanup() {
	for p in $bg; do
		[ -f "$T/$p.run" ] && kill -KILL "$(runpid "$p")" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

skip() { echo "skip: $*"; exit 77; }
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
# show FILE...: the last lines of each, indented under a FAIL.
show() { for f; do [ -s "$f" ] && tail -n 15 "$f" | sed 's/^/     | /'; done; }
finish() {
	[ $fails -eq 0 ] && exit 0
	echo "$fails check(s) failed"
	exit 1
}

# requires PROG...: root (to start a server that drops to its user) and
# every PROG, a command or an absolute path; else skip with the reason.
requires() {
	[ "$(id -u)" = 0 ] || skip "needs root (servers start as root and" \
	    "drop to their service user)"
	for p; do
		command -v "$p" >/dev/null 2>&1 ||
		    skip "$p not installed (scripts/install-deps.sh test)"
	done
}

# net.py: free loopback ports, listeners, HTTP.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
port() { "$PY" "$HERE/net.py" port; }

# listening NAME PORT [SECONDS]: the server NAME (start's) accepts
# connections on PORT within SECONDS (default 20).
listening() {
	"$PY" "$HERE/net.py" wait "$2" "${3:-20}" && return 0
	fail "$1: no listener on port $2"
	show "$T/$1.err" "$T/$1.out"
	return 1
}

# start NAME CMD...: CMD (`$R -- ...`) in the background, standard output
# and error in $T/NAME.out and $T/NAME.err, its pid in $T/NAME.run
# (runpid NAME), its status in $T/NAME.status when it ends.
start() {
	name=$1
	shift
	rm -f "$T/$name.status" "$T/$name.run"
	(
		"$@" >"$T/$name.out" 2>"$T/$name.err" &
		echo $! >"$T/$name.run"
		wait $!
		echo $? >"$T/$name.status"
	) &
	bg="$bg $name"
	while [ ! -s "$T/$name.run" ]; do sleep 0.05; done
}
runpid() { cat "$T/$1.run"; }

# stopped NAME [SECONDS]: NAME ended within SECONDS (default 20); its
# status in $st.  Else false, and it still runs.
stopped() {
	i=0
	while [ ! -s "$T/$1.status" ]; do
		[ $i -ge $((${2:-20} * 10)) ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	st=$(cat "$T/$1.status")
}

# ended WHAT NAME WANT [SECONDS]: NAME ends within SECONDS with status
# WANT; a hang is killed and fails.
ended() {
	if ! stopped "$2" "${4:-20}"; then
		fail "$1: still running after ${4:-20} s (killed)"
		kill -KILL "$(runpid "$2")" 2>/dev/null
		show "$T/$2.err"
	elif [ "$st" != "$3" ]; then
		fail "$1: status $st, want $3"
		show "$T/$2.err" "$T/$2.out"
	else
		ok "$1 (status $st)"
	fi
}

# clean WHAT FILE...: no line of syspin's in FILE...: a violation
# ("pinsyscalls addr ... not pinned here"), a refusal, "cannot pin", or
# anything else it says about the tree.  Two notes about this kernel are
# not about the server: no Landlock, no keyring.
NOTES='^syspin: (run: this kernel has no Landlock|no kernel keyring)'
clean() {
	what=$1
	shift
	if cat "$@" 2>/dev/null | grep '^syspin: ' | grep -Evq "$NOTES"; then
		fail "$what: syspin said:"
		cat "$@" | grep '^syspin: ' | grep -Ev "$NOTES" | head -n 20 |
		    sed 's/^/     | /'
	else
		ok "$what: no violation, refusal or other line of syspin's"
	fi
}

# pinned WHAT PID [USER]: PID runs under a seccomp filter (Seccomp: 2,
# Seccomp_filters: >= 1), as USER (real and effective uid) if given.
pinned() {
	s=/proc/$2/status
	mode=$(awk '$1 == "Seccomp:" { print $2 }' "$s" 2>/dev/null)
	n=$(awk '$1 == "Seccomp_filters:" { print $2 }' "$s" 2>/dev/null)
	uids=$(awk '$1 == "Uid:" { print $2, $3 }' "$s" 2>/dev/null)
	want=""
	[ -n "${3:-}" ] && u=$(id -u "$3") && want="$u $u"
	if [ "$mode" != 2 ] || [ "${n:-0}" -lt 1 ]; then
		fail "$1 [$2]: not pinned (Seccomp: ${mode:-?}," \
		    "Seccomp_filters: ${n:-?})"
	elif [ -n "$want" ] && [ "$uids" != "$want" ]; then
		fail "$1 [$2]: uid $uids, want $3 ($want)"
	else
		ok "$1 [$2]: pinned (Seccomp: 2, $n filter(s))${3:+ as $3}"
	fi
}

# filters PID: its Seccomp_filters.
filters() { awk '$1 == "Seccomp_filters:" { print $2 }' "/proc/$1/status"; }

# children PID: the pids of PID's children.
children() { echo $(cat /proc/"$1"/task/*/children 2>/dev/null); }

# run_ok WHAT CMD...: CMD exits 0 (output in $T/cmd.out, $T/cmd.err).
run_ok() {
	what=$1
	shift
	"$@" >"$T/cmd.out" 2>"$T/cmd.err"
	rc=$?
	if [ $rc = 0 ]; then
		ok "$what"
	else
		fail "$what: status $rc: $*"
		show "$T/cmd.err" "$T/cmd.out"
	fi
	cat "$T/cmd.err" >>"$T/pinned-commands.err"
	return $rc
}

# poll SECONDS CMD...: CMD succeeds within SECONDS (tried every 0.2 s).
poll() {
	i=0
	n=$(($1 * 5))
	shift
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -ge $n ] && return 1
		sleep 0.2
	done
}

# http_get PORT PATH: the body of a GET of 127.0.0.1:PORT/PATH (status 200).
http_get() { "$PY" "$HERE/net.py" get "$1" "$2"; }
# serves PORT PATH BODY: a GET of PATH answers BODY (a line).
serves() { [ "$(http_get "$1" "$2" 2>/dev/null)" = "$3" ]; }

# ---- syspin run -p (attach.sh, attach_pg.sh) ----
# attach NAME PID: `syspin run -v -p PID` in the background as NAME.sup
# once PID's load has run a second; the stop it reports is printed.
attach() {
	sleep 1
	start "$1.sup" $R -v -p "$2"
	poll 10 grep -q "pinned, .* stopped for" "$T/$1.sup.err" &&
	    ok "$1: $(sed -n 's/^syspin: [0-9]*: //p' "$T/$1.sup.err" |
	    head -n 1)" ||
	    { fail "$1: not attached"; show "$T/$1.sup.err"; }
}

# all_pinned WHAT PID: PID and every thread of it runs under a filter.
all_pinned() {
	bad=
	for t in /proc/"$2"/task/*; do
		grep -q 'Seccomp_filters:[[:space:]]*[1-9]' "$t/status" \
		    2>/dev/null || bad="$bad ${t##*/}"
	done
	n=$(ls /proc/"$2"/task | wc -l)
	[ -z "$bad" ] && ok "$1 [$2]: pinned, its $n thread(s)" ||
	    fail "$1 [$2]: threads not pinned:$bad"
}

# quiet NAME: the supervisor said nothing but what -v says (objects
# analysed, reach, the attach's own line).
quiet() {
	grep -Ev ': (analysed|cached)$|its code can reach|widened by|in the late-code band: no system call|pinned, .* stopped for' \
	    "$T/$1.sup.err" >"$T/$1.said"
	clean "$1 after the attach" "$T/$1.said"
}
