#!/bin/sh
# SPDX-License-Identifier: ISC
# make bench: every benchmark, ratios against baselines of the same run.
set -eu
BUILD=${1:-build}
here=$(dirname "$0")
python3 "$here/scan_bench.py" "$BUILD/cli/syspin"
for b in "$here"/run_bench.sh "$here"/servers_bench.sh; do
	[ -f "$b" ] && sh "$b" "$BUILD"
done
exit 0
