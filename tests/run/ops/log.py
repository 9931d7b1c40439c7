#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# syspin run -o FILE / --log-fd N: one JSON object a line for each
# violation, refusal and audit report, every field checked
# (docs/run-log.md), for the attacks of tests/run/attacks.
# usage: log.py SYSPIN ATTACK
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SYSPIN, ATTACK = (os.path.abspath(a) for a in sys.argv[1:3])
TMP = tempfile.mkdtemp(prefix="syspin-log.")
CACHE = os.path.join(TMP, "cache")
failed = []

FIELDS = ["time", "pid", "tid", "comm", "exe", "object", "offset", "site",
          "address", "number", "name", "arch", "expected", "verdict", "rule",
          "errno", "mode", "message"]
HEX = re.compile(r"^0x[0-9a-f]+$")
SITE = re.compile(r"^[^/+]+\+0x[0-9a-f]+$")
TIME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{9})Z$")


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL " + what)


def run(args, log="-o", env=None, pre=None):
    """Runs syspin run ARGS with the log; returns (status, stderr, records)."""
    path = os.path.join(TMP, "log.json")
    if os.path.exists(path):
        os.unlink(path)
    cmd = [SYSPIN, "run", "--cache-dir", CACHE]
    fds = ()
    if log == "-o":
        cmd += ["-o", path]
        f = None
    else:
        f = open(path, "w")
        os.set_inheritable(f.fileno(), True)
        cmd += ["--log-fd", str(f.fileno())]
        fds = (f.fileno(),)
    start = time.time()
    p = subprocess.run(cmd + args, capture_output=True, text=True,
                       pass_fds=fds, env=env)
    end = time.time()
    if f is not None:
        f.close()
    recs = []
    with open(path) as lf:
        for line in lf:
            recs.append(json.loads(line))    # every line is one object
    for r in recs:
        common(r, start, end)
    return p.returncode, p.stderr, recs


def common(r, start, end):
    check(list(r.keys()) == FIELDS, "fields: %s" % list(r.keys()))
    m = TIME.match(r["time"])
    check(m is not None, "time is RFC 3339 with ns: %r" % r["time"])
    if m:
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")
        t = t.replace(tzinfo=datetime.timezone.utc).timestamp() + \
            int(m.group(2)) / 1e9
        check(start - 1 <= t <= end + 1, "time %s within the run" % r["time"])
    check(isinstance(r["pid"], int) and r["pid"] > 0, "pid")
    check(isinstance(r["tid"], int) and r["tid"] > 0, "tid")
    check(HEX.match(r["address"]) is not None, "address hex")
    check(isinstance(r["number"], int), "number")
    check(r["arch"] in ("x86_64", "i386", "x32"), "arch")
    check(isinstance(r["expected"], list) and
          all(SITE.match(s) for s in r["expected"]), "expected sites: %r" %
          r["expected"])
    check(r["verdict"] in ("killed", "audited", "refused", "denied"),
          "verdict")
    check(r["mode"] in ("enforce", "audit"), "mode")
    if r["object"] is not None:
        check(os.path.isabs(r["object"]), "object is a path")
        check(HEX.match(r["offset"]) is not None, "offset hex")
        check(r["site"] == "%s+%s" % (os.path.basename(r["object"]),
              r["offset"]), "site is object+offset: %r" % r["site"])


def one(recs, what):
    check(len(recs) == 1, "%s: one record, got %d" % (what, len(recs)))
    return recs[0] if recs else {k: None for k in FIELDS}


def in_stderr(r, err):
    pre = "syspin: audit: " if r["verdict"] == "audited" else "syspin: "
    check(any(l.startswith(pre + r["message"]) for l in err.splitlines()),
          "message %r is the line on stderr" % r["message"])


