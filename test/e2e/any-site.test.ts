/**
 * Issue 3, "any site": on a host no catalog knows (tracker.example.net, a NexusPHP-like page),
 * nothing runs until the user acts. A toolbar click reads the page once (activeTab); "Use on this
 * site" in the popup asks for the host and registers the reader there, kept across an extension
 * reload; removing the site in the options page stops it.
 *
 * The toolbar click is the browser's own: CDP Extensions.triggerAction in Chromium, a click on the
 * toolbar button from the browser window's privileged code in Firefox (support/toolbar.ts).
 * "Use on this site" is Firefox only: Chromium shows a permission prompt that no automation can
 * answer (no switch, pref or protocol command grants an optional host permission).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { DEMO_TOKEN } from '../service/server';
import { SERVICE_BASE_URL, startWorld, type World } from './world';
import { configureThroughOptions, expectedLinksFor, openPopup, settledView, tabView, waitFor } from './support/popup';
import { groupFor, referenceDataWith, routesFor, servePage } from './support/tracker-pages';
import { pressToolbarButton } from './support/toolbar';
import type { TabView } from '../../features/lookup/lookup.messages';

afterAll(closeAllBrowsers);

const HOST = 'tracker.example.net';
const PAGE = servePage('nexusphp-details-chs', HOST, { path: '/details.php?id=4242' });
const HASH = PAGE.expect.hashes[0]!.hash;
const READ_ONCE_NOTE = `Read once because you clicked the toolbar button: ${HOST} is not a site Reseed Lens knows.`;
/** The same page on a site the catalog knows, where the manifest's reader runs: the control for "no reader ran". */
const KNOWN_SITE_PAGE = servePage('nexusphp-details-chs', 'hdsky.me', { path: '/details.php?id=802' });

/**
 * Whether the loaded page shows the panel, asked once a reader would have run on it and shown its
 * panel: the same page on a known site, opened after this one had loaded, has shown its own.
 */
async function settledPage(browser: HarnessBrowser, tab: HarnessPage): Promise<{ panel: boolean }> {
  await waitFor(() => tab.evaluate(() => document.readyState), (state) => state === 'complete');
  const known = await browser.newPage();
  await known.goto(KNOWN_SITE_PAGE.url);
  await known.waitForSelector('reseed-lens-panel');
  await known.close();
  return { panel: await tab.evaluate(() => document.querySelector('reseed-lens-panel') !== null) };
}

