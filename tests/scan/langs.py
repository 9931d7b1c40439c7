#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""langs.py SYSPIN: small programs of other languages' compilers, when
installed (none is in CI's dependencies: each skips when absent), built
here and scanned.  Every trap objdump decodes must be a site, and the
share of exact sites must reach what the analysis gets today:
  - Free Pascal (static, no unwind info, no symbols, zero padding between
    functions, numbers passed to the FPC_SYSCALLn layer): all exact;
  - Rust with a static glibc (std's wrappers): the known few left;
  - gfortran with a static glibc: all exact.
Exit 77 when no compiler is found."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TRAP = re.compile(r"^\s*([0-9a-f]+):\s+(syscall|sysenter|int\s+\$0x80)\b")

PASCAL = """program p;
uses sysutils;
begin
  writeln(GetEnvironmentVariable('HOME'));
  writeln(FileExists('/etc/hostname'));
end.
"""
RUST = """use std::io::Write;
fn main() {
    let t = std::thread::spawn(|| std::fs::read_to_string("/etc/hostname")
        .unwrap_or_default());
    let s = t.join().unwrap();
    std::io::stdout().write_all(s.as_bytes()).unwrap();
}
"""
FORTRAN = """program f
  print *, 'hello'
end program f
"""

# name, compiler, source file, source, command (src, out), minimum exact %
LANGS = [
    ("fpc", "fpc", "p.pas", PASCAL,
     lambda c, s, o: [c, "-O2", "-o" + o, s], 100.0),
    ("rust-static", "rustc", "r.rs", RUST,
     lambda c, s, o: [c, "-O", "-C", "target-feature=+crt-static", s, "-o",
                      o], 97.0),
    ("gfortran-static", "gfortran", "f.f90", FORTRAN,
     lambda c, s, o: [c, "-O2", "-static", s, "-o", o], 100.0),
]


def objdump(path):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         capture_output=True, text=True).stdout
    return {int(m.group(1), 16) for m in map(TRAP.match, out.splitlines())
            if m}


def main():
    syspin = sys.argv[1]
    ran = bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, comp, src, text, cmd, want in LANGS:
            cpath = shutil.which(comp)
            if cpath is None:
                print(f"{name}: {comp} not installed, skipped")
                continue
            s, o = os.path.join(tmp, src), os.path.join(tmp, name)
            with open(s, "w") as f:
                f.write(text)
            b = subprocess.run(cmd(cpath, s, o), cwd=tmp,
                               capture_output=True, text=True, timeout=60)
            if b.returncode != 0 or not os.path.exists(o):
                print(f"{name}: build failed, skipped:\n{b.stdout}{b.stderr}")
                continue
            ran += 1
            r = subprocess.run([syspin, "scan", "--json", o],
                               capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                print(f"{name}: scan exited {r.returncode}: {r.stderr}")
                bad += 1
                continue
            f = json.loads(r.stdout)["files"][0]
            sites = {int(x["addr"], 16) for x in f["sites"]}
            miss = sorted(objdump(o) - sites)
            pct = f["summary"]["exact_percent"]
            print(f"{name}: {len(sites)} sites, {pct:.1f}% exact, "
                  f"{len(miss)} objdump traps missed")
            for x in f["sites"]:
                if not x["exact"]:
                    print(f"  {x['addr']} {x['how']}: {x['reason']}")
            if miss or pct < want:
                print(f"{name}: FAIL (want no miss, >= {want}% exact)")
                bad += 1
    if ran == 0:
        return 77
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
