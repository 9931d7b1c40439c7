#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""elf32.py OUT MARK: a static 32-bit (i386) program that switches to
64-bit mode (a far jump to the kernel's 64-bit code segment) and makes the
directory MARK with the x86-64 `syscall`, then exits 3.  Only the first
image's filter judges it there, and its own memory is no image's: syspin
must not let such a program run pinned."""
import struct
import sys

out, mark = sys.argv[1], sys.argv[2].encode() + b"\0"
BASE, EHSZ, PHSZ = 0x08048000, 52, 32
entry = BASE + EHSZ + PHSZ
code64 = entry + 7                      # after the far jump
far = b"\xea" + struct.pack("<IH", code64, 0x33)   # ljmp 0x33:code64
body = (b"\xb8\x53\x00\x00\x00"         # mov eax, 83 (mkdir)
        + b"\x48\x8d\x3d" + struct.pack("<i", 5 + 2 + 5 + 5 + 2)
        + b"\xbe\xed\x01\x00\x00"       # mov esi, 0755
        + b"\x0f\x05"                   # syscall
        + b"\xb8\x3c\x00\x00\x00"       # mov eax, 60 (exit)
        + b"\xbf\x03\x00\x00\x00"       # mov edi, 3
        + b"\x0f\x05")                  # syscall
code = far + body + mark
size = EHSZ + PHSZ + len(code)
ehdr = (b"\x7fELF" + bytes([1, 1, 1, 0]) + bytes(8)
        + struct.pack("<HHIIIIIHHHHHH", 2, 3, 1, entry, EHSZ, 0, 0, EHSZ,
                      PHSZ, 1, 0, 0, 0))
phdr = struct.pack("<IIIIIIII", 1, 0, BASE, BASE, size, size, 5, 0x1000)
with open(out, "wb") as f:
    f.write(ehdr + phdr + code)
