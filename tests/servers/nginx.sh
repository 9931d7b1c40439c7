#!/bin/sh
# SPDX-License-Identifier: ISC
# nginx pinned: the master as root, its workers as nobody (`user nobody;`),
# each under its filter; wrk's load with no error; a reload by `nginx -s
# reload` (pinned) that serves the new configuration from new workers,
# and one by SIGHUP to `syspin run` (forwarded, as systemd reloads);
# SIGQUIT through syspin run and the master's status 0 (a pinned
# `nginx -s quit` refused: the master is outside its tree).  Then as a daemon, the binary
# upgrade (USR2: the master forks and execs nginx again, WINCH and QUIT
# to the old one): the new master is pinned and serves.
# usage: nginx.sh SYSPIN
. "$(dirname "$0")/lib.sh"
. "$HERE/conf.sh"
requires nginx wrk
NGINX=$(command -v nginx)
P=$(port)
LOG=$T/logs/error.log
# conf DAEMON GENERATION: nginx.conf; /gen answers the generation.
conf() { nginx_conf "$T" "$P" "$1" "$2"; }
N="$NGINX $(nginx_args "$T")"

conf off 1
run_ok "nginx -t (pinned)" $R -- $N -t
start nginx $R -- $N
listening nginx "$P"
poll 10 test -s "$T/nginx.pid"
M=$(cat "$T/nginx.pid")
pinned "nginx master" "$M" root
old=$(children "$M")
for w in $old; do pinned "nginx worker" "$w" nobody; done
[ "$(echo $old | wc -w)" = 2 ] || fail "nginx: workers '$old', want 2"

# Load: keep-alive connections from wrk, every answer a 200.
wrk -t2 -c16 -d3s http://127.0.0.1:$P/ >"$T/wrk" 2>&1
rc=$?
reqs=$(awk '/requests in/ { print $1 }' "$T/wrk")
if [ $rc != 0 ] || [ "${reqs:-0}" -lt 1000 ] ||
    grep -q "Non-2xx\|Socket errors" "$T/wrk"; then
	fail "nginx: wrk (status $rc, ${reqs:-no} requests)"
	show "$T/wrk"
else
	ok "nginx: wrk, $reqs requests, all 200"
fi

# Reload: the new configuration, from new workers, still pinned.
conf off 2
run_ok "nginx -s reload (pinned)" $R -- $N -s reload
poll 10 serves "$P" gen "generation 2" && ok "nginx: reloaded" ||
    fail "nginx: /gen is not 'generation 2' after the reload"
poll 10 sh -c "[ \"\$(cat /proc/$M/task/*/children | wc -w)\" = 2 ]"
new=$(children "$M")
for w in $new; do
	case " $old " in
	*" $w "*) fail "nginx: worker $w survived the reload" ;;
	*) pinned "nginx worker after the reload" "$w" nobody ;;
	esac
done
wrk -t1 -c4 -d1s http://127.0.0.1:$P/ >"$T/wrk" 2>&1 &&
    ! grep -q "Non-2xx\|Socket errors" "$T/wrk" &&
    ok "nginx: serves after the reload" ||
    { fail "nginx: wrk after the reload"; show "$T/wrk"; }

# As systemd reloads a unit (ExecReload=/bin/kill -HUP $MAINPID): SIGHUP
# to `syspin run`, which forwards it to the master (docs/service.md).
conf off 3
kill -HUP "$(runpid nginx)"
poll 10 serves "$P" gen "generation 3" &&
    ok "nginx: reloaded by SIGHUP to syspin run" ||
    fail "nginx: /gen is not 'generation 3' after SIGHUP to syspin run"

# A core-dumping signal reaches no process outside the tree (blind round
# 18): a pinned `nginx -s quit` cannot stop a master of another run.
# SIGQUIT to the master's `syspin run` goes on to it.
if $R -- $N -s quit >"$T/quit.out" 2>&1; then
	fail "nginx -s quit (pinned) reached a master outside its tree"
else
	ok "nginx -s quit (pinned): refused, the master is outside its tree"
fi
kill -QUIT "$(runpid nginx)"
ended "nginx: the master exits" nginx 0
clean "nginx" "$T/nginx.err" "$T/pinned-commands.err"

# The binary upgrade needs a daemon (nginx ignores USR2 when its parent
# is not init): `syspin run` returns once the whole tree has exited.
conf on 4
: >"$LOG"
start daemon $R -- $N
listening daemon "$P"
poll 10 test -s "$T/nginx.pid"
M=$(cat "$T/nginx.pid")
kill -USR2 "$M"
poll 10 test -s "$T/nginx.pid.oldbin" && poll 10 sh -c \
    "[ -s '$T/nginx.pid' ] && [ \"\$(cat '$T/nginx.pid')\" != $M ]" ||
    fail "nginx: no new master after USR2"
M2=$(cat "$T/nginx.pid")
pinned "nginx master exec'd by USR2" "$M2" root
kill -WINCH "$M"
kill -QUIT "$M"
poll 10 sh -c "! grep -qs '^State:.*[RSD]' /proc/$M/status" ||
    fail "nginx: the old master did not quit"
poll 10 serves "$P" gen "generation 4" && ok "nginx: the new binary serves" ||
    fail "nginx: /gen is not 'generation 4' from the new master"
for w in $(children "$M2"); do pinned "new master's worker" "$w" nobody; done
kill -QUIT "$M2"
ended "nginx daemon: syspin run returns" daemon 0
clean "nginx daemon" "$T/daemon.err" "$T/pinned-commands.err"

# Neither run logged a worker's death or anything worse than a warning.
if grep -E '\[(alert|crit|emerg)\]|exited on signal' "$LOG" >"$T/bad"; then
	fail "nginx: its error log has:"
	show "$T/bad"
else
	ok "nginx: no alert, crit, emerg or worker death in the log"
fi
finish
