#!/bin/sh
# SPDX-License-Identifier: ISC
# make fuzz: builds fuzz/fuzz_elf with clang (ASan + UBSan + libFuzzer) in
# build-fuzz (werror off: warnings are the normal build's job), makes the
# seed corpus, fuzzes for FUZZ_SECONDS (default 120) and prints the result.
# Crashes are left in build-fuzz/fuzz/artifacts/; copy them to
# tests/elf/crashers/ so that tests/elf replays them.  Known, reported
# findings are listed in fuzz/ubsan.supp.
set -eu
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD:-build-fuzz}
secs=${FUZZ_SECONDS:-120}
jobs=${FUZZ_JOBS:-1}

if ! command -v clang >/dev/null; then
	echo "fuzz: clang is required" >&2
	exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" -Dfuzz=true -Dtests=false \
	    -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=false \
	    -Dc_args=-fsanitize=fuzzer-no-link >"$build.setup.log" 2>&1 || {
		cat "$build.setup.log" >&2
		exit 2
	}
fi
ninja -C "$build" -j2 fuzz/fuzz_elf
CC=clang sh fuzz/make_corpus.sh "$build/fuzz/seeds"
mkdir -p "$build/fuzz/corpus" "$build/fuzz/artifacts"
rc=0
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$PWD/fuzz/ubsan.supp \
ASAN_OPTIONS=detect_leaks=1 \
"$build/fuzz/fuzz_elf" -max_total_time="$secs" -max_len=65536 \
    -timeout=10 -rss_limit_mb=2048 -jobs="$jobs" -workers="$jobs" \
    -print_final_stats=1 -artifact_prefix="$build/fuzz/artifacts/" \
    "$build/fuzz/corpus" "$build/fuzz/seeds" || rc=$?
n=$(ls "$build/fuzz/artifacts" | wc -l)
echo "fuzz: fuzzer exit status $rc after at most ${secs}s, corpus $(ls "$build/fuzz/corpus" | wc -l) inputs," \
    "$n artifact(s) in $build/fuzz/artifacts"
if [ "$n" -gt 0 ] || [ "$rc" -ne 0 ]; then
	ls -l "$build/fuzz/artifacts"
	exit 1
fi
