/**
 * Issue 3, in a real browser: one page of each tracker engine, served under a real catalogued host
 * of that engine at the fixture's own path, read by the built extension; the popup shows exactly
 * the hashes the fixture states and the candidates the reference service gives for them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type BrowserKind, type HarnessBrowser, type HarnessPage } from './harness/index.ts';
import { DEMO_TOKEN } from '../service/server';
import { SERVICE_BASE_URL, startWorld, type World } from './world';
import { configureThroughOptions, expectedLinksFor, openPopup, panelContent, popupContent, settledView, tabView, waitFor, type PopupContent } from './support/popup';
import { groupFor, madeUpHash, referenceDataWith, routesFor, schemeFor, servePage, serveOverHttps, type ServedPage } from './support/tracker-pages';

afterAll(closeAllBrowsers);

const LAZY_HASH = madeUpHash('lazy 8080');
const HEX_MAGNET_HASH = madeUpHash('hex magnet 55556');
const GENERIC_HASH = madeUpHash('generic label 8888');
const MTEAM_NEXT = { id: 900124, hash: madeUpHash('mteam 900124'), title: 'Sample.Drama.2024.S02.1080p.NF.WEB-DL.DDP5.1.H.264-MTeam' };

/** A stand-in for M-Team's React router: links to /detail/N change the URL and re-render in place. */
function mteamAppScript(first: { hash: string; title: string }): string {
  const torrents = { 900123: first, [MTEAM_NEXT.id]: { hash: MTEAM_NEXT.hash, title: MTEAM_NEXT.title } };
  return `
const torrents = ${JSON.stringify(torrents)};
const view = () => document.querySelector('.detail-view');
const rendered = view().innerHTML;
function render() {
  const torrent = torrents[/\\/detail\\/(\\d+)/.exec(location.pathname)[1]];
  // like the real app: a spinner first, the details once its API answered
  view().innerHTML = '<div class="ant-spin ant-spin-spinning"></div>';
  setTimeout(() => {
    view().innerHTML = rendered.replaceAll(torrents[900123].hash, torrent.hash).replaceAll(torrents[900123].title, torrent.title);
  }, 300);
}
document.addEventListener('click', (event) => {
  const link = event.target.closest('a[href^="/detail/"]');
  if (!link) return;
  event.preventDefault();
  history.pushState({}, '', link.getAttribute('href'));
  render();
});
addEventListener('popstate', render);
`;
}

