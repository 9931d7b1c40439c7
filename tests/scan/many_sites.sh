#!/bin/sh
# SPDX-License-Identifier: ISC
# many_sites.sh SYSPIN CC: one function of 150000 `mov $N, %eax; syscall`
# (1 MB of code, a crafted program's worth) is analysed in linear time: it
# took 138 s when each site looked over its whole function again.  The
# bound (30 s) is 40 times what it takes on a loaded 2-core VM.
set -u
T=$(mktemp -d /tmp/syspin-many.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat >"$T/many.S" <<'EOS'
	.text
	.globl _start
	.type _start, @function
_start:
	.rept 50000
	mov $39, %eax
	syscall
	mov $1, %eax
	syscall
	mov $0, %eax
	syscall
	.endr
	mov $60, %eax
	syscall
	.size _start, . - _start
	.section .note.GNU-stack, "", @progbits
EOS
$2 -nostdlib -static -no-pie -o "$T/many" "$T/many.S" || exit 77
start=$(date +%s)
timeout 30 "$1" scan --json "$T/many" >"$T/out"
st=$?
end=$(date +%s)
if [ $st != 0 ]; then
	echo "FAIL scan of 150001 sites: status $st after $((end - start)) s"
	exit 1
fi
python3 - "$T/out" <<'EOP' || exit 1
import json, sys
sites = json.load(open(sys.argv[1]))["files"][0]["sites"]
nrs = sorted({n for s in sites for n in s.get("numbers", [])})
if len(sites) != 150001 or nrs != [0, 1, 39, 60]:
    print("FAIL %d sites, numbers %s" % (len(sites), nrs[:10]))
    sys.exit(1)
EOP
echo "ok   150001 sites in one function: $((end - start)) s"
