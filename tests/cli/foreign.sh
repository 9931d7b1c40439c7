#!/bin/sh
# SPDX-License-Identifier: ISC
# `syspin run` and `syspin trace` find the program and check its ELF the
# same way (cli/run_objects.c): a program of another architecture, or a
# file the kernel would not run, is refused with "syspin: FILE: why" and
# exit 2 by both, never run through /bin/sh (trace once reported an
# aarch64 binary "100.0% covered").
# usage: foreign.sh SYSPIN
set -u
S=$1
. "$(dirname "$0")/expect.sh"

# An aarch64 executable: /bin/true with e_machine EM_AARCH64 (183), and a
# bare 64-byte header (no program headers).
cp /bin/true "$T/arm"
printf '\267\000' | dd of="$T/arm" bs=1 seek=18 conv=notrunc 2>/dev/null
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000' >"$T/bare"
printf '\002\000\267\000\001\000\000\000' >>"$T/bare"
head -c 40 /dev/zero >>"$T/bare"
printf '#!%s\n' "$T/arm" >"$T/script"
printf 'echo hello\n' >"$T/text"
chmod +x "$T/arm" "$T/bare" "$T/script" "$T/text"

arch='unsupported architecture: e_machine 183'
# ($T has no blanks: $cmd splits into its words.)
for cmd in "run --cache-dir $T/cache" "trace --cache-dir $T/cache"; do
	expect 2 "^syspin: $T/arm: $arch" "$S" $cmd "$T/arm"
	expect 2 "^syspin: $T/bare: $arch" "$S" $cmd "$T/bare"
	# A script: its interpreter is the program.
	expect 2 "^syspin: $T/arm: $arch" "$S" $cmd "$T/script"
	case $cmd in
	run*)	# neither ELF nor "#!": /bin/sh runs it, as execvp(3) does
		expect 0 "" "$S" $cmd "$T/text"
		grep -q hello "$T/stdout" ||
		    { echo "FAIL $cmd did not run $T/text"; fails=$((fails + 1)); } ;;
	*)
		expect 2 "^syspin: $T/text: not an ELF file" "$S" $cmd "$T/text"
		if grep -q hello "$T/stdout"; then
			echo "FAIL $cmd ran $T/text"
			fails=$((fails + 1))
		fi ;;
	esac
done
expect 2 "^syspin: $T/arm: $arch" env SYSPIN_SUPERVISE=0 "$S" run \
    --cache-dir "$T/cache" "$T/arm"
# The same lookup: found in PATH by both.
expect 0 "" env PATH="/usr/bin:/bin" "$S" trace --cache-dir "$T/cache" -o "$T/report" true
finish
