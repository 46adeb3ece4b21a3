/**
 * The in-page panel in Chromium and Firefox: it is on a tracker page with a hash, its links are the
 * service's candidates, and the page's own scripts cannot read it.
 *
 * The panel lives in a closed shadow root, so neither the page nor CSS selectors reach it. The test
 * reads it through what only a browser's automation protocol has: in Chromium the DevTools protocol
 * (DOM.getDocument with pierce: true, then a function called on the shadow root's node), in Firefox
 * WebDriver BiDi, whose node serialisation names even a closed shadow root (as a shared reference
 * the test can hand back as an argument). Nothing in the extension helps: a page has neither.
 */
import type { Page as PlaywrightPage } from 'playwright-core';
import type { Page as PuppeteerPage } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { DEMO_TOKEN } from '../service/server';
import { clickInPanel } from './support/popup';
import { inPanel } from './support/shadow';
import { until } from './support/wait';
import { SERVICE_BASE_URL, expectedLinks, nexusDetailsPage, startWorld, torrentOn, type TrackerTorrent, type World } from './world';

afterAll(closeAllBrowsers);

/** What the panel shows, read from inside its shadow root. */
interface PanelReading {
  mode: 'inline' | 'floating';
  dark: boolean;
  expanded: boolean;
  summary: string;
  links: string[];
  /** Site names in display order; `shownNames` leaves out the folded "Sites you are not on". */
  names: string[];
  shownNames: string[];
}

/** Runs in the page with `root` = the panel's shadow root. Plain function: its source is sent as text. */
function readShadow(root: ShadowRoot): PanelReading {
  const base = root.querySelector('.rl-root')!;
  const toggle = root.querySelector('.panel-toggle')!;
  return {
    mode: base.classList.contains('inline') ? 'inline' : 'floating',
    dark: base.classList.contains('dark'),
    expanded: toggle.getAttribute('aria-expanded') === 'true',
    summary: toggle.querySelector('.panel-summary')?.getAttribute('data-text') ?? toggle.getAttribute('title') ?? '',
    links: [...root.querySelectorAll<HTMLAnchorElement>('a.candidate-link')].map((a) => a.href),
    names: [...root.querySelectorAll('.site-name')].map((name) => name.getAttribute('data-text') ?? name.textContent ?? ''),
    shownNames: [...root.querySelectorAll('.candidates > ul.sites .site-name')].map((name) => name.getAttribute('data-text') ?? ''),
  };
}

const readPanel = (page: HarnessPage) => inPanel(page, readShadow, undefined);



/**
 * A page script that runs before the panel exists and tries every ordinary way to see it:
 * a MutationObserver on the whole document, a wrapped attachShadow, and capture listeners that
 * record each event's target and composed path (and the selection when something is copied).
 */
const SPY_SCRIPT = `<script>(() => {
  const seen = [];
  const describe = (node) => node && node.nodeType === 1 ? node.outerHTML + ' | ' + node.textContent : String(node && (node.nodeName || node));
  new MutationObserver((mutations) => {
    for (const mutation of mutations) {
      for (const node of mutation.addedNodes) seen.push('added: ' + describe(node));
      if (mutation.type === 'attributes') seen.push('attribute: ' + mutation.target.nodeName + ' ' + mutation.attributeName + '=' + mutation.target.getAttribute(mutation.attributeName));
      if (mutation.type === 'characterData') seen.push('text: ' + mutation.target.textContent);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const attach = Element.prototype.attachShadow;
  window.__roots = [];
  Element.prototype.attachShadow = function (init) { const root = attach.call(this, init); window.__roots.push(root); return root; };
  for (const type of ['click', 'mousedown', 'mouseover', 'focusin', 'keydown', 'copy']) {
    addEventListener(type, (event) => {
      seen.push(type + ' target: ' + describe(event.target));
      for (const node of event.composedPath()) seen.push(type + ' path: ' + describe(node));
      if (type === 'copy') seen.push('copy selection: ' + String(getSelection()));
    }, true);
  }
  window.__seen = seen;
})();</script>`;