describe.each(BROWSER_KINDS)('%s: any site', (kind) => {
  let world: World;
  let browser: HarnessBrowser;

  beforeAll(async () => {
    world = await startWorld({
      // The page's torrent is known to the service on other sites only: this host is on no list.
      service: { data: referenceDataWith([groupFor(HASH, { site: 'keepfrds', torrentId: 4242 }, { ourbits: 801, hdsky: 802 })]), rateLimit: { max: 1000 } },
      trackers: routesFor([PAGE, KNOWN_SITE_PAGE]),
    });
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
    await configureThroughOptions(browser, { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('without a click or a grant, the page is not read, and the extension cannot read it on its own', async () => {
    const tab = await browser.newPage();
    await tab.goto(PAGE.url);
    expect(await settledPage(browser, tab)).toEqual({ panel: false });
    const tabId = await browser.tabIdOf(PAGE.url);
    expect((await tabView(browser, tabId)).status).toBe('not-a-tracker');
    // Asking the background to read the tab fails without activeTab or the host permission.
    // (A command: answered once it is done, with nothing; the tab's view is asked for after it.)
    await browser.evaluateInExtension((api, id) => api.runtime.sendMessage({ type: 'view:read-once', tabId: id }), tabId);
    const attempt = await tabView(browser, tabId);
    expect(attempt).toMatchObject({ status: 'not-a-tracker', hashes: [] });
    // And "enable" without the user's grant registers nothing.
    const enabled = await browser.evaluateInExtension((api, host) => api.runtime.sendMessage({ type: 'site:enable', host }), HOST);
    expect(enabled).toEqual({ customHosts: [] });
    expect(await tab.evaluate(() => document.querySelector('reseed-lens-panel') !== null)).toBe(false);
    await tab.close();
  });

  it('a click on the toolbar button reads the page once (activeTab) and looks its hash up', async () => {
    const tab = await browser.newPage();
    await tab.goto(PAGE.url);
    const tabId = await browser.tabIdOf(PAGE.url);
    await pressToolbarButton(browser, tab);

    const view = await settledView(browser, tabId);
    expect(view).toMatchObject({ status: 'done', access: 'once', host: HOST, engine: 'nexusphp' });
    expect(view.hashes).toEqual(PAGE.expect.hashes);
    const links = expectedLinksFor(world.service, [HASH]);
    expect(view.candidates.map((candidate) => candidate.detailsUrl).sort()).toEqual(links);
    await tab.waitForSelector('reseed-lens-panel');

    // The popup says why it read this page, and offers to keep doing so.
    const { popup, content } = await openPopup(browser, tabId, (shown) => shown.candidates.length >= links.length);
    expect(content.hashes).toEqual([HASH]);
    expect(content.notices).toContain(READ_ONCE_NOTE);
    expect(content.buttons).toContain('Use on this site');
    await popup.close();

    // Once means once: a reload is not read again, and the old answer is not kept for it...
    await tab.reload();
    expect(await settledPage(browser, tab)).toEqual({ panel: false });
    expect((await tabView(browser, tabId)).status).toBe('not-a-tracker');
    // ...but the next click reads the reloaded page again.
    await pressToolbarButton(browser, tab);
    expect(await settledView(browser, tabId)).toMatchObject({ status: 'done', access: 'once', host: HOST });
    await tab.waitForSelector('reseed-lens-panel');
    await tab.close();
  });

  // Only Firefox can grant the optional host permission without a person at the prompt.
  if (kind === 'firefox') {
    it('"Use on this site" registers the reader for the host; it survives an extension reload; the options page removes it', async () => {
      const tab = await browser.newPage();
      await tab.goto(PAGE.url);
      const tabId = await browser.tabIdOf(PAGE.url);
      await pressToolbarButton(browser, tab);
      await settledView(browser, tabId);
      const { popup } = await openPopup(browser, tabId, (shown) => shown.buttons.includes('Use on this site'));
      await popup.click('.use-on-site button');
      await waitFor(() => popup.textContent('.use-on-site [role=status]'), (text) => !!text);
      expect(await popup.textContent('.use-on-site [role=status]')).toBe(`Reseed Lens now reads ${HOST} by itself. You can remove it in the settings.`);
      await popup.close();
      const enabled = await browser.evaluateInExtension(async (api, host) => ({
        customHosts: ((await api.runtime.sendMessage({ type: 'settings:get' })) as { settings: { customHosts: string[] } }).settings.customHosts,
        permitted: await api.permissions.contains({ origins: [`*://${host}/*`] }),
      }), HOST);
      expect(enabled).toEqual({ customHosts: [HOST], permitted: true });
      // The popup's "enable" and the permission event reach the background together: none may fail.
      const together = await browser.evaluateInExtension(async (api, host) => {
        const answers = await Promise.allSettled([1, 2, 3].map(() => api.runtime.sendMessage({ type: 'site:enable', host })));
        return answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : String(answer.reason)));
      }, HOST);
      expect(together).toEqual([1, 2, 3].map(() => ({ customHosts: [HOST] })));

      // A reload now reads the page by itself: the registered content script, no click.
      await tab.reload();
      await tab.waitForSelector('reseed-lens-panel');
      expect(await settledView(browser, tabId)).toMatchObject({ status: 'done', access: 'custom', hashes: PAGE.expect.hashes });

      // The extension restarts (as after a browser restart or an update): the host stays enabled.
      // Its pages close with it, the harness's helper page too, so this test uses pages of its own
      // (and keeps the tracker tab open: a window left with no tab would end the browser).
      await tab.goto('about:blank');
      const trigger = await browser.openExtensionPage('manifest.json');
      void trigger.evaluate(() => (globalThis as unknown as { browser: { runtime: { reload(): void } } }).browser.runtime.reload()).catch(() => undefined);
      // The old instance is gone when its pages are.
      const closed = await waitFor(() => trigger.evaluate(() => 1).then(() => false, () => true), (gone) => gone, 20_000, 100);
      expect(closed).toBe(true);
      const extensionPage = await browser.newPage();
      const back = await waitFor(
        async () => {
          await extensionPage.goto(`${browser.extensionOrigin}/manifest.json`, { timeoutMs: 3000 }).catch(() => undefined);
          return extensionPage
            .evaluate(() => typeof (globalThis as unknown as { browser?: { runtime?: { id?: unknown } } }).browser?.runtime?.id === 'string')
            .catch(() => false);
        },
        (alive) => alive,
        30_000,
        250,
      );
      expect(back).toBe(true);
      // The new instance registers the host's reader as it starts: the page is opened once it has
      // (a busy machine opened it before, and no reader ran on it).
      const registered = await waitFor(
        () =>
          extensionPage
            .evaluate(async () => {
              const api = (globalThis as unknown as { browser: import('webextension-polyfill').Browser }).browser;
              return (await api.scripting.getRegisteredContentScripts()).length;
            })
            .catch(() => 0),
        (count) => count > 0,
        30_000,
        100,
      );
      expect(registered).toBeGreaterThan(0);
      await tab.goto(PAGE.url);
      await tab.waitForSelector('reseed-lens-panel');
      const afterRestart = await waitFor(
        () =>
          extensionPage.evaluate(async (url) => {
            const api = (globalThis as unknown as { browser: import('webextension-polyfill').Browser }).browser;
            const [tab] = await api.tabs.query({ url });
            return (await api.runtime.sendMessage({ type: 'view:get', tabId: tab!.id })) as TabView;
          }, PAGE.url),
        (view) => view.status === 'done',
      );
      expect(afterRestart).toMatchObject({ status: 'done', access: 'custom', hashes: PAGE.expect.hashes });

      // The options page lists the host; removing it stops the reader and gives the permission back.
      const options = await browser.openExtensionPage('options.html');
      await options.waitForSelector('#custom-hosts li');
      expect(await options.textContent('#custom-hosts li code')).toBe(HOST);
      await options.click('#custom-hosts li button');
      await options.waitForSelector('#custom-hosts', { state: 'hidden' });
      await options.close();
      const removed = await extensionPage.evaluate(async (host) => {
        const api = (globalThis as unknown as { browser: import('webextension-polyfill').Browser }).browser;
        return {
          customHosts: ((await api.runtime.sendMessage({ type: 'settings:get' })) as { settings: { customHosts: string[] } }).settings.customHosts,
          permitted: await api.permissions.contains({ origins: [`*://${host}/*`] }),
          registered: (await api.scripting.getRegisteredContentScripts()).length,
        };
      }, HOST);
      expect(removed).toEqual({ customHosts: [], permitted: false, registered: 0 });
      await tab.reload();
      expect(await settledPage(browser, tab)).toEqual({ panel: false });
      await tab.close();
      await extensionPage.close();
    });
  }
});