/** The pages, each under a catalogued host of its engine; the scheme is the one the browser will use for that host. */
const pagesFor = (kind: BrowserKind) => ({
  nexusChs: servePage('nexusphp-details-chs', 'hdsky.me'),
  nexusCht: servePage('nexusphp-details-cht', 'ourbits.club'),
  nexusEn: servePage('nexusphp-details-en', 'springsunday.net'),
  pluginDetails: servePage('nexusphp-plugin-details', 'hdhome.org'),
  collapsed: servePage('nexusphp-collapsed', 'audiences.me'),
  lazy: servePage('nexusphp-lazy', 'pterclub.net', {
    // The site fills the hash in after load; here on a click, so the test sees both states.
    edit: (html) =>
      html.replace(
        '</body>',
        `<button id="fill-hash" type="button" onclick="setTimeout(function () { document.getElementById('torrent_hash').textContent = '${LAZY_HASH}'; }, 150)">load</button></body>`,
      ),
  }),
  ttg: servePage('ttg-details', 'totheglory.im'),
  hdcity: servePage('hdcity-details', 'hdcity.city'),
  unit3d: servePage('unit3d-details', 'monikadesign.uk', { scheme: schemeFor(kind, 'monikadesign.uk') }),
  unit3dList: servePage('unit3d-list', 'monikadesign.uk', { scheme: schemeFor(kind, 'monikadesign.uk') }),
  // UNIT3D in Chinese: the files dialog's label is 校验码, and the .torrent exists (no magnet button)
  unit3dZh: servePage('unit3d-details-zh', 'monikadesign.uk', { scheme: schemeFor(kind, 'monikadesign.uk') }),
  // details.php?id=N&cmtpage=1: the comments alone, one of them starting with Hash码
  nexusComments: servePage('nexusphp-comments', 'hdsky.me'),
  gazelle: servePage('gazelle-details', 'dicmusic.com'),
  gazelleNoHash: servePage('gazelle-details-nohash', 'greatposterwall.com'),
  gazelleFailure: servePage('gazelle-details-failure', 'www.dicmusic.com'),
  mteam: servePage('mteam-detail', 'kp.m-team.cc', {
    edit: (html) =>
      html.replace(
        '<li class="ant-menu-item"><a href="/browse">種子</a></li>',
        `<li class="ant-menu-item"><a href="/browse">種子</a></li><li class="ant-menu-item"><a id="next-torrent" href="/detail/${MTEAM_NEXT.id}">下一個</a></li>`,
      ),
  }),
  magnetBase32: servePage('magnet-only', 'zhuque.in'),
  magnetHex: servePage('magnet-only', 'zhuque.in', {
    path: '/view/55556',
    swapHash: { from: 'b257af45fbc9f52d0e728490f2c2da9e4f66647e', to: HEX_MAGNET_HASH },
    edit: (html) => html.replace('WJL26RP3ZH2S2DTSQSIPFQW2TZHWMZD6', HEX_MAGNET_HASH.toUpperCase()),
  }),
  // The same hash as magnet-only in the fixtures; a torrent is on one site only, so it gets its own.
  genericLabel: servePage('generic-label', 'rousi.pro', { swapHash: { from: 'b257af45fbc9f52d0e728490f2c2da9e4f66647e', to: GENERIC_HASH } }),
  nexusList: servePage('nexusphp-list', 'ourbits.club'),
  // List pages whose rows give torrent ids, with or without a hash (issue #10)
  nexusSearch: servePage('nexusphp-search', 'hdhome.org'),
  ttgBrowse: servePage('ttg-browse', 'totheglory.im'),
  unit3dSimilar: servePage('unit3d-similar', 'monikadesign.uk', { scheme: schemeFor(kind, 'monikadesign.uk') }),
  gazelleBrowse: servePage('gazelle-browse', 'dicmusic.com'),
  mteamBrowse: servePage('mteam-browse', 'kp.m-team.cc', {
    // like the real app: an empty root first, the list once its API answered
    edit: (html) => {
      const rendered = /<div id="root">([\s\S]*)<\/div>\s*<\/body>/.exec(html)![1]!;
      return html
        .replace('<script type="module" crossorigin src="/assets/index-3c1f.js"></script>', '')
        .replace(rendered, '')
        .replace('</body>', `<script>setTimeout(() => { document.getElementById('root').innerHTML = ${JSON.stringify(rendered)}; }, 400);</script></body>`);
    },
  }),
}) satisfies Record<string, ServedPage>;

/** For the hashes and the service's data, which are the same in every browser. */
const READINGS = pagesFor('firefox');

const hashOf = (page: ServedPage, index = 0) => page.expect.hashes[index]!.hash;
const LIST_ROWS = [0, 11, 20].map((index) => READINGS.nexusList.expect.hashes[index]!);