describe.each(BROWSER_KINDS)('%s: the in-page panel', (kind) => {
  let world: World;
  let browser: HarnessBrowser;
  let torrent: TrackerTorrent;
  let expected: string[];
  const held: string[] = ['ourbits', 'pterclub'];

  const details = () => `http://hdsky.me/details.php?id=${torrent.torrentId}`;

  beforeAll(async () => {
    world = await startWorld();
    torrent = torrentOn(world.service, 'hdsky', 'Oppenheimer');
    expected = expectedLinks(world.service, torrent.hash);
    const page = nexusDetailsPage(torrent);
    world.router.setHost('hdsky.me', {
      // Any other query: the plain page (tests tell their tabs apart by it).
      '/details.php': page,
      // The same page with the spy running first.
      [`/details.php?id=${torrent.torrentId}&spy=1`]: page.replace('<head>', `<head>${SPY_SCRIPT}`),
      // No title the panel can sit under (so: the corner badge), and a "back to top" control in the bottom-right corner.
      [`/details.php?id=${torrent.torrentId}&badge=1`]: page
        .replace('id="top"', 'id="torrent-title"')
        .replace(
          '</body>',
          '<a id="back-to-top" href="#" style="position:fixed;right:0;bottom:0;width:140px;height:64px;background:#c33;color:#fff">Top</a></body>',
        ),
      // A dark theme.
      [`/details.php?id=${torrent.torrentId}&dark=1`]: page.replace('<body>', '<body style="background:#16181d;color:#d6d6d6">'),
    });
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
    const sids = held.map((site) => world.service.data.sites.find((entry) => entry.site === site)!.id);
    const saved = await browser.evaluateInExtension(
      (api, update) => api.runtime.sendMessage({ type: 'settings:save', update }),
      { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, heldSites: sids, askedForSites: true },
    );
    expect(saved).toHaveProperty('settings');
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  const opened: HarnessPage[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((page) => page.close().catch(() => undefined)));
  });

  async function openTracker(url: string): Promise<{ page: HarnessPage; panel: PanelReading }> {
    const page = await browser.newPage();
    opened.push(page);
    await page.goto(url);
    const panel = await until(() => readPanel(page), (reading) => !!reading && /\d+ torrents on \d+ other sites/.test(reading.summary), 'the panel\'s answer');
    return { page, panel: panel! };
  }

  it('sits under the torrent\'s title, open, with a link for every candidate, every site alike whichever the user holds', async () => {
    const { page, panel } = await openTracker(details());
    expect(panel.mode).toBe('inline');
    expect(panel.expanded).toBe(true);
    expect(panel.dark).toBe(false);
    expect(panel.summary).toBe(`${expected.length} torrents on ${expected.length} other sites`);
    expect([...panel.links].sort()).toEqual(expected);
    // Nothing folded or put first by the user's own sites (the page could measure that): by name.
    expect(panel.names).toHaveLength(expected.length);
    expect(panel.shownNames).toEqual(panel.names);
    expect(panel.names).toEqual([...panel.names].sort((a, b) => a.localeCompare(b, 'zh-CN')));
    expect(await page.evaluate(() => document.querySelector('h1#top')!.nextElementSibling?.localName)).toBe('reseed-lens-panel');
  });

  it('cannot be read by the page\'s own scripts, whatever they try', async () => {
    const { page, panel } = await openTracker(`${details()}&spy=1`);
    // Interact as a user would, so events cross the shadow boundary: a click on a site name, a
    // copy (the http page has no async clipboard: the copy goes through a selection and 'copy').
    await clickInPanel(page, '.site-name');
    await clickInPanel(page, 'li.torrent button.copy');
    // The copy went through (our own listener handed the link over) and says so.
    await until(() => inPanel(page, (root) => !!root.querySelector('li.torrent button.copy.copied'), undefined), Boolean, 'the copied mark');
    await (page.raw as PlaywrightPage | PuppeteerPage).keyboard.press('Tab');
    const secrets = [
      ...panel.names,
      ...panel.links.map((link) => new URL(link).host),
      ...panel.links.map((link) => link.match(/(\d{5,})\/?$|id=(\d{5,})/)!.slice(1).find(Boolean)!),
    ];
    expect(secrets.length).toBeGreaterThan(expected.length * 2);

    const seen = await page.evaluate(
      (words) => {
        const host = document.querySelector('reseed-lens-panel')!;
        const spied = (window as unknown as { __seen: string[]; __roots: ShadowRoot[] }).__seen;
        const found = (text: string) => words.filter((word) => text.toLowerCase().includes(word.toLowerCase()));
        return {
          shadowRoot: host.shadowRoot,
          wrappedAttachShadowSaw: (window as unknown as { __roots: ShadowRoot[] }).__roots.length,
          childNodes: host.childNodes.length,
          linksFound: document.querySelectorAll('a.candidate-link, .site-name').length,
          outerHTML: found(document.documentElement.outerHTML),
          innerHTML: found(host.innerHTML + document.body.innerHTML),
          textContent: found(document.documentElement.textContent ?? ''),
          innerText: found(document.body.innerText),
          windowFind: words.filter((word) => {
            getSelection()?.removeAllRanges();
            return (window as unknown as { find(text: string): boolean }).find(word);
          }),
          spied: found(spied.join('\n')),
          spiedEvents: spied.filter((line) => line.startsWith('click target')).length,
        };
      },
      secrets,
    );
    expect(seen).toEqual({
      shadowRoot: null,
      wrappedAttachShadowSaw: 0,
      childNodes: 0,
      linksFound: 0,
      outerHTML: [],
      innerHTML: [],
      textContent: [],
      innerText: [],
      windowFind: [],
      spied: [],
      // The spy did see the clicks: it was listening, it just learned nothing.
      spiedEvents: 2,
    });
  });

  it('follows a dark page\'s look', async () => {
    const { panel } = await openTracker(`${details()}&dark=1`);
    expect(panel.dark).toBe(true);
  });

  it('without a title to sit under: a folded corner badge that keeps off the page\'s controls, and opens a card within the window', async () => {
    const { page, panel } = await openTracker(`${details()}&badge=1`);
    expect(panel.mode).toBe('floating');
    expect(panel.expanded).toBe(false);
    expect(panel.links).toEqual([]);
    const boxes = () =>
      page.evaluate(() => {
        const rect = (element: Element) => {
          const box = element.getBoundingClientRect();
          return { left: box.left, top: box.top, right: box.right, bottom: box.bottom };
        };
        return { badge: rect(document.querySelector('reseed-lens-panel')!), control: rect(document.querySelector('#back-to-top')!), width: innerWidth, height: innerHeight };
      });
    const folded = await boxes();
    const overlaps = (a: typeof folded.badge, b: typeof folded.badge) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    expect(folded.badge.bottom).toBeGreaterThan(folded.height - 60);
    expect(overlaps(folded.badge, folded.control)).toBe(false);

    await clickInPanel(page, '.panel-toggle');
    const opened = await until(() => readPanel(page), (reading) => !!reading?.expanded, 'the card to open');
    expect([...opened!.links].sort()).toEqual(expected);
    const card = await boxes();
    expect(card.badge.top).toBeGreaterThanOrEqual(0);
    expect(card.badge.left).toBeGreaterThanOrEqual(0);
    expect(card.badge.bottom).toBeLessThanOrEqual(card.height);
    expect(card.badge.right).toBeLessThanOrEqual(card.width);

    // Escape folds it back (the focus is on its toggle after the click).
    await (page.raw as PlaywrightPage | PuppeteerPage).keyboard.press('Escape');
    await until(() => readPanel(page), (reading) => reading?.expanded === false, 'the card to fold');
  });

  it('"Hide on this site" removes it, and it stays away on that site', async () => {
    const { page } = await openTracker(`${details()}&hide=1`);
    await clickInPanel(page, '.panel-foot button:last-child');
    await until(() => page.evaluate(() => document.querySelector('reseed-lens-panel') === null), Boolean, 'the panel to go');
    const hidden = await until(
      () => browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'settings:get' }) as Promise<{ settings: { panelDisabledHosts: string[] } }>),
      (answer) => answer.settings.panelDisabledHosts.length > 0,
      'the setting to be saved',
    );
    expect(hidden.settings.panelDisabledHosts).toEqual(['hdsky.me']);
    await page.reload();
    // The page is read and looked up again (the toolbar badge says so), but no panel comes.
    const tabId = await browser.tabIdOf('&hide=1');
    await until(
      () => browser.evaluateInExtension((api, id) => ((api as unknown as { action?: typeof api.browserAction }).action ?? api.browserAction).getBadgeText({ tabId: id }), tabId),
      (text) => /^\d+$/.test(text),
      'the badge',
    );
    expect(await page.evaluate(() => document.querySelector('reseed-lens-panel'))).toBeNull();
    await browser.evaluateInExtension((api) => api.runtime.sendMessage({ type: 'settings:save', update: { panelDisabledHosts: [] } }));
  });
});
