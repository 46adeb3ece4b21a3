/**
 * E2E harness: the built extension in Chromium (Playwright) or Firefox ESR (Puppeteer) behind the
 * test router, with one small API for both.
 *
 * ```ts
 * const router = await startRouter({
 *   hosts: {
 *     'hdsky.me': fixturePages({ '/details.php?id=1': 'nexusphp/hdsky-details.html' }),
 *     '2025.iyuu.cn': service.handle,            // the reference lookup service
 *   },
 * });
 * const browser = await launchBrowser('firefox', { proxyPort: router.port, lang: 'zh-CN' });
 * try {
 *   const tracker = await browser.newPage();
 *   await tracker.goto('http://hdsky.me/details.php?id=1');
 *   const tabId = await browser.tabIdOf('hdsky.me/details.php');
 *   const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
 *   await popup.waitForSelector('[data-testid=candidate]');
 *   expect(router.hostsWithHeader('token')).toEqual(['2025.iyuu.cn']);
 * } finally {
 *   await browser.close();
 *   await router.close();
 * }
 * ```
 * Tests need the builds in .output/ (scripts/test.mjs builds first). Every launch gets a fresh temp
 * profile that is deleted on close; browsers left by a crashed test die with the test process.
 */
import { launchChromium } from './chromium.ts';
import { launchFirefox } from './firefox.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../support/wait.ts';
import type { BrowserKind, HarnessBrowser, LaunchOptions } from './types.ts';

export * from './types.ts';
export * from './host-router.ts';
export { DEFAULT_EXTENSION_DIRS, REPO_ROOT, RUN_DIR } from './profile.ts';
export { CHROMIUM_PATH } from './chromium.ts';
export { FIREFOX_PATH } from './firefox.ts';

export const BROWSER_KINDS: readonly BrowserKind[] = ['chromium', 'firefox'];

const open = new Set<HarnessBrowser>();

export async function launchBrowser(kind: BrowserKind, options: LaunchOptions = {}): Promise<HarnessBrowser> {
  const browser = tracked(kind === 'chromium' ? await launchChromium(options) : await launchFirefox(options));
  if (!options.withoutExtension && !options.keepFirstRun && isReseedLens(options.extensionDir)) {
    try {
      await closeFirstRun(browser);
    } catch (error) {
      await browser.close();
      throw error;
    }
  }
  return browser;
}

/**
 * A fresh profile's install opens the options page at "Get started" (features/get-started): closed
 * at once, so it neither stands in front of the test's own pages (Firefox gives a tab behind
 * another no animation frames) nor counts among them.
 */
async function closeFirstRun(browser: HarnessBrowser): Promise<void> {
  const guide = `${browser.extensionOrigin}/options.html#get-started`;
  const page = await until(
    async () => {
      for (const open of await browser.openPages()) if ((await open.url().catch(() => '')) === guide) return open;
      return undefined;
    },
    (found) => !!found,
    'the options page the install opens at "Get started"',
  );
  // Closed once it has rendered, not while it loads: a Chromium whose first extension page was
  // closed mid-load showed raw message keys on its later pages (three test files, one run in four).
  await page!.waitForSelector('#get-started-heading', { timeoutMs: 30_000 });
  await page!.close();
}

/** Whether the extension loaded is Reseed Lens (a probe extension of a test opens no "Get started"). */
function isReseedLens(extensionDir: string | undefined): boolean {
  if (!extensionDir) return true;
  try {
    const manifest = JSON.parse(readFileSync(join(extensionDir, 'manifest.json'), 'utf8')) as { name?: string; options_ui?: { page?: string } };
    return manifest.name === '__MSG_extName__' && manifest.options_ui?.page === 'options.html';
  } catch {
    return false;
  }
}

/** Kept in `open` until closed; a restarted browser is the one tracked. */
function tracked(browser: HarnessBrowser): HarnessBrowser {
  open.add(browser);
  const close = browser.close.bind(browser);
  const restart = browser.restart.bind(browser);
  return Object.assign(browser, {
    close: async () => {
      open.delete(browser);
      await close();
    },
    restart: async (how: 'quit' | 'crash') => {
      open.delete(browser);
      return tracked(await restart(how));
    },
  });
}

/** Closes every browser this process launched and has not closed yet (for afterAll hooks). */
export async function closeAllBrowsers(): Promise<void> {
  await Promise.all([...open].map((browser) => browser.close()));
}
