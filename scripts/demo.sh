#!/bin/sh
# SPDX-License-Identifier: ISC
# `make demo`: a program running pinned, then a simulated ROP (a raw
# syscall from a gadget hidden inside an instruction) killed by the filter.
# usage: scripts/demo.sh BUILD_DIR
set -u
B=${1:-build}
SYSPIN=$B/cli/syspin
ATTACK=$B/tests/run/attack
if [ ! -x "$SYSPIN" ] || [ ! -e "$B/runtime/libsyspin-rt.so" ]; then
	echo "demo: build first (ninja -C $B): need $SYSPIN and the runtime" >&2
	exit 2
fi
CACHE=$(mktemp -d /tmp/syspin-demo.XXXXXX)
trap 'rm -rf "$CACHE"' EXIT

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

say syspin run -v ls -l /etc/hostname
"$SYSPIN" run -v --cache-dir "$CACHE" ls -l /etc/hostname
echo "(exit status $?)"

say syspin run sh -c "'echo pinned pipeline | tr a-z A-Z'"
"$SYSPIN" run --cache-dir "$CACHE" sh -c 'echo pinned pipeline | tr a-z A-Z'
echo "(exit status $?)"

if [ -x "$ATTACK" ]; then
	say "$ATTACK mid-insn      # unpinned: the gadget's syscall runs"
	"$ATTACK" mid-insn
	echo "(exit status $?)"
	say syspin run "$ATTACK" mid-insn
	"$SYSPIN" run --cache-dir "$CACHE" "$ATTACK" mid-insn
	echo "(exit status $?: killed by SIGSYS)"
	say syspin run "$ATTACK" libc-wrong-nr "  # libc's getpid stub, execve's number"
	"$SYSPIN" run --cache-dir "$CACHE" "$ATTACK" libc-wrong-nr
	echo "(exit status $?)"
else
	echo "demo: $ATTACK not built (meson -Dtests=true)" >&2
fi
