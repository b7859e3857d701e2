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

# A statically linked position-independent binary relocates itself at every start, one entry per
# pointer in its data, and each binary here has thousands: packed relative relocations (DT_RELR)
# make that table a fraction of its size (BENCHMARKS.md: 4 to 5 % fewer instructions per start).
# Used when this machine's linker and C library make a binary that runs with them (binutils 2.38
# and glibc 2.36 or later); a probe program with relocated pointers must link and run.
packed_relocations() {
    local probe
    probe=$(mktemp -d)
    printf '%s\n' 'static int x;' 'int *const p[2] = {&x, &x};' \
        'int main(void) { return p[0] != &x || p[1] != &x; }' >"$probe/probe.c"
    if cc -static-pie -fPIE -Wl,-z,pack-relative-relocs -Wl,--fatal-warnings \
        "$probe/probe.c" -o "$probe/probe" 2>/dev/null && "$probe/probe"; then
        printf '%s' ' -C link-arg=-Wl,-z,pack-relative-relocs'
    fi
    rm -rf "$probe"
}

host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
    *-linux-gnu)
        say "building statically linked release binaries for $host (cargo build --release --locked --target $host)"
        if RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C target-feature=+crt-static$(packed_relocations)" \
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
