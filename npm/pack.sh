#!/usr/bin/env bash
# Makes the npm packages from the release archives (install/release.sh) with `npm pack`, as
# esbuild and ccusage ship native code: the launcher `ctxhooks` (npm/ctxhooks/: a small Node
# script that runs the native `ctxhooks`) and one package per platform, `@ctxhooks/<os>-<cpu>`,
# whose `os` and `cpu` fields let npm install only the one that fits, holding bin/ with the six
# native binaries of that platform's archive. The launcher names every platform package as an
# optional dependency, at the version of Cargo.toml, which every package.json here must have.
# Nothing is published.
#
#   npm/pack.sh                  # from ${ARCHIVES:-target/release-archives}
#   NPM_OUT=/tmp/npm npm/pack.sh # the tarballs' folder (default target/npm-packages)
#
# The last lines on stdout are the tarballs' paths, the launcher's first. A platform whose
# archive is missing gets no package (the launcher says so where it runs); the host's must be
# there.
set -euo pipefail

say() { printf 'npm-pack: %s\n' "$*" >&2; }
die() { printf 'npm-pack: error: %s\n' "$*" >&2; exit 1; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
archives=${ARCHIVES:-target/release-archives}
[[ "$archives" = /* ]] || archives="$root/$archives"
out=${NPM_OUT:-target/npm-packages}
[[ "$out" = /* ]] || out="$root/$out"
command -v npm >/dev/null 2>&1 || die "npm is not on PATH"

version=$("$root/install/version.sh") || die "no version (see above)"

# The launcher's package.json and platforms.json must agree with Cargo.toml and each other.
node - "$version" <<'EOF' || die "npm/ctxhooks/package.json does not match Cargo.toml or platforms.json (above)"
const [version] = process.argv.slice(2);
const manifest = require('./npm/ctxhooks/package.json');
const platforms = require('./npm/ctxhooks/platforms.json');
const problems = [];
if (manifest.version !== version) problems.push(`its version is ${manifest.version}, Cargo.toml's ${version}`);
const wanted = Object.values(platforms).map((p) => p.package).sort();
const named = Object.keys(manifest.optionalDependencies || {}).sort();
if (JSON.stringify(wanted) !== JSON.stringify(named)) {
  problems.push(`its optionalDependencies ${named.join(' ')} are not platforms.json's ${wanted.join(' ')}`);
}
for (const [name, pinned] of Object.entries(manifest.optionalDependencies || {})) {
  if (pinned !== version) problems.push(`${name} is pinned to ${pinned}, not ${version}`);
}
for (const problem of problems) console.error(`npm-pack: ${problem}`);
process.exit(problems.length ? 1 : 0);
EOF

host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"

# `npm pack` in FOLDER, into $out; prints the tarball's path.
pack() {
    local file
    file=$(cd "$1" && npm pack --silent --pack-destination "$out" | tail -n 1)
    [[ -f "$out/$file" ]] || die "npm pack in $1 made no tarball"
    say "made $out/$file"
    printf '%s\n' "$out/$file"
}

tarballs=()
# The launcher, with the repository's README.
cp -R npm/ctxhooks "$stage/ctxhooks"
cp README.md "$stage/ctxhooks/README.md"
if [[ -f LICENSE ]]; then cp LICENSE "$stage/ctxhooks/"; fi
tarballs+=("$(pack "$stage/ctxhooks")")

# One package per platform: "<os> <cpu>" of platforms.json, its target's archive.
while IFS=$'\t' read -r os cpu package target; do
    name="ctxhooks-$version-$target"
    archive="$archives/$name.tar.gz"
    if [[ ! -f "$archive" ]]; then
        [[ "$target" != "$host" ]] || die "$archive is missing (install/release.sh makes it)"
        say "no $archive: no $package package (install/release.sh all makes every archive)"
        continue
    fi
    if [[ -f "$archive.sha256" ]]; then
        (cd "$archives" && sha256sum -c --quiet "$name.tar.gz.sha256") >&2 ||
            die "$archive does not match its .sha256"
    fi
    dir="$stage/${package#@ctxhooks/}"
    mkdir -p "$dir"
    tar -xzf "$archive" -C "$dir"
    mv "$dir/$name/bin" "$dir/bin"
    rm -rf "${dir:?}/$name"
    chmod 0755 "$dir"/bin/*
    node - "$dir/package.json" "$package" "$version" "$os" "$cpu" "$target" <<'EOF'
const fs = require('node:fs');
const [file, name, version, os, cpu, target] = process.argv.slice(2);
const launcher = require('./npm/ctxhooks/package.json');
fs.writeFileSync(file, JSON.stringify({
  name,
  version,
  description: `The native binaries of ctxhooks for ${os} on ${cpu} (${target}); the ctxhooks package runs them`,
  license: launcher.license,
  repository: launcher.repository,
  os: [os],
  cpu: [cpu],
  files: ['bin/'],
  preferUnplugged: true,
}, null, 2) + '\n');
EOF
    {
        printf '# %s\n\nThe native binaries of the npm package ctxhooks for %s on %s (%s).\n' \
            "$package" "$os" "$cpu" "$target"
        printf 'Install ctxhooks, not this package: npm picks this one by its os and cpu fields.\n'
    } >"$dir/README.md"
    tarballs+=("$(pack "$dir")")
done < <(node -e '
for (const [key, p] of Object.entries(require("./npm/ctxhooks/platforms.json"))) {
  const [os, cpu] = key.split(" ");
  console.log([os, cpu, p.package, p.target].join("\t"));
}')

printf '%s\n' "${tarballs[@]}"
