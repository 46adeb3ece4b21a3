/**
 * `npm run demo`: builds the extension, starts the reference lookup service (as 2025.iyuu.cn) and a
 * sample NexusPHP tracker page (as hdsky.me), opens Chromium with the extension, configures it
 * through its options page like a person would, visits the page and shows what the popup shows.
 *
 * Then the one-click cross-seed: a real qBittorrent (started here, CSRF protection on) seeds a
 * torrent from one test tracker; the client is connected through the options page's "Torrent
 * clients", the details page's popup says "In your client", and "Cross-seed" on the copy at another
 * tracker adds it beside the data, read back through qBittorrent's own API at 100 %.
 *
 * Then "Cross-seed your client": qBittorrent seeds three more of the tracker's torrents; the page
 * cross-seed.html turns the index of the client on, "Find what I can cross-seed" counts what the
 * candidate's site has, and "Start cross-seeding" (one second between downloads) adds them all,
 * each read back at 100 % through qBittorrent's own API, the report printed.
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
import { startQbittorrent, type RunningDaemon } from '../test/clients/daemons';
import { fillClientForm, openClientsOptions, pressSaveClient, pressTestClient } from '../test/e2e/support/client-options';
import { CANDIDATE_SITE, PAGE_SITE, crossSeedUserSettings, startCrossSeedWorld, type CrossSeedWorld } from '../test/e2e/support/cross-seed-world';
import { until } from '../test/e2e/support/wait';
import type { IndexStatusView } from '../features/client-index/client-index.messages';
import type { JobView } from '../features/cross-seed-job/cross-seed-job.messages';
import type { TorrentClient } from '../utils/clients/client-types';
import { ensureSystemPackages } from './system-packages.mjs';
import { ownClient } from '../test/clients/own-client';

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

  // Without a display the first browser is done with; with one it stays open beside the second.
  if (headless) await stop();
  await crossSeedDemo(headless, headless ? async () => undefined : stop);
}

/** The second act: a real qBittorrent, connected in the options page, and one "Cross-seed" click. */
async function crossSeedDemo(headless: boolean, stopFirst: () => Promise<void>): Promise<void> {
  say('\nCross-seeding into your own client: starting qBittorrent (CSRF protection on) and two test trackers…');
  const [cs, daemon] = await Promise.all([startCrossSeedWorld({ pairs: 1 + JOB_PAIRS }), startQbittorrent()]);
  const qbittorrent = ownClient(daemon);
  const pair = cs.pairs[0]!;
  await cs.seed(qbittorrent, daemon.dataDir, 0);
  say(`  qBittorrent ${daemon.version} at ${daemon.url} seeds "${pair.title}" from ${PAGE_SITE.host} (#${pair.sourceId}); ${CANDIDATE_SITE.host} has the same files as #${pair.candidateId}.`);

  const browser = await launchBrowser('chromium', { proxyPort: cs.world.router.port, headless });
  const stop = async () => {
    await browser.close();
    await cs.close();
    await daemon.stop();
  };
  process.on('SIGINT', () => void Promise.all([stopFirst(), stop()]).then(() => process.exit(0)));

  // The token and the user's two sites (the first act showed them typed into the options page).
  await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), crossSeedUserSettings());
  // Logged in to both trackers in this browser, as a user is.
  for (const tracker of [cs.page, cs.candidate]) {
    const tab = await browser.newPage();
    await tab.goto(tracker.loginUrl('http'));
    await tab.close();
  }

  say('Connecting the client in the options page (Torrent clients: Client type, Client URL, Username, Password)…');
  const options = await openClientsOptions(browser);
  await fillClientForm(options, { kind: 'qbittorrent', url: daemon.url, username: daemon.username, password: daemon.password });
  await pressSaveClient(options);
  const tested = await pressTestClient(options);
  say(`  Test client: ${tested.text}`);

  const pageUrl = cs.page.detailsUrl(pair.sourceId);
  say(`Opening ${pageUrl}…`);
  const page = await browser.newPage();
  await page.goto(pageUrl);
  const tabId = await browser.tabIdOf(`details.php?id=${pair.sourceId}`);
  const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
  await (popup.raw as Page).setViewportSize({ width: 420, height: 720 });
  await popup.waitForSelector('.client-status.in-client', { timeoutMs: 30_000 });
  const inClient = await popup.evaluate(() => (document.querySelector('.client-status') as HTMLElement).innerText);
  say(`  popup: ${inClient.replace(/\s*\n\s*/g, ' — ').trim()}`);

  const row = `li.torrent:has(a.candidate-link[href$="id=${pair.candidateId}"])`;
  say(`Pressing "Cross-seed" on ${CANDIDATE_SITE.host} #${pair.candidateId}…`);
  await popup.waitForSelector(`${row} button.cross-seed`, { timeoutMs: 30_000 });
  await popup.click(`${row} button.cross-seed`);
  const outcome = await until(
    () => popup.evaluate((selector) => document.querySelector(`${selector} .cross-seed-outcome:not(.running)`)?.textContent ?? '', row),
    (text) => text !== '',
    'the cross-seed outcome',
    60_000,
  );
  say(`  popup: ${outcome.replace(/\s+/g, ' ').trim()}`);
  const added = await until(
    async () => (await qbittorrent.lookup([pair.candidate.hash])).get(pair.candidate.hash),
    (torrent) => torrent?.progress === 1,
    'the cross-seed at 100 % in qBittorrent',
    60_000,
  );
  say(`  qBittorrent's own API: ${added!.name} — ${added!.state}, ${Math.round(added!.progress * 100)} %, save path ${added!.savePath} (the source's: ${daemon.dataDir})`);
  await popup.screenshot(join(outDir, 'crossseed.png'));
  say(`  Screenshot: ${join(outDir, 'crossseed.png')}`);

  await wholeClientDemo(browser, cs, daemon, qbittorrent);

  if (headless) {
    await stop();
    say('\nDone (headless: no display). Run with a display to try it yourself.');
    return;
  }
  say('\nThe browsers stay open: try the popups and the panel. Ctrl-C ends the demo.');
  await new Promise(() => undefined);
}

