#!/bin/sh
# SPDX-License-Identifier: ISC
# make bench, servers: each server pinned against the same server unpinned,
# in the same run.  Both run side by side (ports and directories of their
# own, the configurations of tests/servers/conf.sh, workers as their
# service users) and are measured in PAIRS interleaved pairs of DUR
# seconds (unpinned first in odd pairs, pinned first in even ones).  Each
# pair gives the ratios pinned/unpinned of the throughput and of the
# latency (p99; pgbench -C: the mean connection time); reported: their
# median and the spread (lowest-highest) over the pairs, and the medians
# of both sides, and the CPU time the supervisor (the pinned server's
# `syspin run`) took during the pinned runs: a stop per request would
# show there whatever the noise.  haproxy is measured after 1 and after
# 20 reloads of each.  Needs root (the servers drop to their users); a
# server that is not installed is left out.
# usage: bench/servers_bench.sh BUILD    (PAIRS=5 DUR=5 by default;
#        SERVERS="nginx haproxy redis memcached postgresql": which ones;
#        PINNED=minip: the "pinned" side under the smallest filter that
#        reads the instruction pointer instead (bench/min_ip_exec.c), the
#        floor of any such filter, to set syspin's ratios against)
set -u
B=$(cd "${1:-build}" && pwd)
SYSPIN=$B/cli/syspin
MC_LOAD=$B/bench/mc_load
PAIRS=${PAIRS:-5}
DUR=${DUR:-5}
TS=$(cd "$(dirname "$0")/../tests/servers" && pwd)
for f in "$SYSPIN" "$MC_LOAD"; do
	[ -e "$f" ] || { echo "servers_bench: $f missing (ninja -C $B)" >&2
		exit 2; }
done
if [ "$(id -u)" != 0 ]; then
	echo "servers: skipped (needs root: the servers drop to their users)"
	exit 0
fi
. "$TS/conf.sh"
T=$(mktemp -d /tmp/syspin-bench-servers.XXXXXX)
chmod 755 "$T"
R="$SYSPIN run --cache-dir $T/cache"
[ "${PINNED:-}" = minip ] && R=$B/bench/min_ip_exec
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
pids=""
# Each server leads a process group of its own (up): an unpinned
# master killed alone would leave its workers running.
cleanup() {
	for p in $pids; do
		kill -KILL "-$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
cd "$T" || exit 1

port() { "$PY" "$TS/net.py" port; }
# up NAME PORT CMD...: CMD in the background, in a session of its own
# (output in $T/NAME.log, its pid in $last: setsid does not fork in a
# process that is not a group leader), listening on PORT within 30 s.
up() {
	n=$1
	p=$2
	shift 2
	setsid "$@" >"$T/$n.log" 2>&1 &
	pids="$pids $!"
	last=$!
	"$PY" "$TS/net.py" wait "$p" 30 && return 0
	echo "servers_bench: $n does not listen on $p:" >&2
	tail -n 5 "$T/$n.log" >&2
	return 1
}
has() { command -v "$1" >/dev/null 2>&1; }
SERVERS=${SERVERS:-nginx haproxy redis memcached postgresql}
# want NAME: NAME is one of $SERVERS.
want() { case " $SERVERS " in *" $1 "*) return 0 ;; esac; return 1; }
# until_ok SECONDS CMD...: CMD succeeds within SECONDS.
until_ok() {
	i=$(($1 * 10))
	shift
	until "$@" >/dev/null 2>&1; do
		i=$((i - 1))
		[ $i -le 0 ] && return 1
		sleep 0.1
	done
}

