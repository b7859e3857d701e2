#!/usr/bin/env python3
"""Makes a state folder of COUNT sessions the way the hooks make it, for benches/sessions.sh.

Usage: sessions-corpus.py OUT COUNT BIN_DIR. OUT/home/.claude/projects gets COUNT transcripts of
real fixture lines (sizes spread from 10 kB to 1 MB, in 20 project folders), each kept by one
run of BIN_DIR/ctxhooks-stop into OUT/state, every tenth snapshotted by ctxhooks-precompact; then
a fifth of the transcripts are deleted (as Claude Code's cleanup would) and the others'
modification times spread over the last 40 days.
"""
import json
import os
import random
import subprocess
import sys
import time

out, count, bin_dir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                        "transcripts")
projects = os.path.join(out, "home", ".claude", "projects")
environment = dict(os.environ, CTXHOOKS_HOME=os.path.join(out, "state"))
lines = []
for folder, _, names in sorted(os.walk(fixtures)):
    for name in sorted(names):
        if name.endswith(".jsonl") and "/subagents" not in folder:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                lines += [line for line in f.read().splitlines() if line.strip()]
rng = random.Random(20)
total = 0
now = time.time()


def run(binary, payload):
    subprocess.run([os.path.join(bin_dir, binary)], input=json.dumps(payload).encode(),
                   stdout=subprocess.DEVNULL, env=environment, check=True)


for i in range(count):
    session = f"{i:08x}-0000-4000-8000-{rng.getrandbits(48):012x}"
    folder = os.path.join(projects, f"-bench-project-{i % 20}")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, session + ".jsonl")
    size = int(10_000 * (100 ** rng.random()))
    start = rng.randrange(len(lines))
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < size:
            line = lines[(start + written) % len(lines)]
            f.write(line + "\n")
            written += len(line) + 1
    total += written
    run("ctxhooks-stop", {"session_id": session, "transcript_path": path,
                          "hook_event_name": "Stop", "cwd": f"/work/bench-{i % 20}"})
    if i % 10 == 0:
        run("ctxhooks-precompact", {"session_id": session, "transcript_path": path,
                                    "hook_event_name": "PreCompact", "trigger": "manual",
                                    "custom_instructions": None})
    if i % 5 == 0:
        os.remove(path)
    else:
        age = rng.random() * 40 * 86400
        os.utime(path, (now - age, now - age))
print(f"{count} transcripts, {total:,} bytes")
