#!/bin/sh
# SPDX-License-Identifier: ISC
# PostgreSQL's JIT (LLVM, llvmjit.so) under `syspin run --allow-jit`:
# Debian's PostgreSQL has jit = on, and compiles any query that costs
# more than jit_above_cost (100000); here every query, forced.  The query
# must answer as unpinned, with its functions compiled, and syspin say
# nothing.
# LLVM's memory manager maps its sections read-write, anonymous, then
# mprotects the code ones PROT_READ|PROT_EXEC in place: with --allow-jit
# those mappings go into the late-code band (docs/run.md); before, the
# mprotect was refused and the query failed ("failed to look up symbol").
# usage: postgresql_jit.sh SYSPIN
. "$(dirname "$0")/lib.sh"
. "$HERE/pg.sh"
LIB=$(dirname "$PGBIN")/lib/llvmjit.so
[ -f "$LIB" ] || skip "no $LIB (PostgreSQL without JIT)"

# jit_query WHAT: the query answers, its functions compiled by LLVM.
jit_query() {
	$PSQL -c "SET jit = on; SET jit_above_cost = 0;
	    SET jit_inline_above_cost = 0; SET jit_optimize_above_cost = 0;
	    EXPLAIN (ANALYZE, TIMING OFF)
	        SELECT sum(i * 3 + 1) FROM generate_series(1, 100000) i;
	    SELECT sum(i * 3 + 1) FROM generate_series(1, 100000) i;" \
	    >"$T/jit" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q "^  Functions: [1-9]" "$T/jit" &&
	    [ "$(tail -n 1 "$T/jit")" = 15000250000 ]
}

pg_init
# The control: JIT works here unpinned.
pg_start
if ! jit_query; then
	show "$T/jit"
	pg_stop
	skip "PostgreSQL's JIT does not work here unpinned"
fi
ok "postgres unpinned: a JIT-compiled query answers"
pg_stop

pg_start $R --allow-jit --
if jit_query; then
	ok "postgres --allow-jit: a JIT-compiled query answers"
else
	fail "postgres --allow-jit: a JIT-compiled query (psql status $rc)"
	show "$T/jit"
fi
pg_stop $R --
clean "postgres --allow-jit" "$T/pg.err" "$T/pinned-commands.err"
finish