# ---- measurements: each prints "THROUGHPUT LATENCY_MS" ----
# wrk, 16 keep-alive connections on one thread; p99 in ms.
m_http() {
	wrk -t1 -c16 -d"${DUR}s" --latency "http://127.0.0.1:$1/" 2>&1 |
	    awk '/^Requests\/sec:/ { r = $2 }
		$1 == "99%" { l = $2 + 0
			if ($2 ~ /us$/) l /= 1000
			else if ($2 ~ /[^m]s$/) l *= 1000 }
		/Non-2xx|Socket errors/ { e = 1 }
		END { if (e) r = 0; print r + 0, l + 0 }'
}
# redis-benchmark, 16 connections, one command (its p99).
m_redis() {
	redis-benchmark -p "$1" -t "$2" -n "$3" -c 16 -r 10000 --csv \
	    2>/dev/null | awk -F'"' 'NR > 1 { print $4, $14; exit }'
}
m_redis_get() { m_redis "$1" get $((20000 * DUR)); }
m_redis_set() { m_redis "$1" set $((20000 * DUR)); }
# mc_load: 4 connections, 9 gets for a set.
m_mc() {
	"$MC_LOAD" "$1" 4 "$DUR" | awk '{ print ($3 > 0 ? 0 : $1), $2 }'
}
# pgbench, 4 clients, select-only; p99 of the per-transaction log.
m_pg() {
	rm -f "$T"/pglog.*
	$PGBIN/pgbench -h 127.0.0.1 -p "$1" -U postgres -n -S -c 4 -j 2 \
	    -T "$DUR" -l --log-prefix="$T/pglog" postgres >"$T/pgb" 2>&1
	tps=$(awk '/^tps = / { print $3 }' "$T/pgb")
	grep -q "failed transactions: 0 " "$T/pgb" || tps=0
	p99=$(cat "$T"/pglog.* | awk '{ print $3 }' | sort -n |
	    awk '{ v[NR] = $1 } END { print v[int(NR * 0.99)] / 1000 }')
	echo "${tps:-0} ${p99:-0}"
}
# pgbench -C: a connection (a backend forked) per transaction; the mean
# connection time.
m_pg_connect() {
	$PGBIN/pgbench -h 127.0.0.1 -p "$1" -U postgres -n -S -C -c 4 -j 2 \
	    -T "$DUR" postgres >"$T/pgb" 2>&1
	tps=$(awk '/^tps = / { print $3 }' "$T/pgb")
	grep -q "failed transactions: 0 " "$T/pgb" || tps=0
	awk -v t="${tps:-0}" '/connection time =/ { c = $(NF - 1) }
	    END { print t, c + 0 }' "$T/pgb"
}

# ticks PID: the CPU time PID has used, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
HZ=$(getconf CLK_TCK)

# pairs NAME LABEL MEASURE UNPINNED_PORT PINNED_PORT [LATENCY]: the pairs
# ($sup: the pinned server's `syspin run`), then a line of the table.
pairs() {
	: >"$T/$1.res"
	i=1
	while [ $i -le "$PAIRS" ]; do
		if [ $((i % 2)) = 1 ]; then order="u p"; else order="p u"; fi
		for side in $order; do
			[ $side = u ] && p=$4 || p=$5
			t0=$(ticks "$sup")
			echo "$i $side $($3 "$p")" >>"$T/$1.res"
			[ $side = p ] &&
			    echo "sup $(($(ticks "$sup") - t0))" >>"$T/$1.res"
		done
		i=$((i + 1))
	done
	awk -v label="$2" -v lat="${6:-p99}" -v hz="$HZ" -v s=$((PAIRS * DUR)) \
	    -v minip="${PINNED:-}" '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$1 == "sup" { sup += $2; next }
	{ thr[$1, $2] = $3; l[$1, $2] = $4; if ($1 > n) n = $1 }
	END {
		bad = 0
		for (i = 1; i <= n; i++) {
			if (thr[i, "u"] <= 0 || thr[i, "p"] <= 0) bad = 1
			tu[i] = thr[i, "u"]; tp[i] = thr[i, "p"]
			lu[i] = l[i, "u"]; lp[i] = l[i, "p"]
			rt[i] = tu[i] > 0 ? tp[i] / tu[i] : 0
			rl[i] = lu[i] > 0 ? lp[i] / lu[i] : 0
			st[i] = rt[i]; sl[i] = rl[i]
		}
		lo_t = hi_t = rt[1]; lo_l = hi_l = rl[1]
		for (i = 2; i <= n; i++) {
			lo_t = rt[i] < lo_t ? rt[i] : lo_t
			hi_t = rt[i] > hi_t ? rt[i] : hi_t
			lo_l = rl[i] < lo_l ? rl[i] : lo_l
			hi_l = rl[i] > hi_l ? rl[i] : hi_l
		}
		printf "  %-29s %8.0f %8.0f  %5.3fx [%5.3f-%5.3f]",
		    label, med(tu, n), med(tp, n), med(st, n), lo_t, hi_t
		printf "  %7.3f %7.3f ms  %5.3fx [%5.3f-%5.3f] %-12s",
		    med(lu, n), med(lp, n), med(sl, n), lo_l, hi_l, lat
		# under min_ip_exec there is no supervisor: $sup is the server
		if (minip == "minip")
			printf "    -%s\n", bad ? "  (ERRORS: a run failed)" : ""
		else
			printf " %4.1f%%%s\n",
			    100 * sup / hz / s, bad ? "  (ERRORS: a run failed)" : ""
	}' "$T/$1.res"
}

