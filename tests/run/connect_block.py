#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A blocking unix connect to a listener whose queue is full, pinned
(blind round 18): the supervisor made the connect again in the caller
and waited for it, so every other stop of the tree waited too (a tree
could freeze itself and its user's ^C), and an interrupted one returned
ERESTARTSYS.  Now: the connect still blocks as it would (it returns once
the listener accepts, its socket blocking), and the tree goes on
meanwhile (a process forking every 0.1 s keeps ticking).  And the
supervisor waits too, rather than making it again at once (blind round
21: it held a CPU for as long as the queue was full): its CPU time
while the connect waits is under a third of the wait.

usage: connect_block.py SYSPIN      (runs itself pinned with "child")
"""
import fcntl
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time


def cpu_of(pid):
    """utime + stime of pid, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")


def child(path):
    l = socket.socket(socket.AF_UNIX)
    l.bind(path)
    l.listen(0)
    held = []
    for _ in range(8):
        s = socket.socket(socket.AF_UNIX)
        s.setblocking(False)
        try:
            s.connect(path)
            held.append(s)
        except BlockingIOError:
            break
    r, w = os.pipe()
    ticker = os.fork()
    if ticker == 0:
        n = 0
        end = time.time() + 2.0
        while time.time() < end:
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            n += 1
            time.sleep(0.1)
        os.write(w, b"%d" % n)
        os._exit(0)

    def accept_later():
        time.sleep(2.5)
        l.settimeout(1)
        for _ in range(10):
            try:
                l.accept()
            except OSError:
                break
    threading.Thread(target=accept_later, daemon=True).start()
    t = time.time()
    sup = cpu_of(os.getppid())	# syspin run, the supervisor
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    waited = time.time() - t
    sup = cpu_of(os.getppid()) - sup
    blocking = not fcntl.fcntl(c.fileno(), fcntl.F_GETFL) & os.O_NONBLOCK
    os.waitpid(ticker, 0)
    ticks = int(os.read(r, 16) or b"0")
    print("waited %.1f s, blocking %s, ticks %d, supervisor CPU %.2f s" %
          (waited, blocking, ticks, sup))
    return 0 if (waited >= 2.0 and blocking and ticks >= 10 and
                 sup < waited / 3) else 1


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "child":
        return child(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="syspin-connblock.") as d:
        r = subprocess.run([sys.argv[1], "run", "--cache-dir", d + "/c",
                            sys.executable, os.path.abspath(__file__),
                            "child", d + "/sock"],
                           capture_output=True, text=True, timeout=60)
    out = (r.stdout + r.stderr).strip()
    if r.returncode == 0:
        print("ok   blocking connect to a full listener: %s" % out)
        return 0
    print("FAIL blocking connect to a full listener (status %d): %s" %
          (r.returncode, out))
    return 1


if __name__ == "__main__":
    sys.exit(main())
