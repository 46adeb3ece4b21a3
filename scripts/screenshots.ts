/**
 * `npm run screenshots`: the README's pictures of the popup and the in-page panel, in English and
 * Chinese, taken in Chromium with the built extension in the e2e world (the reference lookup
 * service as 2025.iyuu.cn, a NexusPHP torrent page as hdsky.me with a tracker-like stylesheet).
 * Writes docs/screenshots/{popup,panel}-{en,zh-CN}.png at twice the CSS pixels (sharp on HiDPI;
 * show them at half width).
 *
 * Then cross-seeding, in the cross-seed world of the e2e tests (test/e2e/support/cross-seed-world.ts:
 * two test trackers, a real qbittorrent-nox seeding the page's torrent): the options page's
 * "Torrent clients" section once the client is set up and tested (clients-{lang}.png), and the popup
 * after "Cross-seed" on both candidates — one added, one with other files (crossseed-{lang}.png).
 *
 * Then the index of the client on a list page (issue #10): qbittorrent-nox holding torrents whose
 * copies are listed on an OurBits torrents.php built from the real template, the index synced, the
 * site's row marks turned on from the popup: the page with its marks (listpage-{lang}.png) and the
 * popup's list of what can be cross-seeded (listpopup-{lang}.png).
 *
 *   npm run screenshots                 build, then shoot
 *   npm run screenshots -- --no-build   use .output/chrome-mv3 as it is
 * Then "Cross-seed your client" (issue 17): qbittorrent-nox seeding six contents from HDSky whose
 * copies are on OurBits (the user logged in there) and one also on SSD (the user logged out there),
 * the index synced, "Find what I can cross-seed" pressed (jobpreview-{lang}.png), OurBits set to one
 * second between downloads and five a day, and the job run to its end (jobreport-{lang}.png).
 *
 *   npm run screenshots -- --list-pages-only   only the list page and its popup
 *   npm run screenshots -- --job-only          only the "Cross-seed your client" page
 *
 * Then asking the user's own NexusPHP sites by pieces hash (issue 18), in the world of its e2e test
 * (test/e2e/support/pieces-hash-world.ts: qbittorrent-nox seeding two sources from HDSky, OurBits
 * holding a copy of each with other info-hashes and answering /api/pieces-hash, the service naming
 * the first copy too) and one more site answering the API alone (NanyangPT, a copy of the first
 * source): OurBits' fieldset in "Addresses of your sites" with its passkey typed, the switch on and
 * Test pressed, above the index's report of how each site answered the sync
 * (pieceshash-options-{lang}.png); the popup on the first source's details page, its copies found by
 * both sources and by pieces hash alone (pieceshash-popup-{lang}.png).
 *
 *   npm run screenshots -- --pieces-only       only the pieces-hash pictures
 *
 * Last, the stores' sizes (store/screenshots/): the torrent page with its panel and the options page
 * at "Get started", 1280×800, in English and Chinese, and the 440×280 tile.
 *
 *   npm run screenshots -- --store-only        only the store's pictures
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM_PATH, DEFAULT_EXTENSION_DIRS, REPO_ROOT, launchBrowser, type HarnessBrowser, type UiLanguage } from '../test/e2e/harness/index.ts';
import { DEMO_TOKEN } from '../test/service/server';
import { SERVICE_BASE_URL, nexusDetailsPage, startWorld, torrentOn, type World } from '../test/e2e/world';
import { ensureSystemPackages } from './system-packages.mjs';
import { startQbittorrent, startTransmission } from '../test/clients/daemons';
import { crossSeedUserSettings, startCrossSeedWorld } from '../test/e2e/support/cross-seed-world';
import { makeTorrent, TRACKERS, writeFolder } from '../test/clients/torrent-content';
import { addSeeding } from '../test/clients/seeding';
import { readFixture, referenceDataWith, servePage, type TorrentGroup } from '../test/e2e/support/tracker-pages';
import type { IndexStatusView } from '../features/client-index/client-index.messages';
import type { JobView } from '../features/cross-seed-job/cross-seed-job.messages';
import { CANDIDATE_SITE, OTHER_SITE, PAGE_SITE, SPREAD_SITES } from '../test/e2e/support/cross-seed-world';
import { ownClient } from '../test/clients/own-client';
import { PIECES_SITE, startPiecesHashWorld } from '../test/e2e/support/pieces-hash-world';
import { PiecesHashSite } from '../test/e2e/support/pieces-hash-site';

const OUT_DIR = join(REPO_ROOT, 'docs/screenshots');
const SCALE = 2;
/** The user's own sites in the pictures, so both the shown and the folded groups appear. */
const HELD_SITES = ['hdsky', 'ourbits', 'ssd', 'm-team', 'pterclub', 'audiences'];

function fail(lines: string[]): never {
  for (const line of lines) console.error(line);
  process.exit(1);
}

