#!/bin/sh
# SPDX-License-Identifier: ISC
# Each stage of lib/ is a library of its own, and a call from a stage
# into one above it fails the build (lib/meson.build: the stage-check-*
# shared objects, linked with -z defs against the stages below alone).
# And every name they export is sp_*.
# Checks that every stage-check object was built, and that the check
# bites: elf's library, linked as the check links it, with a probe that
# calls into the analysis, does not link; with one that calls its own
# stage, it does.
# usage: stages.sh BUILDDIR
set -u
B=$1
T=$(mktemp -d /tmp/syspin-stages.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
for s in util elf analysis pins fill layout reach bpf supervise; do
	if [ -f "$B/lib/libstage-check-$s.so" ]; then
		echo "ok   stage $s checked"
	else
		echo "FAIL no stage-check-$s: nothing keeps $s off the stages above"
		fail=1
	fi
done
probe() {	# NAME SYMBOL
	printf 'struct x;\nvoid %s(struct x *);\nvoid probe(void) { %s(0); }\n' \
	    "$2" "$2" >"$T/$1.c"
	cc -shared -fPIC -Wl,-z,defs -o "$T/$1.so" "$T/$1.c" \
	    -Wl,--whole-archive "$B/lib/libsyspin-elf.a" \
	    -Wl,--no-whole-archive "$B/lib/libsyspin-util.a" -lelf \
	    >"$T/$1.log" 2>&1
}
if probe own sp_elf_close; then
	echo "ok   elf calling elf links"
else
	echo "FAIL elf calling elf does not link:"; sed 's/^/     | /' "$T/own.log"
	fail=1
fi
if probe up sp_scan_free; then
	echo "FAIL elf calling the analysis links: the stages are not apart"
	fail=1
elif grep -q "undefined reference to .sp_scan_free" "$T/up.log"; then
	echo "ok   elf calling the analysis fails: undefined sp_scan_free"
else
	echo "FAIL elf calling the analysis fails for another reason:"
	sed 's/^/     | /' "$T/up.log"; fail=1
fi
# Every name the stage libraries export is ours: sp_ (pinsyscalls() is
# OpenBSD's name); the rest is static.
for a in "$B"/lib/libsyspin-*.a "$B"/lib/pins/libsyspin-mac.a; do
	nm -g --defined-only "$a" | awk 'NF == 3 { print $3 }'
done | sort -u | grep -v -e '^sp_' -e '^pinsyscalls$' >"$T/unprefixed"
if [ -s "$T/unprefixed" ]; then
	echo "FAIL external names without the sp_ prefix:"
	sed 's/^/     | /' "$T/unprefixed"; fail=1
else
	echo "ok   every external name of the stage libraries is sp_*"
fi
exit $fail
