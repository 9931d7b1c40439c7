#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""--allow-socket @NAME allows the abstract unix listener NAME, and no
other: not "NAME", a NUL and more (blind round 18: names were compared
up to their first NUL, so "\\0NAME\\0evil", a listener outside the tree,
was reached).  Each listener runs outside the tree; a pinned python3
connects and sends a line.

usage: allow_socket.py SYSPIN
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading

SYSPIN = sys.argv[1]
NAME = "syspin-allow-%d" % os.getpid()
CLIENT = ("import socket, sys\n"
          "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
          "s.connect(b'\\0' + bytes.fromhex(sys.argv[1]))\n"
          "s.send(b'hello')\n")


def listen(addr, got):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(addr)
    s.listen(4)
    s.settimeout(8)
    try:
        c, _ = s.accept()
        c.settimeout(2)
        got.append(c.recv(16))
    except OSError:
        pass
    s.close()


def attempt(bound, cache):
    got = []
    t = threading.Thread(target=listen, args=(b"\0" + bound, got))
    t.start()
    subprocess.run([SYSPIN, "run", "--cache-dir", cache, "--allow-socket",
                    "@" + NAME, "python3", "-c", CLIENT, bound.hex()],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=60)
    t.join()
    return got == [b"hello"]


def main():
    fail = 0
    with tempfile.TemporaryDirectory(prefix="syspin-allow.") as d:
        if attempt(NAME.encode(), d + "/c"):
            print("ok   @%s: allowed, reached" % NAME)
        else:
            print("FAIL @%s: allowed, not reached" % NAME)
            fail = 1
        if attempt(NAME.encode() + b"\0evil", d + "/c"):
            print("FAIL @%s\\0evil reached with --allow-socket @%s" %
                  (NAME, NAME))
            fail = 1
        else:
            print("ok   @%s\\0evil: refused" % NAME)
    return fail


if __name__ == "__main__":
    sys.exit(main())
