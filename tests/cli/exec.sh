#!/bin/sh
# SPDX-License-Identifier: ISC
# An exec the policy refuses (issue 21, item 7): --exec=trusted and
# --exec=none refuse it the same way, at the call: one line naming the
# file, EACCES to the caller, which goes on (was: --exec=trusted killed
# the caller at the exec, naming the process only).  A script is judged
# by its interpreter, the program that runs.
# usage: exec.sh SYSPIN
set -u
S=$1
. "$(dirname "$0")/expect.sh"
C="--cache-dir $T/cache"
chmod 755 "$T"

# Written by the tree (so changed since the run started, for
# --exec=trusted; --exec=none allows no exec at all, not even cp's).
cp /bin/true "$T/none.w"
for policy in trusted none; do
	why="--exec=trusted: changed since the run started"
	prog='cp /bin/true "$0.w"; "$0.w"; echo "status $?"; "$0.w"; echo "status $?"'
	if [ $policy = none ]; then
		why="syspin run --exec=none"
		prog='"$0.w"; echo "status $?"; "$0.w"; echo "status $?"'
	fi
	expect 0 "^syspin: sh\[[0-9]+\]: execve of $T/$policy.w refused: $why" \
	    "$S" run $C --exec=$policy /bin/sh -c "$prog" "$T/$policy"
	if [ "$(grep -c "^status 126$" "$T/stdout")" != 2 ]; then
		echo "FAIL --exec=$policy: the caller did not get EACCES and" \
		    "go on: $(cat "$T/stdout")"
		fails=$((fails + 1))
	fi
	# one line per process and file
	if [ "$(grep -c "execve of" "$T/stderr")" != 2 ]; then
		echo "FAIL --exec=$policy: refusals said" \
		    "$(grep -c "execve of" "$T/stderr") times, not 2"
		fails=$((fails + 1))
	fi
done
# --exec=trusted runs the new script (its interpreter is /bin/sh).
if ! grep -q "^script ran$" "$T/stdout"; then :; fi
expect 0 "" "$S" run $C --exec=trusted /bin/sh -c \
    'printf "#!/bin/sh\necho script ran\n" >"$0"; chmod 755 "$0"; "$0"' \
    "$T/new.sh"
if [ "$(cat "$T/stdout")" != "script ran" ]; then
	echo "FAIL --exec=trusted: a new script of /bin/sh: $(cat "$T/stdout")"
	fails=$((fails + 1))
fi
# fexecve (execveat with AT_EMPTY_PATH) is judged by the file too.
if [ -x /usr/bin/python3 ]; then
	expect 0 "^syspin: python3[.0-9]*\[[0-9]+\]: execveat of descriptor [0-9]+ refused: --exec=trusted: changed since the run started" \
	    "$S" run $C --exec=trusted /usr/bin/python3 -c '
import os, shutil, sys
shutil.copy("/bin/true", sys.argv[1])
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    os.execve(fd, ["w"], {})
except PermissionError:
    print("EACCES")' "$T/fexec"
	if [ "$(cat "$T/stdout")" != "EACCES" ]; then
		echo "FAIL fexecve: $(cat "$T/stdout")"
		fails=$((fails + 1))
	fi
fi
finish
