#!/usr/bin/env bash
# Every platform's release archive, on this Linux machine: install/release.sh all builds (or, when
# up to date, reuses) each one into ${OUT:-<repository>/target/release-archives}; then, for each,
# its SHA-256 sum must check, it must hold bin/ with the six binaries (`.exe` on Windows), and
# `file` must call each binary the format and architecture of its target (statically linked on
# Linux). Then what can run here runs, each in a fresh HOME:
#   x86_64 Linux    natively;
#   aarch64 Linux   under qemu-user (qemu-aarch64; the binaries are static);
#   Windows         under Wine (see windows_run below for what runs there);
#   macOS           not run (no macOS here): tests/release/macho-check.py checks that each
#                   binary's code signature matches its bytes and that it loads only /usr/lib.
# What runs: `ctxhooks --version`, each hook with a payload of its event on stdin (exit 0, nothing
# on stdout, no errors.log), and `ctxhooks usage` reading back what the Stop hook logged from a
# two-line transcript. Each target's build time is said (install/release.sh's `built ... in`).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
fail() { printf 'cross release test: FAILED: %s\n' "$*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${OUT:-$root/target/release-archives}

echo "== install/release.sh all (every platform's archive)"
OUT="$out" install/release.sh all | tail -n 5 >"$work/archives"
mapfile -t archives <"$work/archives"
[[ ${#archives[@]} -eq 5 ]] || fail "install/release.sh all made ${#archives[@]} archives, not 5"

binaries=(ctxhooks ctxhooks-search ctxhooks-precompact ctxhooks-stop ctxhooks-tooluse ctxhooks-session)

# What `file` must say of every binary of TARGET (extended regular expressions, all must match).
expected_file() {
  case "$1" in
    x86_64-unknown-linux-gnu) printf '%s\n' '^ELF 64-bit LSB ' 'x86-64' 'static(-pie)? linked|statically linked' ;;
    aarch64-unknown-linux-gnu) printf '%s\n' '^ELF 64-bit LSB ' 'ARM aarch64' 'static(-pie)? linked|statically linked' ;;
    x86_64-pc-windows-gnu) printf '%s\n' '^PE32\+ executable' '\(console\) x86-64' ;;
    aarch64-apple-darwin) printf '%s\n' '^Mach-O 64-bit' 'arm64' 'executable' ;;
    x86_64-apple-darwin) printf '%s\n' '^Mach-O 64-bit' 'x86_64' 'executable' ;;
    *) fail "no expected file(1) output for $1" ;;
  esac
}

# A two-line transcript (a prompt and an answer with its usage) and the payload of EVENT for it,
# in HOME's projects folder.
session=0b5c1c0e-5a7e-4d7a-9f0e-2c1d3e4f5a6b
write_transcript() {
  local home=$1 project_dir="$1/.claude/projects/-work-project"
  mkdir -p "$project_dir" "$home/project"
  cat >"$project_dir/$session.jsonl" <<EOF
{"type":"user","sessionId":"$session","uuid":"11111111-1111-4111-8111-111111111111","parentUuid":null,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work/project","version":"2.1.332","message":{"role":"user","content":"say hello"}}
{"type":"assistant","sessionId":"$session","uuid":"22222222-2222-4222-8222-222222222222","parentUuid":"11111111-1111-4111-8111-111111111111","timestamp":"2026-01-01T00:00:01.000Z","cwd":"/work/project","version":"2.1.332","requestId":"req_1","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn","usage":{"input_tokens":12,"cache_creation_input_tokens":3000,"cache_read_input_tokens":20000,"output_tokens":7}}}
EOF
}
payload() {
  local cwd=$1 event=$2 transcript=$3 extra=""
  case "$event" in
    Stop) extra=',"stop_hook_active":false' ;;
    PreCompact) extra=',"trigger":"manual","custom_instructions":""' ;;
    SessionStart) extra=',"source":"startup"' ;;
    PostToolUse) extra=',"tool_name":"Bash","tool_input":{"command":"echo hi"},"tool_response":{"stdout":"hi","stderr":"","interrupted":false},"tool_use_id":"toolu_1"' ;;
  esac
  printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}' \
    "$session" "$transcript" "$cwd" "$event" "$extra"
}

