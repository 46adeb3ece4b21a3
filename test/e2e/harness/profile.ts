/**
 * Temp profiles and the guarantee that no browser outlives the test process.
 *
 * Every profile sits under one directory per run: RESEED_E2E_RUN_DIR (set by scripts/test.mjs, which
 * sweeps that directory's browsers after Vitest exits), else `$TMPDIR/reseed-lens-e2e/<id>/` with
 * the id from RESEED_E2E_RUN_ID or this process. A browser is found and killed by its profile path
 * on the command line, so a test that failed half-way, or a worker that was terminated, cannot leave
 * Chromium or Firefox running.
 */
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBrowserProcesses, killBrowserProcesses } from './strays.mjs';
import type { BrowserKind } from './types.ts';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/**
 * The builds tests load unless a test passes its own. scripts/test.mjs points these at copies of
 * the builds it just made and linted (RESEED_E2E_CHROME_DIR / RESEED_E2E_FIREFOX_DIR), so a rebuild
 * by someone else in the same checkout cannot change the extension under test mid-run.
 */
export const DEFAULT_EXTENSION_DIRS: Record<BrowserKind, string> = {
  chromium: process.env.RESEED_E2E_CHROME_DIR ?? join(REPO_ROOT, '.output/chrome-mv3'),
  firefox: process.env.RESEED_E2E_FIREFOX_DIR ?? join(REPO_ROOT, '.output/firefox-mv2'),
};

export const RUN_DIR =
  process.env.RESEED_E2E_RUN_DIR ?? join(tmpdir(), 'reseed-lens-e2e', process.env.RESEED_E2E_RUN_ID ?? `pid-${process.pid}`);

const liveProfiles = new Set<string>();
let exitHookInstalled = false;

function removeRunDirIfEmpty(): void {
  try {
    rmdirSync(RUN_DIR); // fails, harmlessly, while another profile is still in it
  } catch {
    // not empty or already gone
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: kill by profile path and delete, nothing async.
  process.on('exit', () => {
    for (const dir of liveProfiles) {
      killBrowserProcesses(dir);
      rmSync(dir, { recursive: true, force: true });
    }
    removeRunDirIfEmpty();
  });
}

export function createProfileDir(kind: BrowserKind): string {
  installExitHook();
  mkdirSync(RUN_DIR, { recursive: true });
  const dir = mkdtempSync(join(RUN_DIR, `${kind}-`));
  liveProfiles.add(dir);
  return dir;
}

export function assertBuilt(kind: BrowserKind, dir: string): void {
  if (!existsSync(join(dir, 'manifest.json'))) {
    const command = kind === 'firefox' ? 'npx wxt build -b firefox' : 'npx wxt build';
    throw new Error(`No extension build at ${dir}. Build it first (\`${command}\`; \`npm test\` does this).`);
  }
}

/**
 * Runs the browser's own close, but never waits more than `graceMs`; then kills whatever still
 * runs from this profile and deletes it (unless `keepProfile`). A crash: a close that does
 * nothing and `graceMs` 0, so every process of the profile gets SIGKILL.
 */
export async function shutDown(
  profileDir: string,
  gracefulClose: () => Promise<unknown>,
  graceMs = 5_000,
  /** Leave the profile on disk (a restart launches on it again); the exit hook still deletes it. */
  keepProfile = false,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      gracefulClose().catch(() => undefined),
      new Promise((done) => {
        timer = setTimeout(done, graceMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    killBrowserProcesses(profileDir);
    if (keepProfile) {
      // The profile is only free once every process of the old browser is gone (its lock files).
      for (let tries = 0; findBrowserProcesses(profileDir).length && tries < 100; tries++) await new Promise((done) => setTimeout(done, 50));
      return;
    }
    liveProfiles.delete(profileDir);
    // Chromium may still be flushing files for a moment after exit; retry instead of failing.
    rmSync(profileDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    if (liveProfiles.size === 0) removeRunDirIfEmpty();
  }
}
