#!/usr/bin/env bash
# Benchmark: `ctxhooks statusline`, which Claude Code runs after every update, against a process
# start: interleaved with empty C programs (dynamically and statically linked: the baselines) and
# an empty statically linked Rust program, with the JSON the pinned CLI really pipes to a status
# line (tests/fixtures/cli-captures/statusline/) naming a session whose gauge the real Stop hook
# wrote. Then its instructions (callgrind) for a session of a 1 MB transcript and one of a 100 MB
# transcript: the same, because it reads only the status JSON and the small gauge file, never
# the transcript or the usage log. Built as install/setup.sh builds it.
# With BASELINE_DIR=<a folder of another build's release binaries> (say main's), its `ctxhooks
# statusline` runs interleaved beside this one's, and its instructions are counted too.
# Usage: benches/statusline.sh [RUNS] (default 1000). Needs cc (with the static libc), python3,
# valgrind (for the instruction counts; skipped without it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v cc >/dev/null || { echo "needs a C compiler (cc)" >&2; exit 1; }
runs=${1:-1000}
release_dir=$(install/build-release.sh --bin ctxhooks --bin ctxhooks-stop)
host=$(rustc -vV | sed -n 's/^host: //p')
fixtures="$root/tests/fixtures/transcripts"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'int main(void) { return 0; }\n' >"$work/empty.c"
cc -O2 -o "$work/empty-c-dynamic" "$work/empty.c"
cc -O2 -static -o "$work/empty-c-static" "$work/empty.c"
printf 'fn main() {}\n' >"$work/empty.rs"
rustc --edition 2024 -C opt-level=3 -C lto -C codegen-units=1 -C strip=symbols \
  -C target-feature=+crt-static --target "$host" -o "$work/empty-rust-static" "$work/empty.rs"
case "$release_dir" in
  */"$host"/release) echo "== ctxhooks is linked statically ($release_dir)" ;;
  *) echo "== ctxhooks is linked dynamically ($release_dir): the static build failed" ;;
esac

# Two sessions, their transcripts made of a real fixture repeated (1 MB and 100 MB), each
# brought up to date by one real Stop run, which writes the gauge.
export CTXHOOKS_HOME="$work/state"
for size in 1000000 100000000; do
  python3 - "$fixtures/entireio__cli/a6/e4c2a0fbd1/0/full.jsonl" "$work/t$size.jsonl" "$size" <<'PY'
import sys
source, out, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(source, encoding="utf-8").read()
if not text.endswith("\n"):
    text += "\n"
with open(out, "w", encoding="utf-8") as f:
    written = 0
    while written < target:
        f.write(text)
        written += len(text.encode())
PY
  printf '{"session_id":"bench-%s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop"}' \
    "$size" "$work/t$size.jsonl" "$work" | "$release_dir/ctxhooks-stop"
  python3 - "$root/tests/fixtures/cli-captures/statusline/interactive-2.1.332.jsonl" \
    "bench-$size" "$work/status-$size.json" <<'PY'
import json, sys
line = [l for l in open(sys.argv[1]) if l.strip()][-1]
value = json.loads(line)
value["session_id"] = sys.argv[2]
open(sys.argv[3], "w").write(json.dumps(value))
PY
  echo "session bench-$size: $(stat -c %s "$work/t$size.jsonl") bytes of transcript, gauge $(stat -c %s "$work/state/sessions/bench-$size/gauge.json") bytes; the segment: $("$release_dir/ctxhooks" statusline --plain <"$work/status-$size.json")"
done
test ! -s "$work/state/errors.log" || { echo "the hooks logged errors" >&2; exit 1; }

echo "== ctxhooks statusline, the 100 MB session, $runs rounds"
python3 benches/spawn_bench.py "$work/status-100000000.json" "$runs" \
  "empty C, dynamic=$work/empty-c-dynamic" \
  "empty C, static=$work/empty-c-static" \
  "empty Rust, static=$work/empty-rust-static" \
  "ctxhooks statusline=$release_dir/ctxhooks statusline" \
  "ctxhooks statusline --plain=$release_dir/ctxhooks statusline --plain" \
  ${BASELINE_DIR:+"baseline ctxhooks statusline=$BASELINE_DIR/ctxhooks statusline"}

echo "== callgrind instructions, one run each"
if command -v valgrind >/dev/null; then
  count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
      grep -oE 'Collected : [0-9]+' | grep -oE '[0-9]+'
  }
  echo "empty C, dynamic: $(count "$work/empty-c-dynamic" <"$work/status-1000000.json")"
  echo "empty C, static: $(count "$work/empty-c-static" <"$work/status-1000000.json")"
  echo "empty Rust, static: $(count "$work/empty-rust-static" <"$work/status-1000000.json")"
  for size in 1000000 100000000; do
    echo "ctxhooks statusline, session of $size bytes: $(count "$release_dir/ctxhooks" statusline <"$work/status-$size.json")"
    if [[ -n "${BASELINE_DIR:-}" ]]; then
      echo "baseline ctxhooks statusline, session of $size bytes: $(count "$BASELINE_DIR/ctxhooks" statusline <"$work/status-$size.json")"
    fi
  done
else
  echo "(valgrind not installed: skipped)"
fi
