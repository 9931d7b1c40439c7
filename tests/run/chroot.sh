#!/bin/sh
# SPDX-License-Identifier: ISC
# A program exec'd after chroot: ld.so maps the start-up objects found
# below the new root, so the supervisor must look for them there.  It
# looked in its own root: the chroot's copy of libc was late code, and
# the first call from it killed `chroot DIR /bin/ls` (needs root).
# usage: chroot.sh SYSPIN
set -u
SYSPIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
if [ "$(id -u)" != 0 ] || ! command -v chroot >/dev/null; then
	echo "skip: needs root and chroot(8)"
	exit 77
fi
T=$(mktemp -d /tmp/syspin-chroot.XXXXXX)
trap 'rm -rf "$T"' EXIT
R=$T/root
fail=0

# A root with sh, ls, cat and what they load (copies: other files).
mkdir -p "$R/bin" "$R/etc" "$R/tmp" "$R/sub"
for p in /bin/sh /bin/ls /bin/cat; do
	cp "$p" "$R/bin/"
	for f in $(ldd "$p" | grep -o '/[^ ]*'); do
		[ -e "$R$f" ] || cp --parents -L "$f" "$R/"
	done
done
echo inside >"$R/etc/motd"

# case NAME COMMAND...: status and output alike unpinned and pinned.
. "$(dirname "$0")/compare.sh"
case_() { CMP_DIR=$T CMP_STDIN= cmp_same "$@"; }

case_ "chroot DIR ls" chroot "$R" /bin/ls /
case_ "chroot DIR sh (a pipe, a child)" chroot "$R" /bin/sh -c \
    'cat /etc/motd | cat; ls /bin; cd /sub && ls -d "$PWD"'
case_ "chroot --userspec" chroot --userspec=65534:65534 "$R" /bin/cat \
    /etc/motd
# libc behind an absolute symbolic link: resolved in the chroot, not in
# our root (where /opt/syspin-chroot-libc does not exist).
L=$(ldd /bin/ls | grep -o '/[^ ]*/libc\.so\.6')
mkdir -p "$R/opt/syspin-chroot-libc"
mv "$R$L" "$R/opt/syspin-chroot-libc/libc.so.6"
ln -s /opt/syspin-chroot-libc/libc.so.6 "$R$L"
case_ "chroot DIR ls, libc behind an absolute link" chroot "$R" /bin/ls /opt
# The same, LD_LIBRARY_PATH naming a directory of the chroot's.
case_ "chroot, LD_LIBRARY_PATH" env LD_LIBRARY_PATH=/lib/x86_64-linux-gnu \
    chroot "$R" /bin/ls /etc
exit $fail
