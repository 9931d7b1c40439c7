#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# syspin filter: the layout, the pins per object and the program,
# disassembled as scmp_bpf_disasm does (every line parsed, every jump
# checked against the raw fields); --export's raw program (the bytes the
# listing shows, accepted by seccomp(2)); --json; -p PID of a process
# running under syspin run; PROG killed before its first instruction.
# usage: filter.py SYSPIN
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SYSPIN = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="syspin-filter.")
CACHE = os.path.join(TMP, "cache")
failed = []
LINE = re.compile(r"^ (\d{4}): 0x([0-9a-f]{2}) 0x([0-9a-f]{2}) "
                  r"0x([0-9a-f]{2}) 0x([0-9a-f]{8})   (\S+)\s+(.*)$")


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed.append(what)


def filt(args):
    return subprocess.run([SYSPIN, "filter", "--cache-dir", CACHE] + args,
                          capture_output=True, text=True)


def program(text):
    """The instructions of program 1: [(code, jt, jf, k, op, arg)]."""
    lines = text.splitlines()
    i = next(n for n, l in enumerate(lines) if l.startswith("program 1 of"))
    count = int(re.search(r": (\d+) instructions", lines[i]).group(1))
    check(lines[i + 1] == " line  OP   JT   JF   K" and
          lines[i + 2] == "=" * 33, "scmp_bpf_disasm's header")
    prog = []
    for n, l in enumerate(lines[i + 3:i + 3 + count]):
        m = LINE.match(l)
        if m is None or int(m.group(1)) != n:
            check(False, "line %d: %r" % (n, l))
            return prog
        code, jt, jf, k = (int(m.group(g), 16) for g in (2, 3, 4, 5))
        op, arg = m.group(6), m.group(7)
        prog.append((code, jt, jf, k, op, arg))
        cls = code & 7
        if cls == 5 and code & 0xf0 == 0:        # ja
            ok = op == "jmp" and arg == "%04d" % (n + 1 + k)
        elif cls == 5:
            ok = arg.split()[1:] == ["true:%04d" % (n + 1 + jt),
                                     "false:%04d" % (n + 1 + jf)] and \
                int(arg.split()[0]) == k
        elif cls == 6:
            ok = op == "ret" and re.match(
                r"^(ALLOW|KILL_PROCESS|KILL|TRAP|LOG|ERRNO\(\d+\)|"
                r"TRACE\(\d+\))$", arg) is not None
        elif cls == 0 and code & 0xe0 == 0x60:  # ld from scratch memory
            ok = op == "ld" and arg == "$temp[%d]" % k
        elif cls == 0:
            ok = op == "ld" and arg == "$data[%d]" % k
        elif cls == 2:                          # st (mremap's range end)
            ok = op == "st" and arg == "$temp[%d]" % k
        elif cls == 7:                          # tax, txa
            ok = op in ("tax", "txa")
        else:
            ok = op in ("and", "or", "add") and arg
        if not ok:
            check(False, "line %d decoded wrong: %r" % (n, l))
            return prog
    check(len(prog) == count, "%d of %d instructions listed" %
          (len(prog), count))
    return prog


# PROG: through the supervisor's path, killed before it runs
mark = os.path.join(TMP, "ran")
p = filt(["--", "sh", "-c", "touch " + mark])
check(p.returncode == 0, "filter -- sh: status 0 (%s)" % p.stderr.strip())
time.sleep(0.2)
check(not os.path.exists(mark), "PROG never ran")
check(re.match(r"^syspin filter: sh as the supervisor pins it at the end "
               r"of its execve \(pid \d+, killed before its first "
               r"instruction\)", p.stdout) is not None, "the header")
out = p.stdout
check(re.search(r"^ +\d+  /\S+/ld-linux-x86-64.so.2  base 0x[0-9a-f]+  "
                r"file, loader$", out, re.M) is not None, "ld.so, the loader")
check(re.search(r"^ +\d+  \[vdso\]  base 0x[0-9a-f]+  vdso$", out, re.M)
      is not None, "the vDSO")
m = re.search(r"^  libc.so.6: (\d+) pins at (\d+) sites, (\d+) numbers",
              out, re.M)
check(m is not None and int(m.group(3)) > 50, "libc's pins and numbers")
check(re.search(r"^    .*\bexecve\b", out, re.M) is not None,
      "numbers by name")
