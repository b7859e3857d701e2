#!/usr/bin/env bash
# Makes the release archives: for each target, `ctxhooks-<version>-<target>.tar.gz` holding one
# folder of that name with bin/ (the six binaries: ctxhooks, ctxhooks-search and the four hooks),
# README.md and LICENSE (when the repository has one), and beside it
# `ctxhooks-<version>-<target>.tar.gz.sha256` (`sha256sum` format: `sha256sum -c` checks it from
# that folder). They go into ${OUT:-target/release-archives}; the last lines on stdout are the
# archives' paths. `install/setup.sh --from ARCHIVE` installs one without cargo.
#
# Only the host's target is built now, with install/build-release.sh (the same build
# install/setup.sh installs, statically linked on *-linux-gnu hosts; an up-to-date build is
# reused, not made again). The other platforms Claude Code runs on (issue 34: aarch64 Linux,
# Windows with mingw-w64, macOS on both architectures) are not built yet: each needs its own entry
# in `build_target` below, and naming one says so and fails.
#
#   install/release.sh                       # the host's archive
#   install/release.sh x86_64-unknown-linux-gnu   # the same, named (it must be the host)
#   OUT=/tmp/dist install/release.sh
set -euo pipefail

say() { printf 'release: %s\n' "$*" >&2; }
die() { printf 'release: error: %s\n' "$*" >&2; exit 1; }

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
out=${OUT:-target/release-archives}
[[ "$out" = /* ]] || out="$repo_root/$out"

# What every archive holds in bin/ (install/setup.sh installs the same list).
binaries=(ctxhooks ctxhooks-search ctxhooks-precompact ctxhooks-stop ctxhooks-tooluse ctxhooks-session)

command -v cargo >/dev/null 2>&1 || die "cargo is not on PATH; install Rust from https://rustup.rs"
host=$(rustc -vV | sed -n 's/^host: //p')
[[ -n "$host" ]] || die "cannot tell this machine's target from rustc -vV"
# The root package's version: the `version` line of the `[package]` table of Cargo.toml.
version=$(awk '/^\[/ { in_package = ($0 == "[package]") } in_package && /^version *=/ {
    gsub(/^version *= *"|" *$/, ""); print; exit }' Cargo.toml)
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || die "cannot read the version from Cargo.toml's [package] table"

# Builds TARGET's binaries and prints the folder that holds them (the only line on stdout). One
# case per target; only the host's exists so far.
build_target() {
    local target=$1
    if [[ "$target" == "$host" ]]; then
        "$repo_root/install/build-release.sh"
        return
    fi
    die "$target: not built yet (only this machine's target, $host, is; cross builds are issue 34 item 1)"
}

# The `.exe` suffix of a target's programs.
exe_suffix() {
    case "$1" in
        *-windows-*) printf '%s' .exe ;;
    esac
}

# `sha256sum` on Linux and Git Bash, `shasum -a 256` on macOS: the same output.
sha256_line() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1"
    else
        shasum -a 256 "$1"
    fi
}

# Packs TARGET's binaries from FOLDER into OUT; prints the archive's path.
pack() {
    local target=$1 release_dir=$2 exe name stage binary archive
    exe=$(exe_suffix "$target")
    name="ctxhooks-$version-$target"
    stage="$stage_root/$target"
    mkdir -p "$stage/$name/bin"
    for binary in "${binaries[@]}"; do
        [[ -x "$release_dir/$binary$exe" ]] || die "the build did not produce $release_dir/$binary$exe"
        cp "$release_dir/$binary$exe" "$stage/$name/bin/"
        chmod 0755 "$stage/$name/bin/$binary$exe"
    done
    cp README.md "$stage/$name/"
    if [[ -f LICENSE ]]; then cp LICENSE "$stage/$name/"; fi
    mkdir -p "$out"
    archive="$out/$name.tar.gz"
    # Under temporary names, then renamed: a reader never sees half an archive or a sum that is
    # not its archive's. `gzip -n`: no time stamp in the gzip header.
    tar -C "$stage" -cf - "$name" | gzip -9n >"$archive.part"
    mv -f "$archive.part" "$archive"
    (cd "$out" && sha256_line "$name.tar.gz") >"$archive.sha256.part"
    mv -f "$archive.sha256.part" "$archive.sha256"
    say "made $archive ($(wc -c <"$archive" | tr -d ' ') bytes) and $archive.sha256"
    printf '%s\n' "$archive"
}

# The folders each archive is put together in, gone when this ends however it ends.
stage_root=$(mktemp -d)
trap 'rm -rf "$stage_root"' EXIT

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("$host")
for target in "${targets[@]}"; do
    say "building $target"
    release_dir=$(build_target "$target") || die "the release build for $target failed (see above)"
    pack "$target" "$release_dir"
done
