/**
 * The panel's confirmation window (issue 15): the extension page the background opens in a popup
 * window of its own when the page's panel "Cross-seed" is clicked.
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import type { Page as PuppeteerPage } from 'puppeteer-core';
import type { HarnessBrowser, HarnessPage } from '../harness/index.ts';
import { until } from './wait';

/** The confirmation window open for this tab, once it is there and has drawn its buttons. */
export async function confirmationFor(browser: HarnessBrowser, tabId: number, timeoutMs = 30_000): Promise<HarnessPage> {
  const page = await until(
    async () => {
      for (const open of await browser.openPages()) {
        if ((await open.url().catch(() => '')).includes(`/confirm.html?tabId=${tabId}&`)) return open;
      }
      return undefined;
    },
    (found) => !!found,
    `the confirmation window of tab ${tabId}`,
    timeoutMs,
  );
  await page!.waitForSelector('#confirm-close', { timeoutMs });
  return page!;
}

/** Every confirmation window open now (their URLs). */
export async function openConfirmations(browser: HarnessBrowser): Promise<string[]> {
  const urls = await Promise.all((await browser.openPages()).map((page) => page.url().catch(() => '')));
  return urls.filter((url) => url.includes('/confirm.html?'));
}

/** What the confirmation names: the torrent, the site, the client. */
export function confirmationFacts(page: HarnessPage): Promise<{ torrent: string; site: string; client: string }> {
  return page.evaluate(() => ({
    torrent: document.querySelector('.confirm-torrent')?.textContent ?? '',
    site: document.querySelector('.confirm-site')?.textContent ?? '',
    client: document.querySelector('.confirm-client')?.textContent ?? '',
  }));
}

/** Presses the confirmation's own "Cross-seed" once it takes clicks, and waits for its outcome sentence. */
export async function confirmCrossSeed(page: HarnessPage, timeoutMs = 60_000): Promise<string> {
  await page.waitForSelector('#confirm-cross-seed:not([disabled])', { state: 'visible', timeoutMs });
  // With the mouse, where the button is (a popup window's page, which Puppeteer's locators do not
  // count as in the viewport in headless Firefox).
  const point = await page.evaluate(() => {
    const box = document.querySelector('#confirm-cross-seed')!.getBoundingClientRect();
    return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
  });
  await (page.raw as PlaywrightPage | PuppeteerPage).mouse.click(point.x, point.y);
  return until(
    () => page.evaluate(() => document.querySelector('.cross-seed-outcome:not(.running) .cross-seed-sentence')?.textContent ?? null),
    (sentence) => !!sentence,
    'the outcome in the confirmation window',
    timeoutMs,
  ) as Promise<string>;
}
