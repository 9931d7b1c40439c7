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

# The same without a mov between them: 0f 05 back to back, 524288 sites
# in one block, each asked for the state before it (3.5 s for 32 KB, 9 s
# and 189 MB in the supervisor for 64 KB; blind round 4), then run: no
# site's number is known, so none issues one (an unresolved site issues
# what its object issues elsewhere: nothing here) and the first call is
# a violation; when they were "any number" sites, the filter was refused
# before it was built (25 million instructions were).
python3 - "$T/dense" <<'EOP' || exit 77
import os, struct, sys
size, base, off = 1 << 20, 0x400000, 0x1000
eh = struct.pack('<16sHHIQQQIHHHHHH', b'\x7fELF\x02\x01\x01' + b'\0' * 9, 2,
                 62, 1, base + off, 64, 0, 0, 64, 56, 1, 64, 0, 0)
ph = struct.pack('<IIQQQQQQ', 1, 5, 0, base, base, off + size, off + size,
                 0x1000)
with open(sys.argv[1], 'wb') as f:
    f.write(eh + ph)
    f.seek(off)
    f.write(b'\x0f\x05' * (size // 2))
os.chmod(sys.argv[1], 0o755)
EOP
start=$(date +%s)
timeout 30 "$1" scan "$T/dense" >/dev/null
st=$?
end=$(date +%s)
if [ $st != 0 ]; then
	echo "FAIL scan of 1 MB of 0f 05: status $st after $((end - start)) s"
	exit 1
fi
echo "ok   1 MB of 0f 05 scanned: $((end - start)) s"
start=$(date +%s)
timeout 60 "$1" run --cache-dir "$T/cache" "$T/dense" 2>"$T/err"
st=$?
end=$(date +%s)
if [ $st != 159 ] || ! grep -q "code 0 (read): not pinned here" "$T/err"; then
	echo "FAIL run of 1 MB of 0f 05: status $st after $((end - start)) s"
	sed 's/^/     | /' "$T/err"
	exit 1
fi
echo "ok   1 MB of 0f 05 pinned, its first call killed: $((end - start)) s"
