#!/usr/bin/env bash
# Benchmark: `ctxhooks history --json` against `ccusage session --offline --json` on the same
# projects folder (default: ~300 MB of ~110 transcripts built by benches/history-corpus.py).
#
# 1. Build the release binary as install/setup.sh does.
# 2. Build the corpus (deterministic; reused when present).
# 3. Check the input-side totals (input, cache write, cache read) per session and in total:
#    ccusage names a 2.0.x flat sub-agent file as its own session (`agent-<id>`), ctxhooks counts
#    it in the session its lines name, so those are added to their session before comparing.
# 4. With --no-cache (every transcript read): hyperfine (-N, warm-up 2, 15 runs each, one command
#    after the other); then the two commands
#    interleaved round by round (ROUNDS, default 20: ctxhooks, ccusage, ctxhooks, ...; wall time
#    and the per-round ratio, which cancels load that changes between rounds); then one run of
#    each under /usr/bin/time -v for peak RSS, twice.
# 5. A repeated run with the cache (in a private state folder under the work folder).
# 6. With BASELINE=<an older ctxhooks binary>: that binary beside this one, side by side in one
#    hyperfine run, and both binaries' instruction counts (callgrind, which a shared machine's
#    load does not change) over two of the corpus's project folders.
#
# Usage: benches/history.sh [work folder] [bytes] [sessions]
# Needs: python3, hyperfine, GNU time, ccusage (CCUSAGE=..., default: the native binary that
# tests/e2e/install-tools.sh installs into .e2e/).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-/tmp/ctxhooks-history-bench}"
bytes="${2:-300000000}"
sessions="${3:-110}"
ccusage="${CCUSAGE:-$repo/.e2e/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage}"
mkdir -p "$work"
# npm installs the native binary without its execute bit; ccusage's own wrapper sets it on its
# first run.
if [ ! -x "$ccusage" ] && [ -x "$repo/.e2e/node_modules/.bin/ccusage" ]; then
    "$repo/.e2e/node_modules/.bin/ccusage" --version > /dev/null
fi

target_dir="${CARGO_TARGET_DIR:-$repo/target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
binary=$("$repo/install/build-release.sh" | tail -1)/ctxhooks
[ -x "$binary" ] || binary="$target_dir/release/ctxhooks"

corpus="$work/config"
# history's cache lives in the state folder: a private one, so the machine's is never touched.
export CTXHOOKS_HOME="$work/state"
rm -rf "$CTXHOOKS_HOME"
if [ ! -d "$corpus/projects" ]; then
    python3 "$repo/benches/history-corpus.py" "$corpus" "$bytes" "$sessions"
fi
echo "corpus: $(du -sb "$corpus/projects" | cut -f1) bytes, $(find "$corpus/projects" -name '*.jsonl' | wc -l) transcripts"
echo "ccusage: $("$ccusage" --version)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

"$binary" history --projects "$corpus/projects" --json --no-cache > "$work/history.json"
CLAUDE_CONFIG_DIR="$corpus" "$ccusage" session --offline --json > "$work/ccusage.json"
python3 - "$work/history.json" "$work/ccusage.json" <<'PY'
import json, os, sys
ours = json.load(open(sys.argv[1]))
theirs = {row["period"]: row for row in json.load(open(sys.argv[2]))["session"]}
fields = [("input_tokens", "inputTokens"), ("cache_creation_input_tokens", "cacheCreationTokens"),
          ("cache_read_input_tokens", "cacheReadTokens")]
mismatches, compared = 0, 0
for session in ours["sessions"]:
    expected = {ours_field: 0 for ours_field, _ in fields}
    names = {session["session_id"]}
    for transcript in session["transcripts"]:
        stem = os.path.basename(transcript["path"]).removesuffix(".jsonl")
        if stem.startswith("agent-") and os.path.basename(os.path.dirname(transcript["path"])) != "subagents":
            names.add(stem)
    for name in names:
        for ours_field, their_field in fields:
            expected[ours_field] += theirs.get(name, {}).get(their_field, 0)
    got = {field: session["totals"][field] for field, _ in fields}
    compared += 1
    if got != expected:
        mismatches += 1
        print("DIFFERS", session["session_id"], got, expected)
total_ours = {field: ours["totals"]["totals"][field] for field, _ in fields}
total_theirs = {ours_field: sum(row[their_field] for row in theirs.values()) for ours_field, their_field in fields}
print(f"input-side totals: {compared} sessions compared, {mismatches} differ; "
      f"total ctxhooks {total_ours} ccusage {total_theirs}: {'same' if total_ours == total_theirs else 'DIFFERENT'}")
