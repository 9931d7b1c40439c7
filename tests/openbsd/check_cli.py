#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""syspin scan --openbsd on the conformance fixtures, text and JSON.

usage: check_cli.py SYSPIN BUILDDIR
"""
import json
import subprocess
import sys

syspin, d = sys.argv[1], sys.argv[2]


def run(*args):
    p = subprocess.run([syspin, "scan", "--openbsd", *args],
                       capture_output=True, text=True)
    assert p.returncode == 0, (args, p.returncode, p.stderr)
    return p.stdout


def objects(text):
    dec, i, out = json.JSONDecoder(), 0, []
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        o, i = dec.raw_decode(text, i)
        out.append(o)
    return out


dup, past, none = objects(run("--json", f"{d}/fx_dup", f"{d}/fx_past",
                              f"{d}/fx_none"))
assert dup["valid"] and dup["npins"] == 40, dup
assert dup["region"] == {"start": "0x401000", "end": "0x401040"}, dup
assert dup["pins"] == [
    {"nr": 1, "name": "write", "pin": 0x30, "addr": "0x401030"},
    {"nr": 39, "name": "getpid", "pin": -1, "addr": None},
], dup["pins"]
assert past["present"] and not past["valid"] and past["pins"] == [], past
assert past["reason"] == ("entry 1: offset 0x401041 is past the end of the "
                          "text region (0x401040)"), past
assert not none["present"] and none["reason"] is None, none

text = run(f"{d}/fx_valid")
assert "npins 232" in text, text
assert "39 getpid                 0x10 (0x401010)" in text, text
text = run(f"{d}/fx_odd")
assert "reason: table size 12 is not a multiple of 8" in text, text

# Number 0 (read on Linux): the Linux table pins it, OpenBSD's verdict is a
# note, not the verdict.
text = run(f"{d}/fx_sysno0")
assert "npins 40" in text, text
assert "   0 read                   0x20 (0x401020)" in text, text
assert ("note: OpenBSD would reject this table (entry 1: number 0 is not a "
        "system call); syspin accepts number 0, read(2) on Linux") in text, text
(z,) = objects(run("--json", f"{d}/fx_sysno0"))
assert z["valid"] and not z["openbsd_valid"], z
assert z["openbsd_reason"] == "entry 1: number 0 is not a system call", z
assert z["pins"][0] == {"nr": 0, "name": "read", "pin": 0x20,
                        "addr": "0x401020"}, z
assert dup["openbsd_valid"] and dup["openbsd_reason"] is None, dup
print("ok")
