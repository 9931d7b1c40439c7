#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""--allow-socket @NAME allows the abstract unix listener NAME, and no
other: not "NAME", a NUL and more (blind round 18: names were compared
up to their first NUL, so "\\0NAME\\0evil", a listener outside the tree,
was reached), and no abstract datagram socket outside (blind round 20:
an allowed @NAME lifted Landlock's abstract-socket scope for the whole
tree), nor from a network namespace of the caller's own (an abstract
name is its namespace's: blind round 22).  The supervisor connects an
allowed name as the caller: the
listener reads the caller's uid (SO_PEERCRED), also where a process of
the tree changed it (as root: setpriv to nobody).  Each listener runs
outside the tree; a pinned python3 connects and sends a line.

usage: allow_socket.py SYSPIN
"""
import os
import shutil
import socket
import struct
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
DATAGRAM = ("import socket, sys\n"
            "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
            "try:\n"
            "    s.sendto(b'hello', b'\\0' + bytes.fromhex(sys.argv[1]))\n"
            "except OSError:\n"
            "    pass\n")


def listen(addr, got):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(addr)
    s.listen(4)
    s.settimeout(8)
    try:
        c, _ = s.accept()
        c.settimeout(2)
        cred = c.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        got.append((c.recv(16), struct.unpack("iII", cred)[1]))
    except OSError:
        pass
    s.close()


def attempt(bound, cache, prefix=()):
    """(what the listener got, the uid it read), or None."""
    got = []
    t = threading.Thread(target=listen, args=(b"\0" + bound, got))
    t.start()
    subprocess.run([SYSPIN, "run", "--cache-dir", cache, "--allow-socket",
                    "@" + NAME] + list(prefix) + ["python3", "-c", CLIENT,
                                                  bound.hex()],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=60)
    t.join()
    return got[0] if got else None


def datagram(cache):
    r = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    other = (NAME + "-dgram").encode()
    r.bind(b"\0" + other)
    r.settimeout(1)
    subprocess.run([SYSPIN, "run", "--cache-dir", cache, "--allow-socket",
                    "@" + NAME, "python3", "-c", DATAGRAM, other.hex()],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=60)
    try:
        return r.recv(16) == b"hello"
    except OSError:
        return False
    finally:
        r.close()


def main():
    fail = 0
    with tempfile.TemporaryDirectory(prefix="syspin-allow.") as d:
        got = attempt(NAME.encode(), d + "/c")
        if got == (b"hello", os.getuid()):
            print("ok   @%s: allowed, reached as uid %d" % (NAME, got[1]))
        else:
            print("FAIL @%s: allowed, got %r" % (NAME, got))
            fail = 1
        got = attempt(NAME.encode() + b"\0evil", d + "/c")
        if got is not None and got[0] == b"hello":
            print("FAIL @%s\\0evil reached with --allow-socket @%s" %
                  (NAME, NAME))
            fail = 1
        else:
            print("ok   @%s\\0evil: refused" % NAME)
        if datagram(d + "/c"):
            print("FAIL an abstract datagram socket outside reached with "
                  "--allow-socket @%s" % NAME)
            fail = 1
        else:
            print("ok   abstract datagram outside: not reached")
        unshare = shutil.which("unshare")
        if os.getuid() == 0 and unshare is not None:
            got = attempt(NAME.encode(), d + "/c", [unshare, "-n"])
            if got is not None and got[0] == b"hello":
                print("FAIL @%s reached from an empty network namespace "
                      "of the caller's" % NAME)
                fail = 1
            else:
                print("ok   @%s from an empty network namespace: not "
                      "reached" % NAME)
        setpriv = shutil.which("setpriv")
        if os.getuid() == 0 and setpriv is not None:
            got = attempt(NAME.encode(), d + "/c", [
                setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"])
            if got == (b"hello", 65534):
                print("ok   @%s from a tree process now nobody: reached "
                      "as uid 65534" % NAME)
            else:
                print("FAIL @%s from a tree process now nobody: got %r" %
                      (NAME, got))
                fail = 1
    return fail


if __name__ == "__main__":
    sys.exit(main())
