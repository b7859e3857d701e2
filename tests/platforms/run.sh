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

# Debian's toolchain, first on PATH for these checks only (cargo-clippy and clippy-driver too):
# the rustup proxies on PATH are the project's own toolchain.
export PATH=/usr/bin:$PATH RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
cargo=/usr/bin/cargo
export CARGO_TARGET_DIR=${PLATFORMS_TARGET_DIR:-$root/target/platforms}
build_std=(-Zbuild-std=std,panic_abort)
lint=(-- -D warnings)

# Its status is the step's own (the time is said either way): a failed test run under Wine
# must fail the check, not end in the time line's success.
step() {
  local started=$SECONDS status=0
  echo "== platforms: $1"
  shift
  "$@" || status=$?
  echo "   took $((SECONDS - started)) s"
  return "$status"
}

# The bundled SQLite (the search index) is C, and compiling it for Apple needs the macOS SDK,
# which no Linux machine has. A type check links nothing, so its build script is pointed at a
# system library instead (LIBSQLITE3_SYS_USE_PKG_CONFIG with a library folder that need not
# exist): it then compiles no C and uses the same bundled Rust bindings.
apple() {
  for target in aarch64-apple-darwin x86_64-apple-darwin; do
    step "type-check and lint for $target (clippy)" \
      env LIBSQLITE3_SYS_USE_PKG_CONFIG=1 SQLITE3_LIB_DIR="$CARGO_TARGET_DIR/no-sqlite" \
      "$cargo" clippy "${build_std[@]}" --target "$target" --workspace --all-targets --locked \
      "${lint[@]}"
  done
}

# Windows: the regular target is what people run; its standard library imports
# bcryptprimitives.dll, which Wine 8 lacks, so the tests run on the win7 target, built from the
# same code.
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CARGO_TARGET_X86_64_WIN7_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CARGO_TARGET_X86_64_WIN7_WINDOWS_GNU_RUNNER=/usr/lib/wine/wine64
export WINEARCH=win64 WINEDEBUG=-all WINEPREFIX=${PLATFORMS_WINEPREFIX:-$CARGO_TARGET_DIR/wine}
windows_results=$(mktemp)
windows_status=0
trap 'rm -f "$windows_results"' EXIT

windows() {
  step "type-check and lint for x86_64-pc-windows-gnu (clippy)" \
    "$cargo" clippy "${build_std[@]}" --target x86_64-pc-windows-gnu --workspace --all-targets \
    --locked "${lint[@]}"
  step "build the binaries for x86_64-pc-windows-gnu" \
    "$cargo" build "${build_std[@]}" --target x86_64-pc-windows-gnu --workspace --bins --locked
  step "build the tests for x86_64-win7-windows-gnu" \
    "$cargo" test "${build_std[@]}" --target x86_64-win7-windows-gnu --workspace --locked --no-run
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    step "make the Wine prefix (wineboot -i)" wineboot -i
  fi
  # Two tests at a time: Wine starts a process in about 100 ms, and the hooks' own deadlines
  # must not be what a crowded machine tests.
  step "run the tests on Windows (Wine)" windows_tests || windows_status=$?
}

windows_tests() {
  local status=0
  "$cargo" test "${build_std[@]}" --target x86_64-win7-windows-gnu --workspace --locked \
    --no-fail-fast -- --test-threads 2 2>&1 | tee "$windows_results" || status=$?
  return "$status"
}

# What ran on Windows and what is Unix-only, and why (the `// Unix only:` comment above each
# `#[cfg(unix)]` module and test of tests/integration/).
summary() {
  echo
  echo "== platforms: what ran where"
  echo "  macOS     aarch64-apple-darwin, x86_64-apple-darwin: type-checked and linted (clippy), not run"
  if [ -s "$windows_results" ]; then
    local passed failed
    passed=$(awk '/^test result:/ { sum += $4 } END { print sum + 0 }' "$windows_results")
    failed=$(awk '/^test result:/ { sum += $6 } END { print sum + 0 }' "$windows_results")
    echo "  Windows   x86_64-pc-windows-gnu built and linted; tests on x86_64-win7-windows-gnu under Wine: $passed passed, $failed failed"
    echo "            (every unit test of ctxhooks-shared and ctxhooks-commands, and every integration test but these:)"
    awk '
      /^\/\/ Unix only:/ { why = substr($0, 15); next }
      why != "" && /^#\[cfg\(unix\)\]/ { next }
      why != "" && /^#\[test\]/ { next }
      why != "" && /^mod / { sub(/;$/, "", $2); printf "  Unix-only %-16s (all of it): %s\n", $2, why; why = ""; next }
      why != "" && /^fn / { name = $2; sub(/\(.*/, "", name); printf "  Unix-only %s::%s: %s\n", FILENAME, name, why; why = ""; next }
      { why = "" }
    ' "$root"/tests/integration/main.rs "$root"/tests/integration/*.rs |
      sed "s|$root/tests/integration/||; s|\.rs::|::|" | sort -u
  fi
}

what=${1:-all}
case "$what" in
  apple) apple ;;
  windows) windows; summary; exit "$windows_status" ;;
  all) apple; windows; summary; exit "$windows_status" ;;
  *) echo "platforms: unknown step '$what' (apple, windows or nothing for all)" >&2; exit 2 ;;
esac
