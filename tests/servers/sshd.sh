#!/bin/sh
# SPDX-License-Identifier: ISC
# OpenSSH's sshd pinned, as root: every connection is a fork that re-execs
# sshd (-R), whose pre-authentication child chroots to /run/sshd, drops to
# the sshd user and installs a seccomp sandbox of its own; PAM modules are
# dlopen'ed (pam_keyinit passes keyctl to syscall()); the session execs
# the user's shell, the sftp subsystem, and forwards a port.  Twenty
# sessions each see themselves pinned; scp both ways and sftp move the
# same bytes; a pty session returns its status; SIGHUP re-execs sshd,
# which serves again; SIGTERM to `syspin run` stops it with status 0; not
# one line of syspin's.
# usage: sshd.sh SYSPIN
. "$(dirname "$0")/lib.sh"
requires /usr/sbin/sshd ssh scp sftp ssh-keygen
P=$(port)
mkdir -p /run/sshd	# the privilege separation directory (the package's)

ssh-keygen -q -t ed25519 -N '' -f "$T/host" &&
    ssh-keygen -q -t ed25519 -N '' -f "$T/client" &&
    cp "$T/client.pub" "$T/authorized_keys" || { fail "ssh-keygen"; finish; }
cat >"$T/sshd_config" <<EOC
Port $P
ListenAddress 127.0.0.1
HostKey $T/host
AuthorizedKeysFile $T/authorized_keys
PidFile $T/sshd.pid
UsePAM yes
StrictModes no
PermitRootLogin prohibit-password
Subsystem sftp /usr/lib/openssh/sftp-server
EOC
O="-i $T/client -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
    -o LogLevel=ERROR -o BatchMode=yes"
# shellcheck disable=SC2086
sh_() { ssh -p "$P" $O root@127.0.0.1 "$@"; }

start sshd $R -- /usr/sbin/sshd -D -e -f "$T/sshd_config"
listening sshd "$P" || finish
pinned "sshd (listener)" "$(children "$(runpid sshd)")"

# Sessions: each a fork and re-exec of sshd, then the shell.
good=0
i=0
while [ $i -lt 20 ]; do
	out=$(sh_ 'echo "ok $(awk "/^Seccomp:/ { print \$2 }" /proc/self/status)"' \
	    </dev/null 2>>"$T/ssh.err")
	[ "$out" = "ok 2" ] && good=$((good + 1))
	i=$((i + 1))
done
[ $good = 20 ] && ok "sshd: 20 sessions, each shell pinned (Seccomp: 2)" ||
    { fail "sshd: $good of 20 sessions ran pinned"; show "$T/ssh.err"; }

# scp there and back, sftp, a pty session's status.
head -c 300000 /dev/urandom >"$T/blob"
# shellcheck disable=SC2086
scp -q -P "$P" $O "$T/blob" root@127.0.0.1:"$T/blob.up" &&
    scp -q -P "$P" $O root@127.0.0.1:"$T/blob.up" "$T/blob.down" &&
    cmp -s "$T/blob" "$T/blob.down" && ok "sshd: scp up and down, same bytes" ||
    fail "sshd: scp"
# shellcheck disable=SC2086
echo "get $T/blob $T/blob.sftp" | sftp -q -P "$P" $O root@127.0.0.1 \
    >/dev/null 2>&1 && cmp -s "$T/blob" "$T/blob.sftp" &&
    ok "sshd: sftp (the subsystem exec'd)" || fail "sshd: sftp"
sh_ -tt 'tty >/dev/null && exit 3' </dev/null >/dev/null 2>&1
st=$?
[ $st = 3 ] && ok "sshd: a pty session's status (3)" ||
    fail "sshd: pty session: status $st, want 3"

# A forwarded port: sshd connects to its own port, the banner comes back.
F=$(port)
# shellcheck disable=SC2086
ssh -p "$P" $O -N -L "$F:127.0.0.1:$P" root@127.0.0.1 &
fwd=$!
if "$PY" "$HERE/net.py" wait "$F" 10 &&
    "$PY" -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
sys.exit(0 if s.recv(7) == b"SSH-2.0" else 1)' "$F"; then
	ok "sshd: a forwarded port (-L)"
else
	fail "sshd: forwarded port"
fi
kill "$fwd" 2>/dev/null
wait "$fwd" 2>/dev/null

# SIGHUP: sshd re-execs itself, pinned again, and serves.
kill -HUP "$(cat "$T/sshd.pid")"
sleep 1
if poll 10 sh -c "[ \"\$(ssh -p $P $(echo $O) root@127.0.0.1 echo again \
    </dev/null 2>/dev/null)\" = again ]"; then
	ok "sshd: SIGHUP (a re-exec of sshd) and a session after it"
else
	fail "sshd: no session after SIGHUP"
fi
pinned "sshd (after SIGHUP)" "$(cat "$T/sshd.pid")"

kill -TERM "$(runpid sshd)"
ended "sshd: exits on SIGTERM (to syspin run)" sshd 0
clean "sshd" "$T/sshd.err" "$T/sshd.out"
finish
