#!/usr/bin/env bash
# Builds the release binaries the way install/setup.sh installs them, and prints the folder that
# holds them (the only line on stdout; cargo's output goes to stderr). Extra arguments reach
# `cargo build` (the benches pass `--bin NAME`).
#
# On a `*-linux-gnu` host the binaries are linked statically (`-C target-feature=+crt-static`):
# a hook starts on every tool call, and the dynamic loader and libgcc_s cost more than the hook's
# own work. `--target <host>` makes RUSTFLAGS reach only the target's artifacts (with crt-static
# the proc macros, which are built for the host, would not load); the binaries then land in
# target/<host>/release. If the static build fails (a machine without the static libc of
# libc6-dev), the usual dynamically linked build is made instead, and this says so.
set -euo pipefail

say() { printf 'build: %s\n' "$*" >&2; }

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
target_dir=${CARGO_TARGET_DIR:-$repo_root/target}
[[ "$target_dir" = /* ]] || target_dir="$repo_root/$target_dir"

host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
    *-linux-gnu)
        say "building statically linked release binaries for $host (cargo build --release --locked --target $host)"
        if RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C target-feature=+crt-static" \
            cargo build --release --locked --target "$host" "$@" >&2; then
            echo "$target_dir/$host/release"
            exit 0
        fi
        say "warning: the static build failed (is the static C library installed, e.g. apt-get install libc6-dev?); building dynamically linked binaries instead: they work the same and start about 0.4 ms slower"
        ;;
esac
say "building the release binaries (cargo build --release --locked)"
cargo build --release --locked "$@" >&2
echo "$target_dir/release"
