#!/bin/sh
# SPDX-License-Identifier: ISC
# make deb, then the packages used from a fresh root:
# - scripts/deb.sh builds syspin, libsyspin0 and libsyspin-dev from the
#   tree (dpkg-buildpackage -us -uc -b) and runs lintian (no error or
#   warning) when it is installed;
# - as root, dpkg --root installs the three into an empty root, running
#   the postinst without chroot (DPKG_ROOT): it must fill that root's
#   /var/cache/syspin with the tables of the root's programs and
#   libraries (`syspin cache list` shows the root's syspin, verify passes);
#   not root, dpkg -x and the postinst by hand do the same;
# - the root's /usr/bin/syspin runs `sh -c 'echo ok'` pinned, with the
#   root's runtime;
# - a program built through the root's syspin.pc (libsyspin-dev) links the
#   root's libsyspin.so.0, pins itself, and dies for an unpinned call;
# - purge removes the cache.
# Skipped (77) when dpkg-buildpackage or debhelper is missing.
# usage: deb.sh SRC
set -eu
SRC=$(cd "$1" && pwd)
for tool in dpkg-buildpackage dpkg-deb dh; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "deb: SKIP: $tool is not installed (apt-get install dpkg-dev debhelper)"
		exit 77
	}
done
T=$(mktemp -d /tmp/syspin-deb.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "deb: FAIL: $*" >&2; exit 1; }

sh "$SRC/scripts/deb.sh" "$T/deb" >"$T/deb.log" 2>&1 ||
    { cat "$T/deb.log" >&2; fail "make deb"; }
grep -q 'lintian not installed' "$T/deb.log" &&
    echo "deb: lintian is not installed: packages not checked"
debs=""
for p in syspin libsyspin0 libsyspin-dev; do
	set -- "$T"/deb/${p}_*_amd64.deb
	[ -f "$1" ] || fail "no $p package"
	debs="$debs $1"
done
echo "deb: built$(for d in $debs; do printf ' %s' "$(basename "$d")"; done)"
dpkg-deb -c "$T"/deb/syspin_*.deb >"$T/contents"
grep -q ' ./usr/lib/x86_64-linux-gnu/syspin/libsyspin-rt.so$' "$T/contents" ||
    fail "the runtime is not in /usr/lib/<triplet>/syspin"

# ---- a fresh root ----
R=$T/root
C=$R/var/cache/syspin
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" \
	    "$R/var/lib/dpkg/triggers"
	: >"$R/var/lib/dpkg/status"
	# The root has no libc: dependencies and chroot are out of reach.
	dpkg --root="$R" --log=/dev/null --force-depends \
	    --force-script-chrootless -i $debs >"$T/dpkg.log" 2>&1 ||
	    { cat "$T/dpkg.log" >&2; fail "dpkg --root -i"; }
	how="dpkg --root"
else
	mkdir -p "$R"
	for d in $debs; do dpkg-deb -x "$d" "$R"; done
	dpkg-deb -e "$T"/deb/syspin_*.deb "$T/control"
	DPKG_ROOT=$R sh "$T/control/postinst" configure ||
	    fail "postinst configure"
	how="dpkg-deb -x and the postinst"
fi
S=$R/usr/bin/syspin
[ -x "$S" ] || fail "no $S"
# The postinst filled the root's cache.
[ -d "$C" ] || fail "the postinst made no $C"
"$S" cache list --cache-dir "$C" >"$T/list" || fail "cache list"
grep -q " $S\$" "$T/list" || { cat "$T/list" >&2; fail "no table of $S"; }
grep -q " $R/usr/lib/x86_64-linux-gnu/libsyspin.so.0.1.0\$" "$T/list" ||
    fail "no table of the root's libsyspin.so"
"$S" cache verify --cache-dir "$C" >/dev/null || fail "cache verify $C"
echo "deb: installed with $how;" \
    "the postinst filled $(($(wc -l <"$T/list") - 1)) tables"

out=$("$S" run --cache-dir "$C" sh -c 'echo ok') || fail "syspin run: $?"
[ "$out" = ok ] || fail "syspin run printed '$out'"
out=$(SYSPIN_SUPERVISE=0 "$S" run --exec=any --cache-dir "$C" \
    sh -c 'echo "$LD_PRELOAD"') || fail "SYSPIN_SUPERVISE=0 syspin run: $?"
[ "$out" = "$R/usr/lib/x86_64-linux-gnu/syspin/libsyspin-rt.so" ] ||
    fail "the root's syspin preloads '$out'"
echo "deb: the root's /usr/bin/syspin runs sh -c 'echo ok' with its runtime"

# libsyspin-dev: /usr is a system prefix, whose -I/-L pkg-config drops.
flags=$(PKG_CONFIG_PATH=$R/usr/lib/x86_64-linux-gnu/pkgconfig \
    PKG_CONFIG_SYSROOT_DIR=$R PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 \
    PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config --cflags --libs syspin) ||
    fail "pkg-config syspin"
cc -Wall -Wextra -Werror -o "$T/pinned" "$SRC/tests/install/pinned.c" \
    $flags || fail "cc \$(pkg-config --cflags --libs syspin): $flags"
L=$R/usr/lib/x86_64-linux-gnu
LD_LIBRARY_PATH=$L ldd "$T/pinned" | grep -q "libsyspin.so.0 => $R/" ||
    fail "pinned does not load the root's libsyspin.so.0"
out=$(LD_LIBRARY_PATH=$L "$T/pinned") || fail "pinned: status $?"
[ "$out" = pinned ] || fail "pinned printed '$out'"
set +e
LD_LIBRARY_PATH=$L "$T/pinned" attack >/dev/null 2>&1
rc=$?
set -e
[ "$rc" = 159 ] || fail "unpinned call: status $rc, not 159"
echo "deb: a program built with the root's syspin.pc pins itself"

if [ "$(id -u)" = 0 ]; then
	dpkg --root="$R" --log=/dev/null --force-depends \
	    --force-script-chrootless --purge syspin libsyspin-dev libsyspin0 \
	    >"$T/purge.log" 2>&1 || { cat "$T/purge.log" >&2; fail "purge"; }
	[ ! -e "$C" ] || fail "purge left $C"
	[ ! -e "$S" ] || fail "purge left $S"
	echo "deb: purge removed the packages and the cache"
fi
