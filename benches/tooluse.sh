#!/usr/bin/env bash
# Benchmark: `ctxhooks-tooluse` on a PreToolUse payload and on a PostToolUse whose output is 1 MB,
# interleaved with empty C programs (dynamically and statically linked: the baselines) and
# empty Rust programs (both ways), then `ctxhooks mark-interrupt` beside the empty Rust program.
# The hooks are built as install/setup.sh builds them (install/build-release.sh: statically
# linked on *-linux-gnu hosts). The hook needs its payload on stdin, which hyperfine 1.15 cannot
# give without a shell, so it is timed by benches/spawn_bench.py (posix_spawn, interleaved
# runs); mark-interrupt needs no stdin and is timed by hyperfine -N.
# With BASELINE_DIR=<a folder of another build's release binaries> (say main's), its
# ctxhooks-tooluse runs interleaved beside this one's, and its instructions are counted too.
# Usage: benches/tooluse.sh [RUNS] (default 1000). Needs cc (with the static libc), hyperfine.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
command -v cc >/dev/null || { echo "needs a C compiler (cc)" >&2; exit 1; }
runs=${1:-1000}
release_dir=$(install/build-release.sh --bin ctxhooks-tooluse --bin ctxhooks)
host=$(rustc -vV | sed -n 's/^host: //p')

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'int main(void) { return 0; }\n' >"$work/empty.c"
cc -O2 -o "$work/empty-c-dynamic" "$work/empty.c"
cc -O2 -static -o "$work/empty-c-static" "$work/empty.c"
printf 'fn main() {}\n' >"$work/empty.rs"
rust_flags=(--edition 2024 -C opt-level=3 -C lto -C codegen-units=1 -C strip=symbols)
rustc "${rust_flags[@]}" -o "$work/empty-rust-dynamic" "$work/empty.rs"
rustc "${rust_flags[@]}" -C target-feature=+crt-static --target "$host" \
  -o "$work/empty-rust-static" "$work/empty.rs"
case "$release_dir" in
  */"$host"/release) echo "== the hooks are linked statically ($release_dir)" ;;
  *) echo "== the hooks are linked dynamically ($release_dir): the static build failed" ;;
esac

session=0123abcd-0000-4000-8000-000000000000
cat >"$work/pre-tool-use.json" <<JSON
{"session_id":"$session","transcript_path":"$work/transcript.jsonl","cwd":"$work","prompt_id":"p1","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test --workspace --locked -- --test-threads 2","description":"Run the tests"},"tool_use_id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV"}
JSON
python3 - "$work/post-tool-use-1mb.json" "$session" <<'PY'
import json, sys
line = "   Compiling serde_json v1.0.154 (/home/user/.cargo/registry/src/index.crates.io/serde_json)\n"
stdout = (line * (1_000_000 // len(line) + 1))[:1_000_000]
payload = {"session_id": sys.argv[2], "transcript_path": "/t.jsonl", "cwd": "/w",
           "hook_event_name": "PostToolUse", "tool_name": "Bash",
           "tool_input": {"command": "cargo build", "description": "Build"},
           "tool_use_id": "toolu_1", "duration_ms": 41000,
           "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False}}
open(sys.argv[1], "w").write(json.dumps(payload))
PY

programs=(
  "empty C, dynamic=$work/empty-c-dynamic"
  "empty C, static=$work/empty-c-static"
  "empty Rust, dynamic=$work/empty-rust-dynamic"
  "empty Rust, static=$work/empty-rust-static"
  "ctxhooks-tooluse=$release_dir/ctxhooks-tooluse"
)
if [[ -n "${BASELINE_DIR:-}" ]]; then
  programs+=("baseline ctxhooks-tooluse=$BASELINE_DIR/ctxhooks-tooluse")
fi
echo "== PreToolUse payload (520 bytes), $runs rounds"
CTXHOOKS_HOME="$work/state" python3 benches/spawn_bench.py "$work/pre-tool-use.json" "$runs" \
  "${programs[@]}"
echo "== PostToolUse payload whose stdout is 1 MB, $((runs / 5)) rounds"
CTXHOOKS_HOME="$work/state" python3 benches/spawn_bench.py "$work/post-tool-use-1mb.json" \
  "$((runs / 5))" "${programs[@]}"
test ! -s "$work/state/errors.log" || { echo "the hook logged errors" >&2; exit 1; }

echo "== callgrind instructions, one run each (PreToolUse; PostToolUse 1 MB)"
if command -v valgrind >/dev/null; then
  for name in empty-c-dynamic empty-c-static empty-rust-static; do
    count=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/$name" \
      <"$work/pre-tool-use.json" 2>&1 | grep -oE 'Collected : [0-9]+' | grep -oE '[0-9]+')
    echo "$name: $count"
  done
  for build in "$release_dir" ${BASELINE_DIR:+"$BASELINE_DIR"}; do
    for payload in pre-tool-use post-tool-use-1mb; do
      count=$(CTXHOOKS_HOME="$work/state" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$build/ctxhooks-tooluse" <"$work/$payload.json" 2>&1 |
        grep -oE 'Collected : [0-9]+' | grep -oE '[0-9]+')
      echo "$build/ctxhooks-tooluse, $payload: $count"
    done
  done
else
  echo "(valgrind not installed: skipped)"
fi

echo "== ctxhooks mark-interrupt"
CTXHOOKS_HOME="$work/state" hyperfine -N --warmup 20 --runs 500 \
  -n "empty Rust, static" "$work/empty-rust-static" \
  -n mark-interrupt "$release_dir/ctxhooks mark-interrupt --session $session --reason backstop --source bench --gauge-pct 78.4"
