#!/usr/bin/env bash
# Sets ctxhooks up on this machine: builds the release binaries (install/build-release.sh:
# statically linked on *-linux-gnu hosts, else or if that fails the usual way), installs them into
# ${PREFIX:-$HOME/.local}/bin, registers the hooks (`ctxhooks install "$@"`, user scope unless
# told otherwise) and runs `ctxhooks doctor`. Safe to run again (an upgrade is the same command).
# Its last line says what is left to do (PATH, the plugin), if anything. On Windows it runs in Git
# Bash (which Claude Code runs hooks with there), and the binaries are `.exe` files.
#
#   install/setup.sh                    # user scope (~/.claude/settings.json)
#   install/setup.sh --scope project    # the current folder's .claude/settings.json
#   install/setup.sh --statusline       # also the status line segment, where none is set
#   install/setup.sh --plugin           # binaries only: the hooks come from the Claude Code
#                                       # plugin (/plugin), no settings file is touched
#   PREFIX=/opt/ctxhooks install/setup.sh --dry-run   # still builds and copies the binaries;
#                                                   # only the settings are left as they are
#   install/setup.sh --from ctxhooks-0.1.0-x86_64-unknown-linux-gnu.tar.gz
#                                       # no cargo, no build: installs the binaries of a release
#                                       # archive (install/release.sh makes them), then the same
#                                       # steps; checks ARCHIVE.sha256 when it is beside it and
#                                       # refuses a mismatch, an archive without all six
#                                       # binaries, or one whose ctxhooks does not run here
#
# Every other flag is `ctxhooks install`'s (`ctxhooks install --help` lists them).
set -euo pipefail

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# Where the caller is: `--scope project` and `--scope local` mean the caller's project.
caller_dir=$(pwd)
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# --plugin, --from and --help are ours; every other argument is `ctxhooks install`'s.
plugin=false
from=""
install_args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --plugin) plugin=true ;;
        --from)
            [[ $# -ge 2 && -n "$2" ]] || die "--from needs the path of a release archive"
            from=$2
            shift
            ;;
        --from=*)
            from=${1#--from=}
            [[ -n "$from" ]] || die "--from needs the path of a release archive"
            ;;
        -h | --help)
            # The comment at the top of this file, without its `#`.
            sed -n '2,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
            exit 0
            ;;
        *) install_args+=("$1") ;;
    esac
    shift
done

if [[ -z "${HOME:-}" && -z "${PREFIX:-}" ]]; then
    die "neither HOME nor PREFIX is set; set PREFIX to choose where the binaries go"
fi
prefix=${PREFIX:-$HOME/.local}
bin_dir="$prefix/bin"
binaries=(ctxhooks ctxhooks-search ctxhooks-precompact ctxhooks-stop ctxhooks-tooluse ctxhooks-session)
# Git Bash (MSYS2) and Cygwin on Windows: the binaries are ctxhooks.exe and so on.
exe=""
case "$(uname -s)" in
    MINGW* | MSYS* | CYGWIN*) exe=".exe" ;;
esac

temp_file=""
unpacked=""
cleanup() {
    if [[ -n "$temp_file" ]]; then rm -f "$temp_file"; fi
    if [[ -n "$unpacked" ]]; then rm -rf "$unpacked"; fi
}
trap cleanup EXIT

# `sha256sum` on Linux and Git Bash, `shasum -a 256` on macOS; prints the hex digest alone.
sha256_of() {
    local line
    if command -v sha256sum >/dev/null 2>&1; then
        line=$(sha256sum "$1")
    elif command -v shasum >/dev/null 2>&1; then
        line=$(shasum -a 256 "$1")
    else
        die "neither sha256sum nor shasum is on PATH: cannot check $1 against its .sha256"
    fi
    printf '%s' "${line%% *}"
}

