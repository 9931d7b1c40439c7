#!/bin/sh
# SPDX-License-Identifier: ISC
# make_corpus.sh OUTDIR: seed corpus of small ELFs for fuzz_elf, built from
# the scan fixtures and tests/elf/small.c (as shared objects, static and
# dynamic executables), plus stripped and section-header-less copies.
set -eu
out=$1
src=$(cd "$(dirname "$0")/.." && pwd)
fx=$src/tests/scan/fixtures
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

build() {	# name, then compiler arguments
	name=$1
	shift
	"$cc" -I "$fx" -Wl,--build-id -Wl,-z,noexecstack "$@" \
	    -o "$tmp/$name" 2>/dev/null || return 0
	cp "$tmp/$name" "$out/$name"
	strip -o "$out/$name.strip" "$tmp/$name" 2>/dev/null || true
	# No section header table: e_shoff (0x28), e_shnum (0x3c),
	# e_shstrndx (0x3e) = 0.
	cp "$out/$name" "$out/$name.noshdr"
	printf '\0\0\0\0\0\0\0\0' | dd of="$out/$name.noshdr" bs=1 seek=40 \
	    conv=notrunc 2>/dev/null
	printf '\0\0\0\0' | dd of="$out/$name.noshdr" bs=1 seek=60 \
	    conv=notrunc 2>/dev/null
}

build libfx_export.so -nostdlib -shared -Wl,-soname,libfx_export.so \
    "$fx/fx_export.S"
for f in fx_const fx_callers; do
	build $f.so -nostdlib -shared "$fx/$f.S"
	build $f.nsc.so -nostdlib -shared -Wl,-z,noseparate-code "$fx/$f.S"
done
build fx_data -nostdlib -static -no-pie -Wl,--eh-frame-hdr "$fx/fx_data.S"
build fx_import -nostdlib -pie "$fx/fx_import.S" "$tmp/libfx_export.so"
build fx_import_unk -nostdlib -no-pie "$fx/fx_import_unk.S" \
    "$tmp/libfx_export.so"
build small.so -O1 -fPIC -shared -nostdlib -Wl,-z,noseparate-code \
    "$src/tests/elf/small.c"
ls "$out" | wc -l | sed 's/$/ seeds/'
