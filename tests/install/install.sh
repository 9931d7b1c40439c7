#!/bin/sh
# SPDX-License-Identifier: ISC
# make install into a DESTDIR, used from there as a user would:
# - the files are where they belong, the headers exactly include/syspin
#   (the public API); libsyspin.so exports exactly what
#   <syspin/pinsyscalls.h> declares;
# - a program built with `pkg-config --cflags --libs syspin` (the
#   DESTDIR's syspin.pc) pins itself with pinsyscalls() and dies of SIGSYS
#   for a raw call from an unpinned place;
# - the installed syspin finds its own runtime (relative to itself, not the
#   build tree's) and runs `sh -c 'echo ok'` pinned; cache fill/list work;
# - the man page renders without warnings;
# - make uninstall leaves nothing behind.
# usage: install.sh BUILD SRC
set -eu
B=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
T=$(mktemp -d /tmp/syspin-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
D=$T/dest
fail() { echo "install: FAIL: $*" >&2; exit 1; }

sh "$SRC/scripts/install.sh" install "$B" "" "$D" >"$T/install.log" 2>&1 ||
    { cat "$T/install.log" >&2; fail "make install DESTDIR=$D"; }

# ---- the files ----
one() {	# PATTERN: exactly one file under $D
	n=$(find "$D" -path "$1" | wc -l)
	[ "$n" = 1 ] || fail "$n files match $1 under DESTDIR"
	find "$D" -path "$1"
}
SYSPIN=$(one '*/bin/syspin')
RT=$(one '*/syspin/libsyspin-rt.so')
LIB=$(one '*/libsyspin.so.0')
PC=$(one '*/pkgconfig/syspin.pc')
MAN=$(one '*/man1/syspin.1')
MAN3=$(one '*/man3/pinsyscalls.3')
one '*/include/syspin/pinsyscalls.h' >/dev/null
one '*/include/syspin/pinsyscall.h' >/dev/null
# The public API is include/syspin, exactly: no stage's interface (those
# live beside their code, lib/STAGE/*.h) is installed, none is missing.
(cd "$SRC/include/syspin" && ls) >"$T/api.src"
(cd "$(dirname "$(one '*/include/syspin/pinsyscalls.h')")" && ls) >"$T/api.dest"
cmp -s "$T/api.src" "$T/api.dest" ||
    { diff "$T/api.src" "$T/api.dest" >&2;
      fail "installed headers differ from include/syspin"; }
[ "$(find "$D" -name '*.h' | wc -l)" = "$(wc -l <"$T/api.src")" ] ||
    fail "a header installed outside include/syspin"
COMPL=$(one '*/bash-completion/completions/syspin')
ZCOMPL=$(one '*/zsh/vendor-completions/_syspin')
UNIT=$(one '*/lib/systemd/system/syspin@.service')
PREFIX=${SYSPIN#"$D"}
PREFIX=${PREFIX%/bin/syspin}
grep -q "^ExecStart=$PREFIX/bin/syspin run " "$UNIT" ||
    fail "syspin@.service does not run $PREFIX/bin/syspin"
one '*/share/doc/syspin/systemd/syspin.conf' >/dev/null
# every docs/*.md a command's --help names, beside the man page
for d in $(grep -ho 'docs/[a-z-]*\.md' "$SRC"/cli/*.c | sort -u); do
	one "*/share/doc/syspin/${d#docs/}" >/dev/null
done
[ -L "$(dirname "$LIB")/libsyspin.so" ] || fail "no libsyspin.so link"
[ "$(find "$D" -name '*.a' | wc -l)" = 0 ] || fail "a static library installed"
case $RT in "$D"/*/lib*/syspin/libsyspin-rt.so) ;;
*) fail "runtime at $RT, not LIBDIR/syspin" ;; esac
echo "install: files in place"

# ---- bash completion: commands, options, the program's command line ----
if command -v bash >/dev/null; then
	got=$(PATH="$(dirname "$SYSPIN"):$PATH" bash -c '. "$1"
	    comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _syspin
	        echo "${COMPREPLY[*]}"; }
	    comp syspin ru; comp syspin cache v; comp syspin run --exec= x
	    comp syspin run --str' sh "$COMPL")
	[ "$(echo "$got" | sed -n 1p)" = run ] &&
	    [ "$(echo "$got" | sed -n 2p)" = verify ] &&
	    echo "$got" | sed -n 4p | grep -q -- '--strict' ||
	    fail "bash completion: $(echo "$got" | tr '\n' '|')"
	echo "install: bash completion of commands and options"
fi

# ---- zsh completion: a command, a subcommand, an option ----
if command -v zsh >/dev/null; then
	# the line zsh completed, echoed
	: >"$T/zsh"
	for w in "syspin ca" "syspin cache li" "syspin run --stri"; do
		zsh "$SRC/tests/install/zsh_complete.zsh" "$(dirname "$ZCOMPL")" \
		    "$(dirname "$SYSPIN")" "$w" | tr -d '\r' |
		    sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' |
		    grep -ao '^syspin [a-z -]*' | tail -n 1 >>"$T/zsh"
	done
	[ "$(cat "$T/zsh")" = "$(printf 'syspin cache\nsyspin cache list\nsyspin run --strict')" ] ||
	    fail "zsh completion: $(tr '\n' '|' <"$T/zsh")"
	echo "install: zsh completion of commands and options"
fi

# ---- the exported symbols: what pinsyscalls.h declares, no more ----
H=$(one '*/include/syspin/pinsyscalls.h')
sed -n 's/^[a-z_][a-z_0-9 ]*[ *]\([a-z_][a-z_0-9]*\)(.*/\1/p' "$H" |
    sort >"$T/declared"
nm -D --defined-only "$LIB" | awk '$2 ~ /^[TtWDdBbRrVviu]$/ { print $3 }' |
    sed 's/@.*//' | sort >"$T/exported"
[ -s "$T/declared" ] || fail "no function found in $H"
cmp -s "$T/declared" "$T/exported" ||
    { diff "$T/declared" "$T/exported" >&2;
      fail "exports differ from pinsyscalls.h"; }
readelf -d "$LIB" | grep -q 'SONAME.*libsyspin\.so\.0' || fail "soname"
echo "install: libsyspin.so exports $(tr '\n' ' ' <"$T/declared")"

# ---- a program built against the installed copy ----
PCDIR=$(dirname "$PC")
flags=$(PKG_CONFIG_PATH=$PCDIR PKG_CONFIG_SYSROOT_DIR=$D \
    pkg-config --cflags --libs syspin) || fail "pkg-config syspin"
case $flags in *"-I$D/"*"-L$D/"*"-lsyspin"*) ;;
*) fail "pkg-config gave '$flags'" ;; esac
# Nothing of the source tree: only what was installed.
cc -Wall -Wextra -Werror -o "$T/pinned" "$SRC/tests/install/pinned.c" \
    $flags || fail "cc pinned.c \$(pkg-config --cflags --libs syspin)"
