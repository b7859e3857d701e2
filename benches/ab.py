#!/usr/bin/env python3
"""Two commands timed side by side, as BENCHMARKS.md's paired rows are.

Usage: python3 benches/ab.py RUNS [--recache] -- [VAR=value ...] A... -- [VAR=value ...] B...

Runs each once to warm up, then RUNS rounds of both, in the order A B, B A, A B, ... (so that a
drift of the machine's load meets both alike), their output thrown away, and prints the medians
of the wall clock and of each process's CPU (user + system, from getrusage) and B over A. The
leading VAR=value words set that command's environment (for example a CTXHOOKS_HOME of its own).

Beside benches/spawn_bench.py, which the hook benches use: that one feeds every program the same
payload on stdin under one environment and gives the wall clock's spread and per-round ratios;
this one gives each command its own environment (two builds, each with its own index) and the
CPU as well as the wall clock, which is what the search's A/B rows in BENCHMARKS.md compare.

--recache first drops both programs' files from the page cache and reads each back whole, in
the order A, B: how a binary came into the page cache (written by the linker or a copy, read
back, partly evicted) moved a program's time by 5 to 10 % here, more than the changes compared
(BENCHMARKS.md, issue 32), so a pair should start from binaries cached alike.
"""
import os, resource, shutil, statistics, subprocess, sys, time

def parse(args):
    env = dict(os.environ)
    while args and "=" in args[0] and not args[0].startswith("/"):
        k, v = args[0].split("=", 1); env[k] = v; args = args[1:]
    return env, args

def run(env, cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu

def recache(program):
    path = shutil.which(program) or program
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        while os.read(fd, 1 << 20):
            pass
    finally:
        os.close(fd)

def main():
    runs = int(sys.argv[1]); rest = sys.argv[2:]
    again = rest[0] == "--recache"
    if again:
        rest = rest[1:]
    assert rest[0] == "--"; rest = rest[1:]
    i = rest.index("--")
    a = parse(rest[:i]); b = parse(rest[i + 1:])
    if again:
        for _, cmd in (a, b):
            recache(cmd[0])
    for c in (a, b):
        run(*c)  # warm
    res = {"A": ([], []), "B": ([], [])}
    for k in range(runs):
        order = [("A", a), ("B", b)] if k % 2 == 0 else [("B", b), ("A", a)]
        for name, c in order:
            w, u = run(*c); res[name][0].append(w); res[name][1].append(u)
    med = {n: (statistics.median(w) * 1000, statistics.median(u) * 1000) for n, (w, u) in res.items()}
    for n in "AB":
        print(f"{n}: wall {med[n][0]:.3f} ms  cpu {med[n][1]:.3f} ms")
    print(f"B/A: wall {med['B'][0]/med['A'][0]:.3f}  cpu {med['B'][1]/med['A'][1]:.3f}")

main()
