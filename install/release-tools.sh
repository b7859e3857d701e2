#!/usr/bin/env bash
# Installs what install/release.sh needs to build the other platforms' archives on a Debian Linux
# machine, each only when it is missing:
#   - from Debian's packages (apt-get, as root): what tests/platforms/install-tools.sh installs
#     (Debian's Rust with its standard library's source, for -Zbuild-std; the MinGW-w64 linker;
#     Wine), the aarch64 cross compiler with its static C library (gcc-aarch64-linux-gnu,
#     libc6-dev-arm64-cross), qemu-user (tests/release/cross.sh runs the aarch64 binaries with
#     it) and `file`;
#   - from PyPI, into a virtual environment under the build folder
#     (${RELEASE_TOOLS_DIR:-<repository>/target/release-tools}/venv): Zig (the `ziglang` wheel,
#     `python -m ziglang`) and cargo-zigbuild, both pinned, which link the macOS binaries without
#     Apple's SDK.
# Prints nothing on stdout.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools=${RELEASE_TOOLS_DIR:-$root/target/release-tools}

ziglang_version=0.15.2
cargo_zigbuild_version=0.24.1

"$root/tests/platforms/install-tools.sh"

wanted=()
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || wanted+=(gcc-aarch64-linux-gnu)
[ -f /usr/aarch64-linux-gnu/lib/libc.a ] || wanted+=(libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null 2>&1 || wanted+=(qemu-user)
command -v file >/dev/null 2>&1 || wanted+=(file)
command -v python3 >/dev/null 2>&1 || wanted+=(python3 python3-venv)
if [ ${#wanted[@]} -gt 0 ]; then
  echo "release-tools: installing ${wanted[*]} from Debian's packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${wanted[@]}" >&2
fi

venv="$tools/venv"
installed() {
  "$venv/bin/python" -c 'import importlib.metadata, sys; print(importlib.metadata.version(sys.argv[1]))' \
    "$1" 2>/dev/null
}
if [ "$(installed ziglang)" != "$ziglang_version" ] ||
  [ "$(installed cargo-zigbuild)" != "$cargo_zigbuild_version" ]; then
  echo "release-tools: installing ziglang $ziglang_version and cargo-zigbuild $cargo_zigbuild_version from PyPI into $venv" >&2
  mkdir -p "$tools"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2 ||
    { echo "release-tools: error: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "ziglang==$ziglang_version" "cargo-zigbuild==$cargo_zigbuild_version" >&2
fi
