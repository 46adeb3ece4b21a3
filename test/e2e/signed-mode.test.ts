/**
 * Signed mode: a user with an App ID and Secret and no token gets lookups through the spec's 4.2
 * operation (one hash per call, sign = SHA-1 of timestamp + secret), with the same popup and panel.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser } from './harness/index.ts';
import { DEMO_APP_ID, DEMO_SECRET } from '../service/server';
import { SERVICE_BASE_URL, SERVICE_HOST, expectedLinks, nexusDetailsPage, startWorld, torrentOn, type World } from './world';

afterAll(closeAllBrowsers);

describe.each(BROWSER_KINDS)('%s: signed lookups with App ID and Secret', (kind) => {
  let world: World;
  let browser: HarnessBrowser;

  beforeAll(async () => {
    world = await startWorld();
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('looks the page up with the signed single lookup and shows the same links', async () => {
    const torrent = torrentOn(world.service, 'hdsky', 'Blade.Runner');
    world.router.setHost('hdsky.me', { [`/details.php?id=${torrent.torrentId}`]: nexusDetailsPage(torrent) });

    const options = await browser.openExtensionPage('options.html');
    await options.waitForSelector('#baseUrl', { state: 'visible' });
    await options.fill('#baseUrl', SERVICE_BASE_URL);
    await options.fill('#appId', DEMO_APP_ID);
    await options.fill('#secret', DEMO_SECRET);
    await options.click('#save');
    await options.waitForSelector('.status.ok');
    await options.close();

    const page = await browser.newPage();
    await page.goto(`http://hdsky.me/details.php?id=${torrent.torrentId}`);
    const tabId = await browser.tabIdOf(`details.php?id=${torrent.torrentId}`);
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.waitForSelector('a.candidate-link');
    const links = await popup.evaluate(() => [...document.querySelectorAll<HTMLAnchorElement>('a.candidate-link')].map((a) => a.href));
    expect([...links].sort()).toEqual(expectedLinks(world.service, torrent.hash));
    await page.waitForSelector('reseed-lens-panel');

    const signed = world.router.requestsTo(SERVICE_HOST).filter((request) => request.path === '/spider/reseed/index');
    expect(signed).toHaveLength(1);
    const form = new URLSearchParams(signed[0]!.body);
    expect(form.get('info_hash')).toBe(torrent.hash);
    expect(form.get('appid')).toBe(DEMO_APP_ID);
    expect(form.get('sign')).toBe(createHash('sha1').update(`${form.get('timestamp')}${DEMO_SECRET}`).digest('hex'));
    // No token exists, and the secret itself never leaves the browser.
    expect(world.router.hostsWithHeader('token')).toEqual([]);
    for (const request of world.router.requests) expect(`${request.url} ${request.body}`).not.toContain(DEMO_SECRET);
    expect(world.router.requestsTo(SERVICE_HOST).some((request) => request.path === '/reseed/index/index')).toBe(false);
    await popup.close();
    await page.close();
  });
});
