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
import type { BrowserKind, HarnessBrowser, LaunchOptions } from './types.ts';

export * from './types.ts';
export * from './host-router.ts';
export { DEFAULT_EXTENSION_DIRS, REPO_ROOT, RUN_DIR } from './profile.ts';
export { CHROMIUM_PATH } from './chromium.ts';
export { FIREFOX_PATH } from './firefox.ts';

export const BROWSER_KINDS: readonly BrowserKind[] = ['chromium', 'firefox'];

const open = new Set<HarnessBrowser>();

export async function launchBrowser(kind: BrowserKind, options: LaunchOptions = {}): Promise<HarnessBrowser> {
  return tracked(kind === 'chromium' ? await launchChromium(options) : await launchFirefox(options));
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
