#!/bin/sh
# SPDX-License-Identifier: ISC
# syspin cache fill / list / verify / clear, end to end on a cache of its
# own:
# - fill of named files: one table each, the path recorded; a non-ELF
#   named file is reported (exit 1); nothing else is said off a terminal;
# - a fill of a program's objects is what `syspin run` looks for: run -v
#   then analyses nothing;
# - a directory: every x86-64 ELF once (hard link once, symlink not
#   followed, non-ELF and lib/debug skipped); again: all cached; --force:
#   all analysed again;
# - list: object, build-id (readelf's), sites; --json parses and agrees;
# - verify: ok; a changed table (MAC), a table whose file is gone, a
#   malformed one, a foreign file: each reported, exit 1; clear --stale
#   removes exactly the tables, verify passes again; clear removes every
#   file syspin writes and nothing else;
# - on a terminal, the progress line and the summary;
# - a missing --cache-dir is an error for list, verify and clear; fill
#   goes on past a path that is not there (exit 1);
# - a worker killed mid-file: the file is reported, a new worker finishes
#   the rest.
# usage: cache.sh SYSPIN
set -eu
SYSPIN=$1
T=$(mktemp -d /tmp/syspin-cache.XXXXXX)
trap 'rm -rf "$T"' EXIT
C=$T/cache
fail() { echo "cache: FAIL: $*" >&2; exit 1; }
sp() { "$SYSPIN" "$@"; }
LIBC=$(ldd /bin/true | awk '/libc.so.6/ { print $3 }')
LIBC=$(readlink -f "$LIBC")
tables() {
	find "$C" -maxdepth 1 \( -name 'f-*' -o -name 'vdso-*' \) 2>/dev/null |
	    wc -l
}

# ---- fill named files ----
cp /bin/true "$T/mytrue"
echo 'not an ELF file' >"$T/text"
set +e
sp cache fill --cache-dir "$C" "$LIBC" "$T/mytrue" "$T/text" '[vdso]' \
    >"$T/out" 2>"$T/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "fill with a non-ELF file: status $rc, not 1"
[ ! -s "$T/out" ] || fail "fill wrote to stdout: $(cat "$T/out")"
[ "$(cat "$T/err")" = "syspin: $T/text: not an ELF file" ] ||
    fail "fill said: $(cat "$T/err")"
[ "$(tables)" = 3 ] || fail "$(tables) tables, not 3"
sp cache fill --cache-dir "$C" "$LIBC" 2>"$T/err" || fail "refill: $?"
[ ! -s "$T/err" ] || fail "a quiet refill said: $(cat "$T/err")"
echo "cache: fill of named files"

# ---- what syspin run looks for ----
objs=$(ldd /bin/true | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }')
sp cache fill --cache-dir "$C" /bin/true $objs '[vdso]' ||
    fail "fill of /bin/true's objects"
sp run -v --cache-dir "$C" /bin/true 2>"$T/err" || fail "run /bin/true: $?"
# (The runtime, which run maps into dynamic programs, was not filled.)
if grep -v libsyspin-rt.so "$T/err" | grep -q ': analysed$'; then
	cat "$T/err" >&2
	fail "syspin run analysed again what cache fill filled"
fi
grep -q ": $LIBC: cached\$\|libc.so.6: cached\$" "$T/err" ||
    { cat "$T/err" >&2; fail "run -v did not find libc cached"; }
echo "cache: syspin run finds what cache fill stored"

# ---- list ----
sp cache list --cache-dir "$C" >"$T/list" || fail "list: $?"
head -1 "$T/list" | grep -q '^AGE  *SITES  BUILD-ID  *OBJECT$' ||
    fail "list header: $(head -1 "$T/list")"
bid=$(readelf -n "$LIBC" | awk '/Build ID/ { print $3 }')
line=$(grep " $LIBC\$" "$T/list") || fail "list has no $LIBC"
set -- $line
[ "$3" = "$bid" ] || fail "libc's build-id listed as $3, readelf says $bid"
[ "$2" -gt 100 ] || fail "libc listed with $2 sites"
grep -q ' \[vdso\]$' "$T/list" || fail "no [vdso] listed"
sp cache list --json --cache-dir "$C" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
libc, bid, cache = sys.argv[1], sys.argv[2], sys.argv[4]
sites = int(sys.argv[3])
assert doc["cache"] == cache, doc["cache"]
t = [x for x in doc["tables"] if x["object"] == libc]
assert len(t) == 1, t
t = t[0]
assert t["build_id"] == bid and t["sites"] == sites, t
assert t["state"] == "ok" and t["key"].startswith("f-"), t
assert all(x["age_seconds"] >= 0 and x["bytes"] > 0 for x in doc["tables"])
assert doc["records"] >= 1, doc["records"]
' "$LIBC" "$bid" "$2" "$C" || fail "list --json"
echo "cache: list (text and JSON)"

