#!/usr/bin/env bash
# The npm packages end to end, offline: npm/pack.sh packs the launcher and every platform whose
# archive is in ${OUT:-<repository>/target/release-archives} (install/release.sh makes this
# machine's first when it is missing); each platform tarball must hold bin/ with the six
# binaries, executable, and name its `os` and `cpu`. Then, with no registry (`--offline`, an empty
# npm cache), the launcher's and this platform's tarballs are installed with `npm install -g`
# into a fresh prefix and HOME:
#   - `ctxhooks --version` runs through the launcher, and its exit status comes through;
#   - `ctxhooks install` registers the hooks with the absolute paths of the platform package's
#     native binaries, and a hook run by that path with a Stop payload exits 0 and logs the turn;
#   - `ctxhooks uninstall` takes them out (the settings file is gone again);
# and then the integration test e2e_npm does the same with the pinned Claude Code CLI running
# the hooks on a turn (tests/integration/e2e_npm.rs).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
fail() { printf 'npm test: FAILED: %s\n' "$*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${OUT:-$root/target/release-archives}
version=$(awk -F'"' '/^version *=/ { print $2; exit }' Cargo.toml)
host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
  x86_64-unknown-linux-gnu) platform=linux-x64 ;;
  aarch64-unknown-linux-gnu) platform=linux-arm64 ;;
  *) fail "this test runs on Linux (x86_64 or aarch64), not $host" ;;
esac
if [[ ! -f "$out/ctxhooks-$version-$host.tar.gz" ]]; then
  echo "== install/release.sh (this machine's archive)"
  OUT="$out" install/release.sh >/dev/null
fi

echo "== npm/pack.sh"
ARCHIVES="$out" NPM_OUT="$work/packages" npm/pack.sh >"$work/tarballs"
launcher="$work/packages/ctxhooks-$version.tgz"
own="$work/packages/ctxhooks-$platform-$version.tgz"
grep -qx "$launcher" "$work/tarballs" || fail "npm/pack.sh made no $launcher"
grep -qx "$own" "$work/tarballs" || fail "npm/pack.sh made no $own"

echo "== every platform tarball: bin/ with the six binaries, executable; os and cpu"
binaries=(ctxhooks ctxhooks-search ctxhooks-precompact ctxhooks-stop ctxhooks-tooluse ctxhooks-session)
while read -r tarball; do
  [[ "$tarball" != "$launcher" ]] || continue
  name=$(basename "$tarball" "-$version.tgz")
  exe=""
  [[ "$name" != ctxhooks-win32-* ]] || exe=.exe
  tar -tvzf "$tarball" >"$work/listing"
  for binary in "${binaries[@]}"; do
    grep -Eq "^-rwxr-xr-x .* package/bin/$binary$exe\$" "$work/listing" ||
      fail "$tarball: no executable package/bin/$binary$exe: $(cat "$work/listing")"
  done
  tar -xzOf "$tarball" package/package.json >"$work/package.json"
  node -e '
    const m = require(process.argv[1]); const [os, cpu] = process.argv[2].split("-").slice(1);
    if (m.name !== "@ctxhooks/" + os + "-" + cpu || m.version !== process.argv[3] ||
        m.os.join() !== os || m.cpu.join() !== cpu) { console.error(m); process.exit(1); }' \
    "$work/package.json" "$name" "$version" || fail "$tarball: its package.json is not its platform's"
  echo "   $(basename "$tarball"): ok"
done <"$work/tarballs"
tar -xzOf "$launcher" package/package.json >"$work/launcher.json"
node -e '
  const m = require(process.argv[1]);
  const deps = Object.entries(m.optionalDependencies);
  if (m.version !== process.argv[2] || deps.length !== 5 || deps.some(([, v]) => v !== process.argv[2])) {
    console.error(m); process.exit(1);
  }' "$work/launcher.json" "$version" || fail "the launcher's package.json does not pin the five platforms to $version"

