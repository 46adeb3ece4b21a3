/**
 * A settings file from a stranger cannot send the token elsewhere, in Chromium and Firefox: an
 * import is shown before anything changes, and even settings that name a strange service address
 * next to the saved token make the background send that address nothing (not the options page's
 * profile and site calls, not Test connection, not a tracker page's lookup).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser } from './harness/index.ts';
import { DEMO_TOKEN } from '../service/server';
import { importFile } from './support/import-file';
import { configureThroughOptions, settledView } from './support/popup';
import { waitFor } from './support/wait';
import { SERVICE_BASE_URL, SERVICE_HOST, nexusDetailsPage, startWorld, torrentOn, type World } from './world';

const STRANGER = 'iyuu-lookalike.example.org';

afterAll(closeAllBrowsers);

interface Stored {
  baseUrl: string;
  token: string;
}

const stored = (browser: HarnessBrowser) =>
  browser.evaluateInExtension(async (api) => ((await api.runtime.sendMessage({ type: 'settings:get' })) as { settings: Stored }).settings);

describe.each(BROWSER_KINDS)('%s: a settings file cannot send the token elsewhere', (kind) => {
  let world: World;
  let browser: HarnessBrowser;
  const torrent = { url: '', id: 0 };

  beforeAll(async () => {
    world = await startWorld();
    // The stranger answers like the service would: anything that reached it would be recorded and answered.
    world.router.setHost(STRANGER, (req, res) => world.service.handle(req, res));
    const found = torrentOn(world.service, 'hdsky', 'Oppenheimer');
    torrent.id = found.torrentId;
    torrent.url = `http://hdsky.me/details.php?id=${found.torrentId}`;
    world.router.setHost('hdsky.me', { [`/details.php?id=${found.torrentId}`]: nexusDetailsPage(found) });
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
    await configureThroughOptions(browser, { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('shows what an import would change, names the new service address, and Cancel keeps everything', async () => {
    const options = await browser.openExtensionPage('options.html');
    await options.bringToFront();
    await options.waitForSelector('#import-file');
    await importFile(options, JSON.stringify({ app: 'reseed-lens', version: 1, baseUrl: `http://${STRANGER}`, siteOverrides: { '7': { host: STRANGER } } }), `${kind}-stranger`);
    await options.waitForSelector('#import-preview');
    expect(await options.textContent('#import-service-warning')).toContain(`http://${STRANGER}`);
    // Issue 15 point 4: a site's new host is its own change (not part of "Site addresses"), unticked.
    expect(await options.textContent('.import-change[data-field=siteHost][data-sid="7"]')).toContain(`HDHome: hdhome.org → ${STRANGER}`);
    expect(await options.evaluate(() => (document.getElementById('import-site-host-7') as HTMLInputElement).checked)).toBe(false);
    expect(await options.evaluate(() => (document.getElementById('import-keep-credentials') as HTMLInputElement).checked)).toBe(false);
    await options.click('#import-cancel');
    await options.waitForSelector('#import-preview', { state: 'hidden' });
    expect(await stored(browser)).toMatchObject({ baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN });
    await options.close();
    expect(world.router.requestsTo(STRANGER)).toHaveLength(0);
  });

  it('with a strange address saved beside the token, the background sends that address nothing at all', async () => {
    // What a careless import would have done: the address replaced, the token kept.
    await browser.evaluateInExtension(
      (api, stranger) => api.runtime.sendMessage({ type: 'settings:import', data: { app: 'reseed-lens', baseUrl: `http://${stranger}` }, apply: true, keepCredentials: true }),
      STRANGER,
    );
    expect(await stored(browser)).toMatchObject({ baseUrl: `http://${STRANGER}`, token: DEMO_TOKEN });

    // The options page asks for the token's state and the site list; the user presses Test connection.
    const options = await browser.openExtensionPage('options.html');
    await options.bringToFront();
    await options.waitForSelector('#token-state .notice[data-kind=not-permitted]');
    await options.click('#test-connection');
    // Test connection names the same refusal, in words.
    await waitFor(
      () => options.evaluate(() => document.querySelectorAll('.notice.error[data-kind=not-permitted]').length),
      (count) => count >= 2,
    );
    // A tracker page: its hash would be looked up.
    const page = await browser.newPage();
    await page.goto(torrent.url);
    const tabId = await browser.tabIdOf(`details.php?id=${torrent.id}`);
    const view = await settledView(browser, tabId, (candidate) => candidate.status === 'error');
    expect(view.error?.kind).toBe('not-permitted');

    expect(world.router.requestsTo(STRANGER)).toHaveLength(0);
    expect(world.router.hostsWithHeader('token')).toEqual([SERVICE_HOST]);
    await page.close();
    await options.close();
  });
});
