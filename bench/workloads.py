#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""make bench, workloads: real work made of many execs, pinned (syspin run,
default mode, warm cache) against the same work unpinned and against the
ptrace floor (strace -f --seccomp-bpf stopping at every execve and mmap, as
syspin's filters stop a start-up), in interleaved triples; median and
spread of each ratio.  Also the supervisor's own CPU time per exec
(SYSPIN_PHASES: the time of each phase of pinning an image).

usage: workloads.py SYSPIN [NAME...]   (PAIRS=5 by default)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SYSPIN = os.path.abspath(sys.argv[1])
ONLY = sys.argv[2:]
PAIRS = int(os.environ.get("PAIRS", "5"))
HERE = os.path.dirname(os.path.abspath(__file__))
T = tempfile.mkdtemp(prefix="syspin-workloads.")
CACHE = os.path.join(T, "cache")
STRACE = shutil.which("strace")
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else \
    shutil.which("python3")


def sh(cmd, cwd):
    subprocess.run(cmd, shell=True, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def setup():
    """Inputs: objects for ar and nm, a git repository, the project."""
    w = os.path.join(T, "w")
    os.makedirs(w)
    for i in range(8):
        with open(os.path.join(w, "f%d.c" % i), "w") as f:
            f.write("int f%d(int x) { return x * %d + 1; }\n" % (i, i))
    sh("gcc -O2 -c f*.c", w)
    g = os.path.join(T, "git")
    os.makedirs(g)
    for i in range(300):
        with open(os.path.join(g, "file%03d.txt" % i), "w") as f:
            f.write("line %d\n" % i)
    sh("git init -q . && git add . && git -c user.name=b -c "
       "user.email=b@b commit -qm base && echo x >>file007.txt", g)
    p = os.path.join(T, "proj")
    shutil.copytree(os.path.join(HERE, "autoproj"), p)
    have_auto = shutil.which("autoreconf") is not None
    if have_auto:
        sh("autoreconf -i", p)
    return w, g, p, have_auto


def workloads(w, g, p, have_auto):
    loop = "for i in $(seq 300); do /bin/true; done"
    # a big tree: what an exec costs must not grow with the processes
    # beside it (make -j, a pipeline, a server's workers)
    crowd = ("p=; for i in $(seq 30); do sleep 30 & p=\"$p $!\"; done; "
             "for i in $(seq 200); do /bin/true; done; kill $p; wait")
    v = [
        ("exec loop: 300 x /bin/true", ["sh", "-c", loop], w, None),
        ("200 x /bin/true beside 30 sleepers", ["sh", "-c", crowd], w,
         None),
        ("ar rc x.a (8 objects)", ["sh", "-c", "rm -f x.a; ar rc x.a f*.o"],
         w, None),
        ("nm f0.o", ["nm", "f0.o"], w, None),
        ("gcc -c f0.c", ["gcc", "-O2", "-c", "f0.c", "-o", "g0.o"], w, None),
        ("perl -e 1", ["perl", "-e", "1"], w, None),
        ("python3 -c pass", [PY, "-c", "pass"], w, None),
        ("git status --short", ["git", "status", "--short"], g, None),
    ]
    if have_auto:
        v.append(("configure && make && make check",
                  ["sh", "-c", "./configure -q && make -s && make -s check"],
                  p, "git clean -qfdx >/dev/null 2>&1 || make -s distclean "
                  ">/dev/null 2>&1; true"))
    return v


def timed(argv, cwd, how):
    if how == "pinned":
        argv = [SYSPIN, "run", "--cache-dir", CACHE] + argv
    elif how == "floor":
        argv = [STRACE, "-f", "-qq", "--seccomp-bpf", "-e",
                "trace=execve,mmap", "-o", "/dev/null"] + argv
    s = time.monotonic()
    r = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    e = time.monotonic() - s
    if r.returncode != 0:
        raise RuntimeError("%s %s: status %d: %s" % (how, " ".join(argv),
                           r.returncode, r.stderr.decode()[-300:]))
    return e


def main():
    w, g, p, have_auto = setup()
    hows = ["bare", "pinned"] + (["floor"] if STRACE else [])
    print("workloads: real work pinned (syspin run, default mode, warm "
          "cache) against the same work")
    print("unpinned and the ptrace floor (strace -f --seccomp-bpf -e "
          "trace=execve,mmap); %d interleaved" % PAIRS)
    print("runs each, median (spread: lowest-highest ratio)")
    for name, argv, cwd, clean in workloads(w, g, p, have_auto):
        if ONLY and not any(o in name for o in ONLY):
            continue
        if p == cwd:
            # a project of its own for each run: a fresh clone
            shutil.rmtree(os.path.join(T, "proj"))
            shutil.copytree(os.path.join(HERE, "autoproj"), p)
            sh("autoreconf -i", p)
            sh("git init -q . && git add -A && git -c user.name=b -c "
               "user.email=b@b commit -qm base", p)
        t = {h: [] for h in hows}
        try:
            timed(argv, cwd, "pinned")          # the cache warm
            if clean:
                sh(clean, cwd)
            for _ in range(PAIRS):
                for h in hows:
                    t[h].append(timed(argv, cwd, h))
                    if clean:
                        sh(clean, cwd)
        except RuntimeError as e:
            print("  %-34s failed: %s" % (name, e))
            continue
        bare = statistics.median(t["bare"])
        r = [a / b for a, b in zip(t["pinned"], t["bare"])]
        line = "  %-34s %8.1f ms  pinned %5.2fx (%.2f-%.2f)" % (
            name, bare * 1000, statistics.median(r), min(r), max(r))
        if STRACE:
            f = [a / b for a, b in zip(t["pinned"], t["floor"])]
            fl = [a / b for a, b in zip(t["floor"], t["bare"])]
            line += "  floor %5.2fx  pinned/floor %5.2fx" % (
                statistics.median(fl), statistics.median(f))
        print(line)
    phases(w)
    shutil.rmtree(T, ignore_errors=True)


def phases(w):
    """Where an exec's cost goes: the supervisor's phases (SYSPIN_PHASES),
    per image of the exec loop, warm cache; the least of 3 runs."""
    if ONLY and not any(o in "phases" for o in ONLY):
        return
    best = None
    for _ in range(3):
        r = subprocess.run([SYSPIN, "run", "--cache-dir", CACHE, "sh", "-c",
                            "for i in $(seq 100); do /bin/true; done"],
                           cwd=w, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE,
                           env=dict(os.environ, SYSPIN_PHASES="1"))
        lines = [x[len("syspin: phases: "):] for x in
                 r.stderr.decode().splitlines()
                 if x.startswith("syspin: phases: ")]
        tot = [x for x in lines if x.strip().startswith("all ")]
        if not tot:
            continue
        v = float(tot[0].split()[1])
        if best is None or v < best[0]:
            best = (v, lines)
    if best is None:
        print("  phases: not printed (SYSPIN_PHASES)")
        return
    print("where an exec of /bin/true goes (the exec loop, 100 images; "
          "least of 3 runs):")
    for x in best[1]:
        print("  " + x)


if __name__ == "__main__":
    main()
