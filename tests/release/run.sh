#!/usr/bin/env bash
# The release archive end to end, as someone without Rust installs it: install/release.sh packs
# this machine's archive (reusing the release build when it is up to date, as after
# install/setup.sh), then install/setup.sh --from installs it into a throwaway HOME and PREFIX with
# a PATH that has neither cargo nor rustc. The hooks must be registered with absolute paths into
# PREFIX/bin, `ctxhooks doctor` must pass there, and `ctxhooks uninstall` must take them out again.
# Then the refusals, each of which must install nothing: an archive whose bytes are not its
# .sha256's, an archive without all six binaries, a file that is not an archive, a missing file.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { printf 'release test: FAILED: %s\n' "$*" >&2; exit 1; }

echo "== install/release.sh (this machine's archive)"
archive=$(OUT="$work/dist" install/release.sh | tail -n 1)
name=$(basename "$archive" .tar.gz)
[[ -f "$archive" && -f "$archive.sha256" ]] || fail "install/release.sh made no $archive and .sha256"
[[ "$name" =~ ^ctxhooks-[0-9]+\.[0-9]+\.[0-9]+.*-$(rustc -vV | sed -n 's/^host: //p')$ ]] ||
  fail "the archive's name $name is not ctxhooks-VERSION-HOST"
(cd "$work/dist" && sha256sum -c "$name.tar.gz.sha256") || fail "the .sha256 does not check"
binaries=(ctxhooks ctxhooks-search ctxhooks-precompact ctxhooks-stop ctxhooks-tooluse ctxhooks-session)
{
  printf '%s/\n' "$name" "$name/bin"
  printf '%s\n' "${binaries[@]/#/$name/bin/}"
  echo "$name/README.md"
  [[ ! -f LICENSE ]] || echo "$name/LICENSE"
} | sort >"$work/expected-listing"
tar -tzf "$archive" | sort >"$work/listing"
diff "$work/expected-listing" "$work/listing" || fail "the archive holds other files than expected (diff above)"

# A PATH with the tools setup.sh and the binaries use, and neither cargo nor rustc.
tools="$work/tools"
mkdir -p "$tools"
for tool in bash env tar gzip sha256sum mktemp cp chmod mv rm mkdir uname dirname cat sed grep tr head; do
  ln -s "$(command -v "$tool")" "$tools/$tool"
done
for absent in cargo rustc rustup; do
  if PATH="$tools" command -v "$absent" >/dev/null; then fail "$absent is on the test's PATH"; fi
done

# `ctxhooks install` and `doctor` run with this HOME alone; cargo's and rustup's folders are not
# told either.
in_fresh() {
  local home=$1 prefix=$2
  shift 2
  env -u CLAUDE_CONFIG_DIR -u CTXHOOKS_HOME -u CARGO_HOME -u RUSTUP_HOME -u CARGO_TARGET_DIR \
    HOME="$home" PREFIX="$prefix" PATH="$tools" "$@"
}

echo "== install/setup.sh --from the archive, without cargo or rustc on PATH"
mkdir -p "$work/home"
prefix="$work/prefix"
in_fresh "$work/home" "$prefix" install/setup.sh --from "$archive"
for binary in "${binaries[@]}"; do
  [[ -x "$prefix/bin/$binary" ]] || fail "$prefix/bin/$binary is not installed"
  cmp -s "$prefix/bin/$binary" <(tar -xzOf "$archive" "$name/bin/$binary") ||
    fail "$prefix/bin/$binary is not the archive's"
done
settings="$work/home/.claude/settings.json"
[[ -f "$settings" ]] || fail "no $settings was written"
# Every command the settings name (the hooks' only: no status line was asked for).
grep -o '"command": *"[^"]*"' "$settings" | sed 's/^"command": *"//; s/"$//' | sort -u >"$work/commands"
hooks=(ctxhooks-precompact ctxhooks-session ctxhooks-stop ctxhooks-tooluse)
printf '%s\n' "${hooks[@]/#/$prefix/bin/}" | sort >"$work/expected-commands"
diff "$work/expected-commands" "$work/commands" ||
  fail "the hooks are not registered with absolute paths into $prefix/bin (diff above)"

echo "== ctxhooks doctor, then ctxhooks uninstall (the settings file did not exist before: it is gone)"
in_fresh "$work/home" "$prefix" "$prefix/bin/ctxhooks" doctor
in_fresh "$work/home" "$prefix" "$prefix/bin/ctxhooks" uninstall
[[ ! -e "$settings" ]] || fail "ctxhooks uninstall left $settings"

# Runs setup.sh --from ARCHIVE on a fresh HOME and PREFIX; it must fail, say MESSAGE, and leave
# both as they were.
refuses() {
  local what=$1 archive=$2 message=$3 home="$work/refused-home" prefix="$work/refused-prefix"
  rm -rf "$home" "$prefix"
  mkdir -p "$home"
  echo "== install/setup.sh --from refuses $what"
  if in_fresh "$home" "$prefix" install/setup.sh --from "$archive" 2>"$work/refused.err"; then
    cat "$work/refused.err" >&2
    fail "setup.sh --from installed $what"
  fi
  cat "$work/refused.err" >&2
  grep -q "^setup: error: .*$message" "$work/refused.err" || fail "setup.sh did not say \"$message\""
  [[ ! -e "$prefix" && -z "$(ls -A "$home")" ]] || fail "setup.sh changed $home or $prefix for $what"
}

# The archive with one byte more, beside its own .sha256: what a damaged download looks like.
mkdir -p "$work/damaged"
cp "$archive" "$archive.sha256" "$work/damaged/"
printf 'x' >>"$work/damaged/$name.tar.gz"
refuses "an archive its .sha256 does not match" "$work/damaged/$name.tar.gz" "checksum mismatch"

# The archive without ctxhooks-stop (and no .sha256, which is not required).
mkdir -p "$work/incomplete"
tar -xzf "$archive" -C "$work/incomplete"
rm "$work/incomplete/$name/bin/ctxhooks-stop"
tar -C "$work/incomplete" -czf "$work/incomplete.tar.gz" "$name"
refuses "an archive without all six binaries" "$work/incomplete.tar.gz" "incomplete: bin/ lacks ctxhooks-stop"

printf 'not an archive\n' >"$work/text.tar.gz"
refuses "a file that is not an archive" "$work/text.tar.gz" "not a release archive"
refuses "a missing file" "$work/missing.tar.gz" "no such file"
echo "release archive test passed"
