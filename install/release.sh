#!/usr/bin/env bash
# Makes the release archives: for each target, `ctxhooks-<version>-<target>.tar.gz` holding one
# folder of that name with bin/ (the six binaries: ctxhooks, ctxhooks-search and the four hooks),
# README.md and LICENSE (when the repository has one), and beside it
# `ctxhooks-<version>-<target>.tar.gz.sha256` (`sha256sum` format: `sha256sum -c` checks it from
# that folder). They go into ${OUT:-target/release-archives}; the last lines on stdout are the
# archives' paths. `install/setup.sh --from ARCHIVE` installs one without cargo.
#
# The host's target is built with install/build-release.sh (the same build install/setup.sh
# installs, statically linked on *-linux-gnu hosts; an up-to-date build is reused, not made again).
# On a Debian x86_64 Linux machine every other platform Claude Code runs on is built too
# (`all`, or the targets by name), each with the same release profile and the standard library
# built from source (-Zbuild-std) with Debian's Rust, which ships that source (no other toolchain
# is fetched); install/release-tools.sh installs what they need first:
#   aarch64-unknown-linux-gnu   statically linked (+crt-static) with Debian's aarch64 cross gcc
#                               and its static C library, like the x86_64 host build;
#   x86_64-pc-windows-gnu       linked with MinGW-w64;
#   aarch64-apple-darwin,       linked without Apple's SDK by Zig (cargo-zigbuild, both from
#   x86_64-apple-darwin         PyPI): Zig ships the C headers and the libSystem stubs, and
#                               compiles the bundled SQLite.
# The cross targets one linker makes are built in one cargo run (aarch64 Linux with Windows, the
# two macOS), which keeps both cores of a small machine busy. Their build folder is
# ${RELEASE_TARGET_DIR:-<repository>/target/release-cross}: a second run reuses each target's
# standard library and binaries (BENCHMARKS.md has the times).
#
#   install/release.sh                       # the host's archive
#   install/release.sh all                   # every platform's (the host's first)
#   install/release.sh aarch64-apple-darwin x86_64-pc-windows-gnu
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
version=$("$repo_root/install/version.sh") || die "no version (see above)"

# The targets `all` names: the host's (as install/setup.sh builds it), then the cross builds.
cross_targets=(aarch64-unknown-linux-gnu x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin)

# Builds the cross TARGETS that one BUILDER links (`gcc`: cargo with the GNU cross linkers, for
# aarch64 Linux and Windows; `zig`: cargo-zigbuild, for macOS) in one cargo run, so that cargo
# keeps both cores busy where one target's build has a single job left (the release profile's one
# codegen unit and LTO make each binary's last step one long job). Debian's Rust (/usr/bin first
# on PATH, as tests/platforms/run.sh does), each target's standard library built once for all
# six binaries. Their binaries land in $cross_dir/TARGET/$profile (RELEASE_PROFILE, below).
cross_build() (
    local builder=$1 relocations target
    shift
    local flags=(build "-Zbuild-std=std,panic_abort" --profile "$profile" --locked --workspace --bins)
    for target in "$@"; do flags+=(--target "$target"); done
    export PATH="$tools_dir/venv/bin:/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
    export RUSTC_BOOTSTRAP=1 CARGO=/usr/bin/cargo CARGO_TARGET_DIR="$cross_dir"
    case "$builder" in
        gcc)
            # aarch64 Linux statically linked, like the host's build (install/build-release.sh
            # says why), asking for packed relative relocations when the cross linker makes them.
            export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
            export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
            relocations=$(packed_relocations aarch64-linux-gnu-gcc)
            export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-C target-feature=+crt-static$relocations"
            # Windows with MinGW-w64.
            export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
            export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ar
            say "cargo ${flags[*]} (Debian's Rust; linked by aarch64-linux-gnu-gcc, +crt-static, and MinGW-w64)"
            /usr/bin/cargo "${flags[@]}" >&2
            ;;
        zig)
            say "cargo-zigbuild ${flags[*]} (Debian's Rust, linked by Zig without Apple's SDK)"
            cargo-zigbuild "${flags[@]}" >&2
            ;;
    esac
)

