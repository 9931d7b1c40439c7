#!/usr/bin/env python3
"""Robustness sweep of `syspin scan --json` over every ELF file under some
directories.

    bench/scan_sweep.py SYSPIN [-j N] [--timeout S] [--slow S] [--out F] DIR...

Every ELF file (by magic, symlinks and hard links once) is scanned with a
timeout.  Reported: crashes (a signal, or a sanitizer report on stderr),
timeouts, exit 2 (with the message: it must be a clear sentence, and only
for files that are not x86-64 ELF programs or libraries), slow files, and
the summed site counts.  --out writes one JSON line per file for later
comparison between versions.  Exit status 1 when anything crashed or hung.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def elf_files(roots):
    seen = set()
    for root in roots:
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                path = os.path.join(dirpath, name)
                try:
                    if os.path.islink(path) or not os.path.isfile(path):
                        continue
                    st = os.stat(path)
                    key = (st.st_dev, st.st_ino)
                    if key in seen:
                        continue
                    with open(path, 'rb') as f:
                        head = f.read(20)
                except OSError:
                    continue
                if head[:4] == b'\x7fELF':
                    seen.add(key)
                    yield path, head


def elf_kind(head):
    """What the header says: ('x86-64' | machine, e_type)."""
    if len(head) < 20:
        return 'short', 0
    little = head[5] == 1
    order = 'little' if little else 'big'
    etype = int.from_bytes(head[16:18], order)
    mach = int.from_bytes(head[18:20], order)
    return ('x86-64' if head[4] == 2 and mach == 62 else 'm%d' % mach), etype


def scan(syspin, path, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run([syspin, 'scan', '--json', path],
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {'path': path, 'rc': 'timeout', 'secs': timeout}
    secs = time.monotonic() - t0
    r = {'path': path, 'rc': p.returncode, 'secs': round(secs, 3)}
    err = p.stderr.decode(errors='replace')
    if 'Sanitizer' in err or 'runtime error:' in err:
        r['sanitizer'] = err[:2000]
    if p.returncode == 2 or p.returncode < 0:
        r['stderr'] = err.strip()[:500]
    if p.returncode in (0, 1):
        try:
            doc = json.loads(p.stdout)
            s = doc['files'][0]['summary']
            r['summary'] = {k: s[k] for k in
                            ('sites', 'exact', 'unresolved', 'gadgets',
                             'likely_data', 'uncovered')}
            r['type'] = doc['files'][0]['type']
        except (ValueError, KeyError, IndexError) as e:
            r['bad_json'] = str(e)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('syspin')
    ap.add_argument('dirs', nargs='+')
    ap.add_argument('-j', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--timeout', type=float, default=20)
    ap.add_argument('--slow', type=float, default=2)
    ap.add_argument('--out')
    a = ap.parse_args()

    files = list(elf_files(a.dirs))
    heads = dict(files)
    results = []
    out = open(a.out, 'w') if a.out else None
    with ThreadPoolExecutor(a.j) as ex:
        # Results are written as they come, so a long sweep shows progress.
        for r in ex.map(lambda f: scan(a.syspin, f[0], a.timeout), files):
            results.append(r)
            if out:
                out.write(json.dumps(r) + '\n')
                out.flush()
    if out:
        out.close()

    bad = 0
    tot = {'sites': 0, 'exact': 0, 'unresolved': 0}
    for r in results:
        arch, etype = elf_kind(heads[r['path']])
        supported = arch == 'x86-64' and etype in (2, 3)
        if r['rc'] == 'timeout':
            print('TIMEOUT %s' % r['path']); bad += 1
        elif r['rc'] < 0 or 'sanitizer' in r:
            print('CRASH rc=%s %s\n  %s' % (r['rc'], r['path'],
                  r.get('sanitizer', r.get('stderr', ''))[:600])); bad += 1
        elif 'bad_json' in r:
            print('BADJSON %s: %s' % (r['path'], r['bad_json'])); bad += 1
        elif r['rc'] == 2 and supported:
            print('EXIT2 %s: %s' % (r['path'], r['stderr']))
        elif r['rc'] != 2 and not supported:
            print('ACCEPTED %s %s type %d' % (r['path'], arch, etype))
        elif r['rc'] == 2 and not r['stderr']:
            print('SILENT-EXIT2 %s' % r['path'])
        if r['rc'] != 'timeout' and r['secs'] > a.slow:
            print('SLOW %.1fs %s' % (r['secs'], r['path']))
        for k in tot:
            tot[k] += r.get('summary', {}).get(k, 0)
    scanned = sum(1 for r in results if 'summary' in r)
    rejected = sum(1 for r in results if r['rc'] == 2)
    pct = 100.0 * tot['exact'] / tot['sites'] if tot['sites'] else 0
    print('%d ELF files: %d scanned, %d rejected (exit 2), %d crashed or '
          'hung; %d sites, %d exact (%.1f%%), %d unresolved' %
          (len(results), scanned, rejected, bad, tot['sites'], tot['exact'],
           pct, tot['unresolved']))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
