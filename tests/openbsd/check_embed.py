#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""syspin embed on programs built here: PIE, non-PIE, static, static PIE,
a shared object (and the program using it), and one without section
headers.  OUT must run as IN did, pass readelf -lS and eu-elflint --gnu-ld
(no complaint beyond IN's own and the unknown PT_OPENBSD_SYSCALLS type),
and `syspin scan OUT` must give the same table with provenance
"pin section".

usage: check_embed.py SYSPIN CC STRIP_SHDRS WORKDIR
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

syspin, cc, strip_shdrs, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

PROG = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
long answer(long);
int main(int argc, char **argv) {
	FILE *f = fopen(argc > 1 ? argv[1] : "/dev/null", "w");
	for (int i = 0; i < argc; i++) printf("arg %d %s\n", i, argv[i] + 0);
	fprintf(f, "%ld\n", answer(20));
	fclose(f);
	printf("pid ok %d\n", getpid() > 0);
	return 3;
}
"""
LOCAL = "long answer(long x) { return x + 22; }\n"
# A shared object with an exact site and one whose number is a parameter
# of an exported function: not exact, so embed must refuse without
# --allow-partial.
LIB = r"""
long answer(long x) {
	long r;
	__asm__ volatile ("syscall" : "=a"(r) : "0"(39L) : "rcx", "r11", "memory");
	return r > 0 ? x + 22 : -1;
}
long rawcall(long nr) {
	long r;
	__asm__ volatile ("syscall" : "=a"(r) : "0"(nr) : "rcx", "r11", "memory");
	return r;
}
"""


def sh(*args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def build(name, src, *flags):
    path = os.path.join(work, name)
    with open(path + ".c", "w") as f:
        f.write(src)
    p = sh(cc, "-O2", "-o", path, path + ".c", *flags)
    assert p.returncode == 0, (name, p.stderr)
    return path


def run(path, env=None):
    out = os.path.join(work, "out.txt")
    p = sh(path, out, "x y", env=env)
    with open(out) as f:
        data = f.read()
    # argv[0] differs between IN and OUT; everything else must not.
    return p.returncode, p.stdout.split("\n", 1)[1], p.stderr, data


def scan(path):
    p = sh(syspin, "scan", "--json", path)
    assert p.returncode == 0, (path, p.stderr)
    return json.loads(p.stdout)["files"][0]


def elflint(path):
    p = sh("eu-elflint", "--gnu-ld", path)
    return set(l for l in p.stdout.splitlines() if l != "No errors")


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check(src, out, partial=False, env=None):
    p = sh(syspin, "embed", *(["--allow-partial"] if partial else []),
           src, "-o", out)
    assert p.returncode == 0, (src, p.returncode, p.stderr)
    if not src.endswith(".so"):
        assert run(src, env) == run(out, env), src
    p = sh("readelf", "-lSW", out)
    assert p.returncode == 0 and p.stderr == "", (out, p.stderr)
    assert ".openbsd.syscalls" in p.stdout or "no sections" in p.stdout, out
    assert "LOOS+0x5a3dbe9" in p.stdout, out
    new = elflint(out) - elflint(src)
    assert all("unknown program header entry type 0x65a3dbe9" in l
               for l in new), (out, new)
    a, b = scan(src), scan(out)
    assert not a["pin_section"]["present"], src
    assert b["pin_section"]["used"], (out, b["pin_section"])
    assert b["pin_section"]["unmatched_entries"] == 0, out
    assert len(a["sites"]) == len(b["sites"]), out
    for x, y in zip(a["sites"], b["sites"]):
        assert x["addr"] == y["addr"], (x, y)
        if x["exact"]:
            assert y["how"] == "pin section", (out, y)
            assert x["numbers"] == y["numbers"], (out, x, y)
        else:
            assert partial and "not-pinned" in y["flags"], (out, y)
    return a, b


cases = [
    ("pie", ["-fPIE", "-pie"]),
    ("nopie", ["-fno-pie", "-no-pie"]),
    ("static", ["-fno-pie", "-static"]),
    ("static_pie", ["-fPIE", "-static-pie"]),
]
for name, flags in cases:
    src = build("in_" + name, PROG + LOCAL, *flags)
    a, b = check(src, os.path.join(work, "out_" + name))
    if "static" in name:
        assert len(b["sites"]) > 50, (name, len(b["sites"]))

# A shared object: refused while a site is not exact, then partial.
lib = build("libans.so", LIB, "-shared", "-fPIC")
out_dir = os.path.join(work, "emb")
os.makedirs(out_dir)
p = sh(syspin, "embed", lib, "-o", os.path.join(out_dir, "libans.so"))
assert p.returncode == 1, (p.returncode, p.stderr)
assert "1 site without exact numbers; nothing written" in p.stderr, p.stderr
assert "export" in p.stderr, p.stderr
assert not os.path.exists(os.path.join(out_dir, "libans.so"))
assert os.listdir(out_dir) == [], os.listdir(out_dir)  # no temp file left
a, b = check(lib, os.path.join(out_dir, "libans.so"), partial=True)
assert [s["how"] for s in b["sites"]] == ["pin section", "export"], b
prog = build("uses_lib", PROG, "-L" + work, "-lans")
env_in = dict(os.environ, LD_LIBRARY_PATH=work)
env_out = dict(os.environ, LD_LIBRARY_PATH=out_dir)
assert run(prog, env_in) == run(prog, env_out)
assert run(prog, env_out)[3] == "42\n"

# No section headers: the program header alone carries the table.  (Without
# symbols, analysis may leave a site unresolved: partial.)
noshdr = os.path.join(work, "in_noshdr")
assert sh(strip_shdrs, os.path.join(work, "in_static"),
          noshdr).returncode == 0
os.chmod(noshdr, 0o755)
check(noshdr, os.path.join(work, "out_noshdr"), partial=True)

# Refusals leave IN untouched and write nothing.
src = os.path.join(work, "in_pie")
before = digest(src)
for out in (src, os.path.join(work, ".", "in_pie")):
    p = sh(syspin, "embed", src, "-o", out)
    assert p.returncode == 2 and "overwrite the input" in p.stderr, p
assert digest(src) == before
p = sh(syspin, "embed", os.path.join(work, "out_pie"), "-o",
       os.path.join(work, "again"))
assert p.returncode == 2 and "already has a pin table" in p.stderr, p
assert not os.path.exists(os.path.join(work, "again"))
p = sh(syspin, "embed", os.path.join(work, "in_pie.c"), "-o",
       os.path.join(work, "notelf"))
assert p.returncode == 2 and not os.path.exists(os.path.join(work, "notelf"))
print("ok")
