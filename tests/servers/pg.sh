# SPDX-License-Identifier: ISC
# Sourced after lib.sh by the PostgreSQL tests: PostgreSQL 15's programs
# (not pg_ctlcluster's clusters), a cluster in $T made by initdb as the
# user postgres, pinned: `syspin run` as root, runuser to postgres inside.
#   pg_init          initdb, pinned
#   pg_start [RUN]   postgres in the foreground, under RUN (`$R --` to pin
#                    it, `$R --allow-jit --`...), $PM its postmaster
#   pg_stop [RUN]    pg_ctl stop -m fast under RUN; postgres exits 0
#   bench_ok WHAT ARG...  pgbench ARG... ran transactions, none failed
#   $PSQL            psql to it; $PGBIN its programs, $AS runuser
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$PGBIN" ] ||
    skip "PostgreSQL not installed (no /usr/lib/postgresql/*/bin)"
requires "$PGBIN/postgres" "$PGBIN/initdb" "$PGBIN/pg_ctl" "$PGBIN/psql" runuser
id postgres >/dev/null 2>&1 || skip "no user postgres"
P=$(port)
D=$T/pg/data
mkdir "$T/pg"
chown postgres: "$T/pg"
AS="runuser -u postgres --"
PGBENCH="$PGBIN/pgbench -h 127.0.0.1 -p $P -U postgres"
PSQL="$PGBIN/psql -X -h 127.0.0.1 -p $P -U postgres -d postgres -Atq"
# Every command runs from $T: postgres cannot enter the build tree.
cd "$T" || exit 1

pg_init() {
	run_ok "initdb as postgres (pinned)" $R -- $AS "$PGBIN/initdb" -D "$D" \
	    -A trust -U postgres -E UTF8 --locale=C --no-sync
}

pg_start() {
	start pg "$@" $AS "$PGBIN/postgres" -D "$D" -p "$P" -k "$T/pg" \
	    -c listen_addresses=127.0.0.1 -c fsync=off
	listening pg "$P" 30
	PM=$(head -n 1 "$D/postmaster.pid" 2>/dev/null)
}

pg_stop() {
	run_ok "pg_ctl stop -m fast${1:+ (pinned)}" "$@" $AS "$PGBIN/pg_ctl" \
	    -D "$D" -m fast -w -t 20 stop
	ended "postgres: the postmaster exits" pg 0
}

# bench_ok WHAT ARG...: pgbench ARG... ran transactions, none failed.
bench_ok() {
	what=$1
	shift
	$PGBENCH "$@" postgres >"$T/bench" 2>&1
	rc=$?
	n=$(awk '/actually processed:/ { print $NF }' "$T/bench")
	if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] &&
	    grep -q "failed transactions: 0 " "$T/bench"; then
		ok "$what: $n transactions, none failed"
	else
		fail "$what (status $rc, ${n:-no} transactions)"
		show "$T/bench"
	fi
}
