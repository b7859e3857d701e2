#!/usr/bin/env node
// The `ctxhooks` command of the npm package: finds the native binaries of this platform (the
// optional dependency `@ctxhooks/<os>-<cpu>` npm installed beside this package, chosen by its
// `os` and `cpu` fields) and runs the native `ctxhooks` with the same arguments, its stdio
// inherited and its exit status passed on. Node runs only here: `ctxhooks install` registers the
// hooks with the absolute paths of the native hook binaries (the native `ctxhooks` names the
// folder it runs from), so no hook ever starts Node.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');

const platforms = require('../platforms.json');

function fail(message) {
  process.stderr.write(`ctxhooks: error: ${message}\n`);
  process.exit(1);
}

const key = `${process.platform} ${process.arch}`;
const platform = platforms[key];
if (!platform) {
  fail(
    `no native build for ${key} (there are builds for: ${Object.keys(platforms).join(', ')}); ` +
      'build it from source: cargo install --locked ctxhooks ctxhooks-hooks, then ctxhooks install',
  );
}

let packageDir;
try {
  packageDir = path.dirname(require.resolve(`${platform.package}/package.json`));
} catch {
  fail(
    `the package ${platform.package}, which holds this platform's binaries, is not installed ` +
      '(npm leaves optional dependencies out with --omit=optional or --no-optional); ' +
      `install it: npm install -g ctxhooks ${platform.package}`,
  );
}

const binary = path.join(packageDir, 'bin', process.platform === 'win32' ? 'ctxhooks.exe' : 'ctxhooks');
const args = process.argv.slice(2);
const result = spawnSync(binary, args, { stdio: 'inherit', windowsHide: true });
if (result.error) {
  fail(`could not run ${binary}: ${result.error.message}`);
}

// `npx ctxhooks install` without a lasting install registers binaries in npx's cache, which
// npm may clear: the hooks would then point at nothing. Said after the native output, once.
if (args[0] === 'install' && result.status === 0 && packageDir.split(path.sep).includes('_npx')) {
  process.stderr.write(
    `ctxhooks: note: the hooks now run the binaries in npx's cache (${path.dirname(binary)}), ` +
      'which npm may clear; for a lasting install: npm install -g ctxhooks && ctxhooks install\n',
  );
}

if (result.signal) {
  // Ended by a signal: end the same way, so that the caller sees what the native program saw.
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
