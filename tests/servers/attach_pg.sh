#!/bin/sh
# SPDX-License-Identifier: ISC
# `syspin run -p` pins PostgreSQL running under pgbench's load (issue 20):
# started unpinned, attached (the postmaster, its auxiliary processes and
# the backends serving pgbench) with no transaction failed; afterwards
# every process is filtered, pgbench -C's backends (forked per
# transaction after the attach) serve, syspin said nothing but what -v
# says, and pg_ctl stop ends syspin run -p with the postmaster's 0.
# usage: attach_pg.sh SYSPIN
. "$(dirname "$0")/lib.sh"
. "$HERE/pg.sh"
requires "$PGBIN/pgbench" pgrep

pg_init
pg_start
run_ok "pgbench -i" $PGBENCH -i -s 2 -q postgres
$PGBENCH -c 4 -j 2 -T 5 postgres >"$T/pgb" 2>&1 &
B=$!
attach pg "$PM"
wait $B
n=$(awk '/actually processed:/ { print $NF }' "$T/pgb")
[ "${n:-0}" -gt 0 ] && grep -q "failed transactions: 0 " "$T/pgb" &&
    ok "postgres: pgbench across the attach, $n transactions, none failed" ||
    { fail "postgres: pgbench across the attach"; show "$T/pgb"; }
all_pinned "postmaster" "$PM"
for c in $(pgrep -P "$PM"); do
	all_pinned "$(tr '\0' ' ' </proc/"$c"/cmdline 2>/dev/null | xargs)" "$c"
done
bench_ok "pgbench -C after the attach (a backend forked per transaction)" \
    -C -c 2 -j 2 -T 2
pg_stop
ended "postgres: syspin run -p ends with it" pg.sup 0
quiet pg
if grep -E "terminated by signal|PANIC" "$T/pg.err" >"$T/bad"; then
	fail "postgres: its log has:"
	show "$T/bad"
fi
finish
