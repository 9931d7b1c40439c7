#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""cli_objdump.py SYSPIN OBJECT...: `syspin scan --json` lists exactly the
trap instructions objdump -d decodes, with and without --full-sweep."""
import json
import re
import subprocess
import sys

TRAP = re.compile(r"^\s*([0-9a-f]+):\s+(syscall|sysenter|int\s+\$0x80)\b")
KIND = {"syscall": "syscall", "sysenter": "sysenter"}


def objdump(path):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    traps = {}
    for line in out.splitlines():
        m = TRAP.match(line)
        if m:
            traps[int(m.group(1), 16)] = KIND.get(m.group(2), "int80")
    return traps


def scan(syspin, path, *opts):
    r = subprocess.run([syspin, "scan", "--json", *opts, path],
                       capture_output=True, text=True, timeout=300)
    if r.returncode not in (0, 1):
        sys.exit(f"{path}: syspin scan exited {r.returncode}: {r.stderr}")
    doc = json.loads(r.stdout)
    return {int(s["addr"], 16): s["kind"] for f in doc["files"]
            for s in f["sites"]}


def main():
    syspin, paths = sys.argv[1], sys.argv[2:]
    bad = 0
    for path in paths:
        want = objdump(path)
        for opts in ((), ("--full-sweep",)):
            got = scan(syspin, path, *opts)
            tag = f"{path} {' '.join(opts) or 'default'}"
            for a in sorted(set(want) - set(got)):
                print(f"{tag}: objdump trap 0x{a:x} ({want[a]}) not a site")
                bad += 1
            for a in sorted(set(got) - set(want)):
                print(f"{tag}: site 0x{a:x} ({got[a]}) not an objdump trap")
                bad += 1
            kinds = [a for a in want if a in got and
                     got[a].replace("int 0x80", "int80") != want[a]]
            for a in kinds:
                print(f"{tag}: 0x{a:x} kind {got[a]}, objdump {want[a]}")
            bad += len(kinds)
            print(f"{tag}: {len(want)} objdump traps, {len(got)} sites")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