/** Chinese text renders as boxes without a CJK font, and the pictures would be useless. */
function checkPrerequisites(): void {
  // The demo's packages (Chromium, a CJK font) installed when missing, as `npm run demo` does.
  ensureSystemPackages('demo');
  if (!existsSync(CHROMIUM_PATH)) {
    fail([`Chromium was not found at ${CHROMIUM_PATH}.`, 'Install it (Debian/Ubuntu: sudo apt-get install -y chromium) or set RESEED_CHROMIUM_PATH.']);
  }
  const fonts = spawnSync('fc-list', [':lang=zh-cn', 'family'], { encoding: 'utf8' });
  if (fonts.status !== 0 || !fonts.stdout.trim()) {
    fail(['No Chinese (CJK) font is installed, so the zh-CN screenshots would show empty boxes.', 'Install one, then run again:', '  Debian/Ubuntu:  sudo apt-get install -y fonts-noto-cjk']);
  }
}

function build(): void {
  console.log('Building the extension (Chrome MV3)…');
  const wxt = join(REPO_ROOT, 'node_modules/.bin/wxt');
  // Others may build in this checkout at the same time: take the shared lock when there is one.
  const hasFlock = spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;
  const [command, args] = hasFlock ? ['flock', ['/tmp/build.lock', wxt, 'build']] : [wxt, ['build']];
  execFileSync(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Enough of a NexusPHP theme that the panel is seen on a page that looks like a tracker's. */
const TRACKER_CSS = `
body { margin: 0; background: #dfe5ec; color: #222; font: 12px/1.5 "Microsoft YaHei", "Noto Sans CJK SC", Verdana, sans-serif; }
a { color: #1d4f91; text-decoration: none; }
table.head { width: 982px; margin: 0 auto; height: 72px; background: linear-gradient(#3a6ea5, #1f4a7a); }
.logo_img { padding-left: 16px; color: #fff; font: bold 26px/72px Georgia, serif; letter-spacing: 1px; }
table.mainouter { background: #fff; border: 1px solid #b5c3d3; border-top: 0; border-collapse: collapse; }
#nav ul.menu { display: flex; margin: 0; padding: 0; list-style: none; background: #2c5c8f; }
#nav li a { display: block; padding: 7px 12px; color: #fff; font-weight: bold; }
#nav li.selected a { background: #163a63; }
#info_block { background: #eef3f8; border-bottom: 1px solid #cdd8e4; }
h1#top { margin: 6px 0 10px; font-size: 17px; }
.free { color: #0a8a3a; }
td.rowhead { width: 13%; padding: 5px 8px; background: #eef3f8; border: 1px solid #cdd8e4; font-weight: bold; text-align: right; white-space: nowrap; vertical-align: top; }
td.rowfollow { padding: 5px 8px; border: 1px solid #cdd8e4; text-align: left; }
table { border-collapse: collapse; }
.btn { padding: 2px 10px; }
/* The fixture's images are not served: hide them rather than show broken-image boxes. */
img { display: none; }
`;

async function configure(browser: HarnessBrowser, world: World): Promise<void> {
  const held = HELD_SITES.map((site) => world.service.data.sites.find((entry) => entry.site === site)?.id).filter((id): id is number => id !== undefined);
  const answer = await browser.evaluateInExtension(
    (api, update) => api.runtime.sendMessage({ type: 'settings:save', update }),
    { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, heldSites: held, askedForSites: true },
  );
  if (!answer || 'refused' in (answer as object)) throw new Error(`the settings were refused: ${JSON.stringify(answer)}`);
}

async function waitForBadge(browser: HarnessBrowser, tabId: number): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const text = await browser.evaluateInExtension((api, id) => api.action.getBadgeText({ tabId: id }), tabId);
    if (/^\d+$/.test(text)) return;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error('the lookup did not finish (no count on the badge)');
}

/** A page at a chosen size and pixel ratio, shot through the same DevTools session (Playwright would reset the ratio). */
async function emulate(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  return {
    resize: (width: number, height: number) => cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: SCALE, mobile: false }),
    async capture(clip: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
      const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', clip: { ...clip, scale: 1 } });
      return Buffer.from(data, 'base64');
    },
    async shoot(file: string, clip: { x: number; y: number; width: number; height: number }) {
      writeFileSync(file, await this.capture(clip));
    },
  };
}

