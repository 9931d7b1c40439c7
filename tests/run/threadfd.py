#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A thread's connect is judged on its own descriptor (blind round 25b):
after its leader exited alone, or in a table of its own, it reached a
listener outside the tree.  Unpinned each connects; pinned, refused, and
the listener outside reads nothing.

usage: threadfd.py SYSPIN THREADFD
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

SYSPIN, PROG = sys.argv[1], sys.argv[2]


def serve(s, got):
    while True:
        try:
            c, _ = s.accept()
        except OSError:
            return
        c.settimeout(2)
        try:
            b = c.recv(16)
            if b:		# (the supervisor's look reads nothing)
                got.append(b)
        except OSError:
            pass
        c.close()


def main():
    d = tempfile.mkdtemp(prefix="syspin-threadfd.")
    path = os.path.join(d, "outside.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(8)
    got = []
    threading.Thread(target=serve, args=(s, got), daemon=True).start()
    fail = 0
    try:
        for mode in "zu":
            bare = subprocess.run([PROG, mode, path], capture_output=True,
                                  text=True, timeout=30).stdout
            time.sleep(0.5)	# its line read
            n = len(got)
            pinned = subprocess.run([SYSPIN, "run", "--cache-dir",
                                     os.path.join(d, "c"), "--", PROG, mode,
                                     path], capture_output=True, text=True,
                                    timeout=60)
            time.sleep(0.5)
            for ok, what, out in [
                    ("connect=0" in bare, "unpinned %s: it connects" % mode,
                     bare),
                    ("errno=13" in pinned.stdout and len(got) == n,
                     "pinned %s: refused, nothing read outside" % mode,
                     pinned.stdout + pinned.stderr)]:
                print("%s %s" % ("ok  " if ok else "FAIL", what) +
                      ("" if ok else ": %r" % out))
                fail |= not ok
    finally:
        s.close()
        shutil.rmtree(d, ignore_errors=True)
    return fail


if __name__ == "__main__":
    sys.exit(main())
