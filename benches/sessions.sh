#!/usr/bin/env bash
# Benchmark: `ctxhooks sessions` over a state folder of 1,000 sessions (the claim: under 200 ms).
# The state folder is made the way the hooks make it: 1,000 transcripts of real fixture lines
# (sizes spread from 10 kB to 1 MB, about 150 MB in all, in 20 project folders) each kept by one
# Stop run, every tenth snapshotted by a PreCompact run; then a fifth of the transcripts are
# deleted (as Claude Code's cleanup would) and the others' modification times spread over the
# last 40 days, so that every state `sessions` marks is there. Timed by hyperfine, warm cache.
# Usage: benches/sessions.sh [SESSIONS] (default 1000). Needs python3, hyperfine.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
count=${1:-1000}
release_dir=$(install/build-release.sh --bin ctxhooks-stop --bin ctxhooks-precompact --bin ctxhooks)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" CLAUDE_CONFIG_DIR="$work/home/.claude" CTXHOOKS_HOME="$work/state"
export CTXHOOKS_MANAGED_SETTINGS_DIR="$work/managed"
mkdir -p "$CLAUDE_CONFIG_DIR/projects"

echo "== making $count sessions"
started=$(date +%s)
python3 benches/sessions-corpus.py "$work" "$count" "$release_dir"
echo "made in $(($(date +%s) - started)) s; state folder $(du -sh "$CTXHOOKS_HOME" | cut -f1)"
test ! -s "$CTXHOOKS_HOME/errors.log" || { echo "the hooks logged errors:" >&2; head "$CTXHOOKS_HOME/errors.log" >&2; exit 1; }

"$release_dir/ctxhooks" sessions | tail -4
echo "== rows per state: $("$release_dir/ctxhooks" sessions --json | python3 -c '
import collections, json, sys
print(dict(collections.Counter(s["cleanup"]["state"] for s in json.load(sys.stdin))))')"
echo "== load average: $(cut -d" " -f1-3 /proc/loadavg)"
hyperfine -N -i --warmup 3 --runs 20 \
  "$release_dir/ctxhooks sessions" \
  "$release_dir/ctxhooks sessions --json" \
  "$release_dir/ctxhooks doctor"
echo "== load average: $(cut -d" " -f1-3 /proc/loadavg)"
