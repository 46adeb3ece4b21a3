/**
 * Firefox ESR installs the release's Firefox package as a user's install is — the file in a fresh
 * profile's extensions folder, not a temporary add-on (signature checking is off in this profile,
 * as Firefox ESR allows; a user installs the file Firefox Add-ons signed) — and still has it after a
 * restart. Its first start opens "Get started", as in Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAllBrowsers, launchBrowser, type HarnessBrowser } from './harness/index.ts';
import { releasePackage, type ReleasePackage } from './support/release-package';
import { until } from './support/wait';

let release: ReleasePackage;
let browser: HarnessBrowser;

beforeAll(async () => {
  release = await releasePackage('firefox');
  browser = await launchBrowser('firefox', { extensionDir: release.dir, installedPackage: release.file, keepFirstRun: true });
});
afterAll(async () => {
  await closeAllBrowsers();
  release?.remove();
});

/** What Firefox says of the extension: its version and how it was installed. */
const self = () => browser.evaluateInExtension(async (api) => {
  const { version, installType, enabled } = await (api as unknown as { management: { getSelf(): Promise<{ version: string; installType: string; enabled: boolean }> } }).management.getSelf();
  return { version, installType, enabled };
});

describe('the Firefox package, installed in Firefox ESR', () => {
  it('is installed as a normal add-on, and opens "Get started" on its first start', async () => {
    const version = (await import('../../package.json', { with: { type: 'json' } })).default.version;
    expect(await self()).toEqual({ version, installType: 'normal', enabled: true });
    const urls = await until(
      async () => Promise.all((await browser.openPages()).map((page) => page.url())),
      (now) => now.some((url) => url.includes('/options.html')),
      'the options page opened by the install',
    );
    expect(urls.filter((url) => url.includes('/options.html'))).toEqual([`${browser.extensionOrigin}/options.html#get-started`]);
  });

  it('is still installed after a restart', async () => {
    browser = await browser.restart('quit');
    expect((await self()).installType).toBe('normal');
  });
});
