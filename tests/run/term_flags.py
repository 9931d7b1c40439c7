#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""syspin run gives its terminal back with the standard streams' status
flags as it found them (blind round 9, outside): the tree sets O_NONBLOCK
on the terminal's open file description, which is the shell's too; left
so, the shell's next read of the terminal fails with EAGAIN.  On a pty,
unpinned the flag stays (the check bites); under syspin run it is gone.
The same for any descriptor of the terminal the tree inherits (blind
round 18: fd 3 made O_ASYNC with an owner outside, so that every line
typed after the run signalled it): flags and owner put back.  And the
foreground (blind round 21): a tree whose group took it and is gone
leaves the shell's group in the foreground again.  And an inherited
descriptor's signal and owner set by the caller (blind round 24: the tree
set only O_ASYNC and wrote): while the tree runs, a signal that dumps core
is SIGIO, and under --scope=signals the owner is none; both put back.
Every descriptor: fd 70 as fd 3 (blind round 25: the first 64 only).

usage: term_flags.py SYSPIN
"""
import os
import pty
import shutil
import sys
import tempfile

SYSPIN = sys.argv[1]
SET = ("python3 -c 'import fcntl, os; fcntl.fcntl(0, fcntl.F_SETFL, "
       "fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK)'")
SHOW = ("python3 -c 'import fcntl, os; print(\"NONBLOCK\", "
        "bool(fcntl.fcntl(0, fcntl.F_GETFL) & os.O_NONBLOCK))'")
# fd N: O_ASYNC and an owner (the shell's own pid, any process outside)
def set_async(n):
    return ("python3 -c 'import fcntl, os; fcntl.fcntl(%d, fcntl.F_SETOWN, "
            "os.getppid()); fcntl.fcntl(%d, fcntl.F_SETFL, "
            "fcntl.fcntl(%d, fcntl.F_GETFL) | os.O_ASYNC)'" % (n, n, n))


def show_async(n):
    return ("python3 -c 'import fcntl, os; print(\"ASYNC\", "
            "bool(fcntl.fcntl(%d, fcntl.F_GETFL) & os.O_ASYNC), "
            "fcntl.fcntl(%d, fcntl.F_GETOWN) != 0)'" % (n, n))


# fd N: the caller sets its signal (SIGQUIT) or its owner (the shell),
# then runs CMD; fd N's signal and owner, seen inside and after
def pre(n):
    return ("python3 -c 'import fcntl, os, sys; fcntl.fcntl(%d, 10, 3) if "
            "sys.argv[1] == \"sig\" else fcntl.fcntl(%d, fcntl.F_SETOWN, "
            "os.getppid()); os.execvp(sys.argv[2], sys.argv[2:])'" % (n, n))


def show_sig(n):
    return ("python3 -c 'import fcntl; print(\"SIG\", fcntl.fcntl(%d, 11), "
            "\"OWNED\", fcntl.fcntl(%d, fcntl.F_GETOWN) != 0)'" % (n, n))


# the controlling terminal, its echo turned off through /dev/tty (the
# standard streams elsewhere: blind round 25, nothing was given back)
TTYOFF = ("python3 -c 'import os, termios; fd = os.open(\"/dev/tty\", "
          "os.O_RDWR); a = termios.tcgetattr(fd); a[3] &= ~termios.ECHO; "
          "termios.tcsetattr(fd, termios.TCSANOW, a)' </dev/null >/dev/null "
          "2>&1")
SHOWECHO = ("python3 -c 'import termios; print(\"ECHO\", "
            "bool(termios.tcgetattr(0)[3] & termios.ECHO))'")
# a background job gives its own group the foreground (round 25: syspin's
# group, gone after the run, kept it); the shell has it back after?
JOBTAKE = ("python3 -c 'import os, signal; signal.signal(signal.SIGTTOU, "
           "signal.SIG_IGN); fd = os.open(\"/dev/tty\", os.O_RDWR); "
           "os.tcsetpgrp(fd, os.getpgrp())'")
SHOWBACK = ('read -r l < /proc/$$/stat; set -- $l; [ "$5" = "$8" ] && '
            'echo FGBACK True || echo FGBACK False')
# a new process group, made the terminal's foreground, then gone
TAKE = ("python3 -c 'import os, signal; signal.signal(signal.SIGTTOU, "
        "signal.SIG_IGN); os.setpgid(0, 0); os.tcsetpgrp(0, os.getpid())'")
SHOWFG = ("python3 -c 'import os; print(\"FG\", os.tcgetpgrp(0) == "
          "os.getpgid(os.getppid()))'")


def on_pty(script, shell="sh", *opts):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(shell, [shell] + list(opts) + ["-c", script])
    out = b""
    while True:
        try:
            b = os.read(fd, 4096)
        except OSError:
            break
        if not b:
            break
        out += b
    os.waitpid(pid, 0)
    return out.decode(errors="replace")


def main():
    d = tempfile.mkdtemp(prefix="syspin-termflags.")
    fail = 0
    try:
        bare = on_pty("%s; %s" % (SET, SHOW))
        pinned = on_pty("%s run --cache-dir %s/c %s; %s" % (SYSPIN, d, SET,
                                                            SHOW))
        # fd 3, and fd 70 (blind round 25: only the first 64 were kept;
        # bash: dash opens no descriptor above 9)
        bare3 = on_pty("exec 3<>/dev/tty; %s; %s" % (set_async(3),
                                                     show_async(3)))
        tty = {}
        for n in (3, 70):
            tty[n] = ("exec %d<>/dev/tty; %s run --cache-dir %s/c %s; %s"
                      % (n, SYSPIN, d, set_async(n), show_async(n)),
                      "exec %d<>/dev/tty; %s sig %s run --cache-dir %s/c %s; "
                      "%s" % (n, pre(n), SYSPIN, d, show_sig(n), show_sig(n)),
                      "exec %d<>/dev/tty; %s own %s run --scope=signals "
                      "--cache-dir %s/c %s; %s" % (n, pre(n), SYSPIN, d,
                                                   show_sig(n), show_sig(n)))
        got = {n: [on_pty(c, "bash") for c in tty[n]] for n in tty}
        bareecho = on_pty("%s; %s" % (TTYOFF, SHOWECHO))
        pinnedecho = on_pty("%s run --cache-dir %s/c %s; %s" % (
            SYSPIN, d, TTYOFF, SHOWECHO))
        barejob = on_pty("%s & wait; %s" % (JOBTAKE, SHOWBACK), "sh", "-m")
        pinnedjob = on_pty("%s run --cache-dir %s/c %s & wait; %s" % (
            SYSPIN, d, JOBTAKE, SHOWBACK), "sh", "-m")
        barefg = on_pty("%s; %s" % (TAKE, SHOWFG))
        pinnedfg = on_pty("%s run --cache-dir %s/c %s; %s" % (SYSPIN, d,
                                                              TAKE, SHOWFG))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    checks = [("NONBLOCK True", bare, "unpinned: O_NONBLOCK stays on the "
               "terminal"),
              ("NONBLOCK False", pinned, "syspin run put the terminal's "
               "flags back"),
              ("ASYNC True True", bare3, "unpinned: fd 3 stays O_ASYNC, with "
               "its owner")]
    for n in got:
        checks += [("ASYNC False False", got[n][0], "syspin run put fd %d's "
                    "flags and owner back" % n),
                   ("SIG 0 OWNED False\r\nSIG 3 OWNED False", got[n][1],
                    "fd %d's SIGQUIT is SIGIO in the tree, then put back" % n),
                   ("SIG 0 OWNED False\r\nSIG 0 OWNED True", got[n][2],
                    "fd %d's owner is none in a --scope=signals tree, then "
                    "put back" % n)]
    checks += [("ECHO False", bareecho, "unpinned: echo stays off (through "
                "/dev/tty, the streams elsewhere)"),
               ("ECHO True", pinnedecho, "syspin run put /dev/tty's echo "
                "back (the streams elsewhere)"),
               ("FGBACK False", barejob, "unpinned: a background job's "
                "group keeps the foreground"),
               ("FGBACK True", pinnedjob, "syspin run in the background "
                "gave the shell the foreground back"),
               ("FG False", barefg, "unpinned: the gone group keeps the "
                "foreground"),
               ("FG True", pinnedfg, "syspin run gave the foreground back")]
    for want, out, what in checks:
        if want in out:
            print("ok   %s" % what)
        else:
            print("FAIL %s: %r" % (what, out))
            fail = 1
    return fail


if __name__ == "__main__":
    sys.exit(main())
