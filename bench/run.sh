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
# Real work made of many execs: builds, a configure, shell loops, tools.
python3 "$here/workloads.py" "$BUILD/cli/syspin"
# The whole-system fill (FILL_ROOT: another directory than /usr).
python3 "$here/fill_bench.py" "$BUILD/cli/syspin" "${FILL_ROOT:-/usr}"
exit 0
