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
print("ok")
