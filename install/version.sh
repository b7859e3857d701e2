#!/usr/bin/env bash
# Prints ctxhooks' version: the `version` line of the `[package]` table of the repository's
# Cargo.toml (what install/release.sh names its archives and npm/pack.sh its packages by).
# Fails, saying why, when there is none that looks like a version.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=$(awk '/^\[/ { in_package = ($0 == "[package]") } in_package && /^version *=/ {
    gsub(/^version *= *"|" *$/, ""); print; exit }' "$root/Cargo.toml")
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]]; then
    echo "version: cannot read the version from Cargo.toml's [package] table" >&2
    exit 1
fi
printf '%s\n' "$version"