echo "== npm install -g --offline (the launcher and $platform, nothing fetched) into a fresh prefix and HOME"
home="$work/home"
prefix="$work/prefix"
mkdir -p "$home"
fresh() {
  env -u CLAUDE_CONFIG_DIR -u CTXHOOKS_HOME HOME="$home" npm_config_cache="$work/npm-cache" \
    npm_config_update_notifier=false "$@"
}
fresh npm install --global --offline --no-audit --no-fund --prefix "$prefix" "$launcher" "$own"
ctxhooks="$prefix/bin/ctxhooks"
[[ -x "$ctxhooks" ]] || fail "npm installed no $ctxhooks"
native="$(cd "$prefix/lib/node_modules/@ctxhooks/$platform/bin" && pwd -P)"

echo "== the launcher runs the native ctxhooks (--version; a failing command's status comes through)"
fresh "$ctxhooks" --version | grep -qx "ctxhooks $version" || fail "ctxhooks --version through the launcher"
status=0
fresh "$ctxhooks" no-such-command 2>/dev/null || status=$?
[[ $status -eq 2 ]] || fail "ctxhooks no-such-command exited $status through the launcher, not the native 2"

echo "== ctxhooks install: the hooks are $native/*"
fresh "$ctxhooks" install
settings="$home/.claude/settings.json"
grep -o '"command": *"[^"]*"' "$settings" | sed 's/^"command": *"//; s/"$//' | sort -u >"$work/commands"
printf '%s\n' "$native/ctxhooks-precompact" "$native/ctxhooks-session" "$native/ctxhooks-stop" \
  "$native/ctxhooks-tooluse" | sort >"$work/expected"
diff "$work/expected" "$work/commands" || fail "the hooks are not the platform package's native binaries (diff above)"

echo "== the Stop hook, run by its registered path with a Stop payload"
session=0b5c1c0e-5a7e-4d7a-9f0e-2c1d3e4f5a6b
transcript="$home/.claude/projects/-project/$session.jsonl"
mkdir -p "$(dirname "$transcript")"
cat >"$transcript" <<EOF
{"type":"user","sessionId":"$session","uuid":"11111111-1111-4111-8111-111111111111","parentUuid":null,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/project","version":"2.1.332","message":{"role":"user","content":"say hello"}}
{"type":"assistant","sessionId":"$session","uuid":"22222222-2222-4222-8222-222222222222","parentUuid":"11111111-1111-4111-8111-111111111111","timestamp":"2026-01-01T00:00:01.000Z","cwd":"/project","version":"2.1.332","requestId":"req_1","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn","usage":{"input_tokens":12,"cache_creation_input_tokens":3000,"cache_read_input_tokens":20000,"output_tokens":7}}}
EOF
stop=$(grep -x ".*/ctxhooks-stop" "$work/commands")
answer=$(printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false}' \
  "$session" "$transcript" "$home" | fresh "$stop") || fail "$stop exited $?"
[[ -z "$answer" ]] || fail "$stop printed on stdout: $answer"
fresh "$ctxhooks" usage --session "$session" --json | grep -q 23012 || fail "ctxhooks usage does not show the Stop hook's row"
[[ ! -s "$home/.claude/ctxhooks/errors.log" ]] || fail "the hook logged: $(cat "$home/.claude/ctxhooks/errors.log")"

echo "== ctxhooks uninstall (the settings file did not exist before: it is gone)"
fresh "$ctxhooks" uninstall
[[ ! -e "$settings" ]] || fail "ctxhooks uninstall left $settings"

echo "== e2e_npm: the same install, the hooks run by the pinned Claude Code CLI (tests/integration/e2e_npm.rs)"
tests/e2e/install-tools.sh
# The sandbox the test runs in copies the workspace's hook binaries too (unused here): built first.
cargo build --locked -p ctxhooks-hooks
CTXHOOKS_E2E=require CTXHOOKS_NPM_LAUNCHER="$launcher" CTXHOOKS_NPM_PLATFORM="$own" \
  cargo test --locked -p ctxhooks --test integration e2e_npm -- --exact \
  e2e_npm::the_npm_packages_install_native_hooks_that_the_cli_runs
echo "npm package test passed"
