#!/bin/sh
# SPDX-License-Identifier: ISC
# `syspin run -p` pins servers that run, under load (issue 20): nginx
# (master and two workers, wrk) and redis (its threads, redis-benchmark),
# each started unpinned (PostgreSQL: attach_pg.sh).  The load runs across the attach with no failed
# request or transaction; afterwards every process and thread has the
# filter, a process forked later (a backend per connection, a new worker)
# is pinned too, nothing of syspin's is said but what -v says (with
# the time the server was stopped), and the server stops as
# it would have: syspin run -p ends with its status.
# usage: attach.sh SYSPIN
. "$(dirname "$0")/lib.sh"
. "$HERE/conf.sh"
requires pgrep

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

finish