async function shoot(lang: UiLanguage, world: World, pagePath: string): Promise<void> {
  const browser = await launchBrowser('chromium', { proxyPort: world.router.port, lang });
  try {
    await configure(browser, world);
    const tracker = await browser.newPage();
    const page = await emulate(tracker.raw as Page);
    await page.resize(1040, 760);
    await tracker.goto(`http://hdsky.me${pagePath}`);
    const tabId = await browser.tabIdOf(pagePath);
    await waitForBadge(browser, tabId);

    // The panel: the page from its top to a little below the panel.
    await tracker.waitForSelector('reseed-lens-panel', { state: 'visible' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const box = await tracker.evaluate(() => {
      const rect = document.querySelector('reseed-lens-panel')!.getBoundingClientRect();
      const frame = document.querySelector('table.mainouter')!.getBoundingClientRect();
      return { x: frame.left, width: frame.width, bottom: rect.bottom };
    });
    const panelFile = join(OUT_DIR, `panel-${lang}.png`);
    await page.shoot(panelFile, { x: box.x - 8, y: 0, width: box.width + 16, height: Math.min(760, box.bottom + 150) });

    // The popup at its own size: as wide as the toolbar popup, as tall as its content.
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    const popupPage = await emulate(popup.raw as Page);
    await popupPage.resize(400, 600);
    await popup.waitForSelector('a.candidate-link');
    await popup.waitForSelector('.recommended-list a');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Open the recommended sites too: they are part of what the popup offers.
    await popup.evaluate(() => document.querySelector('.recommended details')?.setAttribute('open', ''));
    const height = await popup.evaluate(() => Math.ceil(document.querySelector('main')!.getBoundingClientRect().bottom));
    await popupPage.resize(400, Math.min(height, 900));
    const popupFile = join(OUT_DIR, `popup-${lang}.png`);
    await popupPage.shoot(popupFile, { x: 0, y: 0, width: 400, height: Math.min(height, 900) });
    console.log(`  ${popupFile}\n  ${panelFile}`);
  } finally {
    await browser.close();
  }
}

/** Polls `read` in a page until it gives something, or fails naming `what`. */
async function waitUntil<T>(read: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Setting up qBittorrent in the options page, and the popup after two "Cross-seed" clicks. */
async function shootCrossSeed(lang: UiLanguage): Promise<void> {
  const [cs, daemon, seedbox] = await Promise.all([startCrossSeedWorld({ pairs: 1 }), startQbittorrent(), startTransmission()]);
  const browser = await launchBrowser('chromium', { proxyPort: cs.world.router.port, lang });
  try {
    await cs.seed(ownClient(daemon), daemon.dataDir, 0);
    await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), crossSeedUserSettings());
    for (const tracker of [cs.page, cs.candidate]) {
      const tab = await browser.newPage();
      await tab.goto(tracker.loginUrl('http'));
      await tab.close();
    }

    // The options page's "Torrent clients", filled in, tested and saved as a person does.
    const options = await browser.openExtensionPage('options.html#clients-heading');
    const optionsPage = await emulate(options.raw as Page);
    await optionsPage.resize(900, 1400);
    // Two clients, as heavy seeders run them: a qBittorrent named "NAS" and a Transmission named
    // "Seedbox"; the picture shows the second as just tested, both in "Your clients".
    await options.waitForSelector('#client-url', { state: 'visible' });
    for (const [at, running, name] of [[1, daemon, 'NAS'], [2, seedbox, 'Seedbox']] as const) {
      if (at > 1) {
        await options.click('#add-another-client');
        await waitUntil(() => options.evaluate(() => (document.querySelector('#client-url') as HTMLInputElement).value === ''), 'an empty form');
      }
      await options.select('#client-type', running.kind);
      await options.fill('#client-url', running.url);
      await options.fill('#client-name', name);
      await options.fill('#client-username', running.username);
      await options.fill('#client-password', running.password);
      await options.click('#save-client');
      await waitUntil(() => options.evaluate((count) => document.querySelectorAll('#client-list li.client').length === count, at), `${name} in Your clients`);
    }
    await options.click('#test-client');
    await options.waitForSelector('#client-status.ok', { timeoutMs: 30_000 });
    // A tab behind another is not painted: bring it forward. The clip is in the document's
    // coordinates, so the viewport is made as tall as the page and nothing is scrolled.
    await options.bringToFront();
    const pageHeight = await options.evaluate(() => Math.ceil(document.documentElement.scrollHeight));
    await optionsPage.resize(900, pageHeight);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const section = await options.evaluate(() => {
      const rect = document.querySelector('#clients-section')!.getBoundingClientRect();
      return { x: rect.left + window.scrollX, y: rect.top + window.scrollY, width: rect.width, height: rect.height };
    });
    const clientsFile = join(OUT_DIR, `clients-${lang}.png`);
    await optionsPage.shoot(clientsFile, { x: section.x - 8, y: Math.max(0, section.y - 8), width: section.width + 16, height: section.height + 16 });

    // The details page of the torrent the client seeds, and its popup after both candidates' "Cross-seed".
    const pair = cs.pairs[0]!;
    const tracker = await browser.newPage();
    await tracker.goto(cs.page.detailsUrl(pair.sourceId));
    const tabId = await browser.tabIdOf(`details.php?id=${pair.sourceId}`);
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    const popupPage = await emulate(popup.raw as Page);
    await popupPage.resize(400, 600);
    await popup.waitForSelector('.client-status.in-client', { timeoutMs: 30_000 });
    for (const id of [pair.candidateId, cs.differentFiles.id]) {
      const row = `li.torrent:has(a.candidate-link[href$="id=${id}"])`;
      await popup.waitForSelector(`${row} button.cross-seed`, { timeoutMs: 30_000 });
      await popup.click(`${row} button.cross-seed`);
      await waitUntil(() => popup.evaluate((selector) => !!document.querySelector(`${selector} .cross-seed-outcome:not(.running)`), row), `the outcome for #${id}`);
    }
    await popup.waitForSelector(`li.torrent:has(a.candidate-link[href$="id=${pair.candidateId}"]) .tag.in-client`, { timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const height = await popup.evaluate(() => Math.ceil(document.querySelector('main')!.getBoundingClientRect().bottom));
    await popupPage.resize(400, Math.min(height, 900));
    const popupFile = join(OUT_DIR, `crossseed-${lang}.png`);
    await popupPage.shoot(popupFile, { x: 0, y: 0, width: 400, height: Math.min(height, 900) });
    console.log(`  ${clientsFile}\n  ${popupFile}`);
  } finally {
    await browser.close();
    await cs.close();
    await Promise.all([daemon.stop(), seedbox.stop()]);
  }
}

/** A NexusPHP list page's own look, enough for the marks to be seen where a user sees them. */
const LIST_CSS = `${TRACKER_CSS}
table.torrents { width: 100%; background: #fff; }
table.torrents td { padding: 4px 6px; border: 1px solid #cdd8e4; vertical-align: middle; }
table.torrents td { white-space: nowrap; }
table.torrents td.colhead, table.torrents td.colhead a { background: #2c5c8f; color: #fff; font-weight: bold; }
table.torrentname td { border: 0; padding: 0 4px; }
`;

/** The list page's rows the pictures mark: four the user can cross-seed, two already in the client. */
const LIST_CAN = ['60003', '60009', '60015', '60024'];
const LIST_HELD = ['60006', '60012'];
const OURBITS = { sid: 9, host: 'ourbits.club' };

/** An OurBits torrents.php with its marks on, and the popup's list, from a synced index of qBittorrent. */
async function shootListPage(lang: UiLanguage): Promise<void> {
  const rows = readFixture('nexusphp-list').expect!.rows!;
  const titleOf = (id: string) => rows.find((row) => row.id === id)!.title!;
  const hashOf = (id: string) => rows.find((row) => row.id === id)!.hash!;
  const contentOf = (id: string, index: number) => ({
    name: titleOf(id),
    files: [
      { path: `${titleOf(id)}.mkv`, size: 120_000 + index * 11 },
      { path: 'Sample/sample.mkv', size: 9_000 },
    ],
  });
  const daemon = await startQbittorrent();
  const client = ownClient(daemon);
  const groups: TorrentGroup[] = [];
  const swaps: [string, string][] = [];
  let index = 0;
  // Rows to cross-seed: the client seeds the same content from HDSky; the row is its copy on OurBits.
  for (const id of LIST_CAN) {
    const { name, files } = contentOf(id, index++);
    const content = writeFolder(daemon.dataDir, name, files, `list-${id}`);
    const source = makeTorrent(content, TRACKERS.alpha);
    await addSeeding(client, source, content);
    groups.push({ title: name, members: [{ site: 'hdsky', torrent_id: 2000 + index, info_hash: source.hash }, { site: 'ourbits', torrent_id: Number(id), info_hash: hashOf(id) }] });
  }
  // Rows in the client: it seeds the row's torrent itself and its copy from HDSky (which names the row).
  for (const id of LIST_HELD) {
    const { name, files } = contentOf(id, index++);
    const content = writeFolder(daemon.dataDir, name, files, `list-${id}`);
    const own = makeTorrent(content, TRACKERS.alpha);
    const copy = makeTorrent(content, TRACKERS.beta);
    await addSeeding(client, own, content);
    await addSeeding(client, copy, content);
    swaps.push([hashOf(id), own.hash]);
    groups.push({ title: name, members: [{ site: 'ourbits', torrent_id: Number(id), info_hash: own.hash }, { site: 'hdsky', torrent_id: 3000 + index, info_hash: copy.hash }] });
  }
  const world = await startWorld({ service: { data: referenceDataWith(groups), rateLimit: { max: 1000 } } });
  const page = servePage('nexusphp-list', OURBITS.host, {
    edit: (html) => swaps.reduce((text, [from, to]) => text.replaceAll(from, to).replaceAll(from.toUpperCase(), to.toUpperCase()), html),
  });
  world.router.setHost(OURBITS.host, { [page.path]: page.html, '/styles/BlueGene/theme.css': { body: LIST_CSS, type: 'text/css' } });
  const browser = await launchBrowser('chromium', { proxyPort: world.router.port, lang });
  try {
    await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), {
      baseUrl: SERVICE_BASE_URL,
      token: DEMO_TOKEN,
      askedForSites: true,
      privacyNoticeSeen: true,
      siteOverrides: { [String(OURBITS.sid)]: { scheme: 'http' } },
    });
    await browser.evaluateInExtension((api, saved) => api.runtime.sendMessage({ type: 'clients:save', client: saved }), {
      type: daemon.kind,
      url: daemon.url,
      username: daemon.username,
      password: daemon.password,
    });
    await browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'settings:save', update: { clientIndexEnabled: true } }));
    await waitUntil(
      () => browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'index:status' }) as Promise<IndexStatusView>).then((status) => !status.running && status.lastSync?.outcome === 'done'),
      'the first sync',
      60_000,
    );

    const tracker = await browser.newPage();
    const trackerPage = await emulate(tracker.raw as Page);
    await trackerPage.resize(1040, 820);
    await tracker.goto(page.url);
    const tabId = await browser.tabIdOf('torrents.php');
    await waitUntil(() => browser.evaluateInExtension((api, id) => api.action.getBadgeText({ tabId: id }), tabId).then((text) => text === String(LIST_CAN.length)), 'the count on the badge');

    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    const popupPage = await emulate(popup.raw as Page);
    await popupPage.resize(400, 600);
    await popup.waitForSelector('.list-index[data-state=answered]', { timeoutMs: 30_000 });
    // The site's marks, turned on in the popup as a person does.
    await popup.click('#index-row-marks');
    await waitUntil(() => tracker.evaluate((count) => document.querySelectorAll('reseed-lens-mark').length === count, LIST_CAN.length + LIST_HELD.length), 'the marks in the page');
    await new Promise((resolve) => setTimeout(resolve, 300));

    // The page: from the top of the torrent table to just below the last marked row (page coordinates).
    const box = await tracker.evaluate((ids) => {
      window.scrollTo(0, 0);
      const frame = document.querySelector('table.torrents')!.getBoundingClientRect();
      const bottoms = ids.map((id) => document.querySelector(`table.torrents a[href*="id=${id}"]`)?.closest('table.torrents > tbody > tr')?.getBoundingClientRect().bottom ?? 0);
      return { x: frame.left, y: frame.top, width: frame.width, bottom: Math.max(...bottoms) };
    }, [...LIST_CAN, ...LIST_HELD]);
    await trackerPage.resize(1040, Math.ceil(box.bottom + 40));
    const pageFile = join(OUT_DIR, `listpage-${lang}.png`);
    await trackerPage.shoot(pageFile, { x: Math.max(0, box.x - 8), y: Math.max(0, box.y - 8), width: Math.min(1040, box.width + 16), height: Math.ceil(box.bottom - box.y + 24) });

    // The popup's list: its section, at the toolbar popup's width.
    await popup.evaluate(() => document.querySelector('.index-in-client')?.setAttribute('open', ''));
    const full = await popup.evaluate(() => Math.ceil(document.documentElement.scrollHeight));
    await popupPage.resize(400, full);
    const section = await popup.evaluate(() => {
      window.scrollTo(0, 0);
      const rect = document.querySelector('.list-index')!.getBoundingClientRect();
      return { y: rect.top, height: rect.height };
    });
    const popupFile = join(OUT_DIR, `listpopup-${lang}.png`);
    await popupPage.shoot(popupFile, { x: 0, y: Math.max(0, section.y - 12), width: 400, height: Math.ceil(section.height + 24) });
    console.log(`  ${pageFile}\n  ${popupFile}`);
  } finally {
    await browser.close();
    await world.close();
    await daemon.stop();
  }
}