print(f"requests: ctxhooks {ours['totals']['requests']}, compactions {ours['totals']['compactions']}")
sys.exit(1 if mismatches or total_ours != total_theirs else 0)
PY

CLAUDE_CONFIG_DIR="$corpus" hyperfine -N --warmup 2 --runs 15 \
    --export-json "$work/hyperfine.json" \
    "$binary history --projects $corpus/projects --json --no-cache" \
    "$ccusage session --offline --json" | tee "$work/hyperfine.txt"

python3 - "${ROUNDS:-20}" "$corpus" "$binary" "$ccusage" <<'PY' | tee "$work/interleaved.txt"
import os, statistics, subprocess, sys, time
rounds, corpus, binary, ccusage = int(sys.argv[1]), *sys.argv[2:]
commands = {"ctxhooks": [binary, "history", "--projects", f"{corpus}/projects", "--json", "--no-cache"],
            "ccusage": [ccusage, "session", "--offline", "--json"]}
env = dict(os.environ, CLAUDE_CONFIG_DIR=corpus)
def timed(command):
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start
for command in commands.values():
    timed(command)
times = {name: [] for name in commands}
for _ in range(rounds):
    for name, command in commands.items():
        times[name].append(timed(command))
for name, values in times.items():
    values = sorted(values)
    print(f"interleaved {name}: {len(values)} runs, min {values[0]:.3f} s, median {statistics.median(values):.3f} s, max {values[-1]:.3f} s")
ratios = [theirs / ours for ours, theirs in zip(times["ctxhooks"], times["ccusage"])]
print(f"interleaved: ccusage / ctxhooks, ratio of medians {statistics.median(times['ccusage']) / statistics.median(times['ctxhooks']):.2f}, "
      f"median of per-round ratios {statistics.median(ratios):.2f}, best round {max(ratios):.2f}")
PY

for round in 1 2; do
    for tool in ctxhooks ccusage; do
        if [ "$tool" = ctxhooks ]; then
            command=("$binary" history --projects "$corpus/projects" --json --no-cache)
        else
            command=("$ccusage" session --offline --json)
        fi
        CLAUDE_CONFIG_DIR="$corpus" /usr/bin/time -v "${command[@]}" > /dev/null 2> "$work/$tool.time"
        rss=$(grep -oP 'Maximum resident set size \(kbytes\): \K[0-9]+' "$work/$tool.time")
        wall=$(grep -oP 'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): \K.*' "$work/$tool.time")
        user=$(grep -oP 'User time \(seconds\): \K.*' "$work/$tool.time")
        system=$(grep -oP 'System time \(seconds\): \K.*' "$work/$tool.time")
        echo "round $round $tool: peak RSS $((rss / 1024)) MiB ($rss KiB), wall $wall, user $user s, system $system s"
    done
done

# A repeated run: the cache of the run before serves every unchanged transcript.
"$binary" history --projects "$corpus/projects" --json > /dev/null
CLAUDE_CONFIG_DIR="$corpus" hyperfine -N --warmup 1 --runs 15 \
    "$binary history --projects $corpus/projects --json" \
    "$ccusage session --offline --json" | tee "$work/hyperfine-cached.txt"
echo "cache: $(du -sb "$CTXHOOKS_HOME/history-cache" | cut -f1) bytes in $(find "$CTXHOOKS_HOME/history-cache" -type f | wc -l) files"

if [ -n "${BASELINE:-}" ]; then
    hyperfine -N --warmup 2 --runs 20 \
        "$BASELINE history --projects $corpus/projects --json --no-cache" \
        "$binary history --projects $corpus/projects --json --no-cache" | tee "$work/hyperfine-baseline.txt"
    subset="$work/subset/projects"
    if [ ! -d "$subset" ]; then
        mkdir -p "$subset"
        for project in $(ls "$corpus/projects" | sort | head -n 2); do
            cp -r "$corpus/projects/$project" "$subset/"
        done
    fi
    echo "subset: $(du -sb "$subset" | cut -f1) bytes in $(find "$subset" -name '*.jsonl' | wc -l) transcripts"
    for build in "$BASELINE" "$binary"; do
        valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
            "$build" history --projects "$subset" --json --no-cache > /dev/null 2> "$work/callgrind.err"
        echo "instructions: $(grep -oP 'Collected : \K[0-9]+' "$work/callgrind.err") $build"
    done | tee "$work/instructions.txt"
fi
