#!/bin/sh
# SPDX-License-Identifier: ISC
# Every error of the syspin command is one line "syspin: FILE: what is
# wrong" naming the file and the reason (never a stale errno, never a
# temporary name), with exit status 2 for usage errors and bad input.
# usage: messages.sh SYSPIN VERSION
set -u
S=$1
VERSION=$2
. "$(dirname "$0")/expect.sh"
C="--cache-dir $T/cache"

# The program to run: the reason it cannot be, not "Invalid argument".
mkdir "$T/adir"
: >"$T/noexec"
# run says it as env(1) and timeout(1) do: 127 not found, 126 found but
# not runnable (so a script tells them from the program's own status 2).
for cmd in "run $C" "trace $C"; do
	nf=127 nr=126
	[ "$cmd" != "run $C" ] && nf=2 nr=2
	expect $nr "^syspin: $T/adir: is a directory$" "$S" $cmd "$T/adir"
	expect $nr "^syspin: $T/noexec: Permission denied$" "$S" $cmd \
	    "$T/noexec"
	expect $nf "^syspin: $T/absent: No such file or directory$" "$S" $cmd \
	    "$T/absent"
	expect $nf "^syspin: syspin-absent: command not found$" "$S" $cmd \
	    syspin-absent
done
mkdir "$T/pathdir" && : >"$T/pathdir/syspin-noexec"
expect 126 "^syspin: syspin-noexec: Permission denied$" \
    env PATH="$T/pathdir" "$S" run $C syspin-noexec
# ... and makes no cache directory.
if [ -e "$T/cache" ]; then
	echo "FAIL run made a cache directory for no program"
	fails=$((fails + 1))
fi

# --cache-dir: made when missing, its parent never.
expect 2 "^syspin: $T/none/cache: $T/none: No such file or directory" \
    "$S" run --cache-dir "$T/none/cache" /bin/true
expect 2 "^syspin: $T/noexec/cache: $T/noexec: Not a directory" \
    "$S" run --cache-dir "$T/noexec/cache" /bin/true
if [ -e "$T/none" ]; then
	echo "FAIL run made $T/none"
	fails=$((fails + 1))
fi
expect 0 "" "$S" run --cache-dir "$T/made/" /bin/true
# Options that contradict or mean nothing: one line, no program run (was:
# every program died of SIGSEGV under --strict --allow-jit; --exec=any
# and a lone --deny-action were ignored).
expect 2 "^syspin: run: --strict and --exec: --strict allows no exec" \
    "$S" run --cache-dir "$T/made" --strict --exec=any /bin/true
expect 2 "^syspin: run: --deny-action without --deny or --allow" \
    "$S" run --cache-dir "$T/made" --deny-action=kill /bin/true
# A usage error: its one line, then where to look (not the whole usage).
expect 2 "^try 'syspin run --help'$" "$S" run --bogus x
if [ "$(wc -l <"$T/stderr")" != 2 ]; then
	echo "FAIL a usage error takes $(wc -l <"$T/stderr") lines"
	fails=$((fails + 1))
fi
expect 2 "^syspin: cache: no command \(fill, list, verify, clear\)$" \
    "$S" cache
# syspin help [COMMAND]: the command's --help.
expect 0 "" "$S" help run
grep -q '^usage: syspin run' "$T/stdout" ||
    { echo "FAIL syspin help run"; fails=$((fails + 1)); }
expect 2 "^syspin: help: unknown command 'frob'$" "$S" help frob
expect 2 "syspin: run: --strict and --allow-jit: --strict allows no new code, a JIT compiler makes it" \
    "$S" run --cache-dir "$T/made" --strict --allow-jit /bin/true
expect 2 "^syspin: run: --allow-socket : not a unix socket's name" \
    "$S" run --cache-dir "$T/made" --allow-socket "" /bin/true
[ -d "$T/made" ] || { echo "FAIL no $T/made"; fails=$((fails + 1)); }

# embed -o: the output is named, never the temporary file next to it, and
# no temporary file stays behind.
mkdir "$T/e" "$T/e/outdir"
E="$S embed --allow-partial /bin/true -o"
expect 2 "^syspin: $T/nodir/x: No such file or directory$" $E "$T/nodir/x"
expect 2 "^syspin: $T/e/outdir: Is a directory$" $E "$T/e/outdir"
# Past RLIMIT_FSIZE (SIGXFSZ ignored): pwrite fails with EFBIG.
expect 2 "^syspin: $T/e/small: cannot write: File too large$" sh -c \
    'trap "" XFSZ; ulimit -f 8; exec "$@"' sh $E "$T/e/small"