/** Contents the job's pictures cross-seed, and OurBits' "Downloads per day" in them (below the count: "Waiting for tomorrow" shows). */
const JOB_PAIRS = 6;
const JOB_CAP = 5;

/** "Cross-seed your client": the preview of the user's sites, then the page once the job is done. */
async function shootJobPage(lang: UiLanguage): Promise<void> {
  const [cs, daemon] = await Promise.all([startCrossSeedWorld({ pairs: JOB_PAIRS, otherSite: true }), startQbittorrent()]);
  const browser = await launchBrowser('chromium', { proxyPort: cs.world.router.port, lang });
  const message = <T,>(body: Record<string, unknown>) => browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);
  try {
    const client = ownClient(daemon);
    for (let index = 0; index < JOB_PAIRS; index++) await cs.seed(client, daemon.dataDir, index);
    const settings = crossSeedUserSettings([OTHER_SITE.sid]);
    await message({ type: 'settings:save', update: { ...settings, heldSites: [...settings.heldSites, OTHER_SITE.sid], privacyNoticeSeen: true } });
    await message({ type: 'clients:save', client: { type: daemon.kind, url: daemon.url, username: daemon.username, password: daemon.password } });
    // Logged in on OurBits (not on SSD: its row says so), as in the user's own browser.
    const login = await browser.newPage();
    await login.goto(cs.candidate.loginUrl('http'));
    await login.close();
    await message({ type: 'settings:save', update: { clientIndexEnabled: true } });
    await waitUntil(() => message<IndexStatusView>({ type: 'index:status' }).then((status) => !status.running && status.lastSync?.outcome === 'done'), 'the first sync', 60_000);
    await message({ type: 'job:site-pace', sid: CANDIDATE_SITE.sid, secondsBetween: 1, perDay: JOB_CAP });

    const page = await browser.openExtensionPage('cross-seed.html');
    const shots = await emulate(page.raw as Page);
    await shots.resize(980, 900);
    await page.bringToFront();
    await page.click('#job-find');
    await page.waitForSelector(`tr.job-site[data-sid="${CANDIDATE_SITE.sid}"][data-readiness=ready]`, { timeoutMs: 30_000 });
    await page.waitForSelector(`tr.job-site[data-sid="${OTHER_SITE.sid}"][data-readiness=needs-login]`, { timeoutMs: 30_000 });
    const clipOf = (selectors: string[]) =>
      page.evaluate((list) => {
        window.scrollTo(0, 0);
        const rects = list.map((css) => document.querySelector(css)?.getBoundingClientRect()).filter((rect): rect is DOMRect => !!rect);
        const top = Math.min(...rects.map((rect) => rect.top));
        const bottom = Math.max(...rects.map((rect) => rect.bottom));
        const left = Math.min(...rects.map((rect) => rect.left));
        const right = Math.max(...rects.map((rect) => rect.right));
        return { x: Math.max(0, left - 10), y: Math.max(0, top - 10), width: right - left + 20, height: bottom - top + 20 };
      }, selectors);
    const fit = async () => shots.resize(980, await page.evaluate(() => Math.ceil(document.documentElement.scrollHeight)));
    await fit();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const previewFile = join(OUT_DIR, `jobpreview-${lang}.png`);
    await shots.shoot(previewFile, await clipOf(['#page-title', '#job-sites', '#job-start']));

    // SSD ticked too (the user is logged out there: it stops alone), then the job to its end.
    if (!(await page.evaluate((id) => (document.getElementById(id) as HTMLInputElement | null)?.checked, `tick-${OTHER_SITE.sid}`))) await page.click(`#tick-${OTHER_SITE.sid}`);
    await page.click('#job-start');
    await page.waitForSelector('#job-progress[data-state=done]', { timeoutMs: 180_000 });
    const job = await message<JobView>({ type: 'job:status' });
    if (job.state !== 'done') throw new Error(`the job ended ${job.state}`);
    await fit();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const reportFile = join(OUT_DIR, `jobreport-${lang}.png`);
    await shots.shoot(reportFile, await clipOf(['#job-progress', '#job-report']));
    console.log(`  ${previewFile}\n  ${reportFile}`);
  } finally {
    await browser.close();
    await cs.close();
    await daemon.stop();
  }
}

