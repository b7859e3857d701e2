#!/usr/bin/env python3
"""Times program starts with posix_spawn, stdin from a payload file, programs interleaved run by run.

Usage: benches/spawn_bench.py PAYLOAD RUNS PROGRAM... (with CTXHOOKS_HOME set to a scratch folder).
Prints: program, runs, min, median, mean, p95 (milliseconds).
"""
import os, statistics, sys, time
payload, runs = sys.argv[1], int(sys.argv[2])
programs = sys.argv[3:]
env = dict(os.environ)
results = {p: [] for p in programs}
for _ in range(20):
    for p in programs:
        fd = os.open(payload, os.O_RDONLY)
        pid = os.posix_spawn(p, [p], env, file_actions=[(os.POSIX_SPAWN_DUP2, fd, 0)])
        os.waitpid(pid, 0); os.close(fd)
for _ in range(runs):
    for p in programs:
        fd = os.open(payload, os.O_RDONLY)
        start = time.perf_counter_ns()
        pid = os.posix_spawn(p, [p], env, file_actions=[(os.POSIX_SPAWN_DUP2, fd, 0)])
        os.waitpid(pid, 0)
        results[p].append((time.perf_counter_ns() - start) / 1e6)
        os.close(fd)
for p, times in results.items():
    times.sort()
    print(p, len(times), times[0], statistics.median(times), statistics.mean(times),
          times[int(len(times) * 0.95)])
