#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# A daemon under syspin run as systemd would run it (docs/service.md),
# without systemd: SIGHUP (ExecReload=kill -HUP $MAINPID) and SIGTERM
# (stop) sent to syspin reach the daemon; the exit status is the daemon's
# (143 for an unhandled SIGTERM, 159 for a violation, whose line is on
# stderr, which journald reads); sd_notify's READY=1 comes from the
# daemon's pid, not syspin's (NotifyAccess=all); and an outer filter like
# SystemCallFilter= combines with syspin's (the most severe answer wins;
# one that denies ptrace leaves syspin without its supervisor).
# usage: service.py SYSPIN ATTACK
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

SYSPIN, ATTACK = (os.path.abspath(a) for a in sys.argv[1:3])
TMP = tempfile.mkdtemp(prefix="syspin-service.")
CACHE = os.path.join(TMP, "cache")
failed = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed.append(what)


def wait_for(path, text, secs=10):
    end = time.time() + secs
    while time.time() < end:
        if os.path.exists(path) and text in open(path).read():
            return True
        time.sleep(0.05)
    return False


RUN = [SYSPIN, "run", "--cache-dir", CACHE]
# 1. reload and stop through syspin's signal forwarding
state = os.path.join(TMP, "state")
daemon = """
trap 'echo reload >> "$1"' HUP
trap 'echo stop >> "$1"; exit 0' TERM
echo ready >> "$1"
while :; do sleep 0.05; done
"""
p = subprocess.Popen(RUN + ["sh", "-c", daemon, "daemon", state])
check(wait_for(state, "ready"), "the daemon started")
p.send_signal(signal.SIGHUP)
check(wait_for(state, "reload"), "SIGHUP to syspin reached the daemon")
check(p.poll() is None, "and it runs on")
p.send_signal(signal.SIGTERM)
st = p.wait(timeout=20)
check(st == 0 and "stop" in open(state).read(),
      "SIGTERM to syspin stopped it: status %d" % st)

# 2. a daemon that does not handle SIGTERM: 128 + 15
p = subprocess.Popen(RUN + ["sleep", "30"])
time.sleep(1)
p.send_signal(signal.SIGTERM)
st = p.wait(timeout=20)
check(st == 143, "unhandled SIGTERM: status 143 (%d)" % st)

# 3. a violation: status 159, the line on stderr for the journal
q = subprocess.run(RUN + [ATTACK, "own-nr"], capture_output=True, text=True)
check(q.returncode == 159 and any(
      l.startswith("syspin: attack[") and "code 59 (execve)" in l
      for l in q.stderr.splitlines()), "a violation: 159 and one line")

# 4. sd_notify: READY=1 comes from the daemon, a child of syspin
sock_path = os.path.join(TMP, "notify")
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock_path)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.settimeout(20)
notify = ("import os, socket\ns = socket.socket(socket.AF_UNIX, "
          "socket.SOCK_DGRAM)\ns.sendto(b'READY=1', "
          "os.environ['NOTIFY_SOCKET'])\n")
env = dict(os.environ, NOTIFY_SOCKET=sock_path)
p = subprocess.Popen(RUN + ["python3", "-c", notify], env=env)
try:
    msg, anc, _, _ = s.recvmsg(256, socket.CMSG_SPACE(12))
    pid = None
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = int.from_bytes(data[:4], "little")
    check(msg == b"READY=1" and pid is not None and pid != p.pid,
          "READY=1 from the daemon (pid %s), not syspin (%d): "
          "NotifyAccess=all" % (pid, p.pid))
except socket.timeout:
    check(False, "no READY=1")
check(p.wait(timeout=20) == 0, "the notifying daemon exits 0")

# 5. an outer filter, as SystemCallFilter= installs before ExecStart
OUTER = """
import ctypes, os, sys
lib = ctypes.CDLL("libseccomp.so.2")
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32,
                                 ctypes.c_int, ctypes.c_uint]
lib.seccomp_load.argtypes = [ctypes.c_void_p]
ctx = lib.seccomp_init(0x7fff0000)
action = int(sys.argv[1], 0)
for name in sys.argv[2].split(","):
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    assert lib.seccomp_rule_add(ctx, action, nr, 0) == 0
assert lib.seccomp_load(ctx) == 0
os.execv(sys.argv[3], sys.argv[3:])
"""
EACCES_ = "0x0005000d"     # SystemCallErrorNumber=EACCES
KILL_ = "0x80000000"       # SystemCallFilter= without an errno


def outer(action, names, args):
    return subprocess.run(["python3", "-c", OUTER, action, names] + RUN +
                          args, capture_output=True, text=True)


q = outer(EACCES_, "uname", ["uname"])
check(q.returncode == 1 and "Permission denied" in q.stderr,
      "outer filter denies uname: EACCES under syspin run")
q = outer(EACCES_, "uname", ["--deny", "uname", "--deny-action=kill",
                             "uname"])
check(q.returncode == 1 and "Permission denied" in q.stderr and
      "denied by --deny" not in q.stderr,
      "both deny uname: the outer ERRNO beats syspin's stop (TRACE)")
q = outer(KILL_, "uname", ["uname"])
check(q.returncode == 159, "outer filter kills uname: 159 (%d)" %
      q.returncode)
q = outer(EACCES_, "getppid", ["--deny", "uname", "sh", "-c",
                               "uname; echo $?"])
check(q.stdout.strip() == "1" and "denied by --deny" in q.stderr,
      "syspin's --deny works under an outer filter")
q = outer(EACCES_, "ptrace", ["-v", "sh", "-c", "echo ok"])
check(q.returncode == 0 and q.stdout.strip() == "ok" and
      "cannot supervise" in q.stderr,
      "an outer filter without ptrace: the runtime alone pins it")

q = outer(EACCES_, "seccomp", ["sh", "-c", "echo ran"])
check(q.returncode == 137 and "ran" not in q.stdout and
      "cannot pin: seccomp in the process" in q.stderr,
      "an outer filter without seccomp: nothing runs unpinned (%d)" %
      q.returncode)

os.system("rm -rf '%s'" % TMP)
print("%d checks failed" % len(failed) if failed else "all ok")
sys.exit(1 if failed else 0)