async function shootJobPages(): Promise<void> {
  for (const lang of ['en', 'zh-CN'] as const) {
    console.log(`Shooting "Cross-seed your client", ${lang}…`);
    await shootJobPage(lang);
  }
}

/** The reference service and an HDSky torrent page (with a tracker-like stylesheet) on the router. */
async function startPanelWorld(): Promise<{ world: World; pagePath: string }> {
  const world = await startWorld();
  const torrent = torrentOn(world.service, 'hdsky', 'Avatar');
  const pagePath = `/details.php?id=${torrent.torrentId}`;
  const html = nexusDetailsPage(torrent)
    .replaceAll('Some.Film.2024.1080p.BluRay.x264-GRP', torrent.title)
    .replaceAll('示例PT', 'HDSky')
    .replace('<div class="logo_img"><img src="pic/logo.png" alt="HDSky" title="HDSky - Powered by NexusPHP" /></div>', '<div class="logo_img">HDSky</div>');
  world.router.setHost('hdsky.me', {
    [pagePath]: html,
    '/styles/BlueGene/theme.css': { body: TRACKER_CSS, type: 'text/css' },
  });
  return { world, pagePath };
}

async function main(): Promise<void> {
  checkPrerequisites();
  if (!process.argv.includes('--no-build')) build();
  mkdirSync(OUT_DIR, { recursive: true });
  if (process.argv.includes('--list-pages-only')) return shootListPages();
  if (process.argv.includes('--job-only')) return shootJobPages();
  if (process.argv.includes('--pieces-only')) return shootPiecesHashPages();
  if (process.argv.includes('--store-only')) return shootStore();
  const { world, pagePath } = await startPanelWorld();
  try {
    for (const lang of ['en', 'zh-CN'] as const) {
      console.log(`Shooting ${lang}…`);
      await shoot(lang, world, pagePath);
    }
  } finally {
    await world.close();
  }
  for (const lang of ['en', 'zh-CN'] as const) {
    console.log(`Shooting cross-seeding, ${lang}…`);
    await shootCrossSeed(lang);
  }
  await shootListPages();
  await shootJobPages();
  await shootPiecesHashPages();
  await shootStore();
}