LIBDIR=$(dirname "$LIB")
LD_LIBRARY_PATH=$LIBDIR ldd "$T/pinned" | grep -q "libsyspin.so.0 => $D/" ||
    fail "pinned does not load the DESTDIR's libsyspin.so.0"
out=$(LD_LIBRARY_PATH=$LIBDIR "$T/pinned") || fail "pinned: status $?"
[ "$out" = pinned ] || fail "pinned printed '$out'"
set +e
out=$(LD_LIBRARY_PATH=$LIBDIR "$T/pinned" attack 2>/dev/null)
rc=$?
set -e
[ "$rc" = 159 ] ||
    fail "a raw call from an unpinned place: status $rc, not 159 (SIGSYS)"
[ "$out" = pinned ] || fail "the attack printed '$out'"
echo "install: pinsyscalls() from the installed library pins;" \
    "an unpinned call dies"

# ---- the installed syspin ----
C=$T/cache
out=$("$SYSPIN" run --cache-dir "$C" sh -c 'echo ok') || fail "syspin run: $?"
[ "$out" = ok ] || fail "syspin run printed '$out'"
# Without the supervisor the runtime is preloaded: the DESTDIR's own.
out=$(SYSPIN_SUPERVISE=0 "$SYSPIN" run --exec=any --cache-dir "$C" \
    sh -c 'echo "$LD_PRELOAD"') || fail "SYSPIN_SUPERVISE=0 syspin run: $?"
[ "$out" = "$RT" ] || fail "the installed syspin preloads '$out', not $RT"
"$SYSPIN" cache fill --cache-dir "$C" "$D" || fail "cache fill $D"
"$SYSPIN" cache list --cache-dir "$C" | grep -q " $SYSPIN\$" ||
    fail "cache list does not show $SYSPIN"
"$SYSPIN" cache verify --cache-dir "$C" >/dev/null || fail "cache verify"
echo "install: the installed syspin runs sh -c 'echo ok' with its own runtime"

# ---- the man page ----
for m in "$MAN" "$MAN3"; do
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
	[ -z "$warn" ] || { echo "$warn" >&2; fail "man page warnings: $m"; }
done

# ---- what a pinned tree cannot do, where a user looks (issue 21, 9) ----
caveats=$(LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$MAN" 2>/dev/null |
    sed -n '/^CAVEATS/,$p')
for w in no_new_privs mounts strace "in the background"; do
	echo "$caveats" | grep -q "$w" || fail "syspin(1) CAVEATS: no \"$w\""
	grep -q "$w" "$SRC/README.md" || fail "README.md: no \"$w\""
done
echo "install: README and syspin(1) say what a pinned tree cannot do"

# ---- uninstall ----
sh "$SRC/scripts/install.sh" uninstall "$B" "" "$D" >"$T/uninstall.log" 2>&1 ||
    { cat "$T/uninstall.log" >&2; fail "make uninstall DESTDIR=$D"; }
left=$(find "$D" ! -type d)
[ -z "$left" ] || { echo "$left" >&2; fail "uninstall left files"; }
[ -z "$(find "$D" -type d -name syspin)" ] ||
    fail "uninstall left our directories"
echo "install: uninstall removed everything"
