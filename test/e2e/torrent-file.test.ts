/**
 * Issue 3, "on request, from the .torrent file": on a NexusPHP page that prints no hash, nothing is
 * downloaded until the user clicks "Get hash from the .torrent file" in the popup; then exactly one
 * download of that page's .torrent, with the user's session, gives the SHA-1 of the info
 * dictionary's exact bytes, which is looked up. v2-only torrents are named as unsupported.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, REPO_ROOT, type HarnessBrowser, type RecordedRequest } from './harness/index.ts';
import { DEMO_TOKEN } from '../service/server';
import { SERVICE_BASE_URL, startWorld, type World } from './world';
import { clickPanelButton, configureThroughOptions, expectedLinksFor, openPopup, panelContent, popupContent, settledView, waitFor } from './support/popup';
import { groupFor, referenceDataWith, servePage, type ServedPage } from './support/tracker-pages';

afterAll(closeAllBrowsers);

const TORRENTS_DIR = join(REPO_ROOT, 'test/fixtures/torrents');
const OFFSETS = JSON.parse(readFileSync(join(TORRENTS_DIR, 'expected.json'), 'utf8')) as Record<string, { info?: [number, number]; error?: string }>;

/** The info-hash by definition: SHA-1 of the info dictionary's bytes where the fixture generator put them. */
function infoHashOf(file: string): string {
  const [start, end] = OFFSETS[file]!.info!;
  return createHash('sha1').update(readFileSync(join(TORRENTS_DIR, file)).subarray(start, end)).digest('hex');
}

const HOST = 'hdsky.me';
const SESSION = 'c_secure_pass=e2e-session-5d1c';

/** The site's page without a hash for torrent `id`, whose download link serves `torrentFile`. */
function noHashPage(id: number, torrentFile: string): ServedPage & { torrentFile: string } {
  const page = servePage('nexusphp-no-hash', HOST, { path: `/details.php?id=${id}`, edit: (html) => html.replaceAll('id=606', `id=${id}`) });
  return { ...page, torrentFile, expect: { ...page.expect, torrentFileUrl: `http://${HOST}/download.php?id=${id}` } };
}

const PAGES = {
  singleFile: noHashPage(606, 'single-file.torrent'),
  v2Only: noHashPage(607, 'v2-only.torrent'),
  nonCanonical: noHashPage(608, 'non-canonical.torrent'),
  multiFile: noHashPage(609, 'multi-file.torrent'),
};
const SINGLE_FILE_HASH = infoHashOf('single-file.torrent');
const NON_CANONICAL_HASH = infoHashOf('non-canonical.torrent');
const MULTI_FILE_HASH = infoHashOf('multi-file.torrent');
const GET_HASH = 'Get hash from the .torrent file';

/**
 * hdsky.me as a tracker: /login.php hands out the session cookie; download.php serves a .torrent
 * only to a request carrying it (a real tracker answers others with its login page).
 */
function tracker(request: { path: string; headers: RecordedRequest['headers'] }, res: ServerResponse): void {
  const url = new URL(request.path, `http://${HOST}`);
  const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
    res.end(body);
  };
  // A lasting cookie, as NexusPHP's "remember me" sets: a session cookie would end with the last window.
  if (url.pathname === '/login.php') return send(200, 'text/html; charset=utf-8', '<p>welcome back</p>', { 'set-cookie': `${SESSION}; Path=/; Max-Age=86400` });
  const page = Object.values(PAGES).find((candidate) => candidate.path === request.path);
  if (page) return send(200, 'text/html; charset=utf-8', page.html);
  const download = Object.values(PAGES).find((candidate) => url.pathname === '/download.php' && url.searchParams.get('id') === candidate.path.split('=')[1]);
  if (download) {
    if (!String(request.headers.cookie ?? '').includes(SESSION)) return send(200, 'text/html; charset=utf-8', '<form action="takelogin.php"><input type="password"></form>');
    return send(200, 'application/x-bittorrent', readFileSync(join(TORRENTS_DIR, download.torrentFile)), {
      'content-disposition': `attachment; filename="${download.torrentFile}"`,
    });
  }
  send(404, 'text/plain', 'not found');
}

