#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""temp_cache.py BUILD_DIR: no test runs `syspin run` on the default cache.

The default cache (/var/cache/syspin for root, ~/.cache/syspin) is the
user's: a test that fills it leaves tables behind, and reads tables a
previous build wrote.  Every test() that runs `syspin run` gives it a
temporary --cache-dir: its command line says so, or the script it runs
does (with the scripts next to it that it sources).  Read from meson's
list of tests (meson-info/intro-tests.json).
Exit status 0 when every test does, 1 otherwise.
"""
import json
import os
import re
import sys

# `syspin run`, `"$S" run`, `$SYSPIN run` in shell; [syspin, 'run'] in
# Python.
SH_RUN = re.compile(r'(?:syspin|\$\{?\w+\}?)"?\s+run\b')
PY_RUN = re.compile(r"""['"]run['"]""")
# A shell script's `. "$(dirname "$0")/lib.sh"` or `. "$HERE/pg.sh"`: a
# file next to it, read with it.
SOURCED = re.compile(r'^\.\s+.*/([\w.-]+\.sh)"?\s*$', re.M)


def runs_syspin(cmd):
    return any(os.path.basename(c) == 'syspin' for c in cmd)


def texts(cmd):
    """(text, pattern) for the command's words and the scripts it runs."""
    out = [(c, SH_RUN) for c in cmd[1:]]
    for c in cmd:
        if c.endswith(('.sh', '.py')) and os.path.isfile(c):
            with open(c, errors='replace') as fh:
                text = fh.read()
            out.append((text, PY_RUN if c.endswith('.py') else SH_RUN))
            if c.endswith('.sh'):
                for name in SOURCED.findall(text):
                    lib = os.path.join(os.path.dirname(c), name)
                    if os.path.isfile(lib):
                        with open(lib, errors='replace') as fh:
                            out.append((fh.read(), SH_RUN))
    return out


def main():
    info = os.path.join(sys.argv[1], 'meson-info', 'intro-tests.json')
    with open(info) as fh:
        tests = json.load(fh)
    bad = []
    for t in tests:
        cmd = t['cmd']
        if not runs_syspin(cmd):
            continue
        words = texts(cmd)
        runs = 'run' in cmd or any(p.search(w) for w, p in words)
        if runs and not any('--cache-dir' in w for w, _ in words + [
                (' '.join(cmd), None)]):
            bad.append(t['name'])
            print('FAIL %s: syspin run without --cache-dir: %s' % (
                t['name'], ' '.join(cmd)))
    print('%d tests checked, %d on the default cache' % (len(tests),
                                                         len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
