#!/bin/sh
# SPDX-License-Identifier: ISC
# make deb: the Debian packages (syspin, libsyspin0, libsyspin-dev) built
# from this tree with dpkg-buildpackage -us -uc -b, in OUT (default
# build/deb), then checked with lintian when it is installed (every
# remaining tag is explained: debian/README.source).
#
#	scripts/deb.sh [OUT]
#
# The tree is copied first (tracked and untracked files, not ignored
# ones: no build directories), since dpkg-buildpackage builds in place and
# writes its results next to the source directory.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/build/deb}
case $OUT in /*) ;; *) OUT=$(pwd)/$OUT ;; esac
for tool in dpkg-buildpackage dpkg-parsechangelog dh; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "syspin: deb: $tool is missing (apt-get install dpkg-dev debhelper)" >&2
		exit 2
	}
done
version=$(cd "$ROOT" && dpkg-parsechangelog -SVersion)
S=$OUT/syspin-$version
rm -rf "$OUT"
mkdir -p "$S"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$ROOT" && git ls-files -z -co --exclude-standard |
	    xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' _ |
	    tar --null -T - -cf -) | tar -xf - -C "$S"
else
	(cd "$ROOT" && tar --exclude='./build*' --exclude=./.git -cf - .) |
	    tar -xf - -C "$S"
fi
(cd "$S" && dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1 || {
	tail -40 "$OUT/build.log" >&2
	echo "syspin: deb: dpkg-buildpackage failed (log: $OUT/build.log)" >&2
	exit 1
}
ls "$OUT"/*.deb
if command -v lintian >/dev/null 2>&1; then
	lintian --fail-on error,warning --info "$OUT"/*.changes || {
		echo "syspin: deb: lintian" >&2
		exit 1
	}
else
	echo "syspin: deb: lintian not installed: not checked" >&2
fi