/** The stores' sizes, in CSS pixels at a pixel ratio of 1: screenshots 1280×800, the small tile 440×280. */
const STORE_SHOT = { width: 1280, height: 800 };
const STORE_TILE = { width: 440, height: 280 };

/** A page at exactly these pixels (pixel ratio 1, as the stores want them), shot whole. */
async function shootAt(page: Page, size: { width: number; height: number }, file: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setDeviceMetricsOverride', { ...size, deviceScaleFactor: 1, mobile: false });
  const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, ...size, scale: 1 } });
  writeFileSync(file, Buffer.from(data, 'base64'));
  console.log(`  ${file}`);
}

/**
 * store/screenshots/: per language, the torrent page with its panel and the options page as a new
 * user first sees it ("Get started", nothing set yet), at 1280×800; and the 440×280 tile: the
 * extension's icon, name and summary, each as the built extension and store/ hold them.
 */
async function shootStore(): Promise<void> {
  const dir = join(REPO_ROOT, 'store/screenshots');
  mkdirSync(dir, { recursive: true });
  const { world, pagePath } = await startPanelWorld();
  try {
    for (const lang of ['en', 'zh-CN'] as const) {
      console.log(`Shooting the store's pictures, ${lang}…`);
      const browser = await launchBrowser('chromium', { proxyPort: world.router.port, lang });
      try {
        await configure(browser, world);
        const tracker = await browser.newPage();
        await tracker.goto(`http://hdsky.me${pagePath}`);
        await waitForBadge(browser, await browser.tabIdOf(pagePath));
        await tracker.waitForSelector('reseed-lens-panel', { state: 'visible' });
        await shootAt(tracker.raw as Page, STORE_SHOT, join(dir, `panel-${lang}.png`));

        // The options page as a new user sees it, in a browser of its own where nothing is set
        // yet: the service at its default address, "Get started" with its three steps to do. (The
        // settings above, whose test service has a plain-http address, would show that address
        // under its yellow warning, which no user of the real service sees.)
        const fresh = await launchBrowser('chromium', { proxyPort: world.router.port, lang });
        try {
          const options = await fresh.openExtensionPage('options.html');
          await options.waitForSelector('#get-started li[data-step="sites"]');
          await options.evaluate(() => document.getElementById('first-run')?.remove());
          await new Promise((resolve) => setTimeout(resolve, 500));
          await shootAt(options.raw as Page, STORE_SHOT, join(dir, `options-${lang}.png`));
        } finally {
          await fresh.close();
        }

        if (lang === 'en') {
          const tile = await browser.newPage();
          const icon = readFileSync(join(DEFAULT_EXTENSION_DIRS.chromium, 'icon/128.png')).toString('base64');
          const listing = JSON.parse(readFileSync(join(REPO_ROOT, 'store/en/listing.json'), 'utf8')) as { name: string; summary: string };
          await (tile.raw as Page).setContent(
            `<!DOCTYPE html><style>body{margin:0;width:${STORE_TILE.width}px;height:${STORE_TILE.height}px;display:flex;align-items:center;gap:20px;padding:0 28px;box-sizing:border-box;background:#163a63;color:#fff;font:15px/1.35 system-ui,sans-serif}h1{margin:0 0 8px;font-size:28px}img{width:96px;height:96px}</style>` +
              `<img src="data:image/png;base64,${icon}"><div><h1></h1><p></p></div>`,
          );
          await tile.evaluate((text) => {
            document.querySelector('h1')!.textContent = text.name;
            document.querySelector('p')!.textContent = text.summary;
          }, listing);
          await shootAt(tile.raw as Page, STORE_TILE, join(dir, 'tile-440x280.png'));
        }
      } finally {
        await browser.close();
      }
    }
  } finally {
    await world.close();
  }
}

