/**
 * A service address the manifest does not know (a mirror, a proxy): saving it asks for that
 * origin's permission within the click, and from then on the token goes there and nowhere else.
 * Firefox only: its test profile grants optional permissions without a prompt (the harness sets
 * extensions.webextOptionalPermissionPrompts), while Chromium's prompt cannot be answered by
 * automation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAllBrowsers, launchBrowser, type HarnessBrowser } from './harness/index.ts';
import { DEMO_TOKEN } from '../service/server';
import { expectedLinks, nexusDetailsPage, startWorld, torrentOn, type World } from './world';
import { waitFor } from './support/wait';

const MIRROR = 'iyuu-mirror.example.org';

afterAll(closeAllBrowsers);

describe('firefox: a service address on another origin', () => {
  let world: World;
  let browser: HarnessBrowser;

  beforeAll(async () => {
    world = await startWorld();
    world.router.setHost(MIRROR, (req, res) => world.service.handle(req, res));
    browser = await launchBrowser('firefox', { proxyPort: world.router.port });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('is saved with its permission, and then gets the lookups and the token alone', async () => {
    const before = await browser.evaluateInExtension((api, origin) => api.permissions.contains({ origins: [origin] }), `http://${MIRROR}/*`);
    expect(before).toBe(false);

    const options = await browser.openExtensionPage('options.html');
    // Firefox gives a tab behind the helper tab no animation frames: bring it forward to type in it.
    await options.bringToFront();
    await options.waitForSelector('#baseUrl', { state: 'visible' });
    await options.fill('#baseUrl', `http://${MIRROR}/`);
    await options.fill('#token', DEMO_TOKEN);
    await options.click('#save');
    await options.waitForSelector('.status.ok');
    expect(await options.textContent('.status.ok')).toBe('Saved.');
    const granted = await browser.evaluateInExtension((api, origin) => api.permissions.contains({ origins: [origin] }), `http://${MIRROR}/*`);
    expect(granted).toBe(true);
    // Stored without the trailing slash.
    const saved = await browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'settings:get' }) as Promise<{ settings: { baseUrl: string } }>);
    expect(saved.settings.baseUrl).toBe(`http://${MIRROR}`);
    await options.close();

    const torrent = torrentOn(world.service, 'hdsky', 'Interstellar');
    world.router.setHost('hdsky.me', { [`/details.php?id=${torrent.torrentId}`]: nexusDetailsPage(torrent) });
    const page = await browser.newPage();
    await page.goto(`http://hdsky.me/details.php?id=${torrent.torrentId}`);
    const tabId = await browser.tabIdOf(`details.php?id=${torrent.torrentId}`);
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.waitForSelector('a.candidate-link');
    const links = await waitFor(
      () => popup.evaluate(() => [...document.querySelectorAll<HTMLAnchorElement>('a.candidate-link')].map((a) => a.href)),
      (found) => found.length >= expectedLinks(world.service, torrent.hash).length,
    );
    expect([...links].sort()).toEqual(expectedLinks(world.service, torrent.hash));
    expect(world.router.requestsTo(MIRROR).some((request) => request.path === '/reseed/index/index')).toBe(true);
    expect(world.router.hostsWithHeader('token')).toEqual([MIRROR]);
    expect(world.router.requestsTo('2025.iyuu.cn')).toHaveLength(0);
    await popup.close();
    await page.close();
  });
});
