#!/usr/bin/env python3
"""Compare `ctxhooks usage --transcript F --json` of two builds on every transcript given.

Usage: scripts/compare-usage-rows.py OLD_CTXHOOKS NEW_CTXHOOKS DIR_OR_FILE...

Every `*.jsonl` and `*.jsonl.gz` under the folders (gzipped ones are decompressed into a temporary
folder first) is read by both builds. The rows must agree: the same count, in the same order, and
every field the old build wrote with the same value (the new build may add fields). Compaction
boundaries and skipped-line counts (when the old build prints them) must be equal too. Prints one line per transcript and a summary;
exits 1 on any mismatch.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile


def transcripts(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for folder, _, files in os.walk(path):
            for name in sorted(files):
                if name in ("hooks.jsonl", "requests.jsonl"):
                    continue  # the research captures' server and hook logs, not transcripts
                if name.endswith(".jsonl") or name.endswith(".jsonl.gz"):
                    yield os.path.join(folder, name)


def usage(binary, path):
    output = subprocess.run([binary, "usage", "--transcript", path, "--json"],
                            capture_output=True, check=True)
    return json.loads(output.stdout)


def main():
    old, new, *paths = sys.argv[1:]
    mismatches = rows_total = files = 0
    sums = {"old": [0, 0, 0, 0], "new": [0, 0, 0, 0]}
    fields = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"]
    with tempfile.TemporaryDirectory() as scratch:
        for path in transcripts(paths):
            readable = path
            if path.endswith(".gz"):
                # Keep the file name (agent-<id>.jsonl is read as a sub-agent's transcript).
                readable = os.path.join(scratch, str(files) + "-" + os.path.basename(path)[:-3])
                with gzip.open(path) as source, open(readable, "wb") as target:
                    target.write(source.read())
            files += 1
            before, after = usage(old, readable), usage(new, readable)
            problems = []
            if len(before["rows"]) != len(after["rows"]):
                problems.append(f"{len(before['rows'])} rows before, {len(after['rows'])} after")
            for index, (a, b) in enumerate(zip(before["rows"], after["rows"])):
                for key, value in a.items():
                    if b.get(key) != value:
                        problems.append(f"row {index + 1}: {key} {value!r} -> {b.get(key)!r}")
            for key in ("compactions", "micro_compactions", "skipped_lines"):
                if key not in before:
                    continue
                old_records, new_records = before[key], after.get(key) or []
                # As for rows: every field the old build wrote, with the same value (a newer
                # build may add fields, such as a boundary's `duration_ms`).
                if len(old_records) != len(new_records) or any(
                    new_record.get(field) != value
                    for old_record, new_record in zip(old_records, new_records)
                    for field, value in old_record.items()
                ):
                    problems.append(f"{key} differ")
            for name, log in (("old", before), ("new", after)):
                for position, field in enumerate(fields):
                    sums[name][position] += sum(row[field] for row in log["rows"])
            rows_total += len(before["rows"])
            mismatches += bool(problems)
            status = "MISMATCH " + "; ".join(problems[:5]) if problems else "same"
            print(f"{len(before['rows']):5} rows  {status}  {path}")
    print(f"{files} transcripts, {rows_total} rows, {mismatches} with a mismatch")
    print("token sums (input, cache write, cache read, output):", sums["old"], "old;", sums["new"], "new")
    sys.exit(1 if mismatches or sums["old"] != sums["new"] else 0)


if __name__ == "__main__":
    main()