describe.each(BROWSER_KINDS)('%s: the hash from the .torrent file, only on the user\'s click', (kind) => {
  let world: World;
  let browser: HarnessBrowser;
  const downloads = () => world.router.requestsTo(HOST).filter((request) => request.path.startsWith('/download.php'));

  beforeAll(async () => {
    world = await startWorld({
      service: {
        data: referenceDataWith([
          groupFor(SINGLE_FILE_HASH, { site: 'hdsky', torrentId: 606 }, { ourbits: 701, ssd: 702 }),
          groupFor(NON_CANONICAL_HASH, { site: 'hdsky', torrentId: 608 }, { pterclub: 703 }),
          groupFor(MULTI_FILE_HASH, { site: 'hdsky', torrentId: 609 }, { audiences: 704, hdhome: 705 }),
        ]),
        rateLimit: { max: 1000 },
      },
      trackers: {},
    });
    world.router.setHost(HOST, (req, res, recorded) => tracker(recorded, res));
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
    await configureThroughOptions(browser, { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN });
    const login = await browser.newPage();
    await login.goto(`http://${HOST}/login.php`);
    await login.close();
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  /** Opens the page, checks it offers the .torrent and downloaded nothing, clicks the button in the popup. */
  async function clickGetHash(page: ServedPage) {
    const before = downloads().length;
    const tab = await browser.newPage();
    await tab.goto(page.url);
    const tabId = await browser.tabIdOf(page.url);
    const view = await settledView(browser, tabId, (current) => current.status === 'no-hash');
    expect(view).toMatchObject({ engine: 'nexusphp', problem: 'site-gives-no-hash', hashes: [], torrentFileUrl: page.expect.torrentFileUrl });
    const { popup, content } = await openPopup(browser, tabId, (shown) => shown.buttons.includes(GET_HASH));
    expect(content.hashes).toEqual([]);
    // Reading the page, opening the popup: still no download.
    expect(downloads().length).toBe(before);
    await popup.click('.notice button.primary');
    return { tab, tabId, popup, before };
  }

  it('downloads that one file with the session on the click, and looks up the info-dict SHA-1', async () => {
    const { tab, tabId, popup, before } = await clickGetHash(PAGES.singleFile);
    const links = expectedLinksFor(world.service, [SINGLE_FILE_HASH]);
    const shown = await waitFor(() => popupContent(popup), (content) => content.candidates.length >= links.length);
    expect(shown.hashes).toEqual([SINGLE_FILE_HASH]);
    expect(shown.candidates.map((candidate) => candidate.href).sort()).toEqual(links);
    const view = await settledView(browser, tabId);
    expect(view.hashes).toEqual([{ hash: SINGLE_FILE_HASH, source: 'torrent-file' }]);

    const fetched = downloads().slice(before);
    expect(fetched.map((request) => request.path)).toEqual(['/download.php?id=606']);
    expect(String(fetched[0]!.headers.cookie)).toContain(SESSION);
    // The hash went to the lookup service.
    const lookups = world.router.requestsTo('2025.iyuu.cn').filter((request) => request.path === '/reseed/index/index');
    expect(lookups.some((request) => new URLSearchParams(request.body).get('hash')?.includes(SINGLE_FILE_HASH))).toBe(true);
    await popup.close();
    await tab.close();
  });

  it('hashes a non-canonical file from its exact bytes, not a re-encoding', async () => {
    const { tab, popup, before } = await clickGetHash(PAGES.nonCanonical);
    const links = expectedLinksFor(world.service, [NON_CANONICAL_HASH]);
    const shown = await waitFor(() => popupContent(popup), (content) => content.candidates.length >= links.length);
    expect(shown.hashes).toEqual([NON_CANONICAL_HASH]);
    expect(shown.candidates.map((candidate) => candidate.href).sort()).toEqual(links);
    expect(downloads().slice(before).map((request) => request.path)).toEqual(['/download.php?id=608']);
    await popup.close();
    await tab.close();
  });

  it('says "unsupported" for a v2-only torrent', async () => {
    const { tab, tabId, popup, before } = await clickGetHash(PAGES.v2Only);
    const shown = await waitFor(() => popup.textContent('.torrent-problem'), (text) => !!text);
    expect(shown).toBe('Unsupported: this is a BitTorrent v2-only torrent, which IYUU cannot look up.');
    const view = await settledView(browser, tabId, (current) => current.torrentFileProblem !== undefined);
    expect(view).toMatchObject({ status: 'no-hash', hashes: [], torrentFileProblem: 'v2-only' });
    expect(downloads().slice(before).map((request) => request.path)).toEqual(['/download.php?id=607']);
    await popup.close();
    await tab.close();
  });

  // The panel's shadow root is closed: only Chromium's DevTools protocol reaches into it.
  if (kind === 'chromium') {
    it('the in-page panel offers it too, and its button does the same', async () => {
      const page = PAGES.multiFile;
      const before = downloads().length;
      const tab = await browser.newPage();
      await tab.goto(page.url);
      const tabId = await browser.tabIdOf(page.url);
      await settledView(browser, tabId, (current) => current.status === 'no-hash');
      const offered = await waitFor(() => panelContent(tab), (panel) => !!panel?.buttons.includes(GET_HASH));
      expect(offered?.buttons).toContain(GET_HASH);
      expect(downloads().length).toBe(before);

      expect(await clickPanelButton(tab, GET_HASH)).toBe(true);
      const view = await settledView(browser, tabId);
      expect(view.hashes).toEqual([{ hash: MULTI_FILE_HASH, source: 'torrent-file' }]);
      const links = expectedLinksFor(world.service, [MULTI_FILE_HASH]);
      const shown = await waitFor(() => panelContent(tab), (panel) => (panel?.links.length ?? 0) >= links.length);
      expect([...shown!.links].sort()).toEqual(links);
      expect(downloads().slice(before).map((request) => request.path)).toEqual(['/download.php?id=609']);
      await tab.close();
    });
  }
});
