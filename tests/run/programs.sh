#!/bin/sh
# SPDX-License-Identifier: ISC
# Real programs behave the same under `syspin run`: identical stdout and
# exit status with and without it.  Each case runs in a fresh directory.
# usage: programs.sh SYSPIN
set -u
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
T=$(mktemp -d /tmp/syspin-programs.XXXXXX)
CACHE=$T/cache
server=
trap '[ -n "$server" ] && kill $server; rm -rf "$T"' EXIT
fail=0
export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z"
export GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t \
    GIT_COMMITTER_EMAIL=t@t GIT_CONFIG_NOSYSTEM=1 HOME=$T LC_ALL=C

# same NAME COMMAND...: alike unpinned and pinned, each run in a fresh
# directory.
. "$(dirname "$0")/compare.sh"
same() { CMP_CACHE=$CACHE CMP_DIR=fresh CMP_STDIN= cmp_same "$@"; }

# pyenv's python3 is a shell-script shim that execs some 15 levels deep;
# every pinned level stacks a filter (see docs/run.md): run the real one.
PY=$(python3 -c 'import sys; print(sys.executable)')
printf 'b\nc\na\n' >"$T/in"
same "ls" ls -l /etc/passwd /nonexistent
# Links and renames into another directory: a Landlock domain denies them
# (EXDEV) unless it grants LANDLOCK_ACCESS_FS_REFER; `ln` and apt (its
# partial/ to archives/) failed, mv fell back to copying.
same "ln, rename across directories" sh -c 'mkdir -p a b/c && echo x >a/f &&
    ln a/f b/g && "$0" -c "import os; os.rename(\"a/f\", \"b/c/f\");
os.rename(\"b\", \"a/b\"); os.link(\"a/b/g\", \"h\")" &&
    find . | sort && cat h' "$PY"
same "cat" cat /etc/os-release "$T/in"
same "sort" sort -r "$T/in"
same "cp" sh -c "cp '$T/in' x && cat x"
same "date" date -u -d @86400 '+%F %T'
same "sh pipeline" sh -c 'ls /usr/bin | sort | head -3; echo $((6 * 7)); exit 3'
same "python3" "$PY" -c '
import json, hashlib, zlib, threading, subprocess, signal, os, sqlite3
got = []
signal.signal(signal.SIGUSR1, lambda s, f: got.append(s))
os.kill(os.getpid(), signal.SIGUSR1)
ts = [threading.Thread(target=lambda i=i: got.append(i * i)) for i in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
print(sorted(got), hashlib.sha256(b"x").hexdigest()[:8], zlib.crc32(b"x"))
print(subprocess.run(["echo", "child"], capture_output=True).stdout)
print(json.dumps({"a": [1, 2]}), sqlite3.connect(":memory:").execute("select 6*7").fetchone())
'
same "git" sh -c 'git init -q r && cd r && echo hi >f && git add f &&
    git commit -qm first && git log --format="%H %s" && git status --short'
same "sqlite3" sqlite3 :memory: 'create table t(x); insert into t values (1),(2); select sum(x) from t;'

# HTTP: an unpinned local server, a pinned client.
mkdir "$T/www" && echo "hello over http" >"$T/www/index.txt"
port=$((20000 + $$ % 20000))
python3 -m http.server -b 127.0.0.1 -d "$T/www" $port >/dev/null 2>&1 &
server=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" \
	    2>/dev/null && break
	sleep 0.3
done
same "http fetch" "$PY" -c "import urllib.request
print(urllib.request.urlopen('http://127.0.0.1:$port/index.txt').read().decode())"
exit $fail
