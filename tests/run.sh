#!/usr/bin/env bash
# The whole test suite: installs the pinned Claude Code CLI and Agent SDK (reused when present),
# then runs every test, the end-to-end tests with the real CLI included. A missing CLI is a
# failure here, not a skip.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

tests/e2e/install-tools.sh
CTXHOOKS_E2E=require cargo test --workspace --locked "$@"
