#!/usr/bin/env node
// `npm run release`: from a clean tree whose versions agree, the four release files in
// .output/release/ (scripts/release/packages.mjs makes them). It refuses, in one sentence each, when
// the tree has uncommitted changes or when package.json, the top released CHANGELOG.md entry and
// the two built manifests do not name the same version. Run in the project's root (npm does).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { changelogEntry, makePackages } from './release/packages.mjs';

const root = process.cwd();
const started = Date.now();

function refuse(sentences) {
  for (const sentence of sentences) console.error(`Refusing to release: ${sentence}`);
  process.exit(1);
}

/** One sentence naming each version that differs from package.json's, or none when all agree. */
function versionProblem(versions) {
  const [first, ...others] = Object.entries(versions);
  const differing = others.filter(([, version]) => version !== first[1]);
  if (!differing.length) return undefined;
  const named = [first, ...differing].map(([where, version]) => `${where} says ${version ?? 'no version'}`).join(', ');
  return `the versions differ: ${named}. Make them the same version.`;
}

const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' });
if (status.status !== 0) refuse([`git status failed here (${(status.stderr || '').trim() || `exit code ${status.status}`}); a release is made from a git checkout.`]);
const changed = status.stdout.split('\n').filter(Boolean).map((line) => line.slice(3));
const problems = [];
if (changed.length) {
  const shown = changed.length > 10 ? `${changed.slice(0, 10).join(', ')} and ${changed.length - 10} more` : changed.join(', ');
  problems.push(`the tree has uncommitted changes (${shown}). Commit or stash them first.`);
}
const packageVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const entry = changelogEntry(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'));
const early = versionProblem({ 'package.json': packageVersion, 'CHANGELOG.md (top released entry)': entry?.version });
if (early) problems.push(early);
if (problems.length) refuse(problems);

const outDir = join(root, '.output/release');
const made = await makePackages(root, outDir);
const late = versionProblem({ 'package.json': packageVersion, 'the Chrome manifest': made.chrome, 'the Firefox manifest': made.firefox, 'CHANGELOG.md (top released entry)': entry.version });
if (late) {
  rmSync(outDir, { recursive: true, force: true });
  refuse([late]);
}
console.log(`\nRelease ${packageVersion} (${entry.date}) in .output/release/, made in ${((Date.now() - started) / 1000).toFixed(1)} s:`);
for (const file of made.files) console.log(`  ${file.name}  ${file.size} bytes`);
