#!/usr/bin/env bash
# Benchmark: one `ctxhooks-precompact` run (bring the kept copy up to date, every kept byte
# compared by SHA-256, write snapshot.json, rename; then the usage ingestion) on a transcript of
# SIZE_MB megabytes, beside the baseline `cp` + `sha256sum` + `sync` of the same file, with
# hyperfine. Two cases: the kept copy and the usage log already current (the Stop hook ran after
# the last turn, as it does in a session: the hook reads and hashes the transcript, copies
# nothing) and both built from nothing (the first PreCompact of a session no Stop hook saw: the
# whole transcript is compressed). With BASELINE_DIR=<folder holding an earlier
# ctxhooks-precompact>, that one runs too, from the same prepared state.
# Usage: benches/precompact.sh [SIZE_MB ...] (default: 1 100).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Where cargo puts its builds: CARGO_TARGET_DIR when set (made absolute, as cargo reads it
# against the folder it runs in), else the repository's target/.
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export CARGO_TARGET_DIR="$target_dir"
cd "$root"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
# Built as install/setup.sh builds them (statically linked on *-linux-gnu hosts).
release_dir=$(install/build-release.sh --bin ctxhooks-precompact --bin ctxhooks-stop)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fixture=tests/fixtures/transcripts/entireio__cli/a6/e4c2a0fbd1/0/full.jsonl
session=0123abcd-0000-4000-8000-000000000000

for size_mb in "${@:-1 100}"; do
  for size in $size_mb; do
    transcript="$work/projects/$session.jsonl"
    mkdir -p "$work/projects"
    : >"$transcript"
    while [ "$(stat -c %s "$transcript")" -lt $((size * 1024 * 1024)) ]; do
      cat "$fixture" >>"$transcript"
      echo >>"$transcript"
    done
    printf '{"session_id":"%s","transcript_path":"%s","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":null}' \
      "$session" "$transcript" >"$work/payload.json"
    # A state folder whose usage log is already current: what the Stop hook leaves after a turn.
    rm -rf "$work/current"
    sed 's/"PreCompact"/"Stop"/' "$work/payload.json" |
      CTXHOOKS_HOME="$work/current" "$release_dir/ctxhooks-stop"
    echo "== transcript of $(stat -c %s "$transcript") bytes" >&2
    hyperfine --warmup 2 --runs 15 --export-markdown "$work/result-$size.md" \
      --prepare "rm -rf '$work/state' '$work/copy' && cp -a '$work/current' '$work/state'" \
      -n "baseline: cp + sha256sum + sync" "cp '$transcript' '$work/copy' && sha256sum '$work/copy' >/dev/null && sync '$work/copy'" \
      -n "ctxhooks-precompact (kept copy and usage log current)" "CTXHOOKS_HOME='$work/state' '$release_dir/ctxhooks-precompact' <'$work/payload.json'" \
      -n "ctxhooks-precompact (kept copy and usage log from nothing)" "rm -rf '$work/state' && CTXHOOKS_HOME='$work/state' '$release_dir/ctxhooks-precompact' <'$work/payload.json'" \
      ${BASELINE_DIR:+-n "baseline ctxhooks-precompact (usage log current)" "CTXHOOKS_HOME='$work/state' '$BASELINE_DIR/ctxhooks-precompact' <'$work/payload.json'"}
    cat "$work/result-$size.md"
    test ! -s "$work/state/errors.log" || { echo "the hook logged errors:" >&2; cat "$work/state/errors.log" >&2; exit 1; }
  done
done
