#!/bin/sh
# Installs the Debian 12 packages syspin needs to build and test, only when
# something is missing (so `make check` is quick on a prepared machine).
set -eu
# libc6-dbg: libc's symbol table, apart (lib/elf/debugfile.c); with it the
# analysis pins the setxid signal handler's call, else it may issue any.
# debhelper, lintian: make deb and its test (tests/install/deb.sh).
PKGS="gcc clang meson ninja-build pkg-config binutils elfutils
libzydis-dev libzycore-dev libelf-dev libseccomp-dev libcmocka-dev
libjson-c-dev libclang-rt-14-dev musl-tools golang-go python3 sqlite3 git
strace libc6-dbg nettle-dev debhelper lintian"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
	    missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "syspin: missing packages:$missing (run as root, or install them)" >&2
	exit 2
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
