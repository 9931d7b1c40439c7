#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Runs `syspin trace --json` and checks its verdict.

usage:
  check.py SYSPIN cover [--in NAME]... -- COMMAND...
      exit 0 from trace, every call covered, the program itself exited 0,
      and each NAME (a substring) is an object that issued calls.
      --root: skip unless run as root.
  check.py SYSPIN miss --where object|no_object --nr N --reason TEXT
           [--object NAME] [--verdict killed|refused] [--allow-jit]
           [--no-reach]
           -- COMMAND...
      exit 1 from trace, and exactly one distinct uncovered call: in an
      object (or in no object), number N, the verdict (killed unless
      given), a reason containing TEXT, at the address the program wrote
      to the file that replaces @ADDR@ in COMMAND (when present and the
      verdict is killed).  --allow-jit and --no-reach are passed to
      trace.
  check.py SYSPIN usage
      exit statuses of bad invocations.
Exit status 0 when the check passes, 1 when it fails, 77 to skip.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def fail(msg, report=None):
    print('FAIL:', msg)
    if report is not None:
        print(json.dumps(report, indent=1))
    return 1


def trace(syspin, cmd, d, extra=()):
    out = os.path.join(d, 'report.json')
    run = subprocess.run([syspin, 'trace', '--json', '-o', out,
                          '--cache-dir', os.path.join(d, 'cache')] +
                         list(extra) + ['--'] + cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, timeout=120)
    sys.stderr.write(run.stderr)
    report = None
    if os.path.exists(out):
        with open(out) as fh:
            report = json.load(fh)
    return run.returncode, report


def summary(report):
    print('%s: %d calls, %d covered, %d processes, %d threads' % (
        ' '.join(report['command']), report['calls'], report['covered'],
        report['processes'], report['threads']))


def cover(a, d):
    if a.root and os.geteuid() != 0:
        print('SKIP: needs root')
        return 77
    rc, r = trace(a.syspin, [os.path.join(d, 'addr') if c == '@ADDR@'
                             else c for c in a.command], d)
    if r is None:
        return fail('no report (exit %d)' % rc)
    summary(r)
    if rc != 0 or r['not_covered'] or r['no_object']:
        return fail('exit %d: some call would have been killed' % rc, r)
    if r['calls'] == 0 or r['calls'] != r['covered']:
        return fail('counts disagree', r)
    if r.get('exit_status') != 0:
        return fail('the program itself failed under trace', r)
    names = [o['path'] for o in r['objects'] if o['calls'] > 0]
    for want in a.inside:
        if not any(want in n for n in names):
            return fail('no calls attributed to %s' % want, r)
    return 0


def miss(a, d):
    addr_file = os.path.join(d, 'addr')
    cmd = [addr_file if c == '@ADDR@' else c for c in a.command]
    rc, r = trace(a.syspin, cmd, d, (['--allow-jit'] if a.allow_jit else
                                     []) + (['--no-reach'] if a.no_reach
                                            else []))
    if r is None:
        return fail('no report (exit %d)' % rc)
    summary(r)
    if r.get('signal') == 11 and a.nr == 20:
        print('SKIP: no i386 emulation in this kernel')
        return 77
    found = r['not_covered'] + r['no_object']
    if rc != 1 or len(found) != 1:
        return fail('exit %d, %d uncovered calls: want 1 and 1' %
                    (rc, len(found)), r)
    m = found[0]
    if (a.where == 'object') != ('object' in m):
        return fail('the call is not reported as %s' % a.where, r)
    if m['number'] != a.nr or a.reason not in m['reason']:
        return fail('wrong number or reason', r)
    if m['verdict'] != a.verdict:
        return fail('verdict %s, want %s' % (m['verdict'], a.verdict), r)
    if a.verdict == 'killed' and r.get('exit_status') != 0:
        return fail('the call run would kill did not run on', r)
    if a.object and a.object not in m.get('object', ''):
        return fail('not attributed to %s' % a.object, r)
    if '@ADDR@' in a.command and a.verdict == 'killed':
        with open(addr_file) as fh:
            want = int(fh.read(), 16)
        if int(m['addr'], 16) != want:
            return fail('address %s, the program says %#x' % (m['addr'],
                                                               want), r)
    print('reported: %s' % json.dumps(m))
    return 0


