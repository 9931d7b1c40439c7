# SPDX-License-Identifier: ISC
# Sourced by the tests of tests/cli: $T is a fresh directory (removed on
# exit), expect() one check, finish the exit status.

T=$(mktemp -d /tmp/syspin-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0

# expect STATUS REGEX CMD...: CMD exits STATUS and a line of its standard
# error matches the extended REGEX ("" matches anything).
expect() {
	want=$1
	re=$2
	shift 2
	"$@" </dev/null >"$T/stdout" 2>"$T/stderr"
	st=$?
	if [ "$st" != "$want" ]; then
		echo "FAIL $*: exit $st, want $want"
	elif [ -n "$re" ] && ! grep -Eq -- "$re" "$T/stderr"; then
		echo "FAIL $*: no line of standard error matches: $re"
	else
		echo "ok   $*: exit $st: $(head -n 1 "$T/stderr")"
		return 0
	fi
	sed 's/^/     | /' "$T/stderr"
	fails=$((fails + 1))
	return 1
}

finish() {
	[ $fails -eq 0 ] && exit 0
	echo "$fails check(s) failed"
	exit 1
}
