#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A stripped Go binary scans like the original: the same trap sites, and
(.gopclntab giving function ranges and names) nearly all of them exact.

usage: go_stripped.py SYSPIN GO_BINARY STRIPPED_COPY"""
import json
import subprocess
import sys


def scan(syspin, path):
    out = subprocess.run([syspin, 'scan', '--json', path], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)['files'][0]


def main():
    syspin, full, stripped = sys.argv[1:4]
    a, b = scan(syspin, full), scan(syspin, stripped)
    sa = {s['addr'] for s in a['sites']}
    sb = {s['addr'] for s in b['sites']}
    pct = b['summary']['exact_percent']
    print('original: %d sites, %.1f%% exact; stripped: %d sites, %.1f%% exact'
          % (len(sa), a['summary']['exact_percent'], len(sb), pct))
    bad = 0
    if sa != sb:
        print('FAIL: different sites: %s' % sorted(sa ^ sb))
        bad = 1
    if pct < 90.0:
        print('FAIL: stripped binary resolves only %.1f%%' % pct)
        bad = 1
    # Wherever the stripped scan is exact, it must agree with the original.
    orig = {s['addr']: s for s in a['sites']}
    for s in b['sites']:
        o = orig.get(s['addr'])
        if s['exact'] and o and o['exact'] and s['numbers'] != o['numbers']:
            print('FAIL: %s: %s stripped vs %s' % (s['addr'], s['numbers'],
                                                   o['numbers']))
            bad = 1
    return bad


if __name__ == '__main__':
    sys.exit(main())
