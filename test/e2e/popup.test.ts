/**
 * What the popup does beyond showing the lookup (lookup-flow.test.ts), in Chromium and Firefox:
 * it asks once which sites the user is on, copies all links and the hash, opens all torrents of a
 * site, marks the page's own site, refreshes, pops out into a tab, and stays usable by keyboard
 * and at 200% zoom.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { DEMO_TOKEN } from '../service/server';
import { afterPopupAsked, settledView, tabView } from './support/popup';
import { until } from './support/wait';
import { SERVICE_BASE_URL, SERVICE_HOST, expectedLinks, nexusDetailsPage, startWorld, torrentOn, type TrackerTorrent, type World } from './world';
import type { Page as PlaywrightPage } from 'playwright-core';
import type { Page as PuppeteerPage } from 'puppeteer-core';

afterAll(closeAllBrowsers);


/** Replaces the popup's clipboard writer with one that also keeps what was written (our own page, not the tracker's). */
async function recordClipboard(popup: HarnessPage): Promise<void> {
  await popup.evaluate(() => {
    const written: string[] = [];
    (window as unknown as { __written: string[] }).__written = written;
    const write = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = (text: string) => {
      written.push(text);
      return write(text).catch(() => undefined);
    };
  });
}

describe.each(BROWSER_KINDS)('%s: the popup', (kind) => {
  let world: World;
  let browser: HarnessBrowser;
  let oppenheimer: TrackerTorrent;
  /** Three-Body has two torrents on HDSky, one on ZMPT and others. */
  let threeBodySky: TrackerTorrent;
  let threeBodyZmpt: TrackerTorrent;
  const opened: HarnessPage[] = [];

  const lookups = () => world.router.requestsTo(SERVICE_HOST).filter((request) => request.path === '/reseed/index/index').length;

  beforeAll(async () => {
    world = await startWorld();
    oppenheimer = torrentOn(world.service, 'hdsky', 'Oppenheimer');
    threeBodySky = torrentOn(world.service, 'hdsky', 'Three-Body');
    threeBodyZmpt = torrentOn(world.service, 'zmpt', 'Three-Body');
    world.router.setHost('hdsky.me', { '/details.php': nexusDetailsPage(oppenheimer), [`/details.php?id=${threeBodySky.torrentId}`]: nexusDetailsPage(threeBodySky) });
    world.router.setHost('zmpt.cc', { '/details.php': nexusDetailsPage(threeBodyZmpt) });
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
    // Only the token: the user has not picked their sites, and was not asked yet.
    await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((page) => page.close().catch(() => undefined)));
  });

  async function open(url: string): Promise<HarnessPage> {
    const page = await browser.newPage();
    opened.push(page);
    await page.goto(url);
    return page;
  }

  /** A tracker page, looked up, and its popup (popped-out form: popup.html?tabId=N) once the answer is in. */
  async function trackerWithPopup(url: string, tabMarker: string): Promise<{ tabId: number; popup: HarnessPage }> {
    await open(url);
    const tabId = await browser.tabIdOf(tabMarker);
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    opened.push(popup);
    await popup.waitForSelector('a.candidate-link');
    return { tabId, popup };
  }

  it('asks once which sites the user is on, offering the ones visited, and folds the others after "Save"', async () => {
    await open(`http://zmpt.cc/details.php?id=${threeBodyZmpt.torrentId}&visit=1`);
    await until(() => browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'sites:list' }) as Promise<{ seen: number[] }>), (list) => list.seen.length > 0, 'the visit to be remembered');
    const { popup, tabId } = await trackerWithPopup(`http://hdsky.me/details.php?id=${oppenheimer.torrentId}&ask=1`, '&ask=1');
    await popup.waitForSelector('.ask-sites input[type=checkbox]');
    const offered = await popup.evaluate(() =>
      [...document.querySelectorAll<HTMLInputElement>('.ask-sites input[type=checkbox]')].map((box) => ({ site: box.closest('label')!.textContent, ticked: box.checked })),
    );
    expect(offered).toEqual([
      { site: 'HDSky hdsky.me', ticked: true },
      { site: 'ZMPT zmpt.cc', ticked: true },
    ]);
    expect(await popup.evaluate(() => document.querySelector('details.not-on'))).toBeNull();
    await popup.click('.ask-sites button.save-sites');
    await popup.waitForSelector('.ask-sites.saved');
    const { settings } = await browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'settings:get' }) as Promise<{ settings: { heldSites: number[] | null; askedForSites: boolean } }>);
    const sid = (site: string) => world.service.data.sites.find((entry) => entry.site === site)!.id;
    expect(settings.heldSites).toEqual([sid('hdsky'), sid('zmpt')].sort((a, b) => a - b));
    expect(settings.askedForSites).toBe(true);
    // Oppenheimer is on none of those other sites: every candidate is folded now.
    const folded = await popup.evaluate(() => document.querySelector('details.not-on > summary')?.textContent);
    expect(folded).toBe(`Sites you are not on (${expectedLinks(world.service, oppenheimer.hash).length})`);

    // It does not ask again.
    const again = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    opened.push(again);
    await again.waitForSelector('a.candidate-link');
    await afterPopupAsked(again);
    expect(await again.evaluate(() => document.querySelector('.ask-sites'))).toBeNull();
  });

  it('copies all links (one per line) and the hash', async () => {
    const { popup } = await trackerWithPopup(`http://hdsky.me/details.php?id=${oppenheimer.torrentId}&copy=1`, '&copy=1');
    await recordClipboard(popup);
    await popup.click('.results .section-head button.copy');
    await until(() => popup.textContent('.results .section-head button.copy'), (text) => !!text?.startsWith('Copied'), 'the copied state');
    await popup.click('.hashes li.hash button.copy');
    const written = await until(() => popup.evaluate(() => (window as unknown as { __written: string[] }).__written), (list) => list.length === 2, 'both copies');
    expect(written[0]!.split('\n').sort()).toEqual(expectedLinks(world.service, oppenheimer.hash));
    expect(written[1]).toBe(oppenheimer.hash);
  });

  it('marks the page\'s own site and lists its other torrent there, last', async () => {
    const { popup } = await trackerWithPopup(`http://hdsky.me/details.php?id=${threeBodySky.torrentId}`, `id=${threeBodySky.torrentId}`);
    const sites = await popup.evaluate(() =>
      [...document.querySelectorAll('li.site')].map((site) => ({
        name: site.querySelector('.site-name')!.textContent,
        current: site.classList.contains('current'),
        tag: site.querySelector('.tag')?.textContent ?? null,
        links: [...site.querySelectorAll<HTMLAnchorElement>('a.candidate-link')].map((a) => a.href),
      })),
    );
    const own = sites.filter((site) => site.current);
    expect(own).toEqual([{ name: 'HDSky', current: true, tag: 'this site', links: expectedLinks(world.service, threeBodySky.hash).filter((link) => link.includes('hdsky.me')) }]);
    // The user's own sites come first: HDSky is one of them, but as this site it goes last among them.
    const shown = await popup.evaluate(() => [...document.querySelectorAll('.candidates > ul.sites > li.site .site-name')].map((name) => name.textContent));
    expect(shown.at(-1)).toBe('HDSky');
  });

  it('opens all torrents of a site, each in a tab of its own', async () => {
    // An http override for HDSky (a setting users have for mirrors), so the tabs reach the plain-HTTP router.
    const hdsky = world.service.data.sites.find((entry) => entry.site === 'hdsky')!.id;
    await browser.evaluateInExtension((api, sid) => api.runtime.sendMessage({ type: 'settings:save', update: { siteOverrides: { [sid]: { scheme: 'http' } } } }), String(hdsky));
    const { popup } = await trackerWithPopup(`http://zmpt.cc/details.php?id=${threeBodyZmpt.torrentId}`, 'zmpt.cc/details.php');
    const wanted = expectedLinks(world.service, threeBodyZmpt.hash)
      .filter((link) => link.includes('hdsky.me'))
      .map((link) => link.replace(/^https:/, 'http:'));
    expect(wanted).toHaveLength(2);
    expect(await popup.evaluate(() => [...document.querySelectorAll<HTMLAnchorElement>('li.site a.candidate-link')].map((a) => a.href))).toEqual(expect.arrayContaining(wanted));
    const before = world.router.requestsTo('hdsky.me').length;
    expect(await popup.evaluate(() => document.querySelector('.open-all')?.getAttribute('aria-label'))).toBe('Open all torrents on HDSky');
    await popup.click('.open-all');
    const visited = await until(
      async () => world.router.requestsTo('hdsky.me').slice(before).map((request) => request.url),
      (urls) => wanted.every((link) => urls.includes(link)),
      'both torrents\' pages to load',
    );
    // Those two pages and no other torrent page (their images, scripts and styles aside).
    expect([...new Set(visited.filter((url) => url.includes('/details.php')))].sort()).toEqual(wanted);
    await browser.evaluateInExtension(
      (api, links) => api.tabs.query({}).then((tabs) => api.tabs.remove(tabs.filter((tab) => links.includes(tab.url ?? '')).map((tab) => tab.id!))),
      wanted,
    );
    await browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'settings:save', update: { siteOverrides: {} } }));
  });

  it('refreshes: asks the service again, and says how old the answer is', async () => {
    const { popup, tabId } = await trackerWithPopup(`http://hdsky.me/details.php?id=${oppenheimer.torrentId}&refresh=1`, '&refresh=1');
    const before = lookups();
    const answeredBefore = (await settledView(browser, tabId)).fetchedAt ?? 0;
    expect(await popup.textContent('.age .muted')).toMatch(/^(Saved answer from|Answered) /);
    await popup.click('button.refresh');
    await until(async () => lookups(), (count) => count > before, 'a new lookup');
    await until(() => tabView(browser, tabId), (view) => view.status === 'done' && (view.fetchedAt ?? 0) > answeredBefore, 'the new answer in the background');
    // The age text before the click reads the same ("Answered now"), and the button stays disabled
    // until the popup has the refresh's own answer, which comes after the view's broadcast: wait for
    // both, the popup's settled state, rather than reading the button at the first matching text.
    const shown = await until(
      () => popup.evaluate(() => ({ age: document.querySelector('.age .muted')?.textContent ?? '', disabled: (document.querySelector('button.refresh') as HTMLButtonElement | null)?.disabled ?? null })),
      (state) => state.disabled === false,
      'the refresh button to be usable again',
    );
    expect(shown.age).toMatch(/^Answered (now|\d+ seconds? ago)$/);
  });

  it('pops out into a tab for the tab it was opened for', async () => {
    // As the toolbar popup (no ?tabId): it shows the active tab, here the page it is in.
    const toolbar = await browser.openExtensionPage('popup.html');
    opened.push(toolbar);
    await toolbar.waitForSelector('button.pop-out');
    const ownTab = await browser.tabIdOf('/popup.html');
    await toolbar.click('button.pop-out');
    const popped = await until(() => browser.tabIdOf(`popup.html?tabId=${ownTab}`), (id) => typeof id === 'number', 'the popped-out tab');
    await browser.evaluateInExtension((api, id) => api.tabs.remove(id), popped);
  });

  it('is reachable by keyboard with a visible focus, and reflows at 200% zoom without sideways scrolling', async () => {
    const { popup } = await trackerWithPopup(`http://hdsky.me/details.php?id=${oppenheimer.torrentId}&keys=1`, '&keys=1');
    const raw = popup.raw as PlaywrightPage | PuppeteerPage;
    await popup.bringToFront();
    await popup.evaluate(() => window.focus());
    const stops: { name: string; outline: string }[] = [];
    for (let index = 0; index < 8; index++) {
      await raw.keyboard.press('Tab');
      stops.push(
        await popup.evaluate(() => {
          const active = document.activeElement as HTMLElement;
          if (active === document.body) return { name: '(page)', outline: 'n/a' };
          return { name: active.getAttribute('aria-label') ?? active.textContent?.trim() ?? '', outline: getComputedStyle(active).outlineStyle };
        }),
      );
    }
    expect(stops.map((stop) => stop.name)).toContain('Settings');
    expect(stops.map((stop) => stop.name)).toContain(`Copy ${oppenheimer.hash}`);
    expect(stops.filter((stop) => stop.name !== '(page)').length).toBeGreaterThan(5);
    for (const stop of stops) expect(stop.outline, stop.name).not.toBe('none');

    // 200% zoom of a 640 px wide window: 320 CSS pixels.
    if (kind === 'chromium') await (raw as PlaywrightPage).setViewportSize({ width: 320, height: 600 });
    else {
      // WebDriver BiDi's own command: Puppeteer's setViewport also sends a screen-orientation
      // override that Firefox ESR 140 does not know (unknown command), failing the whole call.
      const page = raw as PuppeteerPage;
      const context = (page.mainFrame() as unknown as { browsingContext: { id: string } }).browsingContext.id;
      const connection = (page.browser() as unknown as { connection: { send(method: string, params: unknown): Promise<unknown> } }).connection;
      await connection.send('browsingContext.setViewport', { context, viewport: { width: 320, height: 600 } });
    }
    const fit = await popup.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.width);
  });
});