/** Each page's torrent on its own site, and elsewhere; "site#2" is a second torrent on the same site. */
const GROUPS = [
  groupFor(hashOf(READINGS.nexusChs), { site: 'hdsky', torrentId: 12345 }, { ourbits: 501, pterclub: 502, 'hdsky#2': 12399 }),
  groupFor(hashOf(READINGS.nexusCht), { site: 'ourbits', torrentId: 777 }, { hdsky: 511, audiences: 512 }),
  groupFor(hashOf(READINGS.nexusEn), { site: 'ssd', torrentId: 31337 }, { chdbits: 521, hdhome: 522 }),
  groupFor(hashOf(READINGS.pluginDetails), { site: 'hdhome', torrentId: 5566 }, { ourbits: 531, keepfrds: 532 }),
  groupFor(hashOf(READINGS.collapsed), { site: 'audiences', torrentId: 4040 }, { hdsky: 541, ssd: 542 }),
  groupFor(LAZY_HASH, { site: 'pterclub', torrentId: 8080 }, { hdhome: 551 }),
  groupFor(hashOf(READINGS.ttg), { site: 'ttg', torrentId: 123456 }, { hdsky: 561, ourbits: 562 }),
  groupFor(hashOf(READINGS.hdcity), { site: 'hdcity', torrentId: 98765 }, { ttg: 571, pterclub: 572 }),
  groupFor(hashOf(READINGS.unit3d), { site: 'monikadesign', torrentId: 4321 }, { hdsky: 581, chdbits: 582 }),
  groupFor(hashOf(READINGS.unit3dZh), { site: 'monikadesign', torrentId: 4400 }, { hdsky: 583, ourbits: 584 }),
  groupFor(hashOf(READINGS.unit3dList, 0), { site: 'monikadesign', torrentId: 5001 }, { ourbits: 591 }),
  groupFor(hashOf(READINGS.unit3dList, 2), { site: 'monikadesign', torrentId: 5004 }, { hdsky: 592, ssd: 593 }),
  groupFor(hashOf(READINGS.gazelle), { site: 'dicmusic', torrentId: 2002 }, { greatposterwall: 601, ourbits: 602 }),
  groupFor(hashOf(READINGS.mteam), { site: 'm-team', torrentId: 900123 }, { hdsky: 611, audiences: 612 }),
  groupFor(MTEAM_NEXT.hash, { site: 'm-team', torrentId: MTEAM_NEXT.id }, { ourbits: 613, keepfrds: 614, ssd: 615 }),
  groupFor(hashOf(READINGS.magnetBase32), { site: 'zhuque', torrentId: 55555 }, { hdsky: 621 }),
  groupFor(HEX_MAGNET_HASH, { site: 'zhuque', torrentId: 55556 }, { pterclub: 622 }),
  groupFor(GENERIC_HASH, { site: 'rousi', torrentId: 8888 }, { ssd: 631 }),
  groupFor(LIST_ROWS[0]!.hash, { site: 'ourbits', torrentId: Number(LIST_ROWS[0]!.row) }, { hdsky: 641 }),
  groupFor(LIST_ROWS[1]!.hash, { site: 'ourbits', torrentId: Number(LIST_ROWS[1]!.row) }, { ssd: 642, hdhome: 643 }),
  groupFor(LIST_ROWS[2]!.hash, { site: 'ourbits', torrentId: Number(LIST_ROWS[2]!.row) }, { 'ourbits#2': 60999, audiences: 644 }),
];

const SID = { hdsky: 4, ourbits: 9 } as const;
const GAZELLE_SESSION = 'session=gz-e2e-7f3a';