# ---- verify, and what clear --stale removes ----
out=$(sp cache verify --cache-dir "$C") || fail "verify of a good cache: $?"
case $out in *": ok") ;; *) fail "verify said: $out" ;; esac
key=$(sp cache list --json --cache-dir "$C" | python3 -c '
import json, sys
print(next(t["key"] for t in json.load(sys.stdin)["tables"]
    if t["object"] == sys.argv[1]))' "$LIBC")
# One byte of libc's table changed: its MAC no longer matches.
python3 - "$C/$key" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[200] ^= 1
open(p, "wb").write(b)
PY
# One byte of an object's reachability facts changed.
facts=$(cd "$C" && ls | grep '^r-f-' | head -n 1)
[ -n "$facts" ] || fail "run left no reachability facts in the cache"
python3 - "$C/$facts" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[-1] ^= 1
open(p, "wb").write(b)
PY
rm "$T/mytrue"
printf 'SYSPINPT garbage' >"$C/f-1-2-3-4.000000000"
chmod 600 "$C/f-1-2-3-4.000000000"
echo notes >"$C/notes.txt"
set +e
sp cache verify --cache-dir "$C" >"$T/out" 2>"$T/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "verify of a damaged cache: status $rc"
grep -q "^syspin: $C/$key: not believed" "$T/err" ||
    { cat "$T/err" >&2; fail "verify missed the changed table"; }
grep -q "table of $T/mytrue, which no longer exists" "$T/err" ||
    fail "verify missed the table of a removed file"
grep -q "^syspin: $C/f-1-2-3-4.000000000: " "$T/err" ||
    fail "verify missed the malformed table"
grep -q "^syspin: $C/notes.txt: not a file syspin writes" "$T/err" ||
    fail "verify missed the foreign file"
grep -q "^syspin: $C/$facts: " "$T/err" ||
    fail "verify missed the changed facts"
grep -q ": 5 problems" "$T/out" || fail "verify summary: $(cat "$T/out")"
sp cache list --cache-dir "$C" | grep -q " $LIBC  \[bad-mac: " ||
    fail "list does not flag libc's table"
before=$(tables)
sp cache clear --stale --cache-dir "$C" || fail "clear --stale"
[ "$(tables)" = $((before - 3)) ] ||
    fail "clear --stale: $before tables, then $(tables)"
[ -f "$C/notes.txt" ] || fail "clear --stale removed a foreign file"
rm "$C/notes.txt"
sp cache verify --cache-dir "$C" >/dev/null || fail "verify after clear --stale"
[ ! -e "$C/$facts" ] || fail "clear --stale kept the changed facts"
echo "cache: verify finds a changed, a stale and a malformed table," \
    "changed facts;" \
    "clear --stale removes them"

# ---- a directory ----
D=$T/tree
mkdir -p "$D/bin" "$D/lib/debug/.build-id/aa" "$D/share"
cp /bin/true "$D/bin/a"
ln "$D/bin/a" "$D/bin/a-hardlink"
ln -s "$D/bin/a" "$D/share/a-symlink"
ln -s /bin/sh "$D/share/outside"
cp /bin/ls "$D/lib/debug/.build-id/aa/bb.debug"
cp "$LIBC" "$D/share/libc-copy.so"
echo text >"$D/share/readme"
C=$T/cache2
sp cache fill -v --cache-dir "$C" "$D" 2>"$T/err" || fail "fill of a tree"
grep -q ': 2 files in .*: 2 analysed, 0 already cached, 0 failed$' \
    "$T/err" || fail "fill of a tree said: $(cat "$T/err")"
sp cache fill -v --cache-dir "$C" "$D" 2>"$T/err"
grep -q ': 0 analysed, 2 already cached, 0 failed$' "$T/err" ||
    fail "a second fill: $(cat "$T/err")"
sp cache fill -v -f --cache-dir "$C" "$D" 2>"$T/err"
grep -q ': 2 analysed, 0 already cached, 0 failed$' "$T/err" ||
    fail "fill --force: $(cat "$T/err")"
echo "cache: fill of a directory (links once, no symlinks, no debug files)"

# ---- on a terminal ----
if command -v script >/dev/null 2>&1; then
	rm -rf "$C"
	script -qec "$SYSPIN cache fill --cache-dir $C $D" /dev/null |
	    tr '\r' '\n' >"$T/tty"
	grep -q 'syspin: cache fill: [0-2]/2 files, [0-9.]* files/s' "$T/tty" ||
	    { cat "$T/tty" >&2; fail "no progress line on a terminal"; }
	grep -q 'syspin: cache fill: 2 files in [0-9.]* s' "$T/tty" ||
	    fail "no summary on a terminal"
	echo "cache: a progress line on a terminal"
else
	echo "cache: script(1) missing: terminal output not checked"
fi

# ---- a worker killed in the middle of a file ----
# A worker of the fill $1 once one runs ("" after 10 s); the status of
# background job $1 into rc.
worker_of() {
	for t in $(seq 200); do
		w=$(pgrep -P "$1" | head -n 1 || true)
		[ -n "$w" ] && { echo "$w"; return; }
		sleep 0.05
	done
}
status_of() { set +e; wait "$1"; rc=$?; set -e; }
L=$T/libs
mkdir "$L"
i=0
for f in $(ldd /bin/ls /usr/bin/python3 /usr/bin/ssh 2>/dev/null |
    awk '$2 == "=>" { print $3 }' | sort -u); do
	for k in 1 2 3 4 5 6; do cp "$f" "$L/$i.$k.so"; done
	i=$((i + 1))
done
n=$(ls "$L" | wc -l)
C=$T/cache3
"$SYSPIN" cache fill --jobs 1 -v --cache-dir "$C" "$L" 2>"$T/err" &
pid=$!
w=$(worker_of "$pid")
[ -n "$w" ] || fail "no worker process seen"
# Once it has stored a table it is in the middle of the next file.
for t in $(seq 200); do
	[ "$(tables)" -gt 0 ] && break
	sleep 0.05
done
kill -9 "$w" 2>/dev/null || true
status_of "$pid"
[ "$rc" = 1 ] ||
    { cat "$T/err" >&2; fail "fill with a killed worker: status $rc"; }
grep -q 'analysis crashed (signal 9)$' "$T/err" ||
    { cat "$T/err" >&2; fail "the killed worker's file is not reported"; }
[ "$(tables)" = $((n - 1)) ] || fail "$(tables) tables for $n files, one lost"
grep -q "^syspin: cache fill: $n files in .*, 1 failed\$" "$T/err" ||
    fail "summary: $(tail -1 "$T/err")"
echo "cache: a killed worker's file is reported, the others filled"

# ---- Ctrl-C: the workers go, the line says how far (issue 21, 11) ----
C4=$T/cache4
"$SYSPIN" cache fill --jobs 2 --cache-dir "$C4" "$L" 2>"$T/err" &
pid=$!
[ -n "$(worker_of "$pid")" ] || fail "no worker process seen"
kill -INT "$pid"
status_of "$pid"
[ "$rc" = 130 ] ||
    { cat "$T/err" >&2; fail "fill stopped by SIGINT: status $rc, want 130"; }
grep -q "^syspin: cache fill: interrupted: [0-9]* of $n files done\$" \
    "$T/err" || { cat "$T/err" >&2; fail "no line saying how far it got"; }
sleep 0.2
[ -z "$(pgrep -f "cache fill --jobs 2 --cache-dir $C4" || true)" ] ||
    fail "a worker outlived the interrupted fill"
echo "cache: an interrupted fill stops its workers and says how far it got"

# ---- clear ----
echo notes >"$C/notes.txt"
sp cache clear --cache-dir "$C" || fail "clear"
[ "$(ls -A "$C")" = notes.txt ] || fail "clear left: $(ls -A "$C")"
echo "cache: clear removes every file syspin writes, nothing else"

# ---- mistakes said, not taken for an empty cache (issue 21, item 11) ----
for sub in list verify clear; do
	set +e
	sp cache $sub --cache-dir "$T/typo" >"$T/out" 2>"$T/err"
	rc=$?
	set -e
	[ $rc = 2 ] && [ "$(cat "$T/err")" = \
	    "syspin: $T/typo: No such file or directory" ] ||
	    { cat "$T/err" >&2; fail "cache $sub of a missing --cache-dir: $rc"; }
done
[ ! -e "$T/typo" ] || fail "a missing --cache-dir was made"
set +e
sp cache fill --cache-dir "$C" "$T/absent" /bin/true >"$T/out" 2>"$T/err"
rc=$?
set -e
[ $rc = 1 ] && grep -q "^syspin: $T/absent: No such file or directory\$" \
    "$T/err" || { cat "$T/err" >&2; fail "fill past a missing path: $rc"; }
sp cache list --cache-dir "$C" | grep -q ' /bin/true$' ||
    fail "fill stopped at the missing path"
echo "cache: a missing --cache-dir is an error, fill goes on past a missing path"
