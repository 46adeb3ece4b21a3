/**
 * "Cross-seed your client" (cross-seed.html, issue 17) as a person opens it, in Chromium (English)
 * and Firefox (Chinese): its title, the offer to turn the index on when it is off (which needs
 * nothing of the background job), and the link to it from the options page. The job itself end to
 * end (preview, pace, progress, report against the test trackers and real clients) comes with the
 * background job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { startWorld, type World } from './world';
import { until } from './support/wait';
import { uiText } from './support/messages';

afterAll(closeAllBrowsers);


describe.each(BROWSER_KINDS)('%s: the page "Cross-seed your client"', (kind) => {
  const lang = kind === 'firefox' ? 'zh-CN' : 'en';
  const text = uiText(lang);
  let world: World;
  let browser: HarnessBrowser;
  let page: HarnessPage;

  beforeAll(async () => {
    world = await startWorld();
    browser = await launchBrowser(kind, { proxyPort: world.router.port, lang });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('is cross-seed.html, titled "Cross-seed your client" in the browser\'s language', async () => {
    page = await browser.openExtensionPage('cross-seed.html');
    await page.waitForSelector('#page-title');
    expect(await page.textContent('#page-title')).toBe(text('crossSeedPageTitle'));
    await until(() => page.title(), (title) => title === text('crossSeedPageTitle'), 'the title in the browser\'s language');
    expect(await page.textContent('#job-find')).toBe(text('jobFind'));
  });

  it('with the index off (the default), says why it needs it and turns it on', async () => {
    await page.waitForSelector('#index-off');
    expect(await page.textContent('#index-off-title')).toBe(text('jobIndexOffTitle'));
    expect(await page.textContent('#turn-on-index')).toBe(text('jobTurnOnIndex'));
    await page.click('#turn-on-index');
    await until(
      () => browser.evaluateInExtension(async (api) => ((await api.storage.local.get('settings')).settings as { clientIndexEnabled?: boolean } | undefined)?.clientIndexEnabled === true),
      (on) => on,
      'the index turned on in the stored settings',
    );
    await page.waitForSelector('#index-off', { state: 'hidden' });
  });

  it('is opened by the link "Cross-seed your client" of the options page', async () => {
    const options = await browser.openExtensionPage('options.html');
    await options.waitForSelector('#client-index-section .cross-seed-page-link');
    expect(await options.textContent('#client-index-section .cross-seed-page-link')).toBe(text('crossSeedPageTitle'));
    const before = (await browser.openPages()).length;
    await options.click('#client-index-section .cross-seed-page-link');
    await until(
      async () => {
        const pages = await browser.openPages();
        if (pages.length <= before) return false;
        const urls = await Promise.all(pages.map((open) => open.url()));
        return urls.filter((url) => url.endsWith('/cross-seed.html')).length >= 2;
      },
      (opened) => opened,
      'a second cross-seed.html tab',
    );
  });
});