left=$(ls "$T/e")
if [ "$left" != outdir ]; then
	echo "FAIL left behind in $T/e:" $left
	fails=$((fails + 1))
fi

# trace's report: the file and the reason it cannot be written.
full="cannot write the report: No space left on device$"
expect 2 "^syspin: /dev/full: $full" "$S" trace $C -o /dev/full /bin/true
expect 2 "^syspin: /dev/full: $full" "$S" trace $C --json -o /dev/full /bin/true
# ... found out before the program runs.
expect 2 "^syspin: $T/nodir/r: No such file or directory$" \
    "$S" trace $C -o "$T/nodir/r" /bin/mkdir "$T/ran"
if [ -e "$T/ran" ]; then
	echo "FAIL trace ran the program with nowhere to report"
	fails=$((fails + 1))
fi
expect 2 "^syspin: standard output: $full" sh -c 'exec "$@" >/dev/full' sh "$S" trace $C /bin/true

# getopt's complaints carry the "syspin: COMMAND:" prefix, for every
# command.
for cmd in scan run embed trace filter; do
	expect 2 "^syspin: $cmd: unrecognized option '--bogus'$" \
	    "$S" $cmd --bogus x
	expect 2 "^syspin: $cmd: invalid option -- 'Z'$" "$S" $cmd -Z x
done
expect 2 "^syspin: trace: option requires an argument -- 'o'$" \
    "$S" trace -o

# Every command's --help: what it does and its exit statuses, on stdout.
for cmd in scan run embed trace filter cache; do
	if ! "$S" $cmd --help >"$T/help" 2>&1 || ! grep -q '^usage: syspin' \
	    "$T/help" || ! grep -q '^Exit status: ' "$T/help" ||
	    [ "$(grep -c '^$' "$T/help")" -lt 2 ]; then
		echo "FAIL syspin $cmd --help: no description or exit status:"
		sed 's/^/     | /' "$T/help"
		fails=$((fails + 1))
	else
		echo "ok   syspin $cmd --help"
	fi
done

# Where ptrace is refused (under strace): the weaker mode said at any
# verbosity, or refused with --require-supervisor (issue 21, item 3).
if command -v strace >/dev/null 2>&1; then
	expect 0 "^syspin: run: cannot supervise \(ptrace: .*\): the runtime alone pins the program; it does not judge" \
	    strace -f -o /dev/null "$S" run $C /bin/true
	expect 2 "^syspin: run: cannot supervise \(ptrace: .*\): refused \(--require-supervisor\)$" \
	    strace -f -o /dev/null "$S" run $C --require-supervisor /bin/true
else
	echo "skip --require-supervisor: no strace"
fi

# --strict: a dlopen refused is said on stderr and recorded by -o (was
# silent: the program's own "failed to map segment" alone; item 5).
if [ -x /usr/bin/python3 ]; then	# itself, not a wrapper that execs
	expect 1 "^syspin: python3\[[0-9]+\]: mmap with PROT_EXEC refused: syspin run --strict allows no new code$" \
	    "$S" run $C --strict -o "$T/strict.json" /usr/bin/python3 -c \
	    'import ctypes; ctypes.CDLL("libm.so.6")'
	if grep -q '"verdict":"refused".*allows no new code' "$T/strict.json"
	then
		echo "ok   --strict refusal recorded by -o"
	else
		echo "FAIL --strict refusal not recorded by -o"
		fails=$((fails + 1))
	fi
fi

# A file neither ELF nor "#!" runs with /bin/sh, as execvp(3) runs it
# (was "not an ELF file"); one syspin cannot read says why (item 7).
printf 'echo "script $0 $*"\n' >"$T/plain.sh" && chmod 755 "$T/plain.sh"
expect 0 "" "$S" run $C "$T/plain.sh" a b
if [ "$(cat "$T/stdout")" != "script $T/plain.sh a b" ]; then
	echo "FAIL a script without #!: \"$(cat "$T/stdout")\""
	fails=$((fails + 1))
fi
if [ "$(id -u)" != 0 ]; then
	cp /bin/true "$T/xonly" && chmod 111 "$T/xonly"
	expect 126 "^syspin: $T/xonly: cannot be read \(execute-only\?\): syspin reads a program to pin it$" \
	    "$S" run $C "$T/xonly"
fi

