#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Soundness of `syspin scan` against what programs really do.

Runs a command under `strace -f -i -n` (instruction pointer and number of
every system call) with a preloaded object that records each process's
memory map; attributes each call to an object and offset; and checks that
`syspin scan` lists a trap there whose numbers include the one issued.  A
miss is a pin table that would kill a correct program.

usage: observed.py SYSPIN DUMPMAPS_SO [--static EXE] -- COMMAND...
  --static EXE: EXE is a static non-PIE executable (no preload possible):
  addresses inside it are its own.
Exit status 0 when every observed call is covered, 1 otherwise.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# Calls whose reported instruction pointer is that of the new context.
SKIP = {15, 59, 322}  # rt_sigreturn, execve, execveat
# A call line; signal ("--- SIGURG ... ---") and exit ("+++ ...") lines also
# carry a number (the thread's last call) and the interrupted IP: not calls.
LINE = re.compile(r'^(\d+)\s+\[\s*(\d+)\]\s+\[([0-9a-f]+)\]\s+(?!---|\+\+\+)')


def load_maps(d):
    maps = {}
    for f in os.listdir(d):
        if not f.isdigit():
            continue
        rows = []
        with open(os.path.join(d, f)) as fh:
            for line in fh:
                p = line.split()
                lo, hi = (int(x, 16) for x in p[0].split('-'))
                rows.append((lo, hi, int(p[2], 16), p[5] if len(p) > 5 else ''))
        maps[int(f)] = rows
    return maps


class Tables:
    def __init__(self, syspin):
        self.syspin = syspin
        self.cache = {}

    def sites(self, path):
        if path not in self.cache:
            args = ['--vdso'] if path == '[vdso]' else [path]
            out = subprocess.run([self.syspin, 'scan', '--json'] + args,
                                 capture_output=True, text=True).stdout
            files = json.loads(out)['files'] if out else []
            by_end = {}
            for s in files[0]['sites'] if files else []:
                by_end[int(s['addr'], 16) + s['length']] = s
            self.cache[path] = by_end
        return self.cache[path]

    def covers(self, path, ip, nr):
        site = self.sites(path).get(ip)
        if site is None:
            return 'no syscall instruction ends here'
        if site['how'] in ('unresolved', 'export') or nr in site['numbers']:
            return None
        return 'numbers %s' % site['numbers']


def attribute(rows, ip):
    for lo, hi, off, path in rows:
        if lo <= ip - 2 < hi:
            if path == '[vdso]':
                return path, ip - lo
            base = min(l - o for l, h, o, p in rows if p == path)
            return path, ip - base
    return None, None


def observe(tables, dumpmaps, static, cmd):
    """One run under strace: (exit status, covered, unattributed, misses)."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, DUMP_MAPS_DIR=d, LD_PRELOAD=dumpmaps)
        log = os.path.join(d, 'strace.log')
        run = subprocess.run(['strace', '-f', '-qq', '-i', '-n', '-o', log]
                             + cmd, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        maps = load_maps(d)
        ok, unattributed, bad = 0, 0, {}
        with open(log) as fh:
            for line in fh:
                m = LINE.match(line)
                if not m:
                    continue
                pid, nr, ip = int(m.group(1)), int(m.group(2)), int(m.group(3), 16)
                if nr in SKIP:
                    continue
                if pid in maps:
                    path, rel = attribute(maps[pid], ip)
                elif static:
                    path, rel = static, ip
                else:
                    path = None
                if path is None:
                    unattributed += 1   # before the preload ran (ld.so start)
                    continue
                why = tables.covers(path, rel, nr)
                if why is None:
                    ok += 1
                else:
                    key = (path, hex(rel - 2), nr, why)
                    n, first = bad.get(key, (0, line.rstrip()))
                    bad[key] = (n + 1, first)
    return run.returncode, ok, unattributed, bad


# strace 6.1 now and then loses a thread's entry/exit toggle (seen with Go's
# preemption signals): it then prints an exit stop as an entry, whose
# PTRACE_GET_SYSCALL_INFO union reads as nr = return value, e.g.
# "read(0," at a nanosleep that returned 0.  Such a record names a call that
# never ran, and does not repeat.  A miss therefore counts when two of three
# runs show it; every workload here takes the same paths on each run.
RUNS, NEEDED = 3, 2


def main():
    argv = sys.argv[1:]
    syspin, dumpmaps = argv[0], argv[1]
    static = None
    if argv[2] == '--static':
        static = argv[3]
        argv = argv[:2] + argv[4:]
    cmd = argv[argv.index('--') + 1:]
    tables = Tables(syspin)
    status, ok, unattributed, bad = observe(tables, dumpmaps, static, cmd)
    print('%s: exit %d; %d calls covered, %d before the map was known, %d not covered'
          % (' '.join(cmd), status, ok, unattributed,
             sum(n for n, _ in bad.values())))
    if ok == 0:
        print('  no call was attributed: the check itself failed')
        return 1
    seen = {key: 1 for key in bad}
    for _ in range(RUNS - 1 if bad else 0):
        for key in observe(tables, dumpmaps, static, cmd)[3]:
            seen[key] = seen.get(key, 0) + 1
    failed = False
    for key in sorted(bad):
        path, addr, nr, why = key
        n, first = bad[key]
        confirmed = seen[key] >= NEEDED
        failed = failed or confirmed
        print('  %s: %s+%s number %d (%s), %d times; in %d of %d runs'
              % ('NOT COVERED' if confirmed else 'not repeated (strace record)',
                 path, addr, nr, why, n, seen[key], RUNS))
        print('    strace: %s' % first)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
