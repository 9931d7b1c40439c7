#!/usr/bin/env python3
"""make bench: the whole-system fill, `syspin cache fill` of every ELF
program and library under a directory (default /usr) into an empty cache,
then again with everything cached (what the Debian package's trigger
costs).

    bench/fill_bench.py SYSPIN [DIR] [-j N]

Reported: files, wall time and files/s against the issue's target (the
whole of /usr in under 60 s on 2 cores); the CPU time of the workers
(user + sys, from the kernel's accounting of children), hence the wall
time the same work needs on N dedicated cores, and wall x cores / CPU (1.0
= every core busy all along; more = the workers waited: for other load on
the machine, the disk, the last large files); the files that took more
than a second (`cache fill -v` names them, with their CPU time) and their
share of the CPU.  Exit status 0 unless the fill itself failed (2).
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

TARGET = 60.0


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime, r.ru_stime


def fill(syspin, cache, root, jobs):
    cmd = [syspin, 'cache', 'fill', '-v', '--cache-dir', cache, root]
    if jobs:
        cmd[3:3] = ['--jobs', str(jobs)]
    u0, s0 = children_cpu()
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    wall = time.monotonic() - t0
    u1, s1 = children_cpu()
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr)
        sys.exit('fill_bench: cache fill failed (%d)' % p.returncode)
    return wall, u1 - u0, s1 - s0, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('syspin')
    ap.add_argument('root', nargs='?', default='/usr')
    ap.add_argument('-j', '--jobs', type=int, default=0)
    a = ap.parse_args()
    cores = a.jobs or len(os.sched_getaffinity(0))
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix='syspin-fill-bench.') as t:
        cache = os.path.join(t, 'cache')
        wall, user, sys_, err = fill(a.syspin, cache, a.root, a.jobs)
        warm, wu, ws, werr = fill(a.syspin, cache, a.root, a.jobs)
    m = re.search(r'cache fill: (\d+) files in .*: (\d+) analysed, '
                  r'(\d+) already cached, (\d+) failed', err)
    if not m:
        sys.exit('fill_bench: no summary from cache fill -v:\n' + err[-2000:])
    files, analysed, failed = int(m[1]), int(m[2]), int(m[4])
    cpu = user + sys_
    slow = []
    for line in err.splitlines():
        s = re.match(r'syspin: (.*): slow: ([\d.]+) s to analyse '
                     r'\(([\d.]+) s CPU\)$', line)
        if s:
            slow.append((float(s[3]), float(s[2]), s[1]))
    slow.sort(reverse=True)
    slow_cpu = sum(c for c, _, _ in slow)
    verdict = 'met' if wall < TARGET else 'missed by %.0f s' % (wall - TARGET)
    print('whole-system fill: every x86-64 ELF program and library under '
          '%s, empty cache, %d worker%s on %d CPU%s (load average %.1f at '
          'the start)' % (a.root, cores, '' if cores == 1 else 's',
                          len(os.sched_getaffinity(0)),
                          '' if len(os.sched_getaffinity(0)) == 1 else 's',
                          load))
    print('  %d files (%d analysed, %d without a table) in %.1f s wall: '
          '%.1f files/s (target under %.0f s: %s)' % (
              files, analysed, failed, wall, files / wall, TARGET, verdict))
    print('  CPU %.1f s (user %.1f + sys %.1f), %.1f ms a file: at least '
          '%.1f s on %d dedicated cores (%s)' % (
              cpu, user, sys_, 1000 * cpu / max(files, 1), cpu / cores,
              cores, 'under' if cpu / cores < TARGET else 'over'))
    print('  wall x cores / CPU = %.2f (1.00: both cores busy all along)'
          % (wall * cores / max(cpu, 1e-9)))
    if slow:
        print('  %d files took more than 1 s: %.1f s CPU, %.0f%% of the '
              'total; the largest:' % (len(slow), slow_cpu,
                                       100 * slow_cpu / max(cpu, 1e-9)))
        for c, w, path in slow[:8]:
            try:
                mb = os.path.getsize(path) / 1e6
            except OSError:
                mb = 0
            print('    %6.1f s CPU %6.1f s wall %7.1f MB  %s' % (c, w, mb,
                                                                   path))
    print('  again with everything cached (the package trigger): %.1f s '
          'wall, %.1f s CPU' % (warm, wu + ws))


if __name__ == '__main__':
    main()