# A set-user-ID program runs without it (no_new_privs): said once per
# program, as anyone but root (item 8).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
    [ -u /usr/bin/passwd ]; then
	chmod 755 "$T" && mkdir "$T/nobody" && chown nobody "$T/nobody"
	expect 0 "^syspin: passwd\[[0-9]+\]: /usr/bin/passwd is set-user-ID: under syspin it runs without it \(no_new_privs\), and may fail$" \
	    setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	    "$S" run --cache-dir "$T/nobody/cache" /bin/sh -c \
	    'passwd -S >/dev/null 2>&1; passwd -S >/dev/null 2>&1; exit 0'
	if [ "$(grep -c 'set-user-ID' "$T/stderr")" != 1 ]; then
		echo "FAIL set-user-ID said $(grep -c 'set-user-ID' "$T/stderr") times"
		fails=$((fails + 1))
	fi
fi

# syspin inside a pinned tree: one line that says so, status 2 (was a
# keyring refusal and a memory limit: issue 21, item 4).
for cmd in "run $C /bin/true" "trace /bin/true"; do
	expect 2 "^syspin: ${cmd%% *}: inside a pinned tree \(traced by process [0-9]+, under seccomp filters\)" \
	    "$S" run $C "$S" $cmd
done

# One meaning per short option (item 10): -c the cache, -j JSON, in every
# command that has them (was: -j the jobs of cache fill, -c trace's only).
expect 0 "" "$S" run -c "$T/made" /bin/true
expect 0 "" "$S" filter -c "$T/made" /bin/true
expect 0 "" "$S" cache fill --jobs 1 -q -c "$T/made" /bin/true
expect 0 "" "$S" cache list -j -c "$T/made"
if [ "$(head -c 1 "$T/stdout")" != "{" ]; then
	echo "FAIL cache list -j is not JSON"
	fails=$((fails + 1))
fi
expect 2 "invalid option -- 'j'" "$S" cache fill -j 2 -c "$T/made" /bin/true
for cmd in scan filter trace cache; do
	if ! "$S" $cmd --help | grep -q -- "-j, --json"; then
		echo "FAIL syspin $cmd --help: no \"-j, --json\""
		fails=$((fails + 1))
	fi
done
# run -q: only what was killed is said; -o still records the rest.
expect 2 "^syspin: run: -v and -q" "$S" run -q -v /bin/true
if [ -x /usr/bin/python3 ]; then
	expect 0 "getpid \(code 39\) denied by --deny: EPERM" "$S" run $C \
	    --deny getpid /usr/bin/python3 -c 'import os; os.getpid()'
	expect 0 "" "$S" run $C -q -o "$T/q.json" --deny getpid \
	    /usr/bin/python3 -c 'import os; os.getpid()'
	if [ -s "$T/stderr" ] || ! grep -q '"getpid"' "$T/q.json"; then
		echo "FAIL run -q said: $(head -n 2 "$T/stderr"), or -o" \
		    "recorded nothing"
		fails=$((fails + 1))
	fi
fi

# -v in the user's terms (item 12): what the image keeps, each object
# once per run, where a mapping went and why.
expect 0 "^syspin: sh\[[0-9]+\]: pinned before its first instruction: [0-9]+ system calls" \
    "$S" run $C -v /bin/sh -c '/bin/true; /bin/true'
for re in "its code can reach [0-9]+ of the [0-9]+ \(site, number\) pairs" \
    "^syspin: true\[[0-9]+\]: pinned before its first instruction" \
    "libc\.so\.6 at 0x[0-9a-f]+: [0-9]+ system calls at [0-9]+ sites" \
    "libc\.so\.6 mapped at 0x[0-9a-f]+, the start-up slot its pins were made for"
do
	if ! grep -Eq "$re" "$T/stderr"; then
		echo "FAIL run -v: no line matches: $re"
		fails=$((fails + 1))
	fi
done
if [ "$(grep -c "libc\.so\.6 at 0x" "$T/stderr")" != 1 ]; then
	echo "FAIL run -v: libc said $(grep -c "libc\.so\.6 at 0x" \
	    "$T/stderr") times in a run, not once"
	fails=$((fails + 1))
fi

# The version meson's project() declares.
for opt in -V --version; do
	expect 0 "" "$S" $opt
	if [ "$(cat "$T/stdout")" != "syspin $VERSION" ]; then
		echo "FAIL syspin $opt: \"$(cat "$T/stdout")\"," \
		    "want \"syspin $VERSION\""
		fails=$((fails + 1))
	fi
done
finish
