#!/bin/sh
# SPDX-License-Identifier: ISC
# haproxy pinned in master-worker mode, the master as root, its worker as
# nobody: a proxy to a frontend of its own; ab's load (a connection per
# request) with no failed request; ten reloads by USR2, to the master or
# to `syspin run`, which forwards it (the master execs haproxy again and
# forks a new worker; each serves its own generation of the
# configuration, the old workers exit 0, no filter stacks on the master);
# ab again; SIGUSR1 (soft stop) and the master's status 0.
# usage: haproxy.sh SYSPIN
. "$(dirname "$0")/lib.sh"
. "$HERE/conf.sh"
requires haproxy ab
P=$(port)
O=$(port)

# conf GENERATION: the origin frontend answers it.
conf() { haproxy_conf "$T" "$P" "$O" "$1"; }

# ab_ok WHAT: 2000 requests, 10 at a time, none failed, every one a 200.
ab_ok() {
	ab -n 2000 -c 10 "http://127.0.0.1:$P/" >"$T/ab" 2>&1
	rc=$?
	done_=$(awk '/^Complete requests:/ { print $3 }' "$T/ab")
	failed=$(awk '/^Failed requests:/ { print $3 }' "$T/ab")
	if [ $rc = 0 ] && [ "$done_" = 2000 ] && [ "$failed" = 0 ] &&
	    ! grep -q "^Non-2xx" "$T/ab"; then
		ok "$1: ab, 2000 requests, none failed"
	else
		fail "$1: ab (status $rc, ${done_:-?} complete," \
		    "${failed:-?} failed)"
		show "$T/ab"
	fi
}

conf 1
run_ok "haproxy -c (pinned)" $R -- haproxy -c -f "$T/haproxy.cfg"
start haproxy $R -- haproxy -W -db -f "$T/haproxy.cfg"
listening haproxy "$P"
poll 10 test -s "$T/haproxy.pid"
M=$(cat "$T/haproxy.pid")
pinned "haproxy master" "$M" root
for w in $(children "$M"); do pinned "haproxy worker" "$w" nobody; done
nf=$(filters "$M")
serves "$P" / "generation 1" && ok "haproxy: proxies" ||
    fail "haproxy: / is not 'generation 1'"
ab_ok "haproxy"

# Ten reloads: each generation served by its own new worker.
g=2
while [ $g -le 11 ]; do
	conf $g
	poll 10 usr2_ready "$M" ||
	    { fail "haproxy: the master does not catch SIGUSR2"; break; }
	# Every other one as systemd would: to `syspin run`, which forwards.
	[ $((g % 2)) = 0 ] && kill -USR2 "$M" || kill -USR2 "$(runpid haproxy)"
	poll 10 serves "$P" / "generation $g" ||
	    { fail "haproxy: reload $((g - 1)): not 'generation $g'"; break; }
	g=$((g + 1))
done
[ $g = 12 ] && ok "haproxy: 10 reloads, each serves its configuration"
poll 10 sh -c "[ \"\$(grep -c 'Former worker .* exited with code 0' \
    '$T/haproxy.err')\" = 10 ]" &&
    ok "haproxy: the 10 former workers exited 0" ||
    { fail "haproxy: former workers:"; grep 'Former\|ALERT' "$T/haproxy.err" |
    show /dev/stdin; }
[ "$(cat "$T/haproxy.pid")" = "$M" ] || fail "haproxy: the master changed"
pinned "haproxy master after 10 execs" "$M" root
[ -n "$nf" ] && [ "$(filters "$M")" = "$nf" ] &&
    ok "haproxy: still $nf filter(s) on the master after 10 execs" ||
    fail "haproxy: master's filters $nf -> $(filters "$M") after 10 execs"
w=$(children "$M")
[ "$(echo $w | wc -w)" = 1 ] || fail "haproxy: workers '$w', want 1"
for x in $w; do pinned "haproxy worker after 10 reloads" "$x" nobody; done
ab_ok "haproxy after 10 reloads"

kill -USR1 "$M"
ended "haproxy: the master exits after a soft stop" haproxy 0
clean "haproxy" "$T/haproxy.err" "$T/haproxy.out" "$T/pinned-commands.err"
grep -q 'ALERT' "$T/haproxy.err" && { fail "haproxy: alerts:"
	grep ALERT "$T/haproxy.err" | show /dev/stdin; }
finish
