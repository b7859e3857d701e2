#!/usr/bin/env bash
# Benchmark: the cursor file must not grow with every transcript ever read. 400 SubagentStops,
# each for its own agent transcript of 30 requests, then time one Stop whose main transcript
# gained nothing (it still loads and saves cursor.json), with hyperfine and callgrind.
#
# Usage: benches/stop-cursor.sh [work folder]   (default: a fresh folder under /tmp)
# Needs: python3, hyperfine, valgrind. Writes results to <work>/results.txt.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/ctxhooks-bench-cursor.XXXXXX)}"
mkdir -p "$work"
# Where cargo puts its builds: CARGO_TARGET_DIR when set (made absolute, as cargo reads it
# against the folder it runs in), else the repository's target/.
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export CARGO_TARGET_DIR="$target_dir"
# Built as install/setup.sh builds it (statically linked on *-linux-gnu hosts).
hook="$("$repo/install/build-release.sh" --bin ctxhooks-stop)/ctxhooks-stop"

agents=${AGENTS:-400}
rows=${ROWS:-30}
python3 - "$work" "$agents" "$rows" <<'PY'
import json, os, sys
work, agents, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(f"{work}/agents", exist_ok=True)
def request(prefix, n, sidechain):
    usage = {"input_tokens": 5, "cache_creation_input_tokens": 300 + n,
             "cache_read_input_tokens": 20000 + 100 * n, "output_tokens": 40}
    return {"type": "assistant", "uuid": f"{prefix}-u{n}", "requestId": f"req_{prefix}_{n}",
            "isSidechain": sidechain, "timestamp": "2030-01-01T00:00:00.000Z",
            "message": {"id": f"msg_{prefix}_{n}", "model": "claude-bench",
                        "content": [{"type": "text", "text": "ok"}], "usage": usage}}
with open(f"{work}/main.jsonl", "w") as f:
    for n in range(rows):
        f.write(json.dumps(request("main", n, False)) + "\n")
for a in range(agents):
    with open(f"{work}/agents/agent-a{a}.jsonl", "w") as f:
        for n in range(rows):
            f.write(json.dumps(request(f"a{a}", n, True)) + "\n")
    with open(f"{work}/agents/payload-{a}.json", "w") as f:
        json.dump({"session_id": "bench", "transcript_path": f"{work}/main.jsonl",
                   "hook_event_name": "SubagentStop", "agent_id": f"a{a}",
                   "agent_transcript_path": f"{work}/agents/agent-a{a}.jsonl"}, f)
json.dump({"session_id": "bench", "transcript_path": f"{work}/main.jsonl",
           "hook_event_name": "Stop"}, open(f"{work}/stop.json", "w"))
PY

measure() { # <label> <state>
    local label=$1 state=$2
    hyperfine --warmup 3 --runs 40 --export-json "$work/hyperfine-$label.json" \
        "CTXHOOKS_HOME=$state $hook < $work/stop.json" >&2
    CTXHOOKS_HOME="$state" valgrind --tool=callgrind --callgrind-out-file="$work/callgrind-$label.out" \
        "$hook" < "$work/stop.json" 2> "$work/valgrind-$label.txt"
    local instructions median size
    instructions=$(grep -oE 'Collected : [0-9]+' "$work/valgrind-$label.txt" | grep -oE '[0-9]+')
    median=$(python3 -c "import json;r=json.load(open('$work/hyperfine-$label.json'))['results'][0];print(f\"{r['median']*1000:.2f} ms\")")
    size=$(stat -c %s "$state/sessions/bench/cursor.json")
    echo "$label: instructions=$instructions median=$median cursor.json=$size bytes" | tee -a "$work/results.txt"
}

: > "$work/results.txt"
rm -rf "$work/fresh" "$work/after"
CTXHOOKS_HOME="$work/fresh" "$hook" < "$work/stop.json"
measure "fresh (main transcript only)" "$work/fresh"
CTXHOOKS_HOME="$work/after" "$hook" < "$work/stop.json"
for ((a = 0; a < agents; a++)); do
    CTXHOOKS_HOME="$work/after" "$hook" < "$work/agents/payload-$a.json"
done
measure "after $agents SubagentStops of $rows rows" "$work/after"
test ! -s "$work/after/errors.log" || { echo "the hook logged errors:" >&2; cat "$work/after/errors.log" >&2; exit 1; }
echo "results in $work/results.txt" >&2
