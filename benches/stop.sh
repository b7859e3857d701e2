#!/usr/bin/env bash
# Benchmark: one Stop-hook run after one new turn must cost the same on a 1 MB and a 200 MB
# transcript (the hook seeks to its cursor and reads only the new bytes).
#
# For each size: build a transcript by repeating real fixture lines with unique ids, run the
# hook once to build the cursor and the kept copy, keep that cursor and the kept copy's lengths,
# then time runs that each start from that state with one new turn appended (hyperfine
# --prepare resets the transcript and the cursor, and cuts the kept copy's gzip file and index
# back to their lengths), and count instructions of one such run with callgrind (stable on a
# noisy machine). With BASELINE=<another ctxhooks-stop binary>, its instructions for the same
# prepared run are counted too (it writes no kept copy). The gauge file is reset with the cursor.
# Then the same runs on both sizes
# interleaved round by round; last, a Stop with nothing new, interleaved with empty C programs.
#
# Usage: benches/stop.sh [work folder]   (default: a fresh folder under /tmp)
# Needs: python3, hyperfine, valgrind, cc. Writes results to <work>/results.txt.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/ctxhooks-bench.XXXXXX)}"
mkdir -p "$work"
fixtures="$repo/tests/fixtures/transcripts"

# Where cargo puts its builds: CARGO_TARGET_DIR when set (made absolute, as cargo reads it
# against the folder it runs in), else the repository's target/.
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export CARGO_TARGET_DIR="$target_dir"
# Built as install/setup.sh builds it (statically linked on *-linux-gnu hosts).
hook="$("$repo/install/build-release.sh" --bin ctxhooks-stop)/ctxhooks-stop"

# generate <target bytes> <output>: fixture lines repeated, each copy with unique ids.
generate() {
    python3 - "$1" "$2" "$fixtures" <<'PY'
import json, sys
target, out, fixtures = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sources = [
    fixtures + "/entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
    fixtures + "/d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    fixtures + "/marot__spotter/tool_heavy.jsonl",
]
lines = [json.loads(l) for s in sources for l in open(s, encoding="utf-8") if l.strip()]
written, copy = 0, 0
with open(out, "w", encoding="utf-8") as f:
    while written < target:
        for record in lines:
            r = dict(record)
            if "uuid" in r: r["uuid"] = f"{r['uuid']}-{copy}"
            if "requestId" in r: r["requestId"] = f"{r['requestId']}-{copy}"
            if isinstance(r.get("message"), dict) and "id" in r["message"]:
                r["message"] = dict(r["message"]); r["message"]["id"] = f"{r['message']['id']}-{copy}"
            text = json.dumps(r, separators=(",", ":")) + "\n"
            f.write(text); written += len(text.encode())
            if written >= target: break
        copy += 1
PY
}

# One new turn: a tool result and a two-block response (same message id), ids never seen.
turn() {
    python3 - <<'PY'
import json
usage = {"input_tokens": 8, "cache_creation_input_tokens": 1200, "cache_read_input_tokens": 60000, "output_tokens": 90}
lines = [
    {"type": "user", "uuid": "bench-u1", "timestamp": "2030-01-01T00:00:00.000Z",
     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_bench", "content": "x" * 4000}]}},
    {"type": "assistant", "uuid": "bench-a1", "requestId": "req_bench", "timestamp": "2030-01-01T00:00:01.000Z",
     "message": {"id": "msg_bench", "model": "claude-bench", "content": [{"type": "thinking", "thinking": "…"}], "usage": usage}},
    {"type": "assistant", "uuid": "bench-a2", "requestId": "req_bench", "timestamp": "2030-01-01T00:00:02.000Z",
     "message": {"id": "msg_bench", "model": "claude-bench", "content": [{"type": "text", "text": "done"}], "usage": usage}},
]
print("\n".join(json.dumps(l) for l in lines))
PY
}

results="$work/results.txt"
: > "$results"
turn > "$work/turn.jsonl"
for size in 1000000 200000000; do
    dir="$work/$size"
    rm -rf "$dir"; mkdir -p "$dir"
    generate "$size" "$dir/transcript.jsonl"
    base=$(stat -c %s "$dir/transcript.jsonl")
    payload="{\"session_id\":\"bench\",\"transcript_path\":\"$dir/transcript.jsonl\",\"hook_event_name\":\"Stop\"}"
    echo "$payload" > "$dir/payload.json"
    # First run: reads everything and builds the cursor.
    start=$(date +%s.%N)
    CTXHOOKS_HOME="$dir/state" "$hook" < "$dir/payload.json"
    first=$(python3 -c "print(f'{$(date +%s.%N) - $start:.2f} s')")
    cp "$dir/state/sessions/bench/cursor.json" "$dir/cursor.base"
    # The gauge too (the hook rewrites it only when it changed: a timed run must find the
    # gauge of before the turn, as in a session); a baseline from before the gauge has none.
    gauge="$dir/state/sessions/bench/gauge.json"
    if [[ -f "$gauge" ]]; then cp "$gauge" "$dir/gauge.base"; else : > "$dir/gauge.base"; fi
    kept="$dir/state/sessions/bench/kept"
    gz_base=$(stat -c %s "$kept/transcript.jsonl.1.gz")
    index_base=$(stat -c %s "$kept/transcript.jsonl.1.index.jsonl")
    reset="truncate -s $base $dir/transcript.jsonl && cat $work/turn.jsonl >> $dir/transcript.jsonl && cp $dir/cursor.base $dir/state/sessions/bench/cursor.json && truncate -s $gz_base $kept/transcript.jsonl.1.gz && truncate -s $index_base $kept/transcript.jsonl.1.index.jsonl && { [ -s $dir/gauge.base ] && cp $dir/gauge.base $gauge || true; }"
    echo "$reset" > "$dir/reset.sh"
    hyperfine --warmup 3 --runs 60 --export-json "$dir/hyperfine.json" \
        --prepare "$reset" \
        "CTXHOOKS_HOME=$dir/state $hook < $dir/payload.json" >&2
    eval "$reset"
    CTXHOOKS_HOME="$dir/state" valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" \
        "$hook" < "$dir/payload.json" 2> "$dir/valgrind.txt"
    instructions=$(grep -oE 'Collected : [0-9]+' "$dir/valgrind.txt" | grep -oE '[0-9]+')
    members=$(($(wc -l < "$kept/transcript.jsonl.1.index.jsonl") - 1))
    stored=$(stat -c %s "$kept/transcript.jsonl.1.gz")
    baseline_note=""
    if [[ -n "${BASELINE:-}" ]]; then
        eval "$reset"
        CTXHOOKS_HOME="$dir/state" valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind-baseline.out" \
            "$BASELINE" < "$dir/payload.json" 2> "$dir/valgrind-baseline.txt"
        baseline_note="  baseline_instructions=$(grep -oE 'Collected : [0-9]+' "$dir/valgrind-baseline.txt" | grep -oE '[0-9]+')"
    fi
    mean=$(python3 -c "import json;r=json.load(open('$dir/hyperfine.json'))['results'][0];print(f\"{r['mean']*1000:.3f} ms ± {r['stddev']*1000:.3f} (median {r['median']*1000:.3f})\")")
    errors=$( [ -f "$dir/state/errors.log" ] && wc -l < "$dir/state/errors.log" || echo 0)
    rows=$(grep -c '"req_bench"' "$dir/state/sessions/bench/usage.jsonl" || true)
    echo "size=$base bytes  instructions=$instructions  time=$mean  first_full_run=$first  new_turn_rows_logged=$rows  errors_logged=$errors  kept_members=$members  kept_gz_bytes=$stored$baseline_note" | tee -a "$results"
done
python3 - "$results" <<'PY'
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("size=")]
ins = [int(re.search(r"instructions=(\d+)", l).group(1)) for l in rows]
med = [float(re.search(r"median ([\d.]+)", l).group(1)) for l in rows]
line = f"ratio 200MB/1MB: instructions {ins[1]/ins[0]:.3f}, median time {med[1]/med[0]:.3f}"
print(line)
open(sys.argv[1], "a").write(line + "\n")
PY

