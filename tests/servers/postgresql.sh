#!/bin/sh
# SPDX-License-Identifier: ISC
# PostgreSQL pinned, as the user postgres under `syspin run` started as
# root: initdb; the postmaster and its auxiliary processes pinned as
# postgres; pgbench's TPC-B load with no failed transaction and balances
# that add up; pgbench -C (a backend forked per transaction); a parallel
# query (two background workers forked); `pg_ctl reload` (pinned) takes a
# new setting; `pg_ctl stop` (pinned) and the postmaster's status 0.
# usage: postgresql.sh SYSPIN
. "$(dirname "$0")/lib.sh"
. "$HERE/pg.sh"
requires "$PGBIN/pgbench"

pg_init
pg_start $R --
pinned "postmaster" "$PM" postgres
for c in $(children "$PM"); do
	what=$(tr '\0' ' ' </proc/"$c"/cmdline 2>/dev/null)
	pinned "$(echo $what)" "$c" postgres
done

run_ok "pgbench -i" $PGBENCH -i -s 2 -q postgres
bench_ok "pgbench" -c 4 -j 2 -T 4
bench_ok "pgbench -C (a connection per transaction)" -C -c 2 -j 2 -T 2
# Each transaction adds its delta to an account, a teller and a branch.
sums=$($PSQL -c "SELECT (SELECT sum(abalance) FROM pgbench_accounts),
    (SELECT sum(tbalance) FROM pgbench_tellers),
    (SELECT sum(bbalance) FROM pgbench_branches)")
echo "$sums" | awk -F'|' '$1 == $2 && $2 == $3 && $1 != 0 { f = 1 }
    END { exit !f }' && ok "postgres: the balances add up ($sums)" ||
    fail "postgres: balances of accounts, tellers and branches: $sums"

$PSQL >"$T/plan" 2>&1 <<'EOQ'
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_indexonlyscan = off;
EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM pgbench_accounts;
EOQ
grep -q "Workers Launched: 2" "$T/plan" &&
    ok "postgres: a parallel query, two workers launched" ||
    { fail "postgres: parallel query"; show "$T/plan"; }

# A reload: pg_ctl signals the postmaster, the new setting is taken.
echo "work_mem = '7MB'" >>"$D/postgresql.conf"
run_ok "pg_ctl reload (pinned)" $R -- $AS "$PGBIN/pg_ctl" -D "$D" reload
poll 10 sh -c "[ \"\$($PSQL -c 'SHOW work_mem')\" = 7MB ]" &&
    ok "postgres: reloaded (work_mem 7MB)" ||
    fail "postgres: work_mem is not 7MB after the reload"

pg_stop $R --
clean "postgres" "$T/pg.err" "$T/pg.out" "$T/pinned-commands.err"
grep -q "database system is shut down" "$T/pg.err" ||
    fail "postgres: no 'database system is shut down' in its log"
if grep -E "terminated by signal|PANIC" "$T/pg.err" >"$T/bad"; then
	fail "postgres: its log has:"
	show "$T/bad"
fi
finish