/** The contents the third act adds to qBittorrent (beside the first act's one). */
const JOB_PAIRS = 3;

/** The third act: "Cross-seed your client" — the index, the preview, and the job, in its own page. */
async function wholeClientDemo(browser: HarnessBrowser, cs: CrossSeedWorld, daemon: RunningDaemon, qbittorrent: TorrentClient): Promise<void> {
  say('\nCross-seeding the whole client: qBittorrent now seeds three more torrents from the first tracker…');
  for (let index = 1; index <= JOB_PAIRS; index++) await cs.seed(qbittorrent, daemon.dataDir, index);
  const message = <T,>(body: Record<string, unknown>) => browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);
  say('Opening "Cross-seed your client" (cross-seed.html) and turning the index of the client on…');
  const page = await browser.openExtensionPage('cross-seed.html');
  await (page.raw as Page).setViewportSize({ width: 1000, height: 900 });
  await page.bringToFront();
  await page.waitForSelector('#turn-on-index', { timeoutMs: 30_000 });
  await page.click('#turn-on-index');
  await until(() => message<IndexStatusView>({ type: 'index:status' }), (status) => !status.running && status.lastSync?.outcome === 'done', 'the first sync of the index', 60_000);
  say('Pressing "Find what I can cross-seed"…');
  await page.click('#job-find');
  const row = `tr.job-site[data-sid="${CANDIDATE_SITE.sid}"]`;
  await page.waitForSelector(`${row}[data-readiness=ready]`, { timeoutMs: 30_000 });
  const rows = await page.evaluate(() =>
    [...document.querySelectorAll('tr.job-site')].map((tr) =>
      ['.site-name label', '.count', '.size', '.readiness', '.used-today'].map((css) => (tr.querySelector(css) as HTMLElement | null)?.innerText.replace(/\s+/g, ' ').trim() ?? '').join(' | '),
    ),
  );
  say('  site | torrents | size | can download now | used today');
  for (const line of rows) say(`  ${line}`);
  say(`Setting ${CANDIDATE_SITE.host}'s "Seconds between downloads" to 1, then "Start cross-seeding"…`);
  await page.fill(`#seconds-${CANDIDATE_SITE.sid}`, '1');
  await page.click('#page-title');
  await until(() => message<{ sites: { sid: number; secondsBetween: number }[] }>({ type: 'job:preview' }), (preview) => preview.sites.find((site) => site.sid === CANDIDATE_SITE.sid)?.secondsBetween === 1, 'the pace saved', 30_000);
  await page.waitForSelector(`#tick-${CANDIDATE_SITE.sid}:checked`, { timeoutMs: 30_000 });
  await page.click('#job-start');
  await page.waitForSelector('#job-progress[data-state=done]', { timeoutMs: 180_000 });
  const job = await message<JobView>({ type: 'job:status' });
  const report = await page.evaluate(() =>
    [...document.querySelectorAll('#job-report .report-group')].map((group) => ({
      heading: (group.querySelector('h3') as HTMLElement | null)?.innerText.trim() ?? '',
      rows: [...group.querySelectorAll('li.outcome')].map((li) => (li as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
    })),
  );
  say(`  the job: ${job.state}, ${job.done} of ${job.total}; the report:`);
  for (const group of report) {
    say(`  ${group.heading}`);
    for (const line of group.rows) say(`    - ${line}`);
  }
  const added = job.outcomes.filter((outcome) => outcome.group === 'added');
  for (const outcome of added) {
    const held = await until(async () => (await qbittorrent.lookup([outcome.infoHash])).get(outcome.infoHash), (torrent) => torrent?.progress === 1, `${outcome.name} at 100 %`, 60_000);
    say(`  qBittorrent's own API: ${held!.name} — ${held!.state}, ${Math.round(held!.progress * 100)} %, save path ${held!.savePath}`);
  }
  say(`  ${CANDIDATE_SITE.host} served ${cs.candidate.downloads.filter((download) => download.served).length} .torrent files in all (one per torrent tried).`);
  await page.screenshot(join(outDir, 'cross-seed-page.png'));
  say(`  Screenshot: ${join(outDir, 'cross-seed-page.png')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
