/**
 * Privacy over a whole session, in Chromium and in Firefox: the options page (save, test the
 * connection), two tracker pages on catalogued hosts, a page that is no tracker, the popup and a
 * refresh, with the router recording every request the browser made. Then: the token went only to
 * the service host; the trackers got nothing from the extension beyond the pages the test loaded;
 * the service got only hashes, the site list, timestamp, version and checksums; the manifest asks
 * for exactly the allowed permissions; and the tracker's own scripts can neither message the
 * background nor look into the panel.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page as PlaywrightPage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog as catalogData } from '../../utils/sites/catalog';
import { contentScriptMatches } from '../../utils/sites/hosts';
import { KNOWN_SERVICE_HOSTS } from '../../utils/settings';
import { DEMO_TOKEN } from '../service/server';
import { BROWSER_KINDS, DEFAULT_EXTENSION_DIRS, closeAllBrowsers, launchBrowser, type HarnessBrowser, type HarnessPage, type RecordedRequest } from './harness/index.ts';
import { openPopup, settledView, waitFor } from './support/popup';
import { SERVICE_BASE_URL, SERVICE_HOST, expectedLinks, nexusDetailsPage, startWorld, torrentOn, type World } from './world';

afterAll(closeAllBrowsers);

/**
 * The tracker's own script, first thing in <head>: it wraps attachShadow to catch any shadow root
 * made on the page, and keeps every window message it sees.
 */
const SPY = `<script>
window.__roots = [];
window.__received = [];
const realAttach = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (init) {
  const root = realAttach.call(this, init);
  window.__roots.push({ host: this.localName, root: root });
  return root;
};
window.addEventListener('message', (event) => window.__received.push(JSON.stringify(event.data)));
</script>`;
const withSpy = (html: string) => html.replace(/<head[^>]*>/i, (head) => head + SPY);

/** Paths a page loads by itself (styles, scripts, images, its icon), resolved against its URL. */
function resourcesOf(html: string, pageUrl: string): string[] {
  const found = [...html.matchAll(/<(?:img|script|link|iframe|source)\b[^>]*?\s(?:src|href)="([^"]+)"/gi)].map((match) => match[1]!);
  return [...found, '/favicon.ico'].map((path) => {
    const url = new URL(path.replaceAll('&amp;', '&'), pageUrl);
    return url.pathname + url.search;
  });
}

/** The browsers' own services (component updates, account checks, remote settings), not the extension's. */
const BROWSER_SERVICES = /(^|\.)(googleapis\.com|google\.com|gvt1\.com|mozilla\.com|mozilla\.net|mozilla\.org|firefox\.com)$/;

const hosts = (requests: RecordedRequest[]) => [...new Set(requests.map((request) => request.host))].sort();

