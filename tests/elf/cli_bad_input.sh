#!/bin/sh
# SPDX-License-Identifier: ISC
# cli_bad_input.sh SYSPIN SMALL_SO: `syspin scan` on bad input exits 2 with
# "syspin: FILE: message" on stderr, never crashes or hangs.
set -u
syspin=$1
small=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

check() {	# file, expected substring of the message
	err=$(timeout 10 "$syspin" scan "$1" 2>&1 >/dev/null </dev/null)
	rc=$?
	if [ $rc -ne 2 ]; then
		echo "FAIL: $1: exit $rc, want 2 ($err)"
		fails=$((fails + 1))
	elif ! printf '%s\n' "$err" | grep -q "^syspin: $1: .*$2"; then
		echo "FAIL: $1: message \"$err\", want \"syspin: $1: ...$2\""
		fails=$((fails + 1))
	else
		echo "ok: $err"
	fi
}

printf 'hello, world\n' >"$tmp/text"
: >"$tmp/empty"
mkdir "$tmp/dir"
mkfifo "$tmp/fifo"
head -c 100 "$small" >"$tmp/trunc100"
head -c 1000 "$small" >"$tmp/trunc1000"
cp "$small" "$tmp/class32"
printf '\001' | dd of="$tmp/class32" bs=1 seek=4 conv=notrunc 2>/dev/null
cp "$small" "$tmp/bigendian"
printf '\002' | dd of="$tmp/bigendian" bs=1 seek=5 conv=notrunc 2>/dev/null
cp "$small" "$tmp/aarch64"
printf '\267\000' | dd of="$tmp/aarch64" bs=1 seek=18 conv=notrunc \
    2>/dev/null

check "$tmp/text" "not an ELF"
check "$tmp/empty" "empty"
check "$tmp/dir" "directory"
check "$tmp/missing" "No such file"
check "$tmp/trunc100" ""
check "$tmp/trunc1000" ""
check "$tmp/class32" "32-bit"
check "$tmp/bigendian" "big-endian"
check "$tmp/aarch64" "architecture"
check "$tmp/fifo" ""
[ $fails -eq 0 ]
