#!/usr/bin/env bash
# Benchmark: `ctxhooks-session` on SessionStart, which runs at every start, resume and clear,
# must cost about a process start. Two payloads: `source: "startup"` (it parses the payload and
# prints nothing), and `source: "compact"` (it keeps what the transcript gained since the last
# run, here nothing of a kept 1 MB transcript, and prints the note), each interleaved with empty
# C programs (dynamically and statically linked: the baselines) by benches/spawn_bench.py
# (posix_spawn, stdin from the payload file, programs in turn round after round); then one
# callgrind run each. The `compact` round also runs a second session whose PreCompact recorded a
# full segment (16 files edited, 16 read, 16 failed commands, 16 prompts) and whose transcript
# ends with the compaction's boundary and summary: its note carries the list of what the summary
# left out, and the difference between the two is what the list adds to SessionStart.
# Usage: benches/session.sh [RUNS] (default 1000). Needs cc (with the static libc), python3,
# optionally valgrind.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v cc >/dev/null || { echo "needs a C compiler (cc)" >&2; exit 1; }
runs=${1:-1000}
release_dir=$(install/build-release.sh --bin ctxhooks-session --bin ctxhooks-stop \
  --bin ctxhooks-tooluse --bin ctxhooks-precompact)

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

# The second session: the same 1 MB, then a segment of 64 items, PreCompact, the compaction.
listed=0123abcd-0000-4000-8000-00000000115d
listed_transcript="$work/$listed.jsonl"
cp "$transcript" "$listed_transcript"
python3 - "$listed_transcript" <<'PY'
import json, sys
lines = []
for n in range(16):
    lines.append({"type": "user", "uuid": f"p{n}", "message": {"role": "user",
        "content": f"prompt number {n} about the parser and its tests"}})
    lines.append({"type": "assistant", "uuid": f"a{n}", "message": {"id": f"m{n}",
        "role": "assistant", "content": [
        {"type": "tool_use", "id": f"e{n}", "name": "Edit", "input": {
            "file_path": f"/work/project/src/module_{n}/file_{n}.rs", "old_string": "a",
            "new_string": "b"}},
        {"type": "tool_use", "id": f"r{n}", "name": "Read", "input": {
            "file_path": f"/work/project/docs/page_{n}.md"}},
        {"type": "tool_use", "id": f"b{n}", "name": "Bash", "input": {
            "command": f"cargo test --package crate_{n} -- --exact test_{n}"}}]}})
    lines.append({"type": "user", "uuid": f"u{n}", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": f"e{n}", "content": "updated"},
        {"type": "tool_result", "tool_use_id": f"r{n}", "content": "text"},
        {"type": "tool_result", "tool_use_id": f"b{n}", "is_error": True,
         "content": f"Exit code 101\ntest {n} failed"}]}})
lines.append({"type": "system", "subtype": "compact_boundary", "uuid": "bench-boundary",
    "compactMetadata": {"trigger": "manual", "preTokens": 90000,
                        "preservedMessages": {"uuids": ["u15"]}}})
lines.append({"type": "user", "isCompactSummary": True, "uuid": "bench-summary",
    "message": {"role": "user", "content": "Summary:\nWe changed file_3.rs and ran cargo test."}})
with open(sys.argv[1], "a", encoding="utf-8") as f:
    for line in lines[:-2]:
        f.write(json.dumps(line) + "\n")
with open(sys.argv[1] + ".compaction", "w", encoding="utf-8") as f:
    for line in lines[-2:]:
        f.write(json.dumps(line) + "\n")
PY
cat >"$work/precompact-listed.json" <<JSON
{"session_id":"$listed","transcript_path":"$listed_transcript","cwd":"/work/project","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":null}
JSON
cat >"$work/start-compact-listed.json" <<JSON
{"session_id":"$listed","transcript_path":"$listed_transcript","cwd":"/work/project","hook_event_name":"SessionStart","source":"compact","model":"claude-sonnet-4-5"}
JSON
CTXHOOKS_HOME="$work/state" "$release_dir/ctxhooks-precompact" <"$work/precompact-listed.json"
cat "$listed_transcript.compaction" >>"$listed_transcript"
CTXHOOKS_HOME="$work/state" "$release_dir/ctxhooks-session" <"$work/start-compact-listed.json" \
  >"$work/note-listed.json"
echo "== the note with its list ($(wc -c <"$work/note-listed.json") bytes of JSON):"
python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hookSpecificOutput"]["additionalContext"])' \
  "$work/note-listed.json"

programs=(
  "empty C, dynamic=$work/empty-c-dynamic"
  "empty C, static=$work/empty-c-static"
  "ctxhooks-session=$release_dir/ctxhooks-session"
)
echo "== SessionStart, source startup, $runs rounds"
CTXHOOKS_HOME="$work/state" python3 benches/spawn_bench.py "$work/start-startup.json" "$runs" \
  "${programs[@]}"
echo "== SessionStart, source compact, $runs rounds: the note alone, and with its list"
CTXHOOKS_HOME="$work/state" python3 benches/spawn_bench.py "$work/start-compact.json" "$runs" \
  "${programs[@]}" \
  "ctxhooks-session with the list=$release_dir/ctxhooks-session <$work/start-compact-listed.json"
test ! -s "$work/state/errors.log" || { cat "$work/state/errors.log" >&2; echo "the hook logged errors" >&2; exit 1; }

echo "== callgrind instructions, one run each"
if command -v valgrind >/dev/null; then
  for name in empty-c-dynamic empty-c-static; do
    count=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/$name" \
      <"$work/start-startup.json" 2>&1 | grep -oE 'Collected : [0-9]+' | grep -oE '[0-9]+')
    echo "$name: $count"
  done
  for source in startup compact compact-listed; do
    count=$(CTXHOOKS_HOME="$work/state" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$release_dir/ctxhooks-session" <"$work/start-$source.json" 2>&1 >/dev/null |
      grep -oE 'Collected : [0-9]+' | grep -oE '[0-9]+')
    echo "ctxhooks-session, SessionStart $source: $count"
  done
else
  echo "(valgrind not installed: skipped)"
fi
