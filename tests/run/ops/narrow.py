#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# syspin run --deny / --allow / --deny-action: in every image of the tree,
# with the supervisor and with the runtime alone; names and groups
# checked (a misspelling is an error), and the group table against
# systemd-analyze where systemd is installed.
# usage: narrow.py SYSPIN
import os
import shutil
import subprocess
import sys
import tempfile

SYSPIN = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="syspin-narrow.")
CACHE = os.path.join(TMP, "cache")
failed = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed.append(what)


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([SYSPIN, "run", "--cache-dir", CACHE] + args,
                       capture_output=True, text=True, env=e)
    return p.returncode, p.stdout, p.stderr


SUP = {}
ALONE = {"SYSPIN_SUPERVISE": "0"}
for mode, env in (("supervised", SUP), ("runtime alone", ALONE)):
    ex = ["--exec=any"] if env else []
    st, out, err = run(ex + ["--deny", "uname", "uname"], env)
    check(st == 1 and "Operation not permitted" in err,
          "%s: --deny uname: EPERM (%d)" % (mode, st))
    st, out, err = run(ex + ["--deny", "uname", "--deny-action=errno:EACCES",
                             "uname"], env)
    check(st == 1 and "Permission denied" in err,
          "%s: --deny-action=errno:EACCES (%d)" % (mode, st))
    st, out, err = run(ex + ["--deny", "uname", "--deny-action=kill",
                             "uname"], env)
    check(st == 159, "%s: --deny-action=kill: 159 (%d)" % (mode, st))
    st, out, err = run(ex + ["--deny", "getppid,@mount", "sh", "-c",
                             "uname; echo $?"], env)
    check(st == 0 and out.strip().endswith("0"),
          "%s: what is not denied runs (%d %r)" % (mode, st, out))

# The vsyscall page's gettimeofday: the kernel reports the entry itself
# as the call's address, the first byte of [vsyscall] (blind round 10: a
# filter that took a range's calls to start two bytes in let it past
# --deny as a later image's).  Where vsyscall is emulated.
VSYS = ("import ctypes, sys; f = ctypes.CFUNCTYPE(ctypes.c_long, "
        "ctypes.c_void_p, ctypes.c_void_p)(0xffffffffff600000); "
        "tv = (ctypes.c_long * 2)(); sys.exit(0 if f(tv, None) == 0 else 9)")
with open("/proc/self/maps") as fh:
    have_vsys = "[vsyscall]" in fh.read()
if have_vsys and subprocess.run([sys.executable, "-c", VSYS]).returncode == 0:
    for mode, env in (("supervised", SUP), ("runtime alone", ALONE)):
        ex = ["--exec=any"] if env else []
        st, out, err = run(ex + ["--deny", "gettimeofday", sys.executable,
                                 "-c", VSYS], env)
        check(st == 9 and (env or "gettimeofday (code 96) denied" in err),
              "%s: vsyscall gettimeofday denied (%d %r)" % (mode, st,
                                                           err[-200:]))
else:
    print("skip vsyscall: no emulated [vsyscall] page here")

# every image of the tree: a grandchild, after two execs
st, out, err = run(["--deny", "uname", "sh", "-c", "sh -c 'uname; echo $?'"])
check(out.strip() == "1" and "uname (code 63) denied by --deny: EPERM" in err,
      "a grandchild's uname denied, said once (%r %r)" % (out, err))
st, out, err = run(["--deny", "execve", "sh", "-c", "/bin/true; echo $?"])
check(out.strip() == "126", "--deny execve: the shell cannot exec (%r)" % out)
# --allow: a shell pipeline lives on @system-service; what is outside it
# is denied before its site is looked at (syscall() from ctypes would
# otherwise be a violation)
st, out, err = run(["--allow", "@system-service", "sh", "-c",
                    "ls / | sort | head -1; echo done"])
check(st == 0 and out.strip().endswith("done"),
      "--allow @system-service: a pipeline runs (%d %r)" % (st, err))
reboot = ("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
          "print(libc.syscall(169, 0, 0, 0, 0), ctypes.get_errno())")
st, out, err = run(["--allow", "@system-service", "python3", "-c", reboot])
check(st == 0 and out.split() == ["-1", "1"],
      "--allow: reboot(2) denied with EPERM (%d %r)" % (st, out))
st, out, err = run(["python3", "-c", reboot])
check(st == 159, "control: the same call without --allow is a violation")

# misspellings and impossible lists are errors, not ignored
for args, msg in ((["--deny", "unmae"], "--deny unmae: no such system call"),
                  (["--deny", "@mounts"], "--deny @mounts: no such group"),
                  (["--deny", "mmap2"], "not an x86-64 system call"),
                  (["--deny", "exit_group"], "never denied"),
                  (["--deny", "uname", "--allow", "read"],
                   "--deny and --allow"),
                  (["--deny-action=stop"], "--deny-action=stop"),
                  (["--deny-action=errno:EBOGUS"], "no such errno")):
    st, out, err = run(args + ["true"])
    check(st == 2 and err.startswith("syspin: run: ") and msg in err,
          "%s: exit 2, %r" % (" ".join(args), err.strip()))

# the groups are systemd's (systemd-analyze prints those of the systemd
# installed; @sandbox came in systemd 257)
p = subprocess.run([SYSPIN, "filter", "--groups"], capture_output=True,
                   text=True)
ours = {}
for block in p.stdout.strip().split("\n\n"):
    lines = block.split("\n")
    ours[lines[0]] = set(lines[2].split())
check(p.returncode == 0 and "@system-service" in ours and "@sandbox" in ours,
      "filter --groups lists the groups")
sa = shutil.which("systemd-analyze")
if sa is None:
    print("skip systemd-analyze is not installed")
else:
    p = subprocess.run([sa, "syscall-filter", "--no-pager"],
                       capture_output=True, text=True)
    theirs, cur = {}, None
    for line in p.stdout.splitlines():
        if line.startswith("@"):
            cur = theirs.setdefault(line.strip(), set())
        elif line.startswith("    ") and not line.startswith("    #") and \
                cur is not None:
            cur.add(line.strip())
        elif line.startswith("#"):
            cur = None
    theirs.pop("@known", None)
    v = subprocess.run([sa, "--version"], capture_output=True,
                       text=True).stdout.split()
    if len(v) > 1 and v[1] == "252":
        check(set(theirs) | {"@sandbox"} == set(ours),
              "the same groups as systemd %s" % v[1])
        for g in sorted(theirs):
            check(ours.get(g) == theirs[g], "%s as systemd has it" % g)
    else:
        print("skip systemd %s: the table is systemd 252's" %
              (v[1] if len(v) > 1 else "?"))

shutil.rmtree(TMP)
print("%d checks failed" % len(failed) if failed else "all ok")
sys.exit(1 if failed else 0)
