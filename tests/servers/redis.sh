#!/bin/sh
# SPDX-License-Identifier: ISC
# redis pinned, started as root and dropped to its user by setpriv (redis
# has no setting of its own for it): pinned as redis (with its threads);
# redis-benchmark's load with no error; data written and read back; a
# BGSAVE (a fork writing the dump) that succeeds; `redis-cli shutdown
# save` (pinned) and the server's status 0.
# usage: redis.sh SYSPIN
. "$(dirname "$0")/lib.sh"
. "$HERE/conf.sh"
requires redis-server redis-cli redis-benchmark setpriv
id redis >/dev/null 2>&1 || skip "no user redis"
P=$(port)
redis_conf "$T" "$P"
CLI="redis-cli -p $P"

start redis $R -- setpriv --reuid=redis --regid=redis --init-groups \
    redis-server "$T/redis.conf"
listening redis "$P"
S=$(children "$(runpid redis)")
pinned "redis-server" "$S" redis

# Load: every command answered (redis-benchmark stops at an error).
redis-benchmark -p "$P" -q -n 10000 -c 16 -r 1000 --csv \
    -t set,get,incr,lpush,lpop,sadd,hset,zadd,lrange_100,mset \
    >"$T/bench" 2>&1
rc=$?
tests=$(grep -c '^"[A-Z]' "$T/bench")
if [ $rc != 0 ] || [ "$tests" -lt 10 ] || grep -qi "err" "$T/bench"; then
	fail "redis: redis-benchmark (status $rc, $tests tests)"
	show "$T/bench"
else
	ok "redis: redis-benchmark, $tests tests, no error"
fi

# Data, then a fork that writes it out.
i=0
while [ $i -lt 100 ]; do echo "SET k$i v$i"; i=$((i + 1)); done |
    $CLI >/dev/null
[ "$($CLI GET k42)" = v42 ] && [ "$($CLI DBSIZE)" -ge 100 ] &&
    ok "redis: data read back" || fail "redis: GET k42 / DBSIZE"
before=$($CLI LASTSAVE)
$CLI BGSAVE >/dev/null
poll 15 sh -c "[ \"\$($CLI LASTSAVE)\" != '$before' ]" &&
    $CLI INFO persistence | grep -q '^rdb_last_bgsave_status:ok' &&
    ok "redis: BGSAVE by a forked child" ||
    { fail "redis: BGSAVE"; $CLI INFO persistence | show /dev/stdin; }

run_ok "redis-cli shutdown save (pinned)" $R -- $CLI shutdown save
ended "redis: the server exits" redis 0
[ -s "$T/data/dump.rdb" ] && [ "$(stat -c %U "$T/data/dump.rdb")" = redis ] &&
    ok "redis: dump.rdb written as redis" ||
    fail "redis: no dump.rdb of redis's"
clean "redis" "$T/redis.err" "$T/redis.out" "$T/pinned-commands.err"
grep -q "ready to exit" "$T/redis.out" || { fail "redis: no clean exit logged"
	show "$T/redis.out"; }
finish
