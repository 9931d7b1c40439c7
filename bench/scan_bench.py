#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""syspin scan benchmark: speed and resolution, measured in one run.

Speed is stated as ratios against baselines timed in the same run:
`syspin scan --full-sweep` (decode every executable byte) and `objdump -d`
(what a person would otherwise use).  Resolution is compared with the naive
method: look back from each `syscall` for `mov $N,%eax` in the same straight
line of code.
"""
import json
import os
import re
import subprocess
import sys

LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
LDSO = "/lib64/ld-linux-x86-64.so.2"


def timed(cmd, runs):
    """Best of `runs` CPU times (user + system) of the command itself, as
    the kernel accounts them (wait4): neither the cost of spawning it from
    Python nor other load on the machine is counted; noise only adds."""
    times = []
    for _ in range(runs):
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        if status != 0:
            raise SystemExit("%s failed" % cmd[0])
        times.append(ru.ru_utime + ru.ru_stime)
    return min(times)


def verdict(ratio, target):
    return "target >= %dx: %s" % (target, "met" if ratio >= target else "MISSED")


def scan(syspin, args):
    out = subprocess.run([syspin, "scan", "--json"] + args,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["files"][0]


def naive(path):
    """Fraction of syscalls whose number a backward look for `mov $N,%eax`
    finds before any branch, call or label in the way."""
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         capture_output=True, text=True).stdout
    lines = [l for l in dis.splitlines() if re.match(r"^\s+[0-9a-f]+:\t", l)]
    found = total = 0
    for i, l in enumerate(lines):
        if not l.rstrip().endswith("syscall"):
            continue
        total += 1
        for back in lines[max(0, i - 12):i][::-1]:
            ins = back.split("\t", 1)[1]
            if re.search(r"mov\s+\$0x[0-9a-f]+,%(eax|rax)$", ins):
                found += 1
                break
            if re.search(r"%(eax|rax)$", ins) or re.match(r"(j|call|ret)", ins):
                break
    return found, total


def main():
    syspin = sys.argv[1]
    runs = 15
    print("== syspin scan: speed on %s (CPU time, best of %d runs, same run) =="
          % (LIBC, runs))
    t_default = timed([syspin, "scan", LIBC], runs)
    t_full = timed([syspin, "scan", "--full-sweep", LIBC], runs)
    t_objdump = timed(["objdump", "-d", LIBC], 7)
    print("  syspin scan               %8.1f ms" % (t_default * 1e3))
    print("  syspin scan --full-sweep  %8.1f ms   default is %.1fx faster (%s)"
          % (t_full * 1e3, t_full / t_default,
             verdict(t_full / t_default, 3)))
    print("  objdump -d                %8.1f ms   default is %.1fx faster (%s)"
          % (t_objdump * 1e3, t_objdump / t_default,
             verdict(t_objdump / t_default, 20)))
    f = scan(syspin, [LIBC])
    s = f["summary"]
    print("  decoded %d of %d executable bytes (%.1f%%)"
          % (s["decoded_bytes"], s["exec_bytes"],
             100.0 * s["decoded_bytes"] / s["exec_bytes"]))
    print()
    print("== resolution: exact number sets ==")
    for label, args, path in (("libc.so.6", [LIBC], LIBC),
                              ("ld-linux-x86-64.so.2", [LDSO], LDSO),
                              ("vDSO", ["--vdso"], None)):
        f = scan(syspin, args)
        s = f["summary"]
        line = "  %-22s %4d sites, %4d exact (%.1f%%)" % (
            label, s["sites"], s["exact"], s["exact_percent"])
        if path:
            nf, nt = naive(path)
            line += "; naive backward scan %d/%d (%.1f%%)" % (
                nf, nt, 100.0 * nf / max(nt, 1))
        print(line)
        for site in f["sites"]:
            if not site["exact"]:
                print("      %s %s: %s" % (site["addr"], site["how"],
                      site["reason"] or "completed by importers at load time"))


if __name__ == "__main__":
    main()
