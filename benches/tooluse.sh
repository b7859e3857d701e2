#!/usr/bin/env bash
# Benchmark: `ctxhooks-tooluse` on a PreToolUse payload and `ctxhooks mark-interrupt`, each
# beside `trivial` (an empty Rust `main` built with the same release profile) and `/bin/true`.
# The hook needs its payload on stdin, which hyperfine 1.15 cannot give without a shell, so it is
# timed by benches/spawn_bench.py (posix_spawn, interleaved runs); mark-interrupt needs no stdin
# and is timed by hyperfine -N. Usage: benches/tooluse.sh [RUNS] (default 1000).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export CARGO_TARGET_DIR="$target_dir"
cd "$root"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
runs=${1:-1000}
cargo build --release --locked --bin ctxhooks-tooluse --bin ctxhooks >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'fn main() {}\n' >"$work/trivial.rs"
rustc --edition 2024 -C opt-level=3 -C lto -C codegen-units=1 -C strip=symbols \
  -o "$work/trivial" "$work/trivial.rs"

session=0123abcd-0000-4000-8000-000000000000
cat >"$work/pre-tool-use.json" <<JSON
{"session_id":"$session","transcript_path":"$work/transcript.jsonl","cwd":"$work","prompt_id":"p1","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test --workspace --locked -- --test-threads 2","description":"Run the tests"},"tool_use_id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV"}
JSON

echo "== ctxhooks-tooluse, PreToolUse payload, $runs runs each (ms: runs min median mean p95)"
CTXHOOKS_HOME="$work/state" python3 benches/spawn_bench.py "$work/pre-tool-use.json" "$runs" \
  /bin/true "$work/trivial" "$target_dir/release/ctxhooks-tooluse"
test ! -s "$work/state/errors.log" || { echo "the hook logged errors" >&2; exit 1; }

echo "== ctxhooks mark-interrupt"
CTXHOOKS_HOME="$work/state" hyperfine -N --warmup 20 --runs 500 \
  -n trivial "$work/trivial" \
  -n mark-interrupt "$target_dir/release/ctxhooks mark-interrupt --session $session --reason backstop --source bench --gauge-pct 78.4"
