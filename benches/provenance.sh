#!/usr/bin/env bash
# Benchmark: peak memory (and time) of `ctxhooks provenance --json` and `ctxhooks ledger-input`
# on a ~500 MB transcript. Target: at most 100 MiB peak for each.
#
# The transcript repeats the lines of five real fixtures (three of them holding interrupt
# groups: rejections, markers) with uuid, parentUuid, requestId, message.id and every tool call's
# id made unique per copy and sessionId set to one session, then ends with the whole
# `marked-interrupt` SDK capture, whose trailing interrupt its runtime mark covers, so that
# ledger-input relabels it. The sidecar holds a PreToolUse and a PostToolUse line for every
# generated tool call (as a session with ctxhooks-tooluse installed would), then the capture's
# own two lines.
#
# Usage: benches/provenance.sh [work folder] [bytes]   (defaults: a fresh folder, 500000000)
# Set BASELINE=<path of another ctxhooks binary> to measure it too, on the same files.
# Needs: python3, GNU time (/usr/bin/time). Writes results to <work>/results.txt.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/ctxhooks-bench.XXXXXX)}"
size="${2:-500000000}"
mkdir -p "$work"
fixtures="$repo/tests/fixtures/transcripts"
sdk="$repo/tests/fixtures/sdk-0.3.332"

target_dir="${CARGO_TARGET_DIR:-$repo/target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export CARGO_TARGET_DIR="$target_dir"
cargo build --release --locked --bin ctxhooks --manifest-path "$repo/Cargo.toml" >&2
binary="$target_dir/release/ctxhooks"

transcript="$work/transcript.jsonl"
session=$(head -1 "$sdk/marked-interrupt/transcript.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionId"])')
state="$work/state"
mkdir -p "$state/sessions/$session"
python3 - "$size" "$transcript" "$state/sessions/$session/provenance.jsonl" "$fixtures" "$sdk" <<'PY'
import json, sys
from datetime import datetime
target, out_transcript, out_sidecar, fixtures, sdk = int(sys.argv[1]), *sys.argv[2:]
sources = [fixtures + path for path in [
    "/entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
    "/d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "/marot__spotter/tool_heavy.jsonl",
    "/marot__spotter/short.jsonl",
    "/entireio__cli/00/c9e2351016/3/full.jsonl",
]]
tail = sdk + "/marked-interrupt/transcript.jsonl"
session = json.loads(open(tail).readline())["sessionId"]
lines = [line for source in sources for line in open(source, encoding="utf-8") if line.strip()]
def unique(value, copy):
    return f"{value}-{copy}" if isinstance(value, str) else value
def ms(timestamp):
    return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)
written, copy = 0, 0
with open(out_transcript, "w", encoding="utf-8") as out, open(out_sidecar, "w", encoding="utf-8") as side:
    while written < target:
        for line in lines:
            record = json.loads(line)
            for key in ("uuid", "parentUuid", "requestId", "logicalParentUuid"):
                if key in record: record[key] = unique(record[key], copy)
            if "sessionId" in record: record["sessionId"] = session
            message = record.get("message")
            if isinstance(message, dict):
                if "id" in message: message["id"] = unique(message["id"], copy)
                for block in message.get("content") if isinstance(message.get("content"), list) else []:
                    if not isinstance(block, dict): continue
                    if block.get("type") == "tool_use" and "id" in block:
                        block["id"] = unique(block["id"], copy)
                        if record.get("timestamp"):
                            time = ms(record["timestamp"])
                            for event, name, delay in (("started", "PreToolUse", 0), ("completed", "PostToolUse", 900)):
                                side.write(json.dumps({"kind": "tool_event", "event": event, "hook_event_name": name,
                                    "time_ms": time + delay, "tool_use_id": block["id"], "tool_name": block.get("name"),
                                    "summary": "generated", "transcript_path": out_transcript}, separators=(",", ":")) + "\n")
                    if block.get("type") == "tool_result" and "tool_use_id" in block:
                        block["tool_use_id"] = unique(block["tool_use_id"], copy)
            text = json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"
            out.write(text); written += len(text.encode())
            if written >= target: break
        copy += 1
    side.write(open(sdk + "/marked-interrupt/provenance.jsonl").read())
with open(out_transcript, "ab") as out:
    out.write(open(tail, "rb").read())
PY

results="$work/results.txt"
: > "$results"
measure() { # measure <label> <binary>
    for command in "provenance --json" "ledger-input"; do
        name=$(echo "$command" | cut -d' ' -f1)
        CTXHOOKS_HOME="$state" /usr/bin/time -v "$2" $command --session "$session" \
            --transcript "$transcript" > "$work/$1.$name.out" 2> "$work/$1.$name.time"
        rss=$(grep -oP 'Maximum resident set size \(kbytes\): \K[0-9]+' "$work/$1.$name.time")
        elapsed=$(grep -oP 'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): \K.*' "$work/$1.$name.time")
        echo "$1 $command: peak RSS $((rss / 1024)) MiB ($rss KiB), wall $elapsed" | tee -a "$results"
    done
    # The ledger input is the transcript with one line fewer: the trailing group's two records
    # (rejection and marker, an attachment between them) became one system record in the first
    # one's place; every other line is the transcript's, byte for byte.
    python3 - "$transcript" "$work/$1.ledger-input.out" <<'PY' | tee -a "$results"
import sys
before = open(sys.argv[1], "rb").read().split(b"\n")
after = open(sys.argv[2], "rb").read().split(b"\n")
changed = [index for index, line in enumerate(after) if b'"subtype":"runtime_interrupt"' in line]
ok = len(after) == len(before) - 1 and len(changed) == 1
if ok:
    at = changed[0]
    rest_before, rest_after = before[at + 1:], after[at + 1:]
    other = next((index for index, line in enumerate(rest_after) if line != rest_before[index]), len(rest_after))
    ok = after[:at] == before[:at] and rest_after[other:] == rest_before[other + 1:]
print(f"  ledger-input: {len(before) - 1} lines in, {len(after) - 1} out, relabelled at line {changed[0] + 1 if changed else None}: {'ok' if ok else 'WRONG'}")
PY
}
echo "transcript: $(stat -c %s "$transcript") bytes, sidecar: $(stat -c %s "$state/sessions/$session/provenance.jsonl") bytes" | tee -a "$results"
measure current "$binary"
if [ -n "${BASELINE:-}" ]; then
    measure baseline "$BASELINE"
    for name in provenance ledger-input; do
        cmp -s "$work/current.$name.out" "$work/baseline.$name.out" \
            && echo "$name: output identical to the baseline's" | tee -a "$results" \
            || echo "$name: output DIFFERS from the baseline's" | tee -a "$results"
    done
fi
echo "results in $results" >&2
