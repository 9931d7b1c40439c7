#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Completeness against objdump on any binaries.

    bench/scan_objdump.py SYSPIN FILE...

For each file: the trap instructions `objdump -d` decodes (a linear sweep
of the executable sections), the sites `syspin scan --json` reports, the
objdump traps that are no site (misses: each must be explained, e.g. data
in .text that a linear sweep decodes through), the sites objdump does not
decode (re-synchronised jump-table cases, code after data), and how many
sites are exact.  Exit status 1 when any objdump trap is missed.
"""
import json
import re
import subprocess
import sys

TRAP = re.compile(r"^\s*([0-9a-f]+):\s+(syscall|sysenter|int\s+\$0x80)\b")


def objdump(path):
    p = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                       capture_output=True, text=True)
    return {int(m.group(1), 16) for m in map(TRAP.match,
            p.stdout.splitlines()) if m}


def main():
    syspin, paths = sys.argv[1], sys.argv[2:]
    missed = 0
    tot = [0, 0, 0, 0]
    for path in paths:
        want = objdump(path)
        r = subprocess.run([syspin, "scan", "--json", path],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1):
            print(f"{path}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        f = json.loads(r.stdout)["files"][0]
        sites = {int(s["addr"], 16): s for s in f["sites"]}
        gadgets = {int(g, 16) for g in f["gadgets"]}
        miss = sorted(want - set(sites))
        extra = sorted(set(sites) - want)
        s = f["summary"]
        print(f"{path}: objdump {len(want)}, sites {s['sites']}, exact "
              f"{s['exact']} ({s['exact_percent']:.1f}%), unresolved "
              f"{s['unresolved']}, likely-data {s['likely_data']}, "
              f"missed {len(miss)}, extra {len(extra)}")
        for a in miss:
            print(f"  MISS 0x{a:x}{' (gadget)' if a in gadgets else ''}")
        for a in extra:
            print(f"  extra 0x{a:x} {sites[a]['how']} {sites[a]['flags']}")
        for a, x in sorted(sites.items()):
            if not x["exact"]:
                print(f"  inexact 0x{a:x} {x['how']} fn {x['function']}: "
                      f"{x['reason'] or x['param'] or ''} {x['flags']}")
        missed += len(miss)
        tot[0] += len(want); tot[1] += s["sites"]; tot[2] += s["exact"]
        tot[3] += len(miss)
    pct = 100.0 * tot[2] / tot[1] if tot[1] else 100.0
    print(f"total: objdump {tot[0]}, sites {tot[1]}, exact {tot[2]} "
          f"({pct:.1f}%), missed {tot[3]}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
