/**
 * `npm run demo`: builds the extension, starts the reference lookup service (as 2025.iyuu.cn) and a
 * sample NexusPHP tracker page (as hdsky.me), opens Chromium with the extension, configures it
 * through its options page like a person would, visits the page and shows what the popup shows.
 *
 * With a display it leaves the browser open for you to try (Ctrl-C ends it). Without one it runs
 * headless, prints the popup's content and saves screenshots under .output/demo/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM_PATH, REPO_ROOT, launchBrowser, type HarnessBrowser } from '../test/e2e/harness/index.ts';
import { DEMO_TOKEN } from '../test/service/server';
import { SERVICE_BASE_URL, nexusDetailsPage, startWorld, torrentOn } from '../test/e2e/world';
import { ensureSystemPackages } from './system-packages.mjs';

const outDir = join(REPO_ROOT, '.output/demo');

function say(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** What npm cannot bring (Chromium, qBittorrent): the shared installer, as `npm test` uses it. */
function ensurePackages(): void {
  const packages = ensureSystemPackages('demo', { log: say });
  if (packages.ok) return;
  if (!packages.debian) {
    // Off Debian the browser may still be there, under another name.
    if (existsSync(CHROMIUM_PATH)) return;
    say('Elsewhere than Debian: install Chromium and set RESEED_CHROMIUM_PATH=/path/to/chromium.');
  }
  process.exit(1);
}

function build(): void {
  say('Building the extension (Chrome MV3)…');
  execFileSync(join(REPO_ROOT, 'node_modules/.bin/wxt'), ['build'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function waitForBadge(browser: HarnessBrowser, tabId: number): Promise<string> {
  const until = Date.now() + 20_000;
  for (;;) {
    const text = await browser.evaluateInExtension((api, id) => api.action.getBadgeText({ tabId: id }), tabId);
    if (/^\d+$/.test(text) || text === '!' || Date.now() > until) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main(): Promise<void> {
  ensurePackages();
  build();
  const headless = !process.env.DISPLAY;
  const world = await startWorld();
  const torrent = torrentOn(world.service, 'hdsky', 'Oppenheimer');
  const pageUrl = `http://hdsky.me/details.php?id=${torrent.torrentId}`;
  world.router.setHost('hdsky.me', { [`/details.php?id=${torrent.torrentId}`]: nexusDetailsPage(torrent) });
  say(`Reference service: ${world.service.url} (answers as ${SERVICE_BASE_URL}); tracker page: ${pageUrl}`);

  const browser = await launchBrowser('chromium', { proxyPort: world.router.port, headless });
  const stop = async () => {
    await browser.close();
    await world.close();
  };
  process.on('SIGINT', () => void stop().then(() => process.exit(0)));

  say('Configuring the extension through its options page…');
  const options = await browser.openExtensionPage('options.html');
  await options.fill('#baseUrl', SERVICE_BASE_URL);
  await options.fill('#token', DEMO_TOKEN);
  await options.click('#save');
  await options.waitForSelector('.status.ok');
  await options.click('#test-connection');
  await options.waitForSelector('.status.ok');
  await new Promise((resolve) => setTimeout(resolve, 300));
  say(`  ${await options.textContent('.status')}`);

  say(`Opening ${pageUrl}…`);
  const page = await browser.newPage();
  await page.goto(pageUrl);
  const tabId = await browser.tabIdOf(`details.php?id=${torrent.torrentId}`);
  const badge = await waitForBadge(browser, tabId);
  say(`  toolbar badge: ${badge}`);

  const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
  await (popup.raw as Page).setViewportSize({ width: 420, height: 640 });
  await popup.waitForSelector('a.candidate-link');
  await popup.waitForSelector('.recommended-list a').catch(() => undefined);
  const shown = await popup.evaluate(() => ({
    hashes: [...document.querySelectorAll('.hash-value')].map((el) => el.textContent ?? ''),
    heading: document.querySelector('#results-heading')?.textContent ?? '',
    sites: [...document.querySelectorAll('li.site')].map((site) => ({
      name: site.querySelector('.site-name')?.textContent ?? '',
      current: site.classList.contains('current'),
      links: [...site.querySelectorAll<HTMLAnchorElement>('a.candidate-link')].map((a) => a.href),
    })),
    recommended: [...document.querySelectorAll<HTMLAnchorElement>('.recommended-list a')].map((a) => `${a.textContent} <${a.href}>`),
  }));

  say('\nThe popup shows:');
  say(`  hash on this page: ${shown.hashes.join(', ')}`);
  say(`  ${shown.heading}`);
  for (const site of shown.sites) {
    say(`  - ${site.name}${site.current ? ' (this site)' : ''}`);
    for (const link of site.links) say(`      ${link}`);
  }
  say(`  recommended sites: ${shown.recommended.join(', ')}`);

  mkdirSync(outDir, { recursive: true });
  await popup.screenshot(join(outDir, 'popup.png'));
  await (page.raw as Page).setViewportSize({ width: 1100, height: 800 });
  await page.bringToFront();
  await (page.raw as Page).evaluate(() => document.querySelector('reseed-lens-panel')?.scrollIntoView({ block: 'center' }));
  await page.screenshot(join(outDir, 'tracker-page.png'));
  say(`\nScreenshots: ${join(outDir, 'popup.png')} and ${join(outDir, 'tracker-page.png')}`);

  if (headless) {
    await stop();
    say('Done (headless: no display). Run with a display to try it yourself.');
    return;
  }
  say('\nThe browser stays open: try the popup and the panel. Ctrl-C ends the demo.');
  await new Promise(() => undefined);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