# Unpacks the release archive ARCHIVE into the empty private folder INTO, checked, and prints the
# folder that holds its binaries. Nothing is installed when it fails.
unpack_archive() {
    local archive=$1 unpacked=$2 sum_file expected actual tops missing=() binary version
    [[ -e "$archive" ]] || die "$archive: no such file"
    [[ -f "$archive" ]] || die "$archive: not a file (a release archive is ctxhooks-VERSION-TARGET.tar.gz)"
    sum_file="$archive.sha256"
    if [[ -f "$sum_file" ]]; then
        expected=$(head -c 200 "$sum_file" | head -n 1 | sed 's/[[:space:]].*//' | tr 'A-F' 'a-f')
        [[ "$expected" =~ ^[0-9a-f]{64}$ ]] || die "$sum_file: not a SHA-256 sum (sha256sum format: the 64-digit hex digest, two spaces, the file name)"
        actual=$(sha256_of "$archive")
        [[ "$actual" == "$expected" ]] || die "$archive: checksum mismatch: its SHA-256 is $actual, $sum_file says $expected; not installing it (download it again)"
        say "$archive: SHA-256 matches $sum_file"
    else
        say "$archive: no $sum_file beside it, so its checksum is not checked"
    fi
    tar -xzf "$archive" -C "$unpacked" 2>"$unpacked/.tar-errors" || {
        cat "$unpacked/.tar-errors" >&2
        die "$archive: not a release archive (tar could not unpack it as .tar.gz)"
    }
    shopt -s nullglob
    tops=("$unpacked"/*/bin)
    shopt -u nullglob
    [[ ${#tops[@]} -eq 1 ]] || die "$archive: not a release archive (it must hold one folder, ctxhooks-VERSION-TARGET, with bin/ in it)"
    for binary in "${binaries[@]}"; do
        [[ -f "${tops[0]}/$binary$exe" && -x "${tops[0]}/$binary$exe" ]] || missing+=("$binary$exe")
    done
    [[ ${#missing[@]} -eq 0 ]] || die "$archive: incomplete: bin/ lacks ${missing[*]}; not installing it"
    # An archive for another platform (or a damaged binary) fails here, before anything is copied.
    version=$("${tops[0]}/ctxhooks$exe" --version 2>/dev/null) ||
        die "$archive: its ctxhooks does not run on this machine (an archive for another platform?); not installing it"
    say "$archive: $version"
    printf '%s\n' "${tops[0]}"
}

if [[ -n "$from" ]]; then
    # The release archive's binaries: no cargo, no build.
    unpacked=$(mktemp -d)
    release_dir=$(unpack_archive "$from" "$unpacked") || exit 1
else
    [[ -f "$repo_root/Cargo.toml" ]] || die "cannot find the repository root from $0"
    command -v cargo >/dev/null 2>&1 || die "cargo is not on PATH; install Rust from https://rustup.rs, or install a release archive with --from ARCHIVE"
    # Statically linked on *-linux-gnu hosts (they start faster), with a fallback to the usual build.
    release_dir=$("$repo_root/install/build-release.sh") || die "the release build failed (see above)"
fi

mkdir -p "$bin_dir"
say "installing ${binaries[*]} into $bin_dir"
for binary in "${binaries[@]}"; do
    name="$binary$exe"
    source_file="$release_dir/$name"
    [[ -x "$source_file" ]] || die "the build did not produce $source_file"
    # Copy under a temporary name in the same folder, then rename: a hook that starts while we
    # install never sees a half-written binary.
    temp_file="$bin_dir/.$name.setup.$$"
    cp "$source_file" "$temp_file"
    chmod 0755 "$temp_file"
    mv -f "$temp_file" "$bin_dir/$name"
    temp_file=""
done

cd "$caller_dir"
if $plugin; then
    say "not registering the hooks in a settings file (--plugin): the Claude Code plugin does"
else
    # `${a[@]+"${a[@]}"}`: macOS's bash 3.2 calls an empty array unbound under `set -u`.
    say "registering the hooks: ctxhooks install ${install_args[*]+"${install_args[*]}"}"
    "$bin_dir/ctxhooks$exe" install ${install_args[@]+"${install_args[@]}"}
fi

say "checking the installation: ctxhooks doctor"
if ! "$bin_dir/ctxhooks$exe" doctor; then
    die "ctxhooks doctor found a problem (see above)"
fi
say "done"
if $plugin; then
    plugin_bin=""
    [[ "$bin_dir" == "${HOME:-}/.local/bin" ]] || plugin_bin=" (and set CTXHOOKS_BIN_DIR=$bin_dir in Claude Code's environment)"
    say "next, in Claude Code: /plugin marketplace add $repo_root, then /plugin install ctxhooks@ctxhooks$plugin_bin"
fi
# Last, so that it is not lost in the output above.
case ":${PATH:-}:" in
    *":$bin_dir:"*) ;;
    *) say "to finish: $bin_dir is not on your PATH; add it, e.g. in ~/.profile: export PATH=\"$bin_dir:\$PATH\"" ;;
esac