exe = os.path.realpath(ATTACK)
# own-nr: execve from the program's own code, not its site
st, err, recs = run([ATTACK, "own-nr"])
r = one(recs, "own-nr")
check(st == 159, "own-nr status %d" % st)
check(r["verdict"] == "killed" and r["rule"] == "pin", "own-nr verdict")
check(r["number"] == 59 and r["name"] == "execve", "own-nr number")
check(r["arch"] == "x86_64" and r["errno"] is None, "own-nr arch, errno")
check(r["comm"] == "attack" and r["exe"] == exe, "own-nr comm, exe")
check(r["pid"] == r["tid"], "own-nr pid == tid")
check(r["object"] == exe, "own-nr object %r" % r["object"])
# The program never execs: reachable-only pins leave libc's execve out,
# and ld.so's is not pinned where ld.so is the interpreter: nowhere.
check(r["expected"] == [],
      "own-nr: execve expected nowhere (reachable-only pins), not %r" %
      (r["expected"],))
check(r["mode"] == "enforce", "own-nr mode")
check(int(r["address"], 16) > 0 and re.match(
      r"attack\[%d\]: pinsyscalls addr %s\(attack\+%s( <[^>]*>)?\) code 59 "
      r"\(execve\)" % (r["pid"], r["address"], r["offset"]), r["message"]),
      "own-nr message")
in_stderr(r, err)

# libc-wrong-nr: execve at libc's getpid site, through --log-fd
st, err, recs = run([ATTACK, "libc-wrong-nr"], log="fd")
r = one(recs, "libc-wrong-nr")
check(st == 159, "libc-wrong-nr status")
check(r["verdict"] == "killed" and r["name"] == "execve",
      "libc-wrong-nr verdict")
check(r["object"] is not None and
      os.path.basename(r["object"]) == "libc.so.6", "libc-wrong-nr object")
check(r["site"] not in r["expected"], "libc-wrong-nr: not an expected site")
in_stderr(r, err)

# jit: mprotect PROT_EXEC refused with EACCES, said once
st, err, recs = run([ATTACK, "jit"])
r = one(recs, "jit")
check(r["verdict"] == "refused" and r["rule"] == "memory" and
      r["errno"] == "EACCES", "jit: refused, memory, EACCES: %r" % r)
check(r["name"] == "mprotect" and r["site"] in r["expected"],
      "jit: mprotect at its own site")
in_stderr(r, err)

# --audit: reported once, the call runs
st, err, recs = run(["--audit", ATTACK, "own-nr"])
r = one(recs, "audit")
check(r["verdict"] == "audited" and r["mode"] == "audit", "audit verdict")
in_stderr(r, err)

# --deny: denied with the errno, once per process and number
st, err, recs = run(["--deny", "uname", "--deny-action=errno:ENOSYS",
                     "sh", "-c", "uname; uname; true"])
check(len(recs) == 2 and recs[0]["pid"] != recs[1]["pid"],
      "deny: one record for each process")
st, err, recs = run(["--deny", "uname", "--deny-action=errno:ENOSYS",
                     "python3", "-c", "import os\nfor i in range(3):\n"
                     "    try: os.uname()\n    except OSError: pass"])
r = one(recs, "deny errno")
check(r["verdict"] == "denied" and r["rule"] == "deny-list" and
      r["errno"] == "ENOSYS" and r["name"] == "uname", "deny: %r" % r)
check(r["comm"].startswith("python3"), "deny: comm %r" % r["comm"])
in_stderr(r, err)
st, err, recs = run(["--deny", "uname", "--deny-action=kill", "uname"])
r = one(recs, "deny kill")
check(st == 159 and r["verdict"] == "killed" and r["rule"] == "deny-list",
      "deny=kill: %d %r" % (st, r))

# the rules of every call: TIOCSTI denied with EPERM
st, err, recs = run(["python3", "-c", "import fcntl, sys\ntry:\n"
                     "    fcntl.ioctl(0, 0x5412, b'x')\nexcept OSError as e:\n"
                     "    sys.exit(e.errno)"])
r = one(recs, "tiocsti")
check(st == 1 and r["verdict"] == "denied" and r["rule"] == "every-call" and
      r["errno"] == "EPERM" and r["name"] == "ioctl", "tiocsti: %r" % r)

# two rules of every call in one process: each said and recorded (one
# refusal said hid every later one of the same kind)
st, err, recs = run(["--exec=none", "python3", "-c",
                     "import fcntl, sys, time\n"
                     "try:\n    fcntl.ioctl(0, 0x5412, b'x')\n"
                     "except OSError: pass\n"
                     "try:\n    time.clock_settime(time.CLOCK_REALTIME, "
                     "time.time())\nexcept OSError as e:\n"
                     "    sys.exit(e.errno)"])