def usage(a, d):
    cases = [([], 2), (['--bogus', 'true'], 2), (['--help'], 0),
             (['--', os.path.join(d, 'absent')], 2),
             (['-o', os.path.join(d, 'no', 'such', 'dir'), 'true'], 2)]
    for args, want in cases:
        rc = subprocess.run([a.syspin, 'trace'] + args,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
        print('syspin trace %s: exit %d' % (' '.join(args), rc))
        if rc != want:
            return fail('want exit %d' % want)
    return 0


def export(a, d):
    """--allow-list, --systemd, --program-status (issue 21.14): what the
    tree used, kept as a narrowing that runs the same command again; the
    program's own exit status."""
    cmd = ['sh', '-c', 'ls / >/dev/null; exit 3']
    al, sd = os.path.join(d, 'allow'), os.path.join(d, 'systemd')
    cache = os.path.join(d, 'cache')
    rc = subprocess.run([a.syspin, 'trace', '--cache-dir', cache,
                         '--allow-list', al, '--systemd', sd,
                         '--program-status', '-o', os.devnull, '--'] + cmd,
                        stdout=subprocess.DEVNULL).returncode
    print('syspin trace --program-status: exit %d' % rc)
    if rc != 3:
        return fail('want the program\'s exit status 3')
    with open(al) as fh:
        names = fh.read().strip()
    with open(sd) as fh:
        line = fh.read().strip()
    print('allow list: %s' % names)
    print('systemd: %s' % line)
    want = {'execve', 'exit_group', 'getdents64', 'openat'}
    if not want <= set(names.split(',')):
        return fail('the list lacks some of %s' % sorted(want))
    if line != 'SystemCallFilter=' + names.replace(',', ' '):
        return fail('the systemd line is not the same list')
    rc = subprocess.run([a.syspin, 'run', '--cache-dir', cache, '--allow',
                         names, '--'] + cmd,
                        stdout=subprocess.DEVNULL).returncode
    if rc != 3:
        return fail('run --allow with the list: exit %d, want 3' % rc)
    # the list bites: what the traced command did not use is denied
    rc = subprocess.run([a.syspin, 'run', '--cache-dir', cache, '--allow',
                         names, '--deny-action=kill', '--', 'sh', '-c',
                         'mkdir %s' % os.path.join(d, 'x')],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    if rc == 0 or os.path.exists(os.path.join(d, 'x')):
        return fail('mkdir, not in the list, ran (exit %d)' % rc)
    print('run --allow with the list: the command runs, mkdir is denied')
    return 0


def main():
    argv = sys.argv[1:]
    command = []
    if '--' in argv:
        command = argv[argv.index('--') + 1:]
        argv = argv[:argv.index('--')]
    p = argparse.ArgumentParser()
    p.add_argument('syspin')
    p.add_argument('mode', choices=['cover', 'miss', 'usage', 'export'])
    p.add_argument('--in', dest='inside', action='append', default=[])
    p.add_argument('--where', choices=['object', 'no_object'])
    p.add_argument('--nr', type=int)
    p.add_argument('--reason', default='')
    p.add_argument('--object')
    p.add_argument('--verdict', default='killed')
    p.add_argument('--allow-jit', action='store_true')
    p.add_argument('--no-reach', action='store_true')
    p.add_argument('--root', action='store_true')
    a = p.parse_args(argv)
    a.command = command
    with tempfile.TemporaryDirectory() as d:
        return {'cover': cover, 'miss': miss, 'usage': usage,
                'export': export}[a.mode](a, d)


if __name__ == '__main__':
    sys.exit(main())
