#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A unix socket path allowed (--allow-socket PATH, or nscd's and
journald's always) is the file at PATH as syspin sees it: a listener
outside that bound the same string in a mount namespace of its own (or a
root of its own) is not it (blind round 25: a listener bound as
"/run/nscd/socket" behind a private bind mount, reached by the tree at
its real place, passed for nscd's).  Root only (unshare -m); skipped
otherwise.

usage: allow_path.py SYSPIN
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

SYSPIN = sys.argv[1]
LISTEN = ("import socket, sys\n"
          "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
          "s.bind(sys.argv[1]); s.listen(4); s.settimeout(8)\n"
          "open(sys.argv[2], 'w').close()\n"
          "try:\n"
          "    c, _ = s.accept(); c.settimeout(2)\n"
          "    open(sys.argv[2], 'w').write(c.recv(16).decode())\n"
          "except OSError:\n"
          "    pass\n")
CONNECT = ("import socket, sys\n"
           "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
           "try:\n"
           "    s.connect(sys.argv[1]); s.send(b'hello')\n"
           "except OSError as e:\n"
           "    print(e)\n")


def attempt(d, listen_cmd, bound, reach, pinned):
    """What the listener got: 'hello', or ''."""
    got = os.path.join(d, "got")
    if os.path.exists(got):
        os.unlink(got)
    lst = subprocess.Popen(listen_cmd + ["python3", "-c", LISTEN, bound, got])
    for _ in range(200):
        if os.path.exists(got):
            break
        time.sleep(0.02)
    cmd = ["python3", "-c", CONNECT, reach]
    if pinned:
        cmd = [SYSPIN, "run", "--cache-dir", os.path.join(d, "c"),
               "--allow-socket", bound, "--"] + cmd
    subprocess.run(cmd, timeout=60)
    try:
        lst.wait(timeout=10)
    except subprocess.TimeoutExpired:
        lst.kill()
        lst.wait()
    try:
        with open(got) as f:
            return f.read()
    except OSError:
        return "(no listener)"


def main():
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        print("skip: needs root and unshare -m")
        return 77
    d = tempfile.mkdtemp(prefix="syspin-allowpath.")
    fail = 0
    try:
        a, b, c = (os.path.join(d, x) for x in "abc")
        for x in (a, b, c):
            os.mkdir(x)
        # the listener binds a/sock behind a private bind mount of b on a:
        # the file is b/sock; a/sock does not exist as syspin sees it
        hidden = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                  'mount --bind "$1" "$2" && shift 2 && exec "$@"', "sh",
                  b, a]
        cases = [
            (hidden, a + "/sock", b + "/sock", False, "hello",
             "unpinned: the listener behind the bind mount is reached"),
            (hidden, a + "/sock", b + "/sock", True, "",
             "pinned: its bound name allowed, another file: refused"),
            ([], c + "/sock", c + "/sock", True, "hello",
             "pinned: the allowed path's own listener is reached")]
        for cmd, bound, reach, pinned, want, what in cases:
            got = attempt(d, cmd, bound, reach, pinned)
            ok = got == want
            print("%s %s" % ("ok  " if ok else "FAIL", what) +
                  ("" if ok else ": got %r" % got))
            fail |= not ok
            for x in (b + "/sock", c + "/sock"):
                if os.path.exists(x):
                    os.unlink(x)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return fail


if __name__ == "__main__":
    sys.exit(main())
