#!/usr/bin/env bash
# The pairs of places in the libraries' code (shared/src and commands/src together) that share
# six or more lines and are not marked boilerplate by `duplicates` (the workplace's tool), the
# count issue 18 bounds. Usage: scripts/library-duplicates.sh [--most N]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$root/shared/src" "$scratch/shared"
cp -r "$root/commands/src" "$scratch/commands"
cd "$scratch"
rows=$(duplicates --most 200 --seconds 120 "$@")
echo "$rows" | head -n 1
echo "$rows" | grep '^D' | grep -v boilerplate || true
echo "not boilerplate: $(echo "$rows" | grep '^D' | grep -vc boilerplate || true)"
