#!/usr/bin/env python3
"""How small the kept copies are: replays real transcripts through the real Stop hook and
compares the kept gzip files' size with the transcripts'.

    benches/keep-ratio.py STOP_BINARY TRANSCRIPT_OR_FOLDER...

Each transcript is replayed three ways into a fresh state folder, running the hook after each
step: one step per turn (the transcript cut before each prompt a person typed, as the Stop hook
sees it after each answer), one step per 8 lines, and the whole file at once. It prints one row
per transcript and the totals, and checks that each kept copy decompresses (gzip, all members)
to the transcript byte for byte.
"""

import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

SESSION = "b0e5a0f0-0000-4000-8000-000000000001"
NOT_TRANSCRIPTS = {"requests.jsonl", "hooks.jsonl"}


def transcripts(arguments):
    for argument in arguments:
        if os.path.isdir(argument):
            for root, _, names in sorted(os.walk(argument)):
                for name in sorted(names):
                    # The captures keep what the model server and the hooks saw beside the
                    # transcripts; only transcripts are replayed.
                    if name.endswith(".jsonl") and name not in NOT_TRANSCRIPTS:
                        yield os.path.join(root, name)
        else:
            yield argument


def is_prompt(line):
    try:
        record = json.loads(line)
    except ValueError:
        return False
    message = record.get("message") or {}
    return (
        record.get("type") == "user"
        and not record.get("isMeta")
        and isinstance(message.get("content"), str)
    )


def steps(lines, how):
    if how == "whole":
        return [len(lines)]
    if how == "lines8":
        return list(range(8, len(lines), 8)) + [len(lines)]
    cuts = [index for index, line in enumerate(lines) if index > 0 and is_prompt(line)]
    return cuts + [len(lines)]


def replay(stop, data, how):
    lines = data.splitlines(keepends=True)
    work = tempfile.mkdtemp(prefix="keep-ratio-")
    try:
        transcript = os.path.join(work, SESSION + ".jsonl")
        state = os.path.join(work, "state")
        env = dict(os.environ, CTXHOOKS_HOME=state)
        payload = json.dumps(
            {"session_id": SESSION, "transcript_path": transcript, "hook_event_name": "Stop"}
        ).encode()
        runs = 0
        for end in steps(lines, how):
            with open(transcript, "wb") as file:
                file.write(b"".join(lines[:end]))
            subprocess.run([stop], input=payload, env=env, check=True)
            runs += 1
        kept = os.path.join(state, "sessions", SESSION, "kept", "transcript.jsonl.1.gz")
        with open(kept, "rb") as file:
            stored = file.read()
        if gzip.decompress(stored) != data:
            raise SystemExit(f"the kept copy of {how} does not decompress to the transcript")
        if os.path.exists(os.path.join(state, "errors.log")):
            raise SystemExit(open(os.path.join(state, "errors.log")).read())
        return len(stored), runs
    finally:
        shutil.rmtree(work)


def main():
    stop = sys.argv[1]
    totals = {"bytes": 0, "turn": 0, "lines8": 0, "whole": 0}
    print(f"{'transcript':<70} {'bytes':>9} {'turns':>5} {'per turn':>8} {'8 lines':>8} {'whole':>8}")
    for path in transcripts(sys.argv[2:]):
        with open(path, "rb") as file:
            data = file.read()
        if not data:
            continue
        sizes = {}
        turns = 0
        for how in ("turn", "lines8", "whole"):
            sizes[how], runs = replay(stop, data, how)
            if how == "turn":
                turns = runs
        totals["bytes"] += len(data)
        for how in sizes:
            totals[how] += sizes[how]
        name = path if len(path) <= 70 else "…" + path[-69:]
        print(
            f"{name:<70} {len(data):>9} {turns:>5} "
            + " ".join(f"{sizes[how] / len(data):>8.3f}" for how in ("turn", "lines8", "whole"))
        )
    print(
        f"{'total':<70} {totals['bytes']:>9} {'':>5} "
        + " ".join(f"{totals[how] / totals['bytes']:>8.3f}" for how in ("turn", "lines8", "whole"))
    )


if __name__ == "__main__":
    main()
