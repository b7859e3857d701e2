#!/usr/bin/env bash
# The whole test suite: installs the pinned Claude Code CLI and Agent SDK (reused when present),
# then runs every test, the end-to-end tests with the real CLI included. A missing CLI is a
# failure here, not a skip. Ends with one summary: which end-to-end groups ran, which were
# skipped and why, and whether the tests that need root ran (they pass without root, skipped).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

tests/e2e/install-tools.sh

# Each end-to-end test records its group here, and each test that needs root the group `root`
# (tests/integration/support/summary.rs, root.rs).
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
status=0
CTXHOOKS_E2E=require CTXHOOKS_TEST_SUMMARY="$summary" cargo test --workspace --locked "$@" ||
  status=$?

echo
echo "== end-to-end groups and tests that need root (cargo test: $([ "$status" -eq 0 ] && echo passed || echo FAILED))"
groups=(
  "e2e_claude|the real CLI, claude -p"
  "e2e_sdk|the real Agent SDK"
  "e2e_truth|the report's truth with the real CLI"
  "e2e_keep|kept transcripts with the real CLI"
  "e2e_terminal|the CLI interactive in tmux: status line, warning"
  "e2e_plugin|the plugin installed with claude plugin"
  "e2e_browser|the pages in headless Chromium"
  "e2e_npm|the npm packages (run by tests/release/npm.sh)"
  "ccusage|the ccusage cross-check"
  "fleet|the fleet export: JSON Schemas, DuckDB"
  "root|tests that need root: tmpfs, setpriv, unshare"
)
for entry in "${groups[@]}"; do
  group=${entry%%|*}
  what=${entry#*|}
  ran=$(grep -c "^$group	ran$" "$summary" || true)
  skipped=$(grep -c "^$group	skipped" "$summary" || true)
  why=$(grep "^$group	skipped" "$summary" | head -n 1 | cut -f 2- || true)
  # Counted per sandbox (or check) a test started: a test may start several.
  if [ "$ran" -gt 0 ] && [ "$skipped" -gt 0 ]; then
    line="ran ($ran); SKIPPED $skipped: ${why#skipped: }"
  elif [ "$ran" -gt 0 ]; then
    line="ran ($ran)"
  elif [ "$skipped" -gt 0 ]; then
    line="SKIPPED ($skipped): ${why#skipped: }"
  else
    line="not run (left out by the arguments)"
  fi
  printf '  %-13s %-50s %s\n' "$group" "$what" "$line"
done
exit "$status"
