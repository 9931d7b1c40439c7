#!/bin/sh
# SPDX-License-Identifier: ISC
# `syspin run -p` pins servers that run, under load (issue 20): nginx
# (master and two workers, wrk), redis (its threads, redis-benchmark) and
# PostgreSQL (postmaster, auxiliary processes and backends, pgbench),
# each started unpinned.  The load runs across the attach with no failed
# request or transaction; afterwards every process and thread has the
# filter, a process forked later (a backend per connection, a new worker)
# is pinned too, nothing of syspin's is said but what -v says (with
# the time the server was stopped), and the server stops as
# it would have: syspin run -p ends with its status.
# usage: attach.sh SYSPIN
. "$(dirname "$0")/lib.sh"
. "$HERE/conf.sh"
requires pgrep

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

if command -v nginx >/dev/null && command -v wrk >/dev/null; then
	P=$(port)
	nginx_conf "$T/n" "$P" off 1
	start nginx nginx $(nginx_args "$T/n")
	listening nginx "$P"
	poll 10 test -s "$T/n/nginx.pid"
	M=$(cat "$T/n/nginx.pid")
	wrk -t2 -c16 -d4s http://127.0.0.1:$P/ >"$T/wrk" 2>&1 &
	W=$!
	attach nginx "$M"
	wait $W
	reqs=$(awk '/requests in/ { print $1 }' "$T/wrk")
	if [ "${reqs:-0}" -gt 1000 ] &&
	    ! grep -q "Non-2xx\|Socket errors" "$T/wrk"; then
		ok "nginx: wrk across the attach, $reqs requests, all 200"
	else
		fail "nginx: wrk across the attach (${reqs:-no} requests)"
		show "$T/wrk"
	fi
	all_pinned "nginx master" "$M"
	for w in $(pgrep -P "$M"); do all_pinned "nginx worker" "$w"; done
	# a reload: new workers, forked after the attach
	old=$(pgrep -P "$M" | tr '\n' ' ')
	nginx_conf "$T/n" "$P" off 2
	kill -HUP "$M"
	poll 10 serves "$P" gen "generation 2" &&
	    ok "nginx: reloaded after the attach" || fail "nginx: no reload"
	for w in $(pgrep -P "$M"); do
		case " $old " in *" $w "*) ;;
		*) all_pinned "nginx worker forked after the attach" "$w" ;;
		esac
	done
	kill -QUIT "$M"
	ended "nginx: the master exits" nginx 0
	ended "nginx: syspin run -p ends with it" nginx.sup 0
	quiet nginx
else
	echo "skip nginx: nginx or wrk not installed"
fi

if command -v redis-server >/dev/null && id redis >/dev/null 2>&1 &&
    command -v redis-benchmark >/dev/null; then
	P=$(port)
	mkdir "$T/r"
	redis_conf "$T/r" "$P"
	start redis setpriv --reuid=redis --regid=redis --init-groups \
	    redis-server "$T/r/redis.conf"
	listening redis "$P"
	S=$(runpid redis)
	redis-benchmark -p "$P" -q -n 60000 -c 16 -r 1000 --csv \
	    -t set,get,incr,lpush,lpop >"$T/bench" 2>&1 &
	B=$!
	attach redis "$S"
	wait $B
	rc=$?
	tests=$(grep -c '^"[A-Z]' "$T/bench")
	if [ $rc = 0 ] && [ "$tests" = 5 ] && ! grep -qi "err" "$T/bench"; then
		ok "redis: redis-benchmark across the attach, no error"
	else
		fail "redis: redis-benchmark (status $rc, $tests tests)"
		show "$T/bench"
	fi
	all_pinned "redis-server" "$S"
	CLI="redis-cli -p $P"
	before=$($CLI LASTSAVE)
	$CLI BGSAVE >/dev/null
	poll 15 sh -c "[ \"\$($CLI LASTSAVE)\" != '$before' ]" &&
	    $CLI INFO persistence | grep -q '^rdb_last_bgsave_status:ok' &&
	    ok "redis: BGSAVE, a child forked after the attach" ||
	    fail "redis: BGSAVE after the attach"
	$CLI shutdown nosave >/dev/null 2>&1
	ended "redis: the server exits" redis 0
	ended "redis: syspin run -p ends with it" redis.sup 0
	quiet redis
else
	echo "skip redis: redis-server, redis-benchmark or user redis missing"
fi

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -n "$PGBIN" ] && [ -x "$PGBIN/pgbench" ] && id postgres >/dev/null 2>&1
then
	P=$(port)
	D=$T/pg/data
	mkdir "$T/pg"
	chown postgres: "$T/pg"
	AS="runuser -u postgres --"
	PGBENCH="$PGBIN/pgbench -h 127.0.0.1 -p $P -U postgres"
	(cd "$T" && run_ok "initdb" $AS "$PGBIN/initdb" -D "$D" -A trust \
	    -U postgres -E UTF8 --locale=C --no-sync)
	cd "$T" || exit 1
	start pg $AS "$PGBIN/postgres" -D "$D" -p "$P" -k "$T/pg" \
	    -c listen_addresses=127.0.0.1 -c fsync=off
	listening pg "$P" 30
	PM=$(head -n 1 "$D/postmaster.pid" 2>/dev/null)
	run_ok "pgbench -i" $PGBENCH -i -s 2 -q postgres
	$PGBENCH -c 4 -j 2 -T 5 postgres >"$T/pgb" 2>&1 &
	B=$!
	attach pg "$PM"
	wait $B
	rc=$?
	n=$(awk '/actually processed:/ { print $NF }' "$T/pgb")
	if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] &&
	    grep -q "failed transactions: 0 " "$T/pgb"; then
		ok "postgres: pgbench across the attach, $n transactions, none failed"
	else
		fail "postgres: pgbench across the attach (status $rc)"
		show "$T/pgb"
	fi
	all_pinned "postmaster" "$PM"
	for c in $(pgrep -P "$PM"); do
		all_pinned "$(tr '\0' ' ' </proc/"$c"/cmdline 2>/dev/null)" "$c"
	done
	$PGBENCH -C -c 2 -j 2 -T 2 postgres >"$T/pgb" 2>&1 &&
	    grep -q "failed transactions: 0 " "$T/pgb" &&
	    ok "postgres: pgbench -C, a backend forked per transaction after the attach" ||
	    { fail "postgres: pgbench -C after the attach"; show "$T/pgb"; }
	run_ok "pg_ctl stop -m fast" $AS "$PGBIN/pg_ctl" -D "$D" -m fast -w \
	    -t 20 stop
	ended "postgres: the postmaster exits" pg 0
	ended "postgres: syspin run -p ends with it" pg.sup 0
	quiet pg
	if grep -E "terminated by signal|PANIC" "$T/pg.err" >"$T/bad"; then
		fail "postgres: its log has:"
		show "$T/bad"
	fi
else
	echo "skip postgres: PostgreSQL or the user postgres missing"
fi
finish
