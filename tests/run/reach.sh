#!/bin/sh
# SPDX-License-Identifier: ISC
# Reachable-only pins are sound on real workloads: each runs under
# `syspin run --audit` (reachable-only pins, the default), where every
# call from a site pruning removed (or any other violation) is reported
# instead of killed.  Each workload must exit as it does unpinned, with
# no report: a report is a function the closure missed (a bug, with a
# test to add).  Then the same under enforcement, for the status alone.
# Programs that are not installed are skipped (said so).
# usage: reach.sh SYSPIN
set -u
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/syspin-reach.XXXXXX)
CACHE=$T/cache
trap 'rm -rf "$T"' EXIT
fail=0
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t \
    GIT_COMMITTER_EMAIL=t@t GIT_CONFIG_NOSYSTEM=1 HOME=$T LC_ALL=C

sound() {	# name, command...
	name=$1
	shift
	rm -rf "$T/w" && mkdir "$T/w" && (cd "$T/w" && "$@") >/dev/null 2>&1
	want=$?
	for mode in --audit ""; do
		rm -rf "$T/w" && mkdir "$T/w"
		(cd "$T/w" && "$SYSPIN" run $mode --cache-dir "$CACHE" "$@") \
		    >"$T/out" 2>&1
		got=$?
		n=$(grep -c '^syspin: audit: ' "$T/out")
		if [ $got != $want ] || [ "$n" != 0 ]; then
			echo "FAIL $name ${mode:-enforced}: status $got" \
			    "(unpinned $want), $n reports"
			grep '^syspin: ' "$T/out" | head -20 |
			    sed 's/^/     | /'
			fail=1
			return
		fi
	done
	echo "ok   $name (status $got, nothing reported)"
}

have() {
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "skip $1: not installed"
	return 1
}

PY=$(python3 -c 'import sys; print(sys.executable)')
sound "sh pipeline" sh -c 'ls -la /usr/bin | sort | head -3; date;
    cat /etc/hostname | wc -c; id >/dev/null'
sound "coreutils" sh -c 'printf "b\na\n" >f; sort f; cp f g; mv g h;
    ln -s h i; readlink i; stat -c %s h; du -s . >/dev/null; df >/dev/null;
    touch -d @0 h; chmod 600 h; rm h i; mkdir d; rmdir d; env >/dev/null;
    seq 3 | tac; sleep 0.01; timeout 1 true'
sound "python3" "$PY" -c '
import json, hashlib, threading, subprocess, signal, os, sqlite3, ssl
import socket, tempfile, ctypes, multiprocessing, time
signal.signal(signal.SIGUSR1, lambda s, f: None)
os.kill(os.getpid(), signal.SIGUSR1)
ts = [threading.Thread(target=time.sleep, args=(0.01,)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
subprocess.run(["true"]); subprocess.check_output(["sh", "-c", "echo hi"])
sqlite3.connect(":memory:").execute("select 1"); ssl.create_default_context()
a, b = socket.socketpair(); a.send(b"x"); b.recv(1)
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "f"), "w").write("x")
ctypes.CDLL(None).getpid()
with multiprocessing.Pool(2) as p: p.map(abs, [1, -2])
os.fork() or os._exit(0); os.wait()
'
have git && sound "git" sh -c 'git init -q r && cd r && echo hi >f &&
    git add f && git commit -qm first && git branch b &&
    git log --oneline >/dev/null && git gc -q && git status --short &&
    git clone -q . ../c'
have sqlite3 && sound "sqlite3" sqlite3 db 'create table t(x);
    insert into t values (1),(2); create index i on t(x);
    select sum(x) from t; vacuum;'
have perl && sound "perl" perl -e 'use POSIX; use File::Temp;
    my $f = File::Temp->new; print $f "x"; system("true"); my $p = fork;
    if (!$p) { exit 0 } waitpid($p, 0);
    print POSIX::strftime("%Y", gmtime(0)), "\n";
    opendir(my $d, "/"); readdir($d);'
have tar && sound "tar" sh -c 'mkdir s && echo x >s/f && tar czf a.tgz s &&
    mkdir o && tar xzf a.tgz -C o && tar tvf a.tgz >/dev/null'
have ssh-keygen && sound "ssh-keygen" sh -c 'ssh-keygen -q -t ed25519 -N "" \
    -f k && ssh-keygen -l -f k.pub >/dev/null'
have gcc && sound "gcc" sh -c 'echo "int main(void){return 0;}" >m.c &&
    gcc -O2 -o m m.c && ./m'
exit $fail
