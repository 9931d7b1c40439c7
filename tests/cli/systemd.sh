#!/bin/sh
# SPDX-License-Identifier: ISC
# The installed systemd units (issue 21, item 15): the template
# syspin@.service and the drop-in systemd/syspin.conf are units systemd
# accepts, and the command line the template makes of its instance runs
# the program pinned, arguments and all.
# usage: systemd.sh SYSPIN UNIT DROPIN
set -u
S=$(realpath "$1") UNIT=$2 DROPIN=$3
. "$(dirname "$0")/expect.sh"
if ! command -v systemd-analyze >/dev/null ||
    ! command -v systemd-escape >/dev/null; then
	echo "SKIP no systemd-analyze"; exit 77
fi
inst=$(systemd-escape --template=syspin@.service \
    "/bin/echo pinned service") || exit 1
# the unit as installed, but for where syspin is
mkdir "$T/units" "$T/units/exampled.service.d"
sed "s|^ExecStart=[^ ]*/syspin |ExecStart=$S |" "$UNIT" >"$T/units/$inst"
sed "s|^ExecStart=/usr/bin/syspin |ExecStart=$S |; s|/usr/sbin/exampled --foreground|/bin/sleep 1|" \
    "$DROPIN" >"$T/units/exampled.service.d/syspin.conf"
printf '[Service]\nExecStart=/bin/sleep 1\nType=forking\nPIDFile=/run/x.pid\n' \
    >"$T/units/exampled.service"
for u in "$T/units/$inst" "$T/units/exampled.service"; do
	# `man syspin(1)` missing in a build tree is no fault of the unit
	SYSTEMD_UNIT_PATH="$T/units:" systemd-analyze verify "$u" \
	    >"$T/out" 2>&1
	if grep -v "man \|man:" "$T/out" | grep -q .; then
		echo "FAIL systemd-analyze verify $(basename "$u"):"
		sed 's/^/     | /' "$T/out"
		fails=$((fails + 1))
	else
		echo "ok   systemd-analyze verify $(basename "$u")"
	fi
done
# What systemd runs for the instance: %n the unit's name, %I the command.
line=$(sed -n 's/^ExecStart=//p' "$T/units/$inst")
cmd=$(systemd-escape --unescape -- "${inst#syspin@}" | sed 's/\.service$//')
line=$(printf '%s' "$line" | sed "s|/run/syspin/%n.json|$T/log.json|")
eval "set -- $(printf '%s' "$line" | sed "s|%I|$cmd|")"
expect 0 "" "$@"
if [ "$(cat "$T/stdout")" != "pinned service" ] || [ ! -e "$T/log.json" ]
then
	echo "FAIL the template's command line: \"$(cat "$T/stdout")\""
	fails=$((fails + 1))
fi
finish
