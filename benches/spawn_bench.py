#!/usr/bin/env python3
"""Times program starts with posix_spawn, stdin from a payload file, programs interleaved run by run.

Usage: benches/spawn_bench.py PAYLOAD RUNS [NAME=]PROGRAM[ ARGUMENT...][ <OTHER_PAYLOAD]...
(with CTXHOOKS_HOME set to a scratch folder; a program given `<FILE` reads FILE instead of
PAYLOAD). The programs run in turn, one round after another,
so that a change of load hits each alike; 20 warm-up rounds are not counted. Each time is wall
time from spawn to waitpid. Prints, per program, in milliseconds: min, p25, median, p75, p95 and
mean; then, for every program, its median against the median of each of the first two programs
(the baselines), and the median over the rounds of the per-round ratio (the same round's runs
divided, which cancels load that changes between rounds).
"""
import os, statistics, sys, time

payload, runs = sys.argv[1], int(sys.argv[2])
programs = []
for argument in sys.argv[3:]:
    # NAME=PROGRAM ARGUMENT...: the name is what comes before the first `=`; the program and its
    # arguments are split on spaces (the benches' paths have none).
    name, separator, command = argument.partition("=")
    if not separator:
        name, command = argument, argument
    words = command.split()
    own = [word[1:] for word in words if word.startswith("<")]
    programs.append((name, [word for word in words if not word.startswith("<")],
                     own[0] if own else payload))
env = dict(os.environ)


def spawn(argv, stdin):
    fd = os.open(stdin, os.O_RDONLY)
    start = time.perf_counter_ns()
    # stdout to /dev/null: a hook that answers (SessionStart after a compaction) must not flood
    # the terminal; the others print nothing anyway.
    pid = os.posix_spawn(argv[0], argv, env, file_actions=[
        (os.POSIX_SPAWN_DUP2, fd, 0),
        (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
    ])
    _, status = os.waitpid(pid, 0)
    elapsed = (time.perf_counter_ns() - start) / 1e6
    os.close(fd)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)} exited with {os.waitstatus_to_exitcode(status)}")
    return elapsed


for _ in range(20):
    for _, argv, stdin in programs:
        spawn(argv, stdin)
rounds = [[spawn(argv, stdin) for _, argv, stdin in programs] for _ in range(runs)]


def quantile(values, fraction):
    return values[min(len(values) - 1, int(len(values) * fraction))]


width = max(len(name) for name, _, _ in programs)
print(f"{'program':<{width}}  runs    min    p25 median    p75    p95   mean  (ms)")
medians = []
for index, (name, _, _) in enumerate(programs):
    times = sorted(round_[index] for round_ in rounds)
    medians.append(statistics.median(times))
    print(f"{name:<{width}}  {len(times):>4} {times[0]:6.3f} {quantile(times, 0.25):6.3f} "
          f"{medians[-1]:6.3f} {quantile(times, 0.75):6.3f} {quantile(times, 0.95):6.3f} "
          f"{statistics.mean(times):6.3f}")
baselines = programs[:2]
print()
for index, (name, _, _) in enumerate(programs[2:], start=2):
    for base, (base_name, _, _) in enumerate(baselines):
        paired = statistics.median(round_[index] / round_[base] for round_ in rounds)
        print(f"{name} / {base_name}: ratio of medians {medians[index] / medians[base]:.2f}, "
              f"median of per-round ratios {paired:.2f}")
