#!/bin/sh
# SPDX-License-Identifier: ISC
# make install / make uninstall: meson install with PREFIX and DESTDIR.
#
#	scripts/install.sh install|uninstall BUILD [PREFIX] [DESTDIR]
#
# PREFIX (default: what BUILD is configured with, /usr/local for a new
# one) reconfigures BUILD when it differs.  DESTDIR is prepended to every
# path, as for any make install.  uninstall removes what `meson introspect
# --installed` lists (the same files install writes, symlinks included)
# under DESTDIR, then the directories of our own that are left empty.  The
# pin-table cache (/var/cache/syspin, ~/.cache/syspin) is left: `syspin
# cache clear` empties it.
set -eu
what=$1
B=$2
PREFIX=${3:-}
DESTDIR=${4:-}

prefix_of() {
	meson introspect "$B" --buildoptions | python3 -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))'
}

if [ ! -f "$B/build.ninja" ]; then
	meson setup "$B" ${PREFIX:+--prefix "$PREFIX"} ${MESON_OPTS:-}
elif [ -n "$PREFIX" ] && [ "$(prefix_of)" != "$PREFIX" ]; then
	meson configure "$B" -Dprefix="$PREFIX"
fi

case $what in
install)
	ninja -C "$B"
	meson install -C "$B" --no-rebuild ${DESTDIR:+--destdir "$DESTDIR"}
	;;
uninstall)
	meson introspect "$B" --installed | python3 -c '
import json, os, sys
dest = sys.argv[1]
gone = 0
dirs = set()
for path in sorted(json.load(sys.stdin).values()):
    full = dest + path
    if os.path.lexists(full):
        os.unlink(full)
        gone += 1
        print("Removed " + full)
    parent = os.path.dirname(full)
    # include/syspin, LIBDIR/syspin, share/doc/syspin/systemd
    while parent.startswith(dest) and "/syspin" in parent[len(dest):]:
        dirs.add(parent)
        parent = os.path.dirname(parent)
for d in sorted(dirs, reverse=True):
    try:
        os.rmdir(d)
    except OSError:
        pass
print("syspin: %d files removed" % gone)' "$DESTDIR"
	;;
*)
	echo "usage: $0 install|uninstall BUILD [PREFIX] [DESTDIR]" >&2
	exit 2
	;;
esac
