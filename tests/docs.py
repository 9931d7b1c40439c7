#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""docs.py SOURCE_DIR: the documentation matches the tree.

- docs/design.md: the number of stages it announces is the number of its
  numbered sections; every folder of lib/ and runtime/ is named; every
  file it names in backquotes (`pin.c`, `lib/util/raw.S`) exists.
- No document names a relative path that leads out of the repository or
  to nothing in it (`../shared/...`), and every document that a document or
  a source file names (docs/ and a name) exists.
Exit status 0 when all hold, 1 otherwise.
"""
import os
import re
import subprocess
import sys

WORDS = {'one': 1, 'two': 2, 'three': 3, 'four': 4, 'five': 5, 'six': 6,
         'seven': 7, 'eight': 8, 'nine': 9, 'ten': 10}
FILE = re.compile(r'`([\w./-]+\.(?:c|h|S|md|sh|py))`')
DOC = re.compile(r'\bdocs/[\w-]+\.md\b')
UP = re.compile(r'(?:^|[\s`(])(\.\./[\w./-]*\w)', re.M)


def tracked(src):
    out = subprocess.run(['git', '-C', src, 'ls-files'], capture_output=True,
                         text=True)
    if out.returncode == 0 and out.stdout:
        return out.stdout.split()
    files = []
    for d, _, names in os.walk(src):
        if '/.git' in d or '/build' in d:
            continue
        files += [os.path.relpath(os.path.join(d, n), src) for n in names]
    return files


def main():
    src = sys.argv[1]
    files = tracked(src)
    basenames = {os.path.basename(f) for f in files}
    bad = []
    with open(os.path.join(src, 'docs', 'design.md')) as fh:
        design = fh.read()

    m = re.search(r'through (\w+) stages', design)
    sections = re.findall(r'^## (\d+)\. ', design, re.M)
    if m is None or WORDS.get(m.group(1)) != len(sections):
        bad.append('design.md: "%s" stages, %d numbered sections' % (
            m.group(1) if m else '?', len(sections)))
    folders = {f.split('/')[0] + '/' + f.split('/')[1] for f in files
               if f.startswith('lib/') and f.count('/') >= 2}
    folders.add('runtime')
    for d in sorted(folders):
        if d not in design:
            bad.append('design.md: %s is not described' % d)
    for name in FILE.findall(design):
        if name not in files and os.path.basename(name) not in basenames:
            bad.append('design.md: `%s` does not exist' % name)

    for f in files:
        if not f.endswith(('.md', '.c', '.h', '.S', '.sh', '.py', '.1')):
            continue
        with open(os.path.join(src, f), errors='replace') as fh:
            text = fh.read()
        for rel in UP.findall(text) if f.endswith('.md') else []:
            to = os.path.normpath(os.path.join(os.path.dirname(f), rel))
            if to.startswith('..') or not any(
                    g == to or g.startswith(to + '/') for g in files):
                bad.append('%s: %s is not in the repository' % (f, rel))
        for doc in set(DOC.findall(text)):
            if doc not in files:
                bad.append('%s: names %s, which does not exist' % (f, doc))
    for b in bad:
        print('FAIL', b)
    print('%d files read, %d problems' % (len(files), len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
