// The release's packaging, apart from its gates (scripts/release.mjs) so the tests can make the
// same packages from a tree that is not clean. It builds in .output/packaging/, not over .output/'s
// own builds: `wxt zip` for Chrome, then for Firefox with the
// sources zip (its contents: wxt.config.ts SOURCES), each zip rewritten in a fixed order with one
// fixed time stamp so that the same files always make the same zip, and SHA256SUMS for the three.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';

/** Every entry's time in the zips: the zip format's earliest (1980-01-01), as a fixed value. */
const ZIP_DATE = new Date(Date.UTC(1980, 0, 1, 12));

/** The three released zips' names for a version. */
export function packageNames(version) {
  return ['chrome', 'firefox', 'sources'].map((kind) => `reseed-lens-${version}-${kind}.zip`);
}

/** The first released entry of CHANGELOG.md (`## [x.y.z] - YYYY-MM-DD`), [Unreleased] aside. */
export function changelogEntry(changelog) {
  const match = /^## \[(\d+\.\d+\.\d+[^\]]*)\] - (\d{4}-\d{2}-\d{2})\s*$/m.exec(changelog);
  if (!match) return undefined;
  const rest = changelog.slice(match.index + match[0].length);
  const next = rest.search(/^## \[/m);
  return { version: match[1], date: match[2], notes: (next === -1 ? rest : rest.slice(0, next)).trim() };
}

/** The zip's entries (files only) as name → bytes. */
export async function zipEntries(file) {
  const archive = await JSZip.loadAsync(readFileSync(file));
  const entries = new Map();
  for (const entry of Object.values(archive.files)) {
    if (!entry.dir) entries.set(entry.name, await entry.async('nodebuffer'));
  }
  return entries;
}

/** Writes a zip's files under `dir`, as unpacking a downloaded zip does. */
export async function unpackZip(file, dir) {
  for (const [name, bytes] of await zipEntries(file)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), bytes);
  }
}

/** Rewrites a zip with its files sorted by name and one fixed time stamp. */
async function normaliseZip(file) {
  const entries = await zipEntries(file);
  const archive = new JSZip();
  for (const name of [...entries.keys()].sort()) archive.file(name, entries.get(name), { date: ZIP_DATE, createFolders: false });
  const bytes = await archive.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 }, platform: 'UNIX' });
  writeFileSync(file, bytes);
}

/**
 * The environment a release builds in: NODE_ENV left out, as on a fresh machine (a test runner's
 * NODE_ENV=test makes Vite and Preact build other code), and UTC for the zips' time stamps.
 */
export function buildEnvironment() {
  const env = { ...process.env, TZ: 'UTC' };
  delete env.RESEED_OUTPUT_DIR;
  for (const name of Object.keys(env)) if (name === 'NODE_ENV' || name.startsWith('VITEST')) delete env[name];
  return env;
}

/** Where the packaging builds (wxt.config.ts reads RESEED_OUTPUT_DIR): apart from .output/'s own builds. */
const BUILD_DIR = '.output/packaging';

function wxt(root, args) {
  const result = spawnSync(join(root, 'node_modules/.bin/wxt'), args, { cwd: root, stdio: 'inherit', env: { ...buildEnvironment(), RESEED_OUTPUT_DIR: BUILD_DIR } });
  if (result.status !== 0) throw new Error(`wxt ${args.join(' ')} failed (exit code ${result.status ?? result.signal})`);
}

/**
 * Builds and zips both packages and the sources of the project at `root` into `outDir`, with
 * SHA256SUMS. Returns the manifests' versions and the files made (name and size). `lock`: a file
 * held with flock for the whole packaging (npm test's builds take /tmp/build.lock), so that two
 * packagings of one tree at once (two test files) do not take each other's zips.
 */
export async function makePackages(root, outDir, { lock } = {}) {
  if (lock && spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0) {
    const locked = spawnSync('flock', [lock, process.execPath, fileURLToPath(import.meta.url), root, outDir], { stdio: 'inherit', env: buildEnvironment() });
    if (locked.status !== 0) throw new Error(`packaging failed (exit code ${locked.status ?? locked.signal})`);
    return madePackages(root, outDir);
  }
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  const names = packageNames(version);
  for (const name of names) rmSync(join(root, BUILD_DIR, name), { force: true });
  wxt(root, ['zip']);
  wxt(root, ['zip', '-b', 'firefox', '--sources']);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const sums = [];
  for (const name of names) {
    const made = join(root, BUILD_DIR, name);
    if (!existsSync(made)) throw new Error(`wxt zip made no ${name}`);
    renameSync(made, join(outDir, name));
    await normaliseZip(join(outDir, name));
    sums.push(`${createHash('sha256').update(readFileSync(join(outDir, name))).digest('hex')}  ${name}\n`);
  }
  writeFileSync(join(outDir, 'SHA256SUMS'), sums.join(''));
  return madePackages(root, outDir);
}

/** What a packaging made: the version, the two built manifests' versions, the files with their sizes. */
function madePackages(root, outDir) {
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  const manifestVersion = (dir) => JSON.parse(readFileSync(join(root, BUILD_DIR, dir, 'manifest.json'), 'utf8')).version;
  const files = [...packageNames(version), 'SHA256SUMS'].map((name) => ({ name, size: statSync(join(outDir, name)).size }));
  return { version, chrome: manifestVersion('chrome-mv3'), firefox: manifestVersion('firefox-mv2'), files };
}

// `node packages.mjs <root> <outDir>`: the packaging alone, as makePackages runs it under a lock.
if (process.argv[1] === fileURLToPath(import.meta.url)) await makePackages(process.argv[2], process.argv[3]);