# ` -C link-arg=-Wl,-z,pack-relative-relocs` when the C compiler CC links a static PIE with
# packed relative relocations (DT_RELR) without a warning; nothing otherwise.
packed_relocations() {
    local probe
    probe=$(mktemp -d)
    printf '%s\n' 'static int x;' 'int *const p[2] = {&x, &x};' \
        'int main(void) { return p[0] != &x || p[1] != &x; }' >"$probe/probe.c"
    if "$1" -static-pie -fPIE -Wl,-z,pack-relative-relocs -Wl,--fatal-warnings \
        "$probe/probe.c" -o "$probe/probe" 2>/dev/null; then
        printf '%s' ' -C link-arg=-Wl,-z,pack-relative-relocs'
    fi
    rm -rf "$probe"
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
if [[ ${#targets[@]} -eq 1 && "${targets[0]}" == all ]]; then
    targets=("$host" "${cross_targets[@]}")
fi
tools_dir=${RELEASE_TOOLS_DIR:-$repo_root/target/release-tools}
# The cross builds' cargo profile: `release`, what people install; CI checks archives built with
# `release-check` (Cargo.toml: the same code, targets, linkers and flags, without LTO and with
# parallel code generation), so that four targets built cold fit in its time.
profile=${RELEASE_PROFILE:-release}
[[ "$profile" =~ ^[a-z][a-z0-9-]*$ ]] || die "RELEASE_PROFILE=$profile is not a cargo profile's name"
cross_dir=${RELEASE_TARGET_DIR:-$repo_root/target/release-cross}
[[ "$cross_dir" = /* ]] || cross_dir="$repo_root/$cross_dir"

# Each target by its builder: the host's own build, or one of the two cross builds.
gcc_targets=()
zig_targets=()
for target in "${targets[@]}"; do
    case "$target" in
        "$host") ;;
        aarch64-unknown-linux-gnu | x86_64-pc-windows-gnu) gcc_targets+=("$target") ;;
        aarch64-apple-darwin | x86_64-apple-darwin) zig_targets+=("$target") ;;
        *) die "$target: not a release target (the host's, $host, or one of: ${cross_targets[*]})" ;;
    esac
done
if [[ $((${#gcc_targets[@]} + ${#zig_targets[@]})) -gt 0 ]]; then
    [[ "$host" == x86_64-unknown-linux-gnu ]] ||
        die "${gcc_targets[*]} ${zig_targets[*]}: cross builds are made on x86_64 Linux (Debian) only; this machine is $host"
    RELEASE_TOOLS_DIR="$tools_dir" "$repo_root/install/release-tools.sh"
fi

host_dir=""
for target in "${targets[@]}"; do
    if [[ "$target" == "$host" ]]; then
        say "building $host"
        started=$SECONDS
        host_dir=$("$repo_root/install/build-release.sh") || die "the release build for $host failed (see above)"
        say "built $host in $((SECONDS - started)) s"
        break
    fi
done
for builder in gcc zig; do
    if [[ "$builder" == gcc ]]; then group=(${gcc_targets[@]+"${gcc_targets[@]}"}); else group=(${zig_targets[@]+"${zig_targets[@]}"}); fi
    [[ ${#group[@]} -gt 0 ]] || continue
    say "building ${group[*]}"
    started=$SECONDS
    cross_build "$builder" "${group[@]}" || die "the release build for ${group[*]} failed (see above)"
    say "built ${group[*]} in $((SECONDS - started)) s"
done
for target in "${targets[@]}"; do
    if [[ "$target" == "$host" ]]; then
        pack "$target" "$host_dir"
    else
        pack "$target" "$cross_dir/$target/$profile"
    fi
done
