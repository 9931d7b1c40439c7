#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The socket the supervisor makes a refused connect on stays nobody's:
a process whose own filter answers the supervisor's close of it with a
0 that never ran is killed (blind round 25, inner: it kept the socket,
connected to a listener outside).  Unpinned, the program connects.

usage: closeleak.py SYSPIN CLOSELEAK
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

SYSPIN, PROG = sys.argv[1], sys.argv[2]


def serve(s):
    while True:
        try:
            c, _ = s.accept()
        except OSError:
            return
        c.close()


def main():
    d = tempfile.mkdtemp(prefix="syspin-closeleak.")
    path = os.path.join(d, "outside.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(8)
    threading.Thread(target=serve, args=(s,), daemon=True).start()
    fail = 0
    try:
        bare = subprocess.run([PROG, path], capture_output=True, text=True,
                              timeout=30).stdout
        pinned = subprocess.run([SYSPIN, "run", "--cache-dir",
                                 os.path.join(d, "c"), "--", PROG, path],
                                capture_output=True, text=True, timeout=60)
    finally:
        s.close()
        shutil.rmtree(d, ignore_errors=True)
    for ok, what, out in [
            ("connect: 0" in bare, "unpinned: it connects", bare),
            ("LEAKED" not in pinned.stdout and pinned.returncode == 137,
             "pinned: killed, keeping no socket", pinned.stdout +
             pinned.stderr)]:
        print("%s %s" % ("ok  " if ok else "FAIL", what) +
              ("" if ok else ": %r" % out))
        fail |= not ok
    return fail


if __name__ == "__main__":
    sys.exit(main())
