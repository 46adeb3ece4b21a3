/**
 * The whole lookup flow as a person meets it, in Chromium and in Firefox: configure the token in
 * the options page, open a NexusPHP torrent page under its real host name, and read the
 * candidates and their links in the popup, the badge and the in-page panel. Against the reference
 * service in both its answer shapes: strict (the spec's) and realistic (the live service's nulls,
 * PHP objects, unusable entries, and two transient failures before the first lookup answers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser } from './harness/index.ts';
import { DEMO_TOKEN, type Shapes } from '../service/server';
import { SERVICE_CLIENT_VERSION } from '../../utils/iyuu/operations';
import { configureThroughOptions } from './support/popup';
import { waitFor } from './support/wait';
import { SERVICE_BASE_URL, SERVICE_HOST, expectedLinks, nexusDetailsPage, startWorld, torrentOn, type TrackerTorrent, type World } from './world';

afterAll(closeAllBrowsers);

async function badgeText(browser: HarnessBrowser, tabId: number): Promise<string> {
  return browser.evaluateInExtension(async (api, id) => {
    const action = (api as unknown as { action?: typeof api.browserAction }).action ?? api.browserAction;
    return action.getBadgeText({ tabId: id });
  }, tabId);
}


const SHAPES: readonly Shapes[] = ['strict', 'realistic'];
const CASES = BROWSER_KINDS.flatMap((kind) => SHAPES.map((shapes) => [kind, shapes] as const));

describe.each(CASES)('%s, %s answers: the whole lookup flow', (kind, shapes) => {
  let world: World;
  let browser: HarnessBrowser;
  let torrent: TrackerTorrent;

  beforeAll(async () => {
    world = await startWorld({ service: { shapes } });
    torrent = torrentOn(world.service, 'hdsky', 'Oppenheimer');
    world.router.setHost('hdsky.me', {
      [`/details.php?id=${torrent.torrentId}`]: nexusDetailsPage(torrent),
      '/details.php?id=1': nexusDetailsPage({ ...torrent, hash: '0123456789abcdef0123456789abcdef01234567', torrentId: 1 }),
    });
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('says there is no token yet, and points to the options page', async () => {
    const page = await browser.newPage();
    await page.goto(`http://hdsky.me/details.php?id=${torrent.torrentId}`);
    const tabId = await browser.tabIdOf(`details.php?id=${torrent.torrentId}`);
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.waitForSelector('.notice.warn');
    expect(await popup.textContent('.notice.warn')).toContain('Set your IYUU token');
    expect(await popup.textContent('.hash-value')).toBe(torrent.hash);
    // The popup can have the view before the background has painted the badge for it.
    expect(await waitFor(() => badgeText(browser, tabId), (text) => text === '!')).toBe('!');
    expect(world.router.requestsTo(SERVICE_HOST)).toHaveLength(0);
    await popup.close();
    await page.close();
  });

  it('is configured through the options page as a person would, and tests the connection', async () => {
    const options = (await configureThroughOptions(browser, { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN }, { keepOpen: true }))!;
    expect(await options.textContent('.status.ok')).toBe('Saved.');
    await options.click('#test-connection');
    await options.waitForSelector('.status.ok');
    await waitFor(() => options.textContent('.status.ok'), (text) => !!text?.startsWith('Connected'));
    expect(await options.textContent('.status.ok')).toMatch(/^Connected: the service answered and lists \d+ recommended sites\.$/);
    expect(world.router.requestsTo(SERVICE_HOST).some((request) => request.path === '/reseed/sites/recommend')).toBe(true);
    await options.close();
  });

  it('finds the hash on a NexusPHP page, and the popup lists every candidate with a working link', async () => {
    const page = await browser.newPage();
    await page.goto(`http://hdsky.me/details.php?id=${torrent.torrentId}`);
    const tabId = await browser.tabIdOf(`details.php?id=${torrent.torrentId}`);
    const expected = expectedLinks(world.service, torrent.hash);
    expect(expected.length).toBeGreaterThan(3);

    const badge = await waitFor(() => badgeText(browser, tabId), (text) => /^\d+$/.test(text));
    expect(badge).toBe(String(expected.length));

    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.waitForSelector('a.candidate-link');
    expect(await popup.textContent('.hash-value')).toBe(torrent.hash);
    const links = await popup.evaluate(() => [...document.querySelectorAll<HTMLAnchorElement>('a.candidate-link')].map((a) => a.href));
    expect([...links].sort()).toEqual(expected);
    // Grouped by site, each group named.
    const siteNames = await popup.evaluate(() => [...document.querySelectorAll('li.site .site-name')].map((el) => el.textContent));
    expect(siteNames.length).toBe(new Set(links.map((link) => new URL(link).host)).size);
    expect(siteNames.every((name) => !!name && name.length > 0)).toBe(true);
    // The recommended sites, with links to their home pages.
    await popup.waitForSelector('.recommended-list a');
    const homes = await popup.evaluate(() => [...document.querySelectorAll<HTMLAnchorElement>('.recommended-list a')].map((a) => a.href));
    expect(homes.length).toBeGreaterThan(0);
    expect(homes.every((href) => /^https?:\/\/[^/]+\/$/.test(href))).toBe(true);
    await popup.close();

    // The in-page panel exists, but the page cannot look inside it.
    await page.waitForSelector('reseed-lens-panel');
    const fromPage = await page.evaluate(() => {
      const host = document.querySelector('reseed-lens-panel')!;
      return { shadowRoot: host.shadowRoot === null, html: document.documentElement.outerHTML, text: host.textContent };
    });
    expect(fromPage.shadowRoot).toBe(true);
    expect(fromPage.text).toBe('');
    for (const link of expected) expect(fromPage.html).not.toContain(new URL(link).host);

    // The token went only to the service's host.
    expect(world.router.hostsWithHeader('token')).toEqual([SERVICE_HOST]);

    // Realistic: the two transient failures were retried, each retry reporting the sites again.
    const sent = (path: string) => world.router.requestsTo(SERVICE_HOST).filter((request) => request.path === path);
    const lookups = sent('/reseed/index/index');
    expect(lookups).toHaveLength(shapes === 'realistic' ? 3 : 1);
    expect(sent('/reseed/sites/reportExisting')).toHaveLength(shapes === 'realistic' ? 3 : 1);
    // Every lookup says the client version the service knows, not the extension's own.
    expect(lookups.map((request) => new URLSearchParams(request.body).get('version'))).toEqual(lookups.map(() => SERVICE_CLIENT_VERSION));
    await page.close();
  });

  it('says so when no other site carries the torrent', async () => {
    const page = await browser.newPage();
    await page.goto('http://hdsky.me/details.php?id=1');
    const tabId = await browser.tabIdOf('details.php?id=1');
    await waitFor(() => badgeText(browser, tabId), (text) => text === '0');
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.waitForSelector('.notice.info');
    expect(await popup.textContent('.notice.info .notice-title')).toBe('No other site carries this torrent.');
    expect(await popup.evaluate(() => document.querySelectorAll('a.candidate-link').length)).toBe(0);
    await popup.close();
    await page.close();
  });

  it('answers a revisit from the cache without asking the service again', async () => {
    const before = world.router.requestsTo(SERVICE_HOST).filter((request) => request.path === '/reseed/index/index').length;
    const page = await browser.newPage();
    await page.goto(`http://hdsky.me/details.php?id=${torrent.torrentId}`);
    const tabId = await browser.tabIdOf(`details.php?id=${torrent.torrentId}`);
    expect(await waitFor(() => badgeText(browser, tabId), (text) => /^\d+$/.test(text))).toMatch(/^\d+$/);
    const after = world.router.requestsTo(SERVICE_HOST).filter((request) => request.path === '/reseed/index/index').length;
    expect(after).toBe(before);
    await page.close();
  });
});
