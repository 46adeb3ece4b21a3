/**
 * `npm run screenshots`: the README's pictures of the popup and the in-page panel, in English and
 * Chinese, taken in Chromium with the built extension in the e2e world (the reference lookup
 * service as 2025.iyuu.cn, a NexusPHP torrent page as hdsky.me with a tracker-like stylesheet).
 * Writes docs/screenshots/{popup,panel}-{en,zh-CN}.png at twice the CSS pixels (sharp on HiDPI;
 * show them at half width).
 *
 *   npm run screenshots                 build, then shoot
 *   npm run screenshots -- --no-build   use .output/chrome-mv3 as it is
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM_PATH, REPO_ROOT, launchBrowser, type HarnessBrowser, type UiLanguage } from '../test/e2e/harness/index.ts';
import { DEMO_TOKEN } from '../test/service/server';
import { SERVICE_BASE_URL, nexusDetailsPage, startWorld, torrentOn, type World } from '../test/e2e/world';

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
    async shoot(file: string, clip: { x: number; y: number; width: number; height: number }) {
      const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', clip: { ...clip, scale: 1 } });
      writeFileSync(file, Buffer.from(data, 'base64'));
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

async function main(): Promise<void> {
  checkPrerequisites();
  if (!process.argv.includes('--no-build')) build();
  mkdirSync(OUT_DIR, { recursive: true });
  const world = await startWorld();
  try {
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
    for (const lang of ['en', 'zh-CN'] as const) {
      console.log(`Shooting ${lang}…`);
      await shoot(lang, world, pagePath);
    }
  } finally {
    await world.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