echo
[ "${PINNED:-}" = minip ] &&
    echo "(PINNED=minip: \"pinned\" is the smallest instruction-pointer filter)"
echo "servers: pinned / unpinned, $PAIRS interleaved pairs of ${DUR} s" \
    "(median ratio [lowest-highest])"
printf "  %-29s %17s  %-20s  %18s  %-33s %s\n" "" "throughput (/s)" \
    "pinned/unpinned" "latency" "pinned/unpinned" "supervisor"
printf "  %-29s %8s %8s  %-20s  %7s %7s %-36s %s\n" "" unpinned pinned "" \
    unpinned pinned "" "CPU"

# ---- nginx: one worker, a small static file ----
if ! want nginx; then
	:
elif has nginx && has wrk; then
	a=$(port) b=$(port)
	nginx_conf "$T/nu" "$a" off 1 1
	nginx_conf "$T/np" "$b" off 1 1
	up nginx-u "$a" nginx $(nginx_args "$T/nu") &&
	    up nginx-p "$b" $R -- nginx $(nginx_args "$T/np") && sup=$last &&
	    pairs nginx "nginx (wrk, 16 conns)" m_http "$a" "$b"
else
	echo "  nginx: not installed (nginx, wrk)"
fi

# ---- haproxy: one thread, a proxy to a frontend of its own ----
# reload DIR PORT N: N reloads (USR2 to the master, each a new
# generation served by a new worker), then only the new worker left.
reload() {
	m=$(cat "$1/haproxy.pid")
	k=0
	while [ $k -lt "$3" ]; do
		g=$(($(cat "$1/gen") + 1))
		echo $g >"$1/gen"
		haproxy_conf "$1" "$2" "$(cat "$1/origin")" $g 1
		until_ok 10 usr2_ready "$m" && kill -USR2 "$m" &&
		    until_ok 10 sh -c "[ \"\$('$PY' '$TS/net.py' get $2 /)\" = \
'generation $g' ]" || { echo "servers_bench: reload of $1 failed" >&2
			return 1; }
		k=$((k + 1))
	done
	until_ok 20 sh -c "[ \$(cat /proc/$m/task/*/children | wc -w) = 1 ]"
}
if ! want haproxy; then
	:
elif has haproxy && has wrk; then
	for s in hu hp; do
		mkdir "$T/$s"
		port >"$T/$s/origin"
		echo 0 >"$T/$s/gen"
	done
	a=$(port) b=$(port)
	haproxy_conf "$T/hu" "$a" "$(cat "$T/hu/origin")" 0 1
	haproxy_conf "$T/hp" "$b" "$(cat "$T/hp/origin")" 0 1
	up haproxy-u "$a" haproxy -W -db -f "$T/hu/haproxy.cfg" &&
	    up haproxy-p "$b" $R -- haproxy -W -db -f "$T/hp/haproxy.cfg" &&
	    sup=$last &&
	    reload "$T/hu" "$a" 1 && reload "$T/hp" "$b" 1 &&
	    pairs haproxy1 "haproxy, after 1 reload" m_http "$a" "$b" &&
	    reload "$T/hu" "$a" 19 && reload "$T/hp" "$b" 19 &&
	    pairs haproxy20 "haproxy, after 20 reloads" m_http "$a" "$b"
