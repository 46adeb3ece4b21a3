/**
 * A release's packages for the e2e tests, made by the release's own packaging
 * (scripts/release/packages.mjs, without its clean-tree gate: inside `npm test` the tree need not
 * be clean), in a temporary folder; one of them unpacked as a user unpacks a downloaded zip.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { makePackages, packageNames, unpackZip } from '../../../scripts/release/packages.mjs';
import { REPO_ROOT, RUN_DIR } from '../harness/index.ts';

export interface ReleasePackage {
  /** The package as released (.zip). */
  file: string;
  /** The same, unpacked. */
  dir: string;
  remove(): void;
}

export async function releasePackage(kind: 'chrome' | 'firefox'): Promise<ReleasePackage> {
  mkdirSync(RUN_DIR, { recursive: true });
  const work = mkdtempSync(join(RUN_DIR, `release-${kind}-`));
  // npm test's builds hold the same lock (the CPU is shared; the packaging builds apart from .output's builds).
  const { version } = await makePackages(REPO_ROOT, join(work, 'release'), { lock: '/tmp/build.lock' });
  const file = join(work, 'release', packageNames(version)[kind === 'chrome' ? 0 : 1]!);
  const dir = join(work, kind);
  await unpackZip(file, dir);
  return { file, dir, remove: () => rmSync(work, { recursive: true, force: true }) };
}