prog = program(out)
check(prog[:1] and prog[0][4] == "ld" and prog[0][5] == "$data[4]",
      "the program starts by loading the arch")

# --export: the raw program, the same bytes, accepted by seccomp(2)
exp = os.path.join(TMP, "prog.bpf")
p = filt(["--deny", "uname", "--export", exp, "--", "/bin/true"])
prog = program(p.stdout)
raw = open(exp, "rb").read()
check(len(raw) == 8 * len(prog), "--export: 8 bytes an instruction")
check(all(int.from_bytes(raw[8 * i:8 * i + 2], "little") == c and
          raw[8 * i + 2] == jt and raw[8 * i + 3] == jf and
          int.from_bytes(raw[8 * i + 4:8 * i + 8], "little") == k
          for i, (c, jt, jf, k, _, _) in enumerate(prog)),
      "--export: the instructions listed")
check("narrowing: --deny, 1 numbers, answered with errno EPERM: uname"
      in p.stdout, "the narrowing is shown")
check(any(i[4] == "ret" and i[5] == "TRACE(65532)" for i in prog),
      "the narrowed calls' return (TRACE, SP_BPF_NARROW_DATA)")
load = """
import ctypes, sys
raw = open(sys.argv[1], "rb").read()
class F(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0
f = F(len(raw) // 8, raw)
r = libc.syscall(317, 1, 0, ctypes.byref(f))
print(r, ctypes.get_errno())
"""
q = subprocess.run(["python3", "-c", load, exp], capture_output=True,
                   text=True)
check(q.stdout.split() == ["0", "0"], "seccomp(2) takes the exported "
      "program (%r %r)" % (q.stdout, q.stderr[-200:]))

# --json
p = filt(["--json", "--", "/bin/true"])
j = json.loads(p.stdout)
names = [o["name"] for o in j["objects"]]
check(j["source"] == "exec" and "/usr/bin/true" in names, "--json objects")
libc = [o for o in j["objects"] if o["name"].endswith("/libc.so.6")]
check(libc and libc[0]["pins"] > 0 and "exit_group" in libc[0]["numbers"],
      "--json pins by name")
# /bin/true never execs: libc's execve is pinned only with --no-reach.
check("execve" not in libc[0]["numbers"], "--json: reachable-only pins")
p = filt(["--json", "--no-reach", "--", "/bin/true"])
libc = [o for o in json.loads(p.stdout)["objects"]
        if o["name"].endswith("/libc.so.6")]
check(libc and "execve" in libc[0]["numbers"], "--json --no-reach: every site")
check(j["programs"] and j["programs"][0]["instructions"] > 100 and
      all(re.match(r"^0x[0-9a-f]+$", r["start"]) for r in j["ranges"]),
      "--json programs and ranges")

# -p PID: a process running under syspin run, built again from its maps
r = subprocess.Popen([SYSPIN, "run", "--cache-dir", CACHE, "sleep", "20"])
pid = None
for _ in range(100):
    time.sleep(0.1)
    kids = open("/proc/%d/task/%d/children" % (r.pid, r.pid)).read().split()
    if kids and os.readlink("/proc/%s/exe" % kids[0]) == "/usr/bin/sleep":
        pid = int(kids[0])
        break
check(pid is not None, "sleep runs under syspin run")
if pid is not None:
    time.sleep(0.3)
    p = filt(["-p", str(pid)])
    check(p.returncode == 0 and p.stdout.startswith(
          "syspin filter: pid %d (sleep) as the supervisor would build it "
          "for the current mappings" % pid), "-p: the header (%s)" %
          p.stderr.strip())
    check("/usr/bin/sleep  base" in p.stdout, "-p: the program's layout")
    program(p.stdout)
r.kill()
r.wait()

# usage
for args in ([], ["-p", "x"], ["-p", "1", "--", "true"],
             ["--", "/nonexistent/prog"], ["-p", "999999999"],
             ["--deny", "unmae", "--", "true"]):
    p = filt(args)
    check(p.returncode == 2 and p.stderr.startswith(("syspin: ", "usage")),
          "filter %s: status 2" % " ".join(args))

shutil.rmtree(TMP)
print("%d checks failed" % len(failed) if failed else "all ok")
sys.exit(1 if failed else 0)
