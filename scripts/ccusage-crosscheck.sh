#!/usr/bin/env bash
# Cross-check: the input-side token totals ctxhooks computes for each real transcript fixture
# (input, cache read, cache write; the session model's plus the advisor's `advisor_usage`, which
# ccusage counts as their own models') must equal what `ccusage session --offline --json` reports
# for the same file, less the responses whose top-level counts are all 0, which ctxhooks reads
# from their `message` iterations and ccusage counts as 0 (`counts_from_iterations` rows; see
# docs/usage.md, their number is shown after the verdict). Output tokens are shown too (they agreed on every fixture on 2026-11-30; see
# docs/usage.md for why they can differ from older ccusage versions), and the cost in dollars
# (`ctxhooks report --json`'s `cost.usd` against ccusage's `totalCost`), which must agree within
# 1 % when no response was read from its iterations (docs/usage.md, "Cost in dollars").
#
# Usage: scripts/ccusage-crosscheck.sh [path to a ccusage executable]
#   default: $CCUSAGE, else .e2e/node_modules/.bin/ccusage (installed by tests/e2e/install-tools.sh)
# Each fixture is laid out alone in a temporary Claude config folder
# ($CLAUDE_CONFIG_DIR/projects/fixture/<file>), since ccusage reads projects/**.
# Exits 1 when an input-side total differs, or a cost by more than 1 %.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="$repo/tests/fixtures/transcripts"
ccusage="${1:-${CCUSAGE:-$repo/.e2e/node_modules/.bin/ccusage}}"
# Where cargo puts its builds: CARGO_TARGET_DIR when set (made absolute, as cargo reads it
# against the folder it runs in), else the repository's target/.
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export CARGO_TARGET_DIR="$target_dir"
cargo build --quiet --locked --bin ctxhooks --manifest-path "$repo/Cargo.toml" >&2
ctxhooks="$target_dir/debug/ctxhooks"
echo "ccusage: $("$ccusage" --version 2>&1 | head -1)"

status=0
printf '%-100s %s\n' "fixture" "ctxhooks (input/cache read/cache write/output) vs ccusage, then cost"
while IFS= read -r file; do
    relative="${file#"$fixtures"/}"
    config="$(mktemp -d)"
    mkdir -p "$config/projects/fixture"
    cp "$file" "$config/projects/fixture/"
    theirs=$(CLAUDE_CONFIG_DIR="$config" "$ccusage" session --offline --json \
        | python3 -c 'import json,sys; t=json.load(sys.stdin).get("totals") or {}; print(t.get("inputTokens",0), t.get("cacheReadTokens",0), t.get("cacheCreationTokens",0), t.get("outputTokens",0), t.get("totalCost",0))')
    ours=$("$ctxhooks" usage --transcript "$file" --json \
        | python3 -c 'import json,sys; r=json.load(sys.stdin)["rows"]; a=[u for x in r for u in x.get("advisor_usage",[])]; s=[x for x in r if not x.get("counts_from_iterations")]; t=lambda k: sum(x[k] for x in s)+sum(u[k] for u in a); print(t("input_tokens"), t("cache_read_input_tokens"), t("cache_creation_input_tokens"), t("output_tokens"), len(r)-len(s))')
    our_cost=$("$ctxhooks" report --transcript "$file" --json \
        | python3 -c 'import json,sys; print((json.load(sys.stdin).get("cost") or {}).get("usd", 0))')
    rm -rf "$config"
    read -r oi ocr occ oout from_iterations <<< "$ours"
    ours="$oi $ocr $occ $oout"
    read -r ti tcr tcc tout their_cost <<< "$theirs"
    verdict="same"
    if [[ "$oi $ocr $occ" != "$ti $tcr $tcc" ]]; then
        verdict="INPUT-SIDE DIFFERS"
        status=1
    elif [[ "$oout" != "$tout" ]]; then
        verdict="same input side; output differs"
    fi
    if [[ "$from_iterations" != 0 ]]; then
        verdict="$verdict ($from_iterations response(s) read from their iterations left out; their cost is in ctxhooks' alone)"
    elif ! python3 -c 'import sys; o,t=map(float,sys.argv[1:]); sys.exit(abs(o-t) > t*0.01)' "$our_cost" "$their_cost"; then
        verdict="$verdict; COST DIFFERS"
        status=1
    fi
    printf '%-100s %s / %s  $%s / $%s  %s\n' "$relative" "$ours" "$ti $tcr $tcc $tout" "$our_cost" "$their_cost" "$verdict"
done < <(find "$fixtures" -name '*.jsonl' | sort)
exit "$status"
