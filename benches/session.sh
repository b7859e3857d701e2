#!/usr/bin/env bash
# Benchmark: `ctxhooks-session` on SessionStart, which runs at every start, resume and clear,
# must cost about a process start. Two payloads: `source: "startup"` (it parses the payload and
# prints nothing), and `source: "compact"` (it keeps what the transcript gained since the last
# run, here nothing of a kept 1 MB transcript, and prints the note), each interleaved with empty
# C programs (dynamically and statically linked: the baselines) by benches/spawn_bench.py
# (posix_spawn, stdin from the payload file, programs in turn round after round); then one
# callgrind run each.
# Usage: benches/session.sh [RUNS] (default 1000). Needs cc (with the static libc), python3,
# optionally valgrind.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v cc >/dev/null || { echo "needs a C compiler (cc)" >&2; exit 1; }
runs=${1:-1000}
release_dir=$(install/build-release.sh --bin ctxhooks-session --bin ctxhooks-stop --bin ctxhooks-tooluse)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'int main(void) { return 0; }\n' >"$work/empty.c"
cc -O2 -o "$work/empty-c-dynamic" "$work/empty.c"
cc -O2 -static -o "$work/empty-c-static" "$work/empty.c"

session=0123abcd-0000-4000-8000-000000000000
transcript="$work/$session.jsonl"
# A 1 MB transcript of real fixture lines, kept by one Stop run before the timed runs.
python3 - "$transcript" "$root/tests/fixtures/transcripts" <<'PY'
import sys
out, fixtures = sys.argv[1], sys.argv[2]
lines = [l for s in [fixtures + "/entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
                     fixtures + "/marot__spotter/tool_heavy.jsonl"]
         for l in open(s, encoding="utf-8").read().splitlines() if l.strip()]
written = 0
with open(out, "w", encoding="utf-8") as f:
    while written < 1_000_000:
        for line in lines:
            f.write(line + "\n"); written += len(line) + 1
PY
for source in startup compact; do
  cat >"$work/start-$source.json" <<JSON
{"session_id":"$session","transcript_path":"$transcript","cwd":"$work","hook_event_name":"SessionStart","source":"$source","model":"claude-sonnet-4-5"}
JSON
done
cat >"$work/stop.json" <<JSON
{"session_id":"$session","transcript_path":"$transcript","cwd":"$work","hook_event_name":"Stop"}
JSON
CTXHOOKS_HOME="$work/state" "$release_dir/ctxhooks-stop" <"$work/stop.json"
CTXHOOKS_HOME="$work/state" "$release_dir/ctxhooks-session" <"$work/start-compact.json" >"$work/note.json"
echo "== the note after a compaction ($(wc -c <"$work/note.json") bytes):"
cat "$work/note.json"; echo

programs=(
  "empty C, dynamic=$work/empty-c-dynamic"
  "empty C, static=$work/empty-c-static"
  "ctxhooks-session=$release_dir/ctxhooks-session"
)
for source in startup compact; do
  echo "== SessionStart, source $source, $runs rounds"
  CTXHOOKS_HOME="$work/state" python3 benches/spawn_bench.py "$work/start-$source.json" "$runs" \
    "${programs[@]}"
done
test ! -s "$work/state/errors.log" || { cat "$work/state/errors.log" >&2; echo "the hook logged errors" >&2; exit 1; }

echo "== callgrind instructions, one run each"
if command -v valgrind >/dev/null; then
  for name in empty-c-dynamic empty-c-static; do
    count=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/$name" \
      <"$work/start-startup.json" 2>&1 | grep -oE 'Collected : [0-9]+' | grep -oE '[0-9]+')
    echo "$name: $count"
  done
  for source in startup compact; do
    count=$(CTXHOOKS_HOME="$work/state" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$release_dir/ctxhooks-session" <"$work/start-$source.json" 2>&1 >/dev/null |
      grep -oE 'Collected : [0-9]+' | grep -oE '[0-9]+')
    echo "ctxhooks-session, SessionStart $source: $count"
  done
else
  echo "(valgrind not installed: skipped)"
fi