# The same new-turn run on both sizes, interleaved round by round (each run prepared by its
# size's reset, untimed), so that load changes hit both alike; wall time from posix_spawn to
# waitpid, as benches/spawn_bench.py measures.
python3 - "$hook" "$work" 300 <<'PY' | tee -a "$results"
import os, statistics, subprocess, sys, time
hook, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
sizes = ["1000000", "200000000"]
times = {size: [] for size in sizes}
for round_ in range(rounds + 5):
    # Alternate which size goes first, so that neither always follows the other.
    for size in sizes if round_ % 2 == 0 else sizes[::-1]:
        folder = f"{work}/{size}"
        subprocess.run(["sh", f"{folder}/reset.sh"], check=True)
        env = dict(os.environ, CTXHOOKS_HOME=f"{folder}/state")
        payload = os.open(f"{folder}/payload.json", os.O_RDONLY)
        start = time.perf_counter_ns()
        pid = os.posix_spawn(hook, [hook], env, file_actions=[(os.POSIX_SPAWN_DUP2, payload, 0)])
        _, status = os.waitpid(pid, 0)
        elapsed = (time.perf_counter_ns() - start) / 1e6
        os.close(payload)
        assert os.waitstatus_to_exitcode(status) == 0
        if round_ >= 5:
            times[size].append(elapsed)
small, large = times["1000000"], times["200000000"]
paired = statistics.median(b / a for a, b in zip(small, large))
print(f"interleaved, {rounds} rounds: median 1 MB {statistics.median(small):.3f} ms, "
      f"200 MB {statistics.median(large):.3f} ms; ratio of medians "
      f"{statistics.median(large) / statistics.median(small):.3f}, median of per-round ratios {paired:.3f}")
PY

# A Stop with nothing new (the turn above already read), beside empty C programs, interleaved
# (benches/spawn_bench.py): every run leaves the state as it found it.
dir="$work/1000000"
printf 'int main(void) { return 0; }\n' > "$work/empty.c"
cc -O2 -o "$work/empty-c-dynamic" "$work/empty.c"
cc -O2 -static -o "$work/empty-c-static" "$work/empty.c"
CTXHOOKS_HOME="$dir/state" "$hook" < "$dir/payload.json"
echo "== ctxhooks-stop with nothing new (1 MB transcript), 500 rounds" | tee -a "$results"
CTXHOOKS_HOME="$dir/state" python3 "$repo/benches/spawn_bench.py" "$dir/payload.json" 500 \
    "empty C, dynamic=$work/empty-c-dynamic" "empty C, static=$work/empty-c-static" \
    "ctxhooks-stop=$hook" | tee -a "$results"
CTXHOOKS_HOME="$dir/state" valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind-nothing-new.out" \
    "$hook" < "$dir/payload.json" 2> "$dir/valgrind-nothing-new.txt"
echo "nothing new: instructions=$(grep -oE 'Collected : [0-9]+' "$dir/valgrind-nothing-new.txt" | grep -oE '[0-9]+')" | tee -a "$results"
test ! -s "$dir/state/errors.log" || { echo "the hook logged errors" >&2; exit 1; }
echo "results in $results" >&2
