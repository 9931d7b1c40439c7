#!/bin/sh
# SPDX-License-Identifier: ISC
# memcached pinned, started as root and dropping to memcache itself (-u),
# with two worker threads: pinned as memcache; memcaslap's load with every
# value verified; a loop of set/get/incr/delete over its text protocol
# answered right; SIGTERM to `syspin run` (forwarded) and status 0.
# usage: memcached.sh SYSPIN
. "$(dirname "$0")/lib.sh"
requires memcached memcaslap
U=memcache
id $U >/dev/null 2>&1 || U=nobody
P=$(port)

start memcached $R -- memcached -u $U -l 127.0.0.1 -p "$P" -U 0 -t 2 -v
listening memcached "$P"
M=$(children "$(runpid memcached)")
pinned "memcached" "$M" $U

# Load: 50000 operations, a tenth of the values read back and compared.
memcaslap -s 127.0.0.1:"$P" -x 50000 -c 16 -T 2 -v 0.1 >"$T/slap" 2>&1
rc=$?
n() { awk -v k="$1:" '$1 == k { print $2 }' "$T/slap"; }
if [ $rc = 0 ] && [ $(($(n cmd_get) + $(n cmd_set))) = 50000 ] &&
    [ "$(n get_misses)" = 0 ] && [ "$(n verify_misses)" = 0 ] &&
    [ "$(n verify_failed)" = 0 ]; then
	ok "memcached: memcaslap, 50000 operations, values verified"
else
	fail "memcached: memcaslap (status $rc)"
	show "$T/slap"
fi

# A small loop of its own: every answer as the protocol says.
"$PY" - "$P" >"$T/loop" 2>&1 <<'EOP'
import socket, sys
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=10)
f = s.makefile('rwb')
def ask(cmd, data=None):
    f.write(cmd.encode() + b'\r\n')
    if data is not None:
        f.write(data + b'\r\n')
    f.flush()
    return f.readline().rstrip(b'\r\n')
for i in range(500):
    v = b'value-%d' % i * (i % 7 + 1)
    assert ask('set k%d 0 0 %d' % (i, len(v)), v) == b'STORED', i
    assert ask('get k%d' % i) == b'VALUE k%d 0 %d' % (i, len(v)), i
    assert f.readline().rstrip(b'\r\n') == v and f.readline() == b'END\r\n'
assert ask('set n 0 0 1', b'1') == b'STORED'
for i in range(2, 200):
    assert ask('incr n 1') == b'%d' % i
assert ask('delete n') == b'DELETED' and ask('get n') == b'END'
f.write(b'stats\r\n'); f.flush()
stats = {}
while True:
    l = f.readline().rstrip(b'\r\n').decode()
    if l == 'END':
        break
    _, k, v = l.split(' ', 2)
    stats[k] = v
assert int(stats['threads']) == 2 and int(stats['get_hits']) >= 500, stats
print('ok', stats['threads'], stats['get_hits'])
EOP
[ $? = 0 ] && ok "memcached: set/get/incr/delete loop" ||
    { fail "memcached: set/get/incr/delete loop"; show "$T/loop"; }

# Stopped as systemd stops a unit: SIGTERM to `syspin run`, forwarded.
kill -TERM "$(runpid memcached)"
ended "memcached: exits on SIGTERM (to syspin run)" memcached 0
clean "memcached" "$T/memcached.err" "$T/memcached.out"
finish
