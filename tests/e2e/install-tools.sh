#!/usr/bin/env bash
# Installs the pinned Claude Code CLI and Agent SDK (and ccusage, for the usage cross-check) into
# the git-ignored `.e2e/` folder at the repository root, a Python venv `.e2e/python/` with the
# pinned duckdb and jsonschema (the fleet export's tests), and for `ctxhooks view`'s pages
# Debian's Chromium (as root, when /usr/bin/chromium is missing) with the pinned playwright-core
# in `.e2e/browser/`. Reused when already present; fails loudly when a registry cannot deliver
# them.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tools="$root/.e2e"

claude_code_version=2.1.332
agent_sdk_version=0.3.332
ccusage_version=20.0.24
duckdb_version=2.0.0
jsonschema_version=4.26.0
playwright_core_version=1.65.2

mkdir -p "$tools"
cd "$tools"
if [ ! -f package.json ]; then
  printf '{\n  "name": "ctxhooks-e2e-tools",\n  "private": true\n}\n' >package.json
fi

installed_version() {
  node -e 'try { console.log(require(process.argv[1] + "/package.json").version) } catch { }' \
    "$tools/node_modules/$1" 2>/dev/null
}

wanted=()
[ "$(installed_version @anthropic-ai/claude-code)" = "$claude_code_version" ] ||
  wanted+=("@anthropic-ai/claude-code@$claude_code_version")
[ "$(installed_version @anthropic-ai/claude-agent-sdk)" = "$agent_sdk_version" ] ||
  wanted+=("@anthropic-ai/claude-agent-sdk@$agent_sdk_version")
[ "$(installed_version ccusage)" = "$ccusage_version" ] || wanted+=("ccusage@$ccusage_version")

if [ ${#wanted[@]} -gt 0 ]; then
  echo "install-tools: installing ${wanted[*]} into .e2e/" >&2
  npm install --no-audit --no-fund --save-exact "${wanted[@]}" >&2
fi

claude="$tools/node_modules/.bin/claude"
version=$("$claude" --version)
case "$version" in
  "$claude_code_version"*) ;;
  *) echo "install-tools: expected Claude Code $claude_code_version, got: $version" >&2; exit 1 ;;
esac
echo "install-tools: Claude Code $version, Agent SDK $(installed_version @anthropic-ai/claude-agent-sdk), ccusage $(installed_version ccusage)" >&2

# The fleet export's tests: duckdb runs the shipped SQL, jsonschema checks every exported line.
venv="$tools/python"
python_version() { # python_version <module>: the installed version, or nothing
  "$venv/bin/python" -c 'import importlib.metadata, sys; print(importlib.metadata.version(sys.argv[1]))' "$1" 2>/dev/null || true
}
if [ ! -x "$venv/bin/python" ]; then
  echo "install-tools: creating the Python venv .e2e/python" >&2
  python3 -m venv "$venv"
fi
if [ "$(python_version duckdb)" != "$duckdb_version" ] || [ "$(python_version jsonschema)" != "$jsonschema_version" ]; then
  echo "install-tools: installing duckdb==$duckdb_version jsonschema==$jsonschema_version into .e2e/python" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "duckdb==$duckdb_version" "jsonschema==$jsonschema_version" >&2
fi
echo "install-tools: Python $("$venv/bin/python" --version 2>&1 | cut -d' ' -f2), duckdb $(python_version duckdb), jsonschema $(python_version jsonschema)" >&2

# `ctxhooks view`'s pages in a real browser (tests/integration/e2e_browser.rs): Debian's Chromium,
# driven by playwright-core in a package of its own (the CLI's tree above is left as it is).
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "install-tools: installing Debian's chromium" >&2
    apt-get install -y chromium >&2 || { apt-get update >&2 && apt-get install -y chromium >&2; }
  else
    echo "install-tools: /usr/bin/chromium is missing and this is not root with apt-get: install Debian's chromium" >&2
    exit 1
  fi
fi
browser="$tools/browser"
mkdir -p "$browser"
if [ ! -f "$browser/package.json" ]; then
  printf '{\n  "name": "ctxhooks-e2e-browser",\n  "private": true\n}\n' >"$browser/package.json"
fi
playwright_installed=$(node -e 'try { console.log(require(process.argv[1] + "/package.json").version) } catch { }' \
  "$browser/node_modules/playwright-core" 2>/dev/null)
if [ "$playwright_installed" != "$playwright_core_version" ]; then
  echo "install-tools: installing playwright-core@$playwright_core_version into .e2e/browser/" >&2
  (cd "$browser" && npm install --no-audit --no-fund --save-exact "playwright-core@$playwright_core_version" >&2)
fi
echo "install-tools: $(/usr/bin/chromium --version 2>/dev/null | head -n 1), playwright-core $playwright_core_version" >&2
