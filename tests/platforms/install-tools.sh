#!/usr/bin/env bash
# Installs what the other platforms' checks need, from Debian's packages, when it is missing:
# Rust 1.96 with its standard library's source and its linter (rustc-web, cargo-web, rust-web-src,
# rust-web-clippy: the project's own toolchain stays the one for everything else; this one only
# builds the standard library for another target with -Zbuild-std), the MinGW-w64 cross linker,
# and Wine.
# Needs root (apt-get) unless everything is there already.
set -euo pipefail

wanted=()
[ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] || wanted+=(rustc-web cargo-web)
[ -d /usr/lib/rustlib/src/rust/library/std ] || wanted+=(rust-web-src)
# Without it `cargo clippy` finds the rustup proxy, whose toolchain has no standard library source.
[ -x /usr/bin/cargo-clippy ] || wanted+=(rust-web-clippy)
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || wanted+=(mingw-w64)
[ -x /usr/lib/wine/wine64 ] || wanted+=(wine64)

if [ ${#wanted[@]} -gt 0 ]; then
  echo "platforms: installing ${wanted[*]} from Debian's packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${wanted[@]}" >&2
fi