check(st == 1 and [r["name"] for r in recs] == ["ioctl", "clock_settime"]
      and all(r["rule"] == "every-call" and r["errno"] == "EPERM"
              for r in recs), "ioctl then clock: %d %r" % (st, recs))
for r in recs:
    in_stderr(r, err)

# a unix stream connect outside the tree: refused, named, recorded
srv = os.path.join(TMP, "srv.sock")
lst = subprocess.Popen(["python3", "-c", "import socket, sys, time\n"
                        "s = socket.socket(socket.AF_UNIX)\n"
                        "s.bind(sys.argv[1]); s.listen()\n"
                        "print(flush=True); time.sleep(60)", srv],
                       stdout=subprocess.PIPE)
lst.stdout.readline()
st, err, recs = run(["python3", "-c", "import socket, sys\n"
                     "s = socket.socket(socket.AF_UNIX)\n"
                     "try:\n    s.connect(sys.argv[1])\n"
                     "except OSError as e:\n    sys.exit(e.errno)", srv])
lst.kill()
lst.wait()
r = one(recs, "connect")
check(st == 13 and r["verdict"] == "refused" and r["rule"] == "connect" and
      r["errno"] == "EACCES" and r["name"] == "connect" and
      srv in r["message"], "connect: %d %r" % (st, r))
in_stderr(r, err)

# an exec refused at its call (--exec=trusted: a file written in the
# run), named by a path that would drive a terminal
st, err, recs = run(["--exec=trusted", "sh", "-c",
                     "cp /bin/true \"$0\" && \"$0\"",
                     os.path.join(TMP, "w\x1b]0;x\x07true")])
r = one(recs, "exec")
check(st == 126 and r["verdict"] == "refused" and r["rule"] == "exec" and
      r["errno"] == "EACCES" and r["name"] == "execve" and
      "--exec=trusted" in r["message"] and "/w?]0;x?true" in r["message"],
      "exec: %d %r" % (st, r))
ours = "".join(l for l in err.splitlines(True) if l.startswith("syspin:"))
check("\x1b" not in ours and "\x07" not in ours,
      "exec: no control character in syspin's lines: %r" % ours)
in_stderr(r, err)

# the runtime alone: the kernel kills, the record comes from its audit
# record (root; it may be rate-limited: then there is nothing to judge)
st, err, recs = run([ATTACK, "own-nr"],
                    env=dict(os.environ, SYSPIN_SUPERVISE="0"))
check(st == 159, "runtime alone: 159")
if recs:
    r = one(recs, "runtime alone")
    check(r["verdict"] == "killed" and r["rule"] == "pin" and
          r["exe"] is None and r["name"] == "execve" and
          r["site"] is not None and r["site"].startswith("attack+0x"),
          "runtime alone: %r" % r)
    in_stderr(r, err)
else:
    print("skip runtime alone: no kernel audit record (%s)" %
          err.strip()[-80:])

# nothing to say: an empty log
st, err, recs = run(["true"])
check(st == 0 and recs == [], "true: no record")

# the log is not the program's: not inherited
with open(os.path.join(TMP, "l"), "w") as f:
    p = subprocess.run([SYSPIN, "run", "--cache-dir", CACHE, "--log-fd",
                        str(f.fileno()), "sh", "-c",
                        "test ! -e /proc/self/fd/%d" % f.fileno()],
                       pass_fds=(f.fileno(),))
    check(p.returncode == 0, "the log fd reaches the program")
# usage errors
for args in (["--log-fd", "99", "true"], ["--log-fd", "x", "true"],
             ["-o", "/nonexistent/dir/log", "true"],
             ["-o", os.path.join(TMP, "a"), "--log-fd", "1", "true"]):
    p = subprocess.run([SYSPIN, "run"] + args, capture_output=True)
    check(p.returncode == 2 and p.stderr.startswith(b"syspin: "),
          "%s: status %d" % (args, p.returncode))

shutil.rmtree(TMP)
print("%d checks failed" % len(failed) if failed else "ok")
sys.exit(1 if failed else 0)