describe.each(BROWSER_KINDS)('%s: every engine finds its page\'s hash', (kind) => {
  let world: World;
  let browser: HarnessBrowser;
  const PAGES = pagesFor(kind);

  beforeAll(async () => {
    world = await startWorld({
      service: { data: referenceDataWith(GROUPS), rateLimit: { max: 1000 } },
      trackers: routesFor(Object.values(PAGES), {
        // A log-in that leaves the session cookie Gazelle's ajax.php needs.
        // (Lasting, not a session cookie: those end when the last window closes.)
        'dicmusic.com': { '/login.php': { body: '<p>welcome back</p>', headers: { 'set-cookie': `${GAZELLE_SESSION}; Path=/; Max-Age=86400` } } },
        'kp.m-team.cc': { '/assets/index-3c1f.js': { body: mteamAppScript({ hash: hashOf(PAGES.mteam), title: PAGES.mteam.expect.hashes[0]!.title! }), type: 'text/javascript' } },
      }),
    });
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
    await configureThroughOptions(browser, { baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  async function open(page: ServedPage): Promise<{ tab: HarnessPage; tabId: number }> {
    const tab = await browser.newPage();
    if (page.scheme === 'https') await serveOverHttps(tab, Object.values(PAGES));
    await tab.goto(page.url);
    return { tab, tabId: await browser.tabIdOf(page.url) };
  }

  interface Found {
    tab: HarnessPage;
    tabId: number;
    popup: HarnessPage;
    content: PopupContent;
  }

  /**
   * The page's reading as the background holds it matches the fixture; the popup lists it and its
   * candidates; the panel is on the page. `more` checks further while the tab and popup are open.
   */
  async function expectFound(page: ServedPage, more?: (found: Found) => Promise<void>): Promise<void> {
    const { tab, tabId } = await open(page);
    const hashes = page.expect.hashes.map((found) => found.hash);
    const view = await settledView(browser, tabId);
    expect(view.status).toBe('done');
    expect(view.engine).toBe(page.expect.engine);
    expect(view.hashes).toEqual(page.expect.hashes);
    expect(view.problem).toBe(page.expect.problem);
    expect(view.torrentFileUrl).toBe(page.expect.torrentFileUrl);
    expect(view.access).toBe('catalog');

    const links = expectedLinksFor(world.service, hashes);
    expect(links.length).toBeGreaterThan(0);
    const { popup, content } = await openPopup(browser, tabId, (shown) => shown.candidates.length >= links.length);
    expect(content.hashes).toEqual(hashes);
    expect(content.candidates.map((candidate) => candidate.href).sort()).toEqual(links);
    // The in-page panel is there too on a torrent's page (its content sits in a closed shadow root);
    // a list page gains nothing (issue 15: the popup answers there).
    if (page.expect.kind === 'list') expect(await tab.evaluate(() => document.querySelector('reseed-lens-panel') === null)).toBe(true);
    else await tab.waitForSelector('reseed-lens-panel');
    await more?.({ tab, tabId, popup, content });
    await popup.close();
    await tab.close();
  }

  it('NexusPHP details.php, zh-CN labels (hdsky.me), and its own site\'s other torrent is marked', async () => {
    await expectFound(PAGES.nexusChs, async ({ popup, content }) => {
      const own = content.candidates.filter((candidate) => candidate.current);
      expect(own).toEqual([{ sid: SID.hdsky, current: true, href: 'https://hdsky.me/details.php?id=12399', forHash: null }]);
      expect(content.candidates.filter((candidate) => candidate.sid !== SID.hdsky).every((candidate) => !candidate.current)).toBe(true);
      expect(await popup.textContent('li.site.current .tag')).toBe('this site');
    });
  });

  it('Unit3D /torrents/N (monikadesign.uk)', () => expectFound(PAGES.unit3d));

  it('Unit3D /torrents/N in Chinese: the hash under 校验码 in the files dialog, no magnet button', () => expectFound(PAGES.unit3dZh));

  it('NexusPHP comments-only page (details.php?id=N&cmtpage=1): no hash, though a comment starts with Hash码', async () => {
    const { tab, tabId } = await open(PAGES.nexusComments);
    // settled once the content script has reported its reading (the view then names the engine)
    const view = await settledView(browser, tabId, (current) => current.engine !== undefined);
    expect(view).toMatchObject({ status: 'no-hash', engine: 'nexusphp', hashes: [], candidates: [] });
    expect(view.problem).toBeUndefined();
    // The hashes the comments name were never asked about.
    const commented = [...PAGES.nexusComments.html.matchAll(/[0-9a-f]{40}/g)].map((match) => match[0]);
    expect(commented.length).toBeGreaterThan(2);
    const asked = world.router.requests.map((request) => `${request.url} ${request.body}`).join('\n');
    expect(commented.filter((hash) => asked.includes(hash))).toEqual([]);
    await tab.close();
  });

  // Engines that only read a static DOM behave the same in both browsers: Chromium alone keeps the
  // suite short. Firefox runs the cases where the browser matters (the site's API with cookies,
  // in-page navigation, late DOM changes, a long list, an HSTS-listed host).
  if (kind === 'chromium') {
    it('NexusPHP details.php, zh-TW labels and a split uppercase hash (ourbits.club)', () => expectFound(PAGES.nexusCht));
    it('NexusPHP details.php, English labels (springsunday.net)', () => expectFound(PAGES.nexusEn));
    it('NexusPHP plugin_details.php (hdhome.org)', () => expectFound(PAGES.pluginDetails));
    it('NexusPHP with the info block collapsed (audiences.me)', () => expectFound(PAGES.collapsed));
    it('TTG-style /t/N/ (totheglory.im)', () => expectFound(PAGES.ttg));
    it('HDCity-style /t-N (hdcity.city)', () => expectFound(PAGES.hdcity));
    it('a magnet-only page, base32 (zhuque.in)', () => expectFound(PAGES.magnetBase32));
    it('a magnet-only page, uppercase hex (zhuque.in)', () => expectFound(PAGES.magnetHex));
    it('a generic labelled hash (rousi.pro)', () => expectFound(PAGES.genericLabel));
    it('Unit3D list: one hash per row, each tied to its row', () => expectFound(PAGES.unit3dList));
  }

  it('NexusPHP with the hash filled in after load: waits, then reads it', async () => {
    const { tab, tabId } = await open(PAGES.lazy);
    const waiting = await settledView(browser, tabId, (view) => view.problem === 'not-loaded-yet');
    expect(waiting).toMatchObject({ status: 'no-hash', engine: 'nexusphp', problem: 'not-loaded-yet', hashes: [] });
    await tab.click('#fill-hash');
    const view = await settledView(browser, tabId, (current) => current.status === 'done');
    expect(view.hashes).toEqual([{ hash: LAZY_HASH, source: 'info-row', title: 'Lazy.Series.S02.1080p.WEB-DL-LZY' }]);
    expect(view.problem).toBeUndefined();
    const links = expectedLinksFor(world.service, [LAZY_HASH]);
    const { popup, content } = await openPopup(browser, tabId, (shown) => shown.candidates.length >= links.length);
    expect(content.candidates.map((candidate) => candidate.href).sort()).toEqual(links);
    await popup.close();
    await tab.close();
  });

  it('Gazelle: the hash comes from the site\'s own ajax.php, with the user\'s session, and no .torrent is fetched', async () => {
    const login = await browser.newPage();
    await login.goto('http://dicmusic.com/login.php');
    await login.close();
    await expectFound(PAGES.gazelle);
    const asked = world.router.requestsTo('dicmusic.com');
    const api = asked.filter((request) => request.path.startsWith('/ajax.php'));
    expect(api.map((request) => request.path)).toEqual(['/ajax.php?action=torrent&id=2002']);
    expect(String(api[0]!.headers.cookie)).toContain(GAZELLE_SESSION);
    expect(asked.filter((request) => /action=download|\.torrent\b/.test(request.path))).toEqual([]);
  });

  it('Gazelle: the UI says plainly when the site gives no hash (empty infoHash, or the API refusing)', async () => {
    for (const page of [PAGES.gazelleNoHash, PAGES.gazelleFailure]) {
      const { tab, tabId } = await open(page);
      const view = await settledView(browser, tabId, (current) => current.problem !== undefined);
      expect(view).toMatchObject({ status: 'no-hash', engine: 'gazelle', problem: 'site-gives-no-hash', hashes: [], torrentFileUrl: page.expect.torrentFileUrl });
      const { popup, content } = await openPopup(browser, tabId, (shown) => shown.notices.includes('does not give'));
      expect(content.notices).toContain('No info-hash found on this page.');
      expect(content.notices).toContain('This site does not give the info-hash for this torrent');
      // The .torrent stays a choice for the user, never fetched by itself.
      expect(content.buttons).toContain('Get hash from the .torrent file');
      expect(content.hashes).toEqual([]);
      await popup.close();
      await tab.close();
      expect(world.router.requestsTo(page.host).filter((request) => request.path.startsWith('/ajax.php')).map((request) => request.path)).toEqual([
        '/ajax.php?action=torrent&id=2002',
      ]);
      expect(world.router.requestsTo(page.host).filter((request) => /action=download/.test(request.path))).toEqual([]);
    }
  });

  it('M-Team single-page app: in-page navigation to another torrent re-reads, and the popup follows', async () => {
    await expectFound(PAGES.mteam, async ({ tab, tabId, popup }) => {
      const first = hashOf(PAGES.mteam);
      const firstLinks = expectedLinksFor(world.service, [first]);
      const nextLinks = expectedLinksFor(world.service, [MTEAM_NEXT.hash]);

      // The in-page panel (a folded corner badge here) sums up the first torrent's candidates.
      if (kind === 'chromium') expect((await waitFor(() => panelContent(tab), (panel) => !!panel?.summary, 30_000))?.summary).toBe('2 torrents on 2 other sites');
      await tab.click('#next-torrent');
      expect(await tab.evaluate(() => location.pathname)).toBe(`/detail/${MTEAM_NEXT.id}`);
      const moved = await waitFor(
        () => popupContent(popup),
        (shown) => shown.hashes[0] === MTEAM_NEXT.hash && shown.candidates.length === nextLinks.length,
      );
      expect(moved.hashes).toEqual([MTEAM_NEXT.hash]);
      expect(moved.candidates.map((candidate) => candidate.href).sort()).toEqual(nextLinks);
      // ...and follows too.
      if (kind === 'chromium') {
        const panel = await waitFor(() => panelContent(tab), (shown) => shown?.summary === '3 torrents on 3 other sites', 30_000);
        expect(panel?.summary).toBe('3 torrents on 3 other sites');
      }
      const view = await tabView(browser, tabId);
      // (view.url stays /detail/900123: the background files a tab under the browser's sender.url,
      // which keeps the URL the document loaded with after history.pushState, in both browsers.)
      expect(view).toMatchObject({ engine: 'mteam', status: 'done' });
      expect(view.hashes).toEqual([{ hash: MTEAM_NEXT.hash, source: 'info-row', title: MTEAM_NEXT.title }]);

      // Back: the first torrent again.
      await tab.evaluate(() => history.back());
      const back = await waitFor(
        () => popupContent(popup),
        (shown) => shown.hashes[0] === first && shown.candidates.length === firstLinks.length,
      );
      expect(back.candidates.map((candidate) => candidate.href).sort()).toEqual(firstLinks);
      // The page was loaded from the server once; everything after was in-page.
      expect(world.router.requestsTo('kp.m-team.cc').filter((request) => request.path.startsWith('/detail/')).map((request) => request.path)).toEqual([
        '/detail/900123',
      ]);
    });
  });

  it('list pages: every torrent row reaches the background with its torrent id, hash or not, in page order', async () => {
    // What the content scripts send, as an extension page hears it (the background hears the same).
    await browser.evaluateInExtension((api) => {
      const heard: unknown[] = [];
      (globalThis as unknown as { heardReadings: unknown[] }).heardReadings = heard;
      api.runtime.onMessage.addListener((message: unknown) => {
        if ((message as { type?: string } | null)?.type === 'page:reading') heard.push(message);
      });
    });
    const listPages = [PAGES.nexusList, PAGES.nexusSearch, PAGES.ttgBrowse, PAGES.unit3dList, PAGES.unit3dSimilar, PAGES.gazelleBrowse, PAGES.mteamBrowse];
    for (const page of listPages) {
      const expected = page.expect.rows!;
      expect(expected.length, page.fixture).toBeGreaterThan(2);
      const { tab, tabId } = await open(page);
      // The background took the reading (it refuses one whose rows fail its schema)...
      const view = await settledView(browser, tabId, (current) => current.engine === page.expect.engine);
      expect(view.engine, page.fixture).toBe(page.expect.engine);
      expect(view.hashes, page.fixture).toEqual(page.expect.hashes);
      // ...and the rows it was sent are the page's, for M-Team once its app has rendered them.
      const sent = await waitFor(
        () =>
          browser.evaluateInExtension(
            (_api, where) =>
              ((globalThis as unknown as { heardReadings: { url: string; reading: { rows?: unknown[] } | null }[] }).heardReadings)
                .filter((message) => {
                  const url = new URL(message.url);
                  return url.host === where.host && url.pathname + url.search === where.path;
                })
                .map((message) => message.reading?.rows ?? null),
            { host: page.host, path: page.path },
          ),
        (heard) => heard.some((rows) => rows?.length === expected.length),
      );
      expect(sent.findLast((rows) => rows !== null), page.fixture).toEqual(expected);
      await tab.close();
    }
  });

  it('NexusPHP list: one hash per row, each tied to its row; the popup counts them and names each candidate\'s hash', async () => {
    const page = PAGES.nexusList;
    const { tab, tabId } = await open(page);
    const view = await settledView(browser, tabId);
    expect(view.engine).toBe('nexusphp');
    expect(view.hashes).toEqual(page.expect.hashes);
    expect(new Set(view.hashes.map((found) => found.row)).size).toBe(page.expect.hashes.length);
    // Candidates answer the row they belong to.
    for (const row of LIST_ROWS) {
      const forRow = view.candidates.filter((candidate) => candidate.forHash === row.hash);
      expect(forRow.map((candidate) => candidate.detailsUrl).sort()).toEqual(expectedLinksFor(world.service, [row.hash]));
    }
    expect(view.candidates.every((candidate) => LIST_ROWS.some((row) => row.hash === candidate.forHash))).toBe(true);

    const links = expectedLinksFor(world.service, LIST_ROWS.map((row) => row.hash));
    const { popup, content } = await openPopup(browser, tabId, (shown) => shown.candidates.length >= links.length);
    expect(content.hashesHeading).toBe(`Info-hashes on this page (${page.expect.hashes.length})`);
    expect(content.hashes).toEqual(page.expect.hashes.map((found) => found.hash));
    expect(content.candidates.map((candidate) => candidate.href).sort()).toEqual(links);
    for (const candidate of content.candidates) {
      const row = LIST_ROWS.find((entry) => expectedLinksFor(world.service, [entry.hash]).includes(candidate.href!))!;
      expect(candidate.forHash).toBe(row.hash.slice(0, 8));
    }
    // ourbits' own second torrent of row 3 is marked as this site's.
    expect(content.candidates.filter((candidate) => candidate.current)).toEqual([
      { sid: SID.ourbits, current: true, href: 'https://ourbits.club/details.php?id=60999', forHash: LIST_ROWS[2]!.hash.slice(0, 8) },
    ]);
    await popup.close();
    await tab.close();
  });
});