async function shootListPages(): Promise<void> {
  for (const lang of ['en', 'zh-CN'] as const) {
    console.log(`Shooting a list page and the index of the client, ${lang}…`);
    await shootListPage(lang);
  }
}

/** A second site answering the pieces-hash API (its tracker pages are not needed: the popup only links to them), and its copy's id there. */
const SECOND_PIECES_SITE = SPREAD_SITES.nanyangpt;
const SECOND_COPY_ID = 48_213;

/** The user's sites asked by pieces hash: the options page after a sync and a Test, and the popup on a source's page. */
async function shootPiecesHash(lang: UiLanguage): Promise<void> {
  // The first pair's copy on OurBits is named by the service too (found by both); NanyangPT finds it by pieces hash alone.
  const [pieces, daemon] = await Promise.all([startPiecesHashWorld({ iyuuNames: [0] }), startQbittorrent()]);
  const source = pieces.pairs[0]!;
  const second = new PiecesHashSite(SECOND_PIECES_SITE.host);
  second.list(source.piecesHash, SECOND_COPY_ID);
  pieces.world.router.setHost(SECOND_PIECES_SITE.host, second.handle);
  const passkeys = new Map<number, string>([
    [PIECES_SITE.sid, pieces.api.passkey],
    [SECOND_PIECES_SITE.sid, second.passkey],
  ]);
  const browser = await launchBrowser('chromium', { proxyPort: pieces.world.router.port, lang });
  const message = <T,>(body: Record<string, unknown>) => browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);
  try {
    await pieces.seed(ownClient(daemon), daemon.dataDir);
    await message({
      type: 'settings:save',
      update: { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, heldSites: [PAGE_SITE.sid, PIECES_SITE.sid, SECOND_PIECES_SITE.sid], askedForSites: true, privacyNoticeSeen: true },
    });
    await message({ type: 'clients:save', client: { type: daemon.kind, url: daemon.url, username: daemon.username, password: daemon.password } });
    const login = await browser.newPage();
    for (const tracker of [pieces.page, pieces.tracker]) await login.goto(tracker.loginUrl('http'));
    await login.close();
    // The index on (its first sync asks the service alone: no site is asked by pieces hash yet).
    await message({ type: 'settings:save', update: { clientIndexEnabled: true } });
    await waitUntil(() => message<IndexStatusView>({ type: 'index:status' }).then((status) => !status.running && status.lastSync?.outcome === 'done'), 'the first sync', 60_000);

    // Each site's fieldset as a person fills it: http (the test sites serve no TLS), the passkey, the switch; Save starts a sync.
    const options = await browser.openExtensionPage('options.html');
    const optionsPage = await emulate(options.raw as Page);
    await optionsPage.resize(900, 1400);
    await options.bringToFront();
    for (const [sid, passkey] of passkeys) {
      await options.waitForSelector(`#override-scheme-${sid}`, { timeoutMs: 30_000 });
      await options.select(`#override-scheme-${sid}`, 'http');
      await options.fill(`#site-passkey-${sid}`, passkey);
      await options.click(`#pieces-hash-${sid}`);
    }
    await options.click('#overrides-save');
    await options.waitForSelector('#overrides-status.ok', { timeoutMs: 30_000 });
    await waitUntil(
      () => options.evaluate((count) => document.querySelectorAll('#index-pieces-sites li[data-outcome=done]').length === count, passkeys.size),
      'the sync asking both sites',
      120_000,
    );
    await options.click(`#pieces-hash-test-${PIECES_SITE.sid}`);
    await options.waitForSelector(`#pieces-hash-test-status-${PIECES_SITE.sid}.ok`, { timeoutMs: 30_000 });

    // The viewport as tall as the page (clips are in the document's coordinates), then the two parts.
    const pageHeight = await options.evaluate(() => Math.ceil(document.documentElement.scrollHeight));
    await optionsPage.resize(900, pageHeight);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const boxOf = (selectors: string[]) =>
      options.evaluate((list) => {
        window.scrollTo(0, 0);
        const rects = list.map((css) => document.querySelector(css)!.getBoundingClientRect());
        const top = Math.min(...rects.map((rect) => rect.top));
        const left = Math.min(...rects.map((rect) => rect.left));
        return { x: Math.max(0, left - 8), y: Math.max(0, top - 8), width: Math.max(...rects.map((rect) => rect.right)) - left + 16, height: Math.max(...rects.map((rect) => rect.bottom)) - top + 16 };
      }, selectors);
    const fieldset = await optionsPage.capture(await boxOf([`fieldset[data-sid="${PIECES_SITE.sid}"]`]));
    const index = await optionsPage.capture(await boxOf(['#client-index-heading', '#index-state']));
    const optionsFile = join(OUT_DIR, `pieceshash-options-${lang}.png`);
    await stack(browser, optionsFile, [fieldset, index]);

    // The popup on the source's details page (its torrent is in the client).
    const tab = await browser.newPage();
    await tab.goto(pieces.page.detailsUrl(source.sourceId, 'http'));
    const tabId = await browser.tabIdOf(`${PAGE_SITE.host}/details.php?id=${source.sourceId}`);
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    const popupPage = await emulate(popup.raw as Page);
    await popupPage.resize(400, 600);
    await popup.waitForSelector('.client-status.in-client', { timeoutMs: 30_000 });
    await waitUntil(() => popup.evaluate(() => document.querySelectorAll('.tag.found-by').length === 2), 'both copies with their tags', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const height = await popup.evaluate(() => Math.ceil(document.querySelector('main')!.getBoundingClientRect().bottom));
    await popupPage.resize(400, Math.min(height, 900));
    const popupFile = join(OUT_DIR, `pieceshash-popup-${lang}.png`);
    await popupPage.shoot(popupFile, { x: 0, y: 0, width: 400, height: Math.min(height, 900) });
    console.log(`  ${optionsFile}\n  ${popupFile}`);
  } finally {
    await browser.close();
    await pieces.close();
    await daemon.stop();
  }
}