describe.each(BROWSER_KINDS)('%s: privacy over a whole session', (kind) => {
  let world: World;
  let browser: HarnessBrowser;
  /** Tracker host → the paths the test loaded itself and the paths those pages reference. */
  const expectedOnTracker = new Map<string, Set<string>>();
  let trackerTab: HarnessPage;
  /** The info-hashes on the test's tracker pages. */
  const pageHashes: string[] = [];
  /** Hosts of the first page's candidates: what the panel lists. */
  let candidateHosts: string[] = [];
  let refreshSeen = false;

  beforeAll(async () => {
    world = await startWorld();
    const pages = [
      { host: 'hdsky.me', torrent: torrentOn(world.service, 'hdsky', 'Oppenheimer') },
      { host: 'zmpt.cc', torrent: torrentOn(world.service, 'zmpt', 'Three-Body') },
    ].map(({ host, torrent }, index) => {
      pageHashes.push(torrent.hash);
      if (index === 0) candidateHosts = [...new Set(expectedLinks(world.service, torrent.hash).map((link) => new URL(link).hostname))];
      const url = `http://${host}/details.php?id=${torrent.torrentId}`;
      const html = withSpy(nexusDetailsPage(torrent));
      world.router.setHost(host, { [`/details.php?id=${torrent.torrentId}`]: html });
      expectedOnTracker.set(host, new Set([new URL(url).pathname + new URL(url).search, ...resourcesOf(html, url)]));
      return { url, html };
    });
    world.router.setHost('example.org', { '/': '<!DOCTYPE html><title>Not a tracker</title><p>Nothing to read here.</p>' });
    browser = await launchBrowser(kind, { proxyPort: world.router.port });

    // 1. The options page: save the service and token, test the connection.
    const options = await browser.openExtensionPage('options.html');
    await options.waitForSelector('#baseUrl', { state: 'visible' });
    await options.fill('#baseUrl', SERVICE_BASE_URL);
    await options.fill('#token', DEMO_TOKEN);
    await options.click('#save');
    await options.waitForSelector('.status.ok');
    await options.click('#test-connection');
    await waitFor(() => options.textContent('.status.ok'), (text) => !!text?.startsWith('Connected'));
    await options.close();

    // 2. Two tracker pages, each looked up; a page that is no tracker.
    const tabs: number[] = [];
    for (const page of pages) {
      const tab = await browser.newPage();
      await tab.goto(page.url);
      const tabId = await browser.tabIdOf(page.url.replace('http://', ''));
      expect((await settledView(browser, tabId)).status).toBe('done');
      tabs.push(tabId);
      trackerTab ??= tab;
    }
    await (await browser.newPage()).goto('http://example.org/');

    // 3. The popup of the first page, and a refresh from it.
    const { popup } = await openPopup(browser, tabs[0]!, (content) => content.candidates.length > 0);
    const lookupsBefore = world.router.requestsTo(SERVICE_HOST).filter((request) => request.path === '/reseed/index/index').length;
    await popup.click('.refresh');
    refreshSeen = await waitFor(
      async () => world.router.requestsTo(SERVICE_HOST).filter((request) => request.path === '/reseed/index/index').length > lookupsBefore,
      (seen) => seen,
    );
    await popup.close();
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('sent the token to the service host only, in the Token header and nowhere else', () => {
    expect(refreshSeen).toBe(true);
    const carrying = world.router.requests.filter((request) => `${request.url} ${JSON.stringify(request.headers)} ${request.body}`.includes(DEMO_TOKEN));
    expect(carrying.length).toBeGreaterThan(3);
    expect(hosts(carrying)).toEqual([SERVICE_HOST]);
    expect(world.router.hostsWithHeader('token')).toEqual([SERVICE_HOST]);
    for (const request of carrying) {
      expect(request.url).not.toContain(DEMO_TOKEN);
      expect(request.body).not.toContain(DEMO_TOKEN);
    }
  });

  it('asked the trackers for nothing beyond the pages the test loaded (no .torrent, no prefetch)', () => {
    for (const [host, expected] of expectedOnTracker) {
      const requests = world.router.requestsTo(host);
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) {
        expect(expected.has(request.path), `${request.method} ${request.url} was not the test's own page load`).toBe(true);
        expect(request.path).not.toMatch(/download|\.torrent/i);
        expect(request.method).toBe('GET');
      }
    }
    expect(world.router.requestsTo('example.org').map((request) => request.path).filter((path) => path !== '/favicon.ico')).toEqual(['/']);
  });

  it('sent the service only hashes, the site list, timestamp, version and checksums', () => {
    const toService = world.router.requestsTo(SERVICE_HOST);
    expect(toService.some((request) => request.path === '/reseed/index/index')).toBe(true);
    for (const request of toService) {
      const fields = new URLSearchParams(request.body);
      const where = `${request.method} ${request.path} ${request.body}`;
      expect(request.headers.cookie, where).toBeUndefined();
      expect(request.headers.referer, where).toBeUndefined();
      expect(request.path, where).not.toContain('?');
      expect(`${request.path} ${request.body}`, where).not.toMatch(/hdsky|zmpt|example\.org|details\.php|Oppenheimer|Three-Body/i);
      if (request.method === 'GET') {
        expect(['/reseed/sites/recommend', '/reseed/sites/index', '/reseed/users/profile'], where).toContain(request.path);
        expect(request.body, where).toBe('');
      } else if (request.path === '/reseed/sites/reportExisting') {
        for (const [key, value] of fields) expect(`${key}=${value}`, where).toMatch(/^sid_list\[\d+\]=\d+$/);
      } else {
        expect(request.path, where).toBe('/reseed/index/index');
        expect([...fields.keys()].sort(), where).toEqual(['hash', 'sha1', 'sid_sha1', 'timestamp', 'version']);
        const hashes = JSON.parse(fields.get('hash')!) as unknown[];
        expect(hashes.length).toBeGreaterThan(0);
        for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{40}$/);
        expect(fields.get('sha1')).toMatch(/^[0-9a-f]{40}$/);
        expect(fields.get('sid_sha1')).toMatch(/^[0-9a-f]{40}$/);
        expect(fields.get('timestamp')).toMatch(/^\d{10}$/);
        expect(fields.get('version')).toMatch(/^\d+(\.\d+)*$/);
      }
    }
  });

  it('made no request to any other host', () => {
    const own = world.router.requests.filter((request) => !BROWSER_SERVICES.test(request.host));
    expect(hosts(own)).toEqual([SERVICE_HOST, 'example.org', ...expectedOnTracker.keys()].sort());
    // The browsers' own update and settings traffic carries nothing of ours.
    for (const request of world.router.requests.filter((entry) => BROWSER_SERVICES.test(entry.host))) {
      const text = `${request.url} ${JSON.stringify(request.headers)} ${request.body}`;
      for (const ours of [DEMO_TOKEN, 'iyuu', 'hdsky', 'zmpt', ...pageHashes]) expect(text).not.toContain(ours);
    }
  });

  it('asks in its manifest for exactly storage, activeTab, scripting, alarms, declarativeNetRequestWithHostAccess, notifications, the service, loopback and catalogued tracker hosts, and optional hosts', () => {
    const manifest = JSON.parse(readFileSync(join(DEFAULT_EXTENSION_DIRS[kind], 'manifest.json'), 'utf8')) as Record<string, unknown>;
    // Loopback: a torrent client on the user's own machine (any port), reached without a prompt.
    const serviceHosts = [
      ...KNOWN_SERVICE_HOSTS.flatMap((host) => [`http://${host}/*`, `https://${host}/*`]),
      'http://127.0.0.1/*',
      'https://127.0.0.1/*',
      'http://localhost/*',
      'https://localhost/*',
    ].sort();
    // alarms: old answers are pruned on a timer. declarativeNetRequestWithHostAccess: qBittorrent's
    // CSRF protection stays on (a session rule gives our requests the client's own Origin).
    // notifications: "Tell me when there is something new to cross-seed" (issue 17; off by default).
    const apis = ['activeTab', 'alarms', 'declarativeNetRequestWithHostAccess', 'notifications', 'scripting', 'storage'];
    // The catalogued trackers, exactly where the content script runs (checked below to be catalog
    // hosts only): a "Cross-seed" click downloads a candidate's .torrent from the background with the
    // user's session there, which a background fetch carries only with host permission for the site.
    const trackerHosts = (manifest.content_scripts as { matches: string[] }[]).flatMap((script) => script.matches);
    expect(trackerHosts.length).toBeGreaterThan(100);
    const required = [...serviceHosts, ...trackerHosts].sort();
    if (kind === 'chromium') {
      expect([...(manifest.permissions as string[])].sort()).toEqual(apis);
      expect([...(manifest.host_permissions as string[])].sort()).toEqual(required);
      expect(manifest.optional_host_permissions).toEqual(['*://*/*']);
      expect(manifest.optional_permissions).toBeUndefined();
    } else {
      expect([...(manifest.permissions as string[])].sort()).toEqual([...required, ...apis].sort());
      expect(manifest.optional_permissions).toEqual(['*://*/*']);
    }
    // Firefox's data-collection consent says what leaves the browser: required, the hashes of
    // tracker pages visited and the site list; asked when binding, a user id and a passkey SHA-1.
    if (kind === 'firefox') {
      const gecko = (manifest.browser_specific_settings as { gecko: { data_collection_permissions: unknown } }).gecko;
      expect(gecko.data_collection_permissions).toEqual({ required: ['browsingActivity'], optional: ['authenticationInfo', 'personallyIdentifyingInfo'] });
    }
    // Nothing a page could reach the extension by.
    expect(manifest.externally_connectable).toBeUndefined();
    expect(manifest.web_accessible_resources ?? []).toEqual([]);
    // Content scripts only on catalogued hosts (and their subdomains).
    const catalogued = new Set(catalogData.flatMap((entry) => [...entry.hosts, ...(entry.oldHosts ?? []), ...(entry.apiHosts ?? [])]));
    const scripts = manifest.content_scripts as { matches: string[] }[];
    expect(scripts.length).toBeGreaterThan(0);
    for (const pattern of scripts.flatMap((script) => script.matches)) {
      const host = /^\*:\/\/(?:\*\.)?([a-z0-9.-]+)\/\*$/.exec(pattern)?.[1];
      expect(host && catalogued.has(host), pattern).toBe(true);
    }
  });

  // Chromium only: Firefox offers no access level for storage.local (only for storage.session).
  if (kind === 'chromium') it('keeps storage.local (the token) out of the content script\'s reach', async () => {
    // The content script's own isolated world, reached through CDP as no page script can.
    const raw = trackerTab.raw as PlaywrightPage;
    const session = await raw.context().newCDPSession(raw);
    try {
      const contexts: { id: number; name: string; auxData?: { type?: string } }[] = [];
      session.on('Runtime.executionContextCreated', ({ context }) => contexts.push(context));
      await session.send('Runtime.enable');
      const isolated = await waitFor(
        async () => contexts.find((context) => context.auxData?.type === 'isolated'),
        (found) => !!found,
      );
      const { result } = await session.send('Runtime.evaluate', {
        contextId: isolated!.id,
        expression: 'chrome.storage.local.get(null).then((items) => "read " + Object.keys(items).length + " keys", (error) => "refused: " + error.message)',
        awaitPromise: true,
        returnByValue: true,
      });
      expect(String(result.value)).toMatch(/^refused: /);
    } finally {
      await session.detach();
    }
  });

  it("lets the tracker's scripts neither message the background nor hear anything back", async () => {
    const lookups = world.router.requestsTo(SERVICE_HOST).length;
    const attempt = await trackerTab.evaluate(async (extensionId: string) => {
      const results: string[] = [];
      const runtime = (globalThis as { chrome?: { runtime?: { sendMessage?: unknown; lastError?: { message?: string } } } }).chrome?.runtime;
      const browserRuntime = (globalThis as { browser?: { runtime?: unknown } }).browser?.runtime;
      results.push(browserRuntime ? 'browser.runtime present' : 'browser.runtime absent');
      if (typeof runtime?.sendMessage !== 'function') results.push('chrome.runtime.sendMessage absent');
      else {
        results.push(
          await new Promise<string>((resolve) => {
            try {
              (runtime.sendMessage as (id: string, message: unknown, reply: (answer: unknown) => void) => void)(extensionId, { type: 'settings:get' }, (answer) =>
                resolve(runtime.lastError ? `refused: ${runtime.lastError.message}` : `answered: ${JSON.stringify(answer)}`),
              );
            } catch (error) {
              resolve(`refused: ${String(error)}`);
            }
            setTimeout(() => resolve('no answer'), 2000);
          }),
        );
      }
      for (const message of [{ type: 'settings:get' }, { type: 'settings:export', includeCredentials: true }, { type: 'page:refresh' }, { type: 'view:get', tabId: 1 }]) {
        window.postMessage(message, '*');
        document.dispatchEvent(new CustomEvent('reseed-lens', { detail: message }));
      }
      // Two markers, each posted once the one before has arrived: anything a listener of the
      // extension's posted back on hearing the page's messages (dispatched before the first) is in
      // before the second.
      for (const marker of ['first', 'second']) {
        await new Promise<void>((resolve) => {
          const arrived = (event: MessageEvent) => {
            if ((event.data as { reseedLensE2eMarker?: string } | null)?.reseedLensE2eMarker !== marker) return;
            window.removeEventListener('message', arrived);
            resolve();
          };
          window.addEventListener('message', arrived);
          window.postMessage({ reseedLensE2eMarker: marker }, '*');
        });
      }
      const received = (window as unknown as { __received: string[] }).__received.filter((message) => !message.includes('reseedLensE2eMarker'));
      results.push(`heard ${received.length} messages: ${received.join(' | ')}`);
      return results;
    }, browser.extensionId);
    expect(attempt[0]).toBe('browser.runtime absent');
    expect(attempt[1]).toMatch(/^(chrome\.runtime\.sendMessage absent|refused: |no answer)/);
    // It heard its own four posts, and WXT's start signal (no data) only if that came after its
    // listener (the reader starts before the page is parsed): nothing the extension knows.
    const heard = attempt[2]!.replace(/^heard \d+ messages: /, '').split(' | ');
    const own = heard.filter((message) => !(JSON.parse(message) as { type: string }).type.endsWith(':wxt:content-script-started'));
    expect(own).toHaveLength(4);
    expect(heard.length - own.length).toBeLessThanOrEqual(1);
    for (const message of heard) {
      const data = JSON.parse(message) as { type: string };
      if (data.type.endsWith(':wxt:content-script-started')) expect(Object.keys(data).sort()).toEqual(['contentScriptName', 'messageId', 'type']);
      else expect(['settings:get', 'settings:export', 'page:refresh', 'view:get']).toContain(data.type);
    }
    expect(attempt.join('\n')).not.toContain(DEMO_TOKEN);
    // A lookup the user asks for from the popup afterwards: one the page's messages had set off
    // would have reached the service before it.
    const tabId = await browser.tabIdOf((await trackerTab.url()).replace('http://', ''));
    const { popup } = await openPopup(browser, tabId, (content) => content.candidates.length > 0);
    const mark = world.router.requests.at(-1)?.seq ?? 0;
    await popup.click('.refresh');
    const marker = await world.router.waitForRequest((request) => request.seq > mark && request.host === SERVICE_HOST && request.path === '/reseed/index/index', 15_000);
    await popup.close();
    expect(world.router.requestsTo(SERVICE_HOST).filter((request) => request.seq < marker.seq).length).toBe(lookups);
  });

  it("lets the tracker's scripts see only an empty host element, not the panel inside its closed shadow root", async () => {
    await trackerTab.waitForSelector('reseed-lens-panel');
    const seen = await trackerTab.evaluate(() => {
      const host = document.querySelector('reseed-lens-panel')!;
      const caught = (window as unknown as { __roots: { host: string; root: ShadowRoot | null }[] }).__roots;
      return {
        shadowRoot: host.shadowRoot === null,
        caught: caught.map((entry) => ({ host: entry.host, children: entry.root?.childNodes.length ?? -1 })),
        text: host.textContent,
        children: host.childNodes.length,
        bodyText: document.body.innerText,
        html: document.documentElement.outerHTML,
      };
    });
    expect(seen.shadowRoot).toBe(true);
    // The page's wrapped attachShadow never saw the panel's root: the content script uses its own.
    expect(seen.caught.filter((entry) => entry.host === 'reseed-lens-panel')).toEqual([]);
    expect(seen.text).toBe('');
    expect(seen.children).toBe(0);
    expect(candidateHosts.length).toBeGreaterThan(2);
    for (const leaked of [...candidateHosts, 'candidate-link', DEMO_TOKEN]) {
      expect(seen.bodyText).not.toContain(leaked);
      expect(seen.html).not.toContain(leaked);
    }
    if (kind === 'chromium') {
      // The panel is there all the same (read through DevTools, which pierces closed roots): it lists candidates and no token.
      const inside = await shadowHtml(trackerTab);
      expect(inside).toContain('candidate-link');
      expect(inside).not.toContain(DEMO_TOKEN);
    }
  });
});

/** The panel's shadow root content, through the DevTools protocol (Chromium). */
async function shadowHtml(tab: HarnessPage): Promise<string> {
  const raw = tab.raw as PlaywrightPage;
  const session = await raw.context().newCDPSession(raw);
  try {
    interface DomNode {
      localName: string;
      backendNodeId: number;
      children?: DomNode[];
      shadowRoots?: DomNode[];
    }
    const { root } = (await session.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
    const find = (node: DomNode): DomNode | undefined =>
      node.localName === 'reseed-lens-panel' ? node : [...(node.children ?? []), ...(node.shadowRoots ?? [])].map(find).find(Boolean);
    const shadow = find(root)?.shadowRoots?.[0];
    if (!shadow) return '';
    const { object } = await session.send('DOM.resolveNode', { backendNodeId: shadow.backendNodeId });
    const { result } = await session.send('Runtime.callFunctionOn', {
      objectId: object.objectId!,
      functionDeclaration: 'function () { return [...this.childNodes].map((node) => node.outerHTML ?? node.textContent).join(""); }',
      returnByValue: true,
    });
    return String(result.value);
  } finally {
    await session.detach();
  }
}
