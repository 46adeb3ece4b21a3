/**
 * `npm run release` (scripts/release.mjs): its two refusals, each in a temporary clone of this
 * repository so the real tree is never touched; and the reproducibility its BUILD.md promises —
 * the sources zip, copied to a temporary folder and unpacked, rebuilt with exactly BUILD.md's
 * commands, gives the released Chrome and Firefox packages' files byte for byte.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEnvironment, makePackages, packageNames, unpackZip, zipEntries } from '../../../scripts/release/packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const work = mkdtempSync(join(tmpdir(), 'reseed-release-'));
// At the end `work` holds a clone of the repository (about 1,200 files) and the rebuild's whole
// `npm ci` (about 26,000 files, 370 MB). rmSync unlinked them one at a time on the worker's only
// thread, which on a busy 2-core machine (load 25-30) spent 14-68 s of a 16-74 s removal waiting
// for a CPU: past the unit project's 10 s hook timeout, the worker blocked all along. The promise
// API spreads the unlinks over libuv's threads and leaves the worker free (3-8 s for the same tree
// under the same load); the timeout is for what remains, removing 370 MB on a shared disk.
afterAll(() => rm(work, { recursive: true, force: true }), 120_000);

/**
 * Runs a command as a user would, npm's reports to the registry (audit, fund) aside. npm prefers
 * its cache (`prefer-offline`): a plain `npm ci` asked the registry again for all 669 packuments
 * and tarballs (1,338 requests, 38-47 s each at the median on a loaded machine, and 6-15 s of the
 * install's 43-61 s of CPU) although the cache held every one from the repository's own install.
 * npm still checks each tarball against the lockfile's integrity, and fetches what the cache lacks.
 */
function run(command: string, args: string[], cwd: string) {
  return spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...buildEnvironment(), npm_config_audit: 'false', npm_config_fund: 'false', npm_config_prefer_offline: 'true' },
  });
}

describe('npm run release refuses', () => {
  const clone = join(work, 'clone');
  const git = (...args: string[]) => {
    const result = run('git', ['-c', 'user.name=Release test', '-c', 'user.email=release-test@example.invalid', ...args], clone);
    expect(result.status, result.stderr).toBe(0);
  };
  const release = () => run(process.execPath, [join(root, 'scripts/release.mjs')], clone);

  it('when package.json and the top CHANGELOG entry name different versions, and says both', () => {
    expect(run('git', ['clone', '-q', root, clone], work).status).toBe(0);
    const packageJson = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8'));
    const released = /^## \[(\d+\.\d+\.\d+)\]/m.exec(readFileSync(join(clone, 'CHANGELOG.md'), 'utf8'))![1];
    writeFileSync(join(clone, 'package.json'), JSON.stringify({ ...packageJson, version: '9.9.9' }, null, 2));
    git('commit', '-q', '-am', 'a version CHANGELOG.md does not name');

    const answer = release();
    expect(answer.status).toBe(1);
    expect(answer.stderr.trim()).toBe(
      `Refusing to release: the versions differ: package.json says 9.9.9, CHANGELOG.md (top released entry) says ${released}. Make them the same version.`,
    );
    expect(existsSync(join(clone, '.output'))).toBe(false);
  });

  it('when the tree has uncommitted changes, and names the files', () => {
    git('reset', '-q', '--hard', 'HEAD~1');
    writeFileSync(join(clone, 'notes.txt'), 'not committed\n');
    writeFileSync(join(clone, 'README.md'), `${readFileSync(join(clone, 'README.md'), 'utf8')}\nedited\n`);

    const answer = release();
    expect(answer.status).toBe(1);
    expect(answer.stderr.trim()).toBe('Refusing to release: the tree has uncommitted changes (README.md, notes.txt). Commit or stash them first.');
    expect(existsSync(join(clone, '.output'))).toBe(false);
  });
});

/** The shell commands of BUILD.md's one ```sh block, as its reader would type them. */
function buildCommands(buildMd: string): string[] {
  const block = /```sh\n([\s\S]*?)```/.exec(buildMd)?.[1] ?? '';
  return block.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
}

describe('the sources zip', () => {
  // Two packagings and an install: 55-70 s of CPU (makePackages 11-16, npm ci 35-45 with the
  // project's postinstall, npm run package 9-11), most of it on one thread. On 2 cores that took
  // 67-96 s at load 10-15, 148-276 s at load 20-25 and more than 300 s at load 25-30: the limit is
  // for a hang (an install that waits forever), not for this much work on a busy machine.
  it('rebuilds, with BUILD.md\'s commands alone, both packages with every file byte for byte as released', { timeout: 900_000 }, async () => {
    const released = join(work, 'release');
    // The build lock npm test's own builds take (the CPU is shared).
    const { version } = await makePackages(root, released, { lock: '/tmp/build.lock' });
    const [chrome, firefox, sources] = packageNames(version);

    const rebuild = join(work, 'rebuild');
    mkdirSync(rebuild);
    copyFileSync(join(released, sources), join(rebuild, sources));
    // Only what the build reads: no tests, benches, docs, pictures of them, scripts or store texts.
    const sourceFiles = [...(await zipEntries(join(rebuild, sources))).keys()];
    expect(sourceFiles.filter((file) => /^(test|bench|docs|store|scripts|\.github|\.ci)\//.test(file) || (/\.md$/.test(file) && !['BUILD.md', 'CHANGELOG.md'].includes(file)))).toEqual([]);
    expect(sourceFiles).toEqual(expect.arrayContaining(['BUILD.md', 'package.json', 'package-lock.json', 'wxt.config.ts', 'entrypoints/background/index.ts']));
    await unpackZip(join(rebuild, sources), rebuild);
    rmSync(join(rebuild, sources));
    const commands = buildCommands(readFileSync(join(rebuild, 'BUILD.md'), 'utf8'));
    expect(commands).toEqual(['npm ci', expect.stringMatching(/^npm run \S+$/)]);
    for (const command of commands) {
      const result = run('sh', ['-c', command], rebuild);
      expect(result.status, `${command}: ${result.stderr}`).toBe(0);
    }

    for (const name of [chrome, firefox]) {
      const ours = await zipEntries(join(released, name));
      const theirs = await zipEntries(join(rebuild, '.output', name));
      expect([...theirs.keys()].sort(), name).toEqual([...ours.keys()].sort());
      const differing = [...ours].filter(([file, bytes]) => !bytes.equals(theirs.get(file)!)).map(([file]) => file);
      expect(differing, `${name}: files that differ`).toEqual([]);
      expect(ours.size).toBeGreaterThan(20);
    }
  });
});
