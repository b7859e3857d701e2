#!/usr/bin/env python3
"""Makes a projects folder of many small transcripts, for a warm search's cost per transcript
(BENCHMARKS.md, "Discovery sorts places, not sessions").

Usage: many-transcripts.py OUT [PROJECTS [SESSIONS]]   (defaults: 50 projects of 100 sessions)

OUT/projects/-home-dev-pNN/<uuid>.jsonl: six lines each (three prompts, three answers), a few
words apiece, seeded: the same folder every time. Then, for example:
  CTXHOOKS_HOME=<state> ctxhooks search --projects OUT/projects --limit 10 zebra17
once to build the index, and again (warm) beside `benches/floor.c`'s walk of the same folder."""
import json
import os
import random
import sys
import uuid

out = sys.argv[1]
projects = int(sys.argv[2]) if len(sys.argv) > 2 else 50
sessions = int(sys.argv[3]) if len(sys.argv) > 3 else 100
rng = random.Random(3)
for p in range(projects):
    folder = os.path.join(out, "projects", f"-home-dev-p{p:02d}")
    os.makedirs(folder, exist_ok=True)
    for s in range(sessions):
        session = str(uuid.UUID(int=rng.getrandbits(128)))
        with open(os.path.join(folder, session + ".jsonl"), "w", encoding="utf-8") as file:
            for m in range(6):
                kind = "user" if m % 2 == 0 else "assistant"
                text = (f"message {m} of session {s} in project {p} word{rng.randint(0, 99999)}"
                        if kind == "user" else f"answer {m} zebra{rng.randint(0, 9999)}")
                line = {"type": kind, "uuid": str(uuid.UUID(int=rng.getrandbits(128))),
                        "sessionId": session, "cwd": f"/home/dev/p{p:02d}",
                        "timestamp": f"2026-11-01T10:00:0{m}.000Z",
                        "message": {"role": kind, "content": text if kind == "user"
                                    else [{"type": "text", "text": text}]}}
                file.write(json.dumps(line) + "\n")
