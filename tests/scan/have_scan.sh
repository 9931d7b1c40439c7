#!/bin/sh
# SPDX-License-Identifier: ISC
# have_scan.sh LIBDIR: exit 0 when LIBDIR/meson.build (lib/analysis) lists a
# source file that defines sp_scan(), i.e. when the scan tests can link.
dir=$1
for f in $(grep -o "[A-Za-z0-9_/.-]*\.c" "$dir/meson.build" 2>/dev/null); do
	grep -qs '^sp_scan(' "$dir/$f" && exit 0
done
exit 1