# PATH as Wine's Windows programs see it (drive Z: is /), with each backslash doubled when JSON
# is "json".
windows_path() {
  local path="Z:${1//\//\\}"
  [[ "${2:-}" != json ]] || path=${path//\\/\\\\}
  printf '%s' "$path"
}

# Runs TARGET's binaries from BIN with RUNNER (empty: natively) in a fresh HOME. STYLE is how
# a path reaches the program: `unix`, or `windows` (Wine's drive Z:, and CLAUDE_CONFIG_DIR in
# place of HOME, which Wine does not pass on).
run_binaries() {
  local target=$1 bin=$2 exe=$3 style=$4 home="$work/home-$1" transcript cwd version hook event out
  shift 4
  local runner=("$@") place
  rm -rf "$home"
  mkdir -p "$home"
  write_transcript "$home"
  transcript="$home/.claude/projects/-work-project/$session.jsonl"
  cwd="$home/project"
  place=(HOME="$home")
  if [[ "$style" == windows ]]; then
    transcript=$(windows_path "$transcript" json)
    cwd=$(windows_path "$cwd" json)
    place=(CLAUDE_CONFIG_DIR="$(windows_path "$home/.claude")")
  fi
  local run=(env -u CLAUDE_CONFIG_DIR -u CTXHOOKS_HOME "${place[@]}" ${runner[@]+"${runner[@]}"})
  version=$("${run[@]}" "$bin/ctxhooks$exe" --version) || fail "$target: ctxhooks --version failed"
  [[ "$version" == "ctxhooks $(awk -F'"' '/^version *=/ { print $2; exit }' Cargo.toml)"* ]] ||
    fail "$target: ctxhooks --version printed: $version"
  echo "   $target: ctxhooks --version: ${version%$'\r'}"
  for hook in ctxhooks-session:SessionStart ctxhooks-tooluse:PostToolUse ctxhooks-stop:Stop ctxhooks-precompact:PreCompact; do
    event=${hook#*:}
    hook=${hook%%:*}
    out=$(payload "$cwd" "$event" "$transcript" | "${run[@]}" "$bin/$hook$exe") ||
      fail "$target: $hook ($event) exited $?"
    [[ -z "$out" ]] || fail "$target: $hook ($event) printed on stdout: $out"
    echo "   $target: $hook with a $event payload: exit 0, nothing on stdout"
  done
  [[ ! -s "$home/.claude/ctxhooks/errors.log" ]] ||
    fail "$target: the hooks logged problems: $(cat "$home/.claude/ctxhooks/errors.log")"
  # What the Stop hook logged: the answer's request, 23,012 tokens of context.
  out=$("${run[@]}" "$bin/ctxhooks$exe" usage --session "$session" --json) ||
    fail "$target: ctxhooks usage failed"
  grep -q '23012' <<<"$out" || fail "$target: ctxhooks usage does not show the Stop hook's row: $out"
  echo "   $target: ctxhooks usage shows the request the Stop hook logged"
}

# Windows under Wine 8. Rust's standard library for x86_64-pc-windows-gnu imports ProcessPrng
# from bcryptprimitives.dll (Windows 10 and later), which Wine 8 lacks: a binary that imports it
# does not start there (the loader fails before main). So: each binary is first started as
# shipped (`--version` for ctxhooks, an empty stdin for a hook), and one that does not start must
# import that DLL (objdump says which do; any other failure fails the test); then every binary
# runs as on Linux with a stand-in bcryptprimitives.dll beside it (tests/release/wine/, built
# here with MinGW-w64: ProcessPrng through Wine's BCryptGenRandom). The archive's binaries are
# not changed; the stand-in is in the test's copy of bin/ only.
windows_run() {
  local bin=$1 binary status imports
  export WINEARCH=win64 WINEDEBUG=-all WINEPREFIX=${PLATFORMS_WINEPREFIX:-$root/target/platforms/wine}
  if [[ ! -f "$WINEPREFIX/system.reg" ]]; then wineboot -i >/dev/null 2>&1; fi
  for binary in "${binaries[@]}"; do
    imports=$(x86_64-w64-mingw32-objdump -p "$bin/$binary.exe" | awk '/DLL Name:/ { print $3 }' | sort -u | tr '\n' ' ')
    status=0
    if [[ "$binary" == ctxhooks ]]; then
      /usr/lib/wine/wine64 "$bin/$binary.exe" --version >/dev/null 2>&1 </dev/null || status=$?
    else
      env CLAUDE_CONFIG_DIR="$(windows_path "$work/shipped-start")" /usr/lib/wine/wine64 "$bin/$binary.exe" \
        >/dev/null 2>&1 </dev/null || status=$?
    fi
    if [[ $status -eq 0 ]]; then
      echo "   x86_64-pc-windows-gnu: $binary.exe as shipped starts under Wine (imports: $imports)"
    elif [[ " $imports " == *" bcryptprimitives.dll "* ]]; then
      echo "   x86_64-pc-windows-gnu: $binary.exe as shipped does not start under Wine 8 (exit $status): it imports bcryptprimitives.dll (imports: $imports)"
    else
      fail "x86_64-pc-windows-gnu: $binary.exe exits $status under Wine without importing bcryptprimitives.dll"
    fi
  done
  x86_64-w64-mingw32-gcc -O2 -shared -o "$bin/bcryptprimitives.dll" tests/release/wine/bcryptprimitives.c \
    tests/release/wine/bcryptprimitives.def -lbcrypt || fail "cannot build the stand-in bcryptprimitives.dll"
  echo "   x86_64-pc-windows-gnu: with the stand-in bcryptprimitives.dll beside them:"
  run_binaries x86_64-pc-windows-gnu "$bin" .exe windows /usr/lib/wine/wine64
}

for archive in "${archives[@]}"; do
  name=$(basename "$archive" .tar.gz)
  # ctxhooks-VERSION-TARGET.
  target=$(sed -E 's/^ctxhooks-[0-9]+\.[0-9]+\.[0-9]+-//' <<<"$name")
  echo "== $target"
  (cd "$(dirname "$archive")" && sha256sum -c --quiet "$name.tar.gz.sha256") || fail "$name: the .sha256 does not check"
  exe=""
  [[ "$target" != *-windows-* ]] || exe=.exe
  rm -rf "${work:?}/$target"
  mkdir -p "$work/$target"
  tar -xzf "$archive" -C "$work/$target"
  bin="$work/$target/$name/bin"
  held=$(cd "$bin" && find . -mindepth 1 -printf '%P\n' | sort)
  [[ "$held" == "$(printf "%s$exe\n" "${binaries[@]}" | sort)" ]] || fail "$name: bin/ holds $held"
  for binary in "${binaries[@]}"; do
    description=$(file -b "$bin/$binary$exe")
    while read -r pattern; do
      grep -Eq -- "$pattern" <<<"$description" ||
        fail "$target: file(1) says of $binary$exe: $description (expected /$pattern/)"
    done < <(expected_file "$target")
  done
  echo "   file: $(file -b "$bin/ctxhooks$exe" | cut -c 1-110)"
  case "$target" in
    x86_64-unknown-linux-gnu) run_binaries "$target" "$bin" "" unix ;;
    aarch64-unknown-linux-gnu) run_binaries "$target" "$bin" "" unix qemu-aarch64 ;;
    x86_64-pc-windows-gnu) windows_run "$bin" ;;
    aarch64-apple-darwin | x86_64-apple-darwin)
      # Not run (no macOS here); each binary's code signature checked against its bytes (Apple
      # silicon runs no program whose signature does not match), and what it loads.
      cpu=arm64
      [[ "$target" == aarch64-* ]] || cpu=x86_64
      python3 tests/release/macho-check.py "$cpu" "$bin"/* || fail "$target: a binary fails the Mach-O check (above)"
      echo "   $target: not run (no macOS here)"
      ;;
  esac
done
echo "cross release test passed"
