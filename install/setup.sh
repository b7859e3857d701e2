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
set -euo pipefail

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# Where the caller is: `--scope project` and `--scope local` mean the caller's project.
caller_dir=$(pwd)
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -f "$repo_root/Cargo.toml" ]] || die "cannot find the repository root from $0"

if [[ -z "${HOME:-}" && -z "${PREFIX:-}" ]]; then
    die "neither HOME nor PREFIX is set; set PREFIX to choose where the binaries go"
fi
# --plugin is ours; every other argument is `ctxhooks install`'s.
plugin=false
install_args=()
for argument in "$@"; do
    if [[ "$argument" == "--plugin" ]]; then
        plugin=true
    else
        install_args+=("$argument")
    fi
done
prefix=${PREFIX:-$HOME/.local}
bin_dir="$prefix/bin"
binaries=(ctxhooks ctxhooks-search ctxhooks-precompact ctxhooks-stop ctxhooks-tooluse ctxhooks-session)
# Git Bash (MSYS2) and Cygwin on Windows: the binaries are ctxhooks.exe and so on.
exe=""
case "$(uname -s)" in
    MINGW* | MSYS* | CYGWIN*) exe=".exe" ;;
esac

command -v cargo >/dev/null 2>&1 || die "cargo is not on PATH; install Rust from https://rustup.rs"

# Statically linked on *-linux-gnu hosts (they start faster), with a fallback to the usual build.
release_dir=$("$repo_root/install/build-release.sh") || die "the release build failed (see above)"

mkdir -p "$bin_dir"
temp_file=""
trap '[[ -n "$temp_file" ]] && rm -f "$temp_file"' EXIT
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
