#!/usr/bin/env bash
# Benchmark: `ctxhooks view` on a 200 MB transcript: the time to write the page (the whole
# process, twice), the page's size against the transcript's, and in headless Chromium the time to
# load the page and to scroll it (benches/view-scroll.js).
#
# Builds the transcript by repeating a real fixture (2.0.76, one compaction, tool results) whole
# until it reaches 200 MB: every copy is the same session again, its compaction included, so the
# page has many messages and compactions, as a long session would.
#
# Usage: benches/view.sh [work folder]   (default: a fresh folder under /tmp)
# Needs: python3, node, GNU time (/usr/bin/time), tests/e2e/install-tools.sh run (Chromium,
# playwright-core).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/ctxhooks-bench.XXXXXX)}"
mkdir -p "$work"
release_dir=$("$repo/install/build-release.sh" --bin ctxhooks)
ctxhooks="$release_dir/ctxhooks"
source="$repo/tests/fixtures/transcripts/entireio__cli/a6/e4c2a0fbd1/0/full.jsonl"
transcript="$work/big.jsonl"

python3 - "$source" "$transcript" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
if not data.endswith(b"\n"):
    data += b"\n"
with open(sys.argv[2], "wb") as out:
    written = 0
    while written < 200 * 1024 * 1024:
        out.write(data)
        written += len(data)
PY

export CTXHOOKS_HOME="$work/state"
for run in 1 2; do
    /usr/bin/time -f "view run $run: %e s wall, %U s user, %S s sys, %M KB peak" \
        "$ctxhooks" view --transcript "$transcript" --out "$work/big.html" --json >"$work/view.json"
done
python3 - "$transcript" "$work/big.html" "$work/view.json" <<'PY'
import json, os, sys
transcript, page, printed = sys.argv[1:4]
shown = json.load(open(printed))["pages"][0]
t, p = os.path.getsize(transcript), os.path.getsize(page)
print(f"transcript {t:,} bytes, page {p:,} bytes ({p / t:.3f} of it); shown: {shown}")
PY
rm -rf "$work/profile"
PLAYWRIGHT_CORE="$repo/.e2e/browser/node_modules/playwright-core" VIEW_PROFILE="$work/profile" \
    node "$repo/benches/view-scroll.js" "$work/big.html" 100
