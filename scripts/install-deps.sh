#!/bin/sh
# SPDX-License-Identifier: ISC
# install-deps.sh [build] [test] [fuzz] [deb]: the Debian 12 packages each
# step needs (no argument: build, test and fuzz).
#   build  `make build` and `make demo`: compilers, Meson and Ninja, the
#          libraries, and what configuring the test suite asks for
#   test   what `make check` adds: the toolchains and programs the tests
#          build programs with or compare against
#   fuzz   `make fuzz`: clang and its libFuzzer runtime
#   deb    `make deb`: the build's, dpkg-dev, debhelper and lintian
# Only missing packages are installed (so `make check` is quick on a
# prepared machine), with apt-get as root; anyone else is told the
# apt-get command to run, and the exit status is 2.
set -eu
BUILD="gcc meson ninja-build pkg-config binutils python3 libzydis-dev
libzycore-dev libelf-dev libseccomp-dev libcmocka-dev libjson-c-dev
nettle-dev"
# libc6-dbg: libc's symbol table, apart (lib/elf/debugfile.c); with it the
# analysis pins the setxid signal handler's call, else it may issue any.
# debhelper, lintian: tests/install/deb.sh builds and checks the packages.
# The servers tests/servers runs pinned, and their load tools (wrk, ab,
# memcaslap, redis-benchmark, pgbench; ssh, scp, sftp for sshd); their system instances are left
# alone (the tests use ports of their own).
# zsh and systemd: tests/cli checks the completion and units installed.
# tests/run/sweep.sh runs each of the small ones below pinned (node and
# java are too large: skipped when absent).
TEST="clang musl-tools golang-go sqlite3 git strace elfutils libc6-dbg
debhelper lintian nginx haproxy redis-server redis-tools memcached
libmemcached-tools apache2-utils wrk postgresql-15 openssh-server
openssh-client openssh-sftp-server
busybox-static gawk bzip2 xz-utils zstd lz4 lzip bc ed less file man-db
vim-tiny openssl curl wget gpg gpg-agent zsh systemd"
FUZZ="clang libclang-rt-14-dev"
DEB="$BUILD dpkg-dev debhelper lintian"

want=""
[ $# -eq 0 ] && set -- build test fuzz
for step in "$@"; do
	case $step in
	build) want="$want $BUILD" ;;
	test) want="$want $TEST" ;;
	fuzz) want="$want $FUZZ" ;;
	deb) want="$want $DEB" ;;
	*) echo "usage: install-deps.sh [build] [test] [fuzz] [deb]" >&2; exit 2 ;;
	esac
done
missing=""
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
	    missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "syspin: missing packages for $*:$missing" >&2
	echo "syspin: as root, run: apt-get install$missing" >&2
	exit 2
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
