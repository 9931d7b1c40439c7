#!/bin/sh
# SPDX-License-Identifier: ISC
# `make build` needs only the build dependencies: a user who is not root
# and lacks the test toolchains (Go, musl, clang, strace...) can build; a
# missing build dependency stops it with the apt-get command to run;
# `make check` asks for the test dependencies too, and as root installs
# what is missing before configuring.  dpkg-query, id, apt-get, meson and
# ninja are stand-ins here (nothing is installed or built).
# usage: deps.sh SOURCE_DIR
set -u
SRC=$1
. "$(dirname "$0")/cli/expect.sh"
mkdir "$T/bin"
# FAKE_MISSING: packages dpkg-query calls not installed.
cat >"$T/bin/dpkg-query" <<'EOS'
#!/bin/sh
for p; do :; done
case " $FAKE_MISSING " in *" $p "*) exit 1 ;; esac
echo "install ok installed"
EOS
cat >"$T/bin/id" <<'EOS'
#!/bin/sh
[ "$1" = -u ] && { echo "$FAKE_UID"; exit 0; }
exec /usr/bin/id "$@"
EOS
for p in apt-get meson ninja; do
	printf '#!/bin/sh\necho "%s $*" >>"$FAKE_LOG"\n' $p >"$T/bin/$p"
done
# meson setup DIR makes DIR/build.ninja, as the real one does.
cat >>"$T/bin/meson" <<'EOS'
[ "$1" = setup ] && mkdir -p "$2" && : >"$2/build.ninja"
exit 0
EOS
chmod +x "$T/bin/"*
# Not the jobserver of a make that runs this test.
unset MAKEFLAGS MFLAGS MAKELEVEL
export PATH="$T/bin:$PATH" FAKE_LOG="$T/log"
TESTONLY="clang musl-tools golang-go sqlite3 git strace elfutils libc6-dbg"

# logged NAME REGEX: a line of the stand-ins' log matches.
logged() {
	grep -Eq -- "$2" "$T/log" 2>/dev/null && return 0
	echo "FAIL $1: nothing in the log matches $2"
	sed 's/^/     | /' "$T/log" 2>/dev/null
	fails=$((fails + 1))
}
not_logged() {
	grep -Eq -- "$2" "$T/log" 2>/dev/null || return 0
	echo "FAIL $1: the log has $2"
	sed 's/^/     | /' "$T/log"
	fails=$((fails + 1))
}

# A user without the test toolchains builds.
rm -f "$T/log"
export FAKE_UID=1000 FAKE_MISSING="$TESTONLY"
expect 0 "" make -s -C "$SRC" build BUILD="$T/b1"
logged "user build" "^ninja -C $T/b1"
not_logged "user build" "^apt-get"

# ... but not without a build dependency: told what to install.
rm -f "$T/log"
export FAKE_MISSING="$TESTONLY libzydis-dev"
# (make's own status is 2 when a step fails.)
expect 2 "^syspin: as root, run: apt-get install.* libzydis-dev" \
    make -s -C "$SRC" build BUILD="$T/b2"
not_logged "user build, missing libzydis-dev" "^(meson|ninja|apt-get)"
expect 2 "^syspin: as root, run: apt-get install .*golang-go" \
    sh "$SRC/scripts/install-deps.sh" test

# As root, make check installs the test dependencies before configuring.
rm -f "$T/log"
export FAKE_UID=0 FAKE_MISSING="$TESTONLY"
expect 0 "" make -s -C "$SRC" check BUILD="$T/b3"
logged "root check" "^apt-get install .*golang-go.*strace"
not_logged "root check" "^apt-get install .*libzydis-dev"
if [ "$(grep -n '^apt-get install' "$T/log" | cut -d: -f1)" -gt \
    "$(grep -n '^meson setup' "$T/log" | cut -d: -f1)" ] 2>/dev/null; then
	echo "FAIL root check: configured before installing"
	fails=$((fails + 1))
fi
logged "root check" "^meson test -C $T/b3"
finish