else
	echo "  haproxy: not installed (haproxy, wrk)"
fi

# ---- redis: as the user redis ----
if ! want redis; then
	:
elif has redis-server && has redis-benchmark && id redis >/dev/null 2>&1
then
	a=$(port) b=$(port)
	redis_conf "$T/ru" "$a"
	redis_conf "$T/rp" "$b"
	AS="setpriv --reuid=redis --regid=redis --init-groups"
	up redis-u "$a" $AS redis-server "$T/ru/redis.conf" &&
	    up redis-p "$b" $R -- $AS redis-server "$T/rp/redis.conf" &&
	    sup=$last &&
	    pairs redis-get "redis GET (16 conns)" m_redis_get "$a" "$b" &&
	    pairs redis-set "redis SET (16 conns)" m_redis_set "$a" "$b"
else
	echo "  redis: not installed (redis-server, redis-tools)"
fi

# ---- memcached: two threads, as memcache ----
if ! want memcached; then
	:
elif has memcached; then
	U=memcache
	id $U >/dev/null 2>&1 || U=nobody
	a=$(port) b=$(port)
	MC="memcached -u $U -l 127.0.0.1 -U 0 -t 2 -p"
	up mc-u "$a" $MC "$a" && up mc-p "$b" $R -- $MC "$b" && sup=$last &&
	    pairs memcached "memcached (mc_load, 4 conns)" m_mc "$a" "$b"
else
	echo "  memcached: not installed"
fi

# ---- PostgreSQL: as postgres, scale 10, fsync off ----
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if ! want postgresql; then
	:
elif [ -n "$PGBIN" ] && [ -x "$PGBIN/pgbench" ] &&
    id postgres >/dev/null 2>&1; then
	AS="runuser -u postgres --"
	a=$(port) b=$(port)
	pg() {	# DIR PORT: postgres's arguments
		echo "$PGBIN/postgres -D $1/data -p $2 -k $1" \
		    "-c listen_addresses=127.0.0.1 -c fsync=off"
	}
	mkdir "$T/pu"
	chown postgres: "$T/pu"
	$AS "$PGBIN/initdb" -D "$T/pu/data" -A trust -U postgres -E UTF8 \
	    --locale=C --no-sync >"$T/initdb.log" 2>&1 &&
	    up pg-init "$a" $AS $(pg "$T/pu" "$a") &&
	    "$PGBIN/pgbench" -h 127.0.0.1 -p "$a" -U postgres -i -s 10 -q \
	    postgres >"$T/pgi.log" 2>&1 &&
	    $AS "$PGBIN/pg_ctl" -D "$T/pu/data" -m fast -w stop >/dev/null &&
	    cp -a "$T/pu" "$T/pp" &&
	    up pg-u "$a" $AS $(pg "$T/pu" "$a") &&
	    up pg-p "$b" $R -- $AS $(pg "$T/pp" "$b") && sup=$last &&
	    pairs pg "pgbench -S (4 clients)" m_pg "$a" "$b" &&
	    pairs pgc "pgbench -S -C (4 clients)" m_pg_connect "$a" "$b" \
	    "mean connect"
else
	echo "  PostgreSQL: not installed (postgresql-15)"
fi

# Anything syspin said about the pinned servers.
if cat "$T"/*-p.log 2>/dev/null | grep '^syspin: ' >"$T/said"; then
	echo "  syspin said (the pinned servers):"
	sed 's/^/    /' "$T/said" | head -n 10
fi
exit 0
