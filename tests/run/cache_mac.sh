#!/bin/sh
# SPDX-License-Identifier: ISC
# A pin table changed on disk, as a pinned process running as the cache's
# owner could change it, is not believed by the next `syspin run`: that
# run analyses the object again and rewrites its table (the MAC of
# lib/pins/cache_mac.c), and the program still runs.  Three changes of
# libc's table: a site made "any number", the MAC cut off, a number flipped.
# Usage: cache_mac.sh SYSPIN
set -eu
syspin=$1
dir=$(mktemp -d /tmp/syspin-mac.XXXXXX)
trap 'rm -rf "$dir" "$dir.log" "$dir.good" "$dir.bad"' EXIT
fail() { echo "cache_mac.sh: $*" >&2; exit 1; }

libc=$(ldd /bin/true | awk '/libc\.so/ { print $3 }')
[ -f "$libc" ] || fail "no libc for /bin/true"
# The cache's name for libc: f-DEV-INODE-SIZE-MTIME-CTIME
# (sp_cache_key_file).
key=$(python3 -c 'import os, sys
s = os.stat(sys.argv[1])
print("f-%x-%d-%d-%d.%09d-%d.%09d" % (s.st_dev, s.st_ino, s.st_size,
    s.st_mtime_ns // 10**9, s.st_mtime_ns % 10**9,
    s.st_ctime_ns // 10**9, s.st_ctime_ns % 10**9))' "$libc")

run() {
	"$syspin" run --cache-dir "$dir" -v /bin/true 2>"$dir.log" ||
	    { cat "$dir.log" >&2; fail "syspin run /bin/true failed"; }
}

run
[ -f "$dir/$key" ] || fail "no table $key for $libc"
cp "$dir/$key" "$dir.good"
keyring=yes
grep -q "no kernel keyring" "$dir.log" && keyring=no
# With the key, the next run believes every table: nothing is analysed.
run
if [ $keyring = yes ]; then
	grep -q "every object is cached" "$dir.log" ||
	    { cat "$dir.log" >&2; fail "untouched tables analysed again"; }
fi

# tamper HOW: rewrites libc's table in place (same inode, same owner).
tamper() {
	python3 - "$dir/$key" "$1" <<'EOF'
import struct, sys
path, how = sys.argv[1], sys.argv[2]
b = bytearray(open(path, "rb").read())
nsites, nnrs = struct.unpack_from("<II", b, 140)
sites = 168	# sizeof(struct sp_cache_hdr), lib/pins/cache_format.h
nrs = sites + (nsites * 24 + 7) // 8 * 8
if how == "any":
    # The first exactly pinned site now allows any number (SP_PIN_ANY).
    for i in range(nsites):
        o = sites + 24 * i
        if b[o + 21] == 0 and struct.unpack_from("<I", b, o + 12)[0] > 0:
            b[o + 21] = 1
            break
    else:
        sys.exit("no exact site")
elif how == "cut":
    del b[-56:]
elif how == "nr":
    assert nnrs > 0
    b[nrs] ^= 0x3b	# another system call number
with open(path, "r+b") as f:
    f.write(b)
    f.truncate(len(b))
EOF
}

for how in any cut nr; do
	tamper $how
	cp "$dir/$key" "$dir.bad"
	cmp -s "$dir.bad" "$dir.good" && fail "$how: the table did not change"
	# rewritten: a new file (its inode number may be the old one's,
	# freed by a rename just before: the change time says)
	ino=$(stat -c '%i %.9Z' "$dir/$key")
	run
	grep -q "libc\.so\.6: analysed" "$dir.log" ||
	    { cat "$dir.log" >&2; fail "$how: libc not analysed again"; }
	[ "$(stat -c '%i %.9Z' "$dir/$key")" != "$ino" ] ||
	    fail "$how: libc's table not rewritten"
	cmp -s "$dir/$key" "$dir.bad" && fail "$how: changed table kept"
	if [ $keyring = yes ]; then
		# The analysis and the key are the same: the same file again.
		cmp -s "$dir/$key" "$dir.good" ||
		    fail "$how: rewritten table differs from the first"
	fi
	echo "$how: libc's table refused, analysed again and rewritten"
done