/**
 * Two shots of one page, one above the other in one picture: the page's own pixels, put in a blank
 * page of the same browser as images (nothing of the extension's page is changed).
 */
async function stack(browser: HarnessBrowser, file: string, parts: Buffer[]): Promise<void> {
  const sheet = await browser.newPage();
  const raw = sheet.raw as Page;
  const images = parts.map((part) => `<img src="data:image/png;base64,${part.toString('base64')}">`).join('<hr>');
  await raw.setContent(`<!DOCTYPE html><style>body{margin:0;background:#fff}img{display:block;zoom:${1 / SCALE}}hr{margin:6px 0;border:0;border-top:1px dashed #bbb}</style>${images}`);
  const shots = await emulate(raw);
  await shots.resize(1000, 400);
  const size = await raw.evaluate(() => ({ width: Math.ceil(Math.max(...[...document.images].map((image) => image.getBoundingClientRect().width))), height: Math.ceil(document.documentElement.scrollHeight) }));
  await shots.resize(Math.max(size.width, 1), size.height);
  await shots.shoot(file, { x: 0, y: 0, width: size.width, height: size.height });
  await sheet.close();
}

async function shootPiecesHashPages(): Promise<void> {
  for (const lang of ['en', 'zh-CN'] as const) {
    console.log(`Shooting the sites asked by pieces hash, ${lang}…`);
    await shootPiecesHash(lang);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
