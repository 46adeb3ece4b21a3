/**
 * Issue #10 end to end, in Chromium and Firefox: the built extension, the real qbittorrent-nox (its
 * CSRF protection on) and transmission-daemon holding real torrents, the reference service, and a
 * list page of every engine built from the real templates (test/fixtures/pages), each under a
 * catalogued host of its engine, with one row whose data the client holds from another site and
 * one row whose torrent is in the client.
 *
 * - The index is turned on through the options page: a sync runs with its progress shown, every
 *   client hash reaches the service once, and "Sync now" again sends nothing.
 * - On each list page the popup lists exactly the row to cross-seed (its count on the badge) and
 *   the row in the client; the page itself is the same DOM as with the index off (for NexusPHP's
 *   list and search pages, byte for byte the DOM of a browser without the extension: no panel,
 *   issue 15), and only with the site's row-marks switch on do those two rows get their marks
 *   (gone again when it is off).
 * - Both clients are indexed (issue 33), each its own index, synced side by side: they hold the
 *   same torrents, and each hash reaches the service once. Each popup row says which client holds
 *   it or its data, and where its copy would go.
 * - "Cross-seed" on a row downloads its .torrent from the test tracker with the user's session and
 *   adds it to the client beside its data (the first in the user's order holding it): read back
 *   through the client's own API, seeding at 100 %.
 * - Transmission moved first in the user's order: no sync, and the next row's copy goes into it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClientKind, TorrentClient } from '../../utils/clients/client-types';
import type { ClientsAnswer } from '../../features/clients/clients.messages';
import type { IndexPageAnswer, IndexStatusView } from '../../features/client-index/client-index.messages';
import { makeTorrent, tinyTorrents, TRACKERS, writeFolder, type ContentFile, type MadeTorrent } from '../clients/torrent-content';
import { startQbittorrent, startTransmission, type RunningDaemon } from '../clients/daemons';
import { addSeeding, untilSeeding } from '../clients/seeding';
import { DEMO_TOKEN } from '../service/server';
import { BROWSER_KINDS, closeAllBrowsers, launchBrowser, type BrowserKind, type HarnessBrowser, type HarnessPage, type RecordedRequest } from './harness/index.ts';
import { TestTracker } from './support/cross-seed-world';
import { tabView } from './support/popup';
import { readFixture, referenceDataWith, schemeFor, servePage, serveOverHttps, type ServedPage, type TorrentGroup } from './support/tracker-pages';
import { until } from './support/wait';
import { SERVICE_BASE_URL, SERVICE_HOST, startWorld, type World } from './world';
import { ownClient } from '../clients/own-client';

afterAll(closeAllBrowsers);

const LOOKUP_PATH = '/reseed/index/index';

/** One list page per engine: the row the client can cross-seed (`can`) and the row it holds (`held`). */
const PAGES = [
  { key: 'NexusPHP torrents.php', fixture: 'nexusphp-list', host: 'ourbits.club', site: 'ourbits', can: '60003', held: '60006' },
  { key: 'NexusPHP search', fixture: 'nexusphp-search', host: 'ourbits.club', site: 'ourbits', can: '71001', held: '70950' },
  { key: 'TTG browse', fixture: 'ttg-browse', host: 'totheglory.im', site: 'ttg', can: '654321', held: '653999' },
  { key: 'UNIT3D /torrents', fixture: 'unit3d-list', host: 'monikadesign.uk', site: 'monikadesign', can: '5003', held: '5001' },
  { key: 'Gazelle browse', fixture: 'gazelle-browse', host: 'dicmusic.com', site: 'dicmusic', can: '2002', held: '2004' },
  { key: 'M-Team list', fixture: 'mteam-browse', host: 'kp.m-team.cc', site: 'm-team', can: '900202', held: '900150' },
] as const;
type ListPage = (typeof PAGES)[number];
const OURBITS_SID = 9;

/** Content on disk and its torrent on two trackers: the source in the client, the candidate on the list's site. */
interface Pair {
  name: string;
  files: ContentFile[];
  seed: string;
  source: MadeTorrent;
  candidate: MadeTorrent;
}

function makePair(index: number): Pair {
  const name = `Reseed Lens List ${index} (2024) [FLAC]`;
  const files = [
    { path: '01 - Opening.flac', size: 150_000 + index * 7 },
    { path: 'Scans/cover.jpg', size: 8_000 },
  ];
  const seed = `list-pages-${index}`;
  const content = { savePath: '', name, files, single: false, seed };
  return { name, files, seed, source: makeTorrent(content, TRACKERS.alpha), candidate: makeTorrent(content, TRACKERS.beta) };
}

const PAIRS = PAGES.map((_, index) => makePair(index));
/** Two torrents per page in the client with nothing on disk: one is the page's `held` row, the other names it. */
const TINY = tinyTorrents(PAGES.length * 2, 'list-pages');
const heldOn = (index: number) => TINY[index * 2]!;
const namingIt = (index: number) => TINY[index * 2 + 1]!;
const CLIENT_HASHES = [...PAIRS.map((pair) => pair.source.hash), ...TINY.map((torrent) => torrent.hash)];

/** The service's groups: each page's candidate with its source on HDSky; each page's held row with the torrent naming it. */
const GROUPS: TorrentGroup[] = PAGES.flatMap((page, index) => [
  {
    title: PAIRS[index]!.name,
    members: [
      { site: 'hdsky', torrent_id: 1001 + index, info_hash: PAIRS[index]!.source.hash },
      { site: page.site, torrent_id: Number(page.can), info_hash: PAIRS[index]!.candidate.hash },
    ],
  },
  {
    title: `held ${index}`,
    members: [
      { site: page.site, torrent_id: Number(page.held), info_hash: heldOn(index).hash },
      { site: 'hdsky', torrent_id: 5001 + index, info_hash: namingIt(index).hash },
    ],
  },
]);

/** The page as its site serves it; a row that shows its own hash shows the hash of the torrent the service names there. */
function served(page: ListPage, index: number, kind: BrowserKind): ServedPage {
  const rows = readFixture(page.fixture).expect!.rows!;
  const swaps = [
    [rows.find((row) => row.id === page.can)?.hash, PAIRS[index]!.candidate.hash],
    [rows.find((row) => row.id === page.held)?.hash, heldOn(index).hash],
  ].filter((swap): swap is [string, string] => !!swap[0]);
  return servePage(page.fixture, page.host, {
    scheme: schemeFor(kind, page.host),
    edit: (html) => swaps.reduce((text, [from, to]) => text.replaceAll(from, to).replaceAll(from.toUpperCase(), to.toUpperCase()), html),
  });
}

/** Where a mark's row link points: the row's torrent id. */
function idOfLink(href: string): string | undefined {
  return (/torrentid=(\d+)/.exec(href) ?? /(?:[?&]id=|\/t\/|\/torrents\/|\/detail\/)(\d+)/.exec(href))?.[1];
}

describe.each(BROWSER_KINDS)('%s: list pages and the index of the client', (kind) => {
  let world: World;
  let browser: HarnessBrowser;
  let ourbits: TestTracker;
  const daemons = {} as Record<'qbittorrent' | 'transmission', { daemon: RunningDaemon; client: TorrentClient }>;
  const pages = PAGES.map((page, index) => ({ ...page, index, served: served(page, index, kind) }));
  /** Each page's DOM with the index off, to compare with. */
  const withIndexOff = new Map<string, string>();
  /** The NexusPHP pages' DOM in the same browser without the extension. */
  const withoutExtension = new Map<string, string>();

  async function startDaemon(clientKind: 'qbittorrent' | 'transmission') {
    const daemon = clientKind === 'qbittorrent' ? await startQbittorrent() : await startTransmission();
    // As the user's own web UI added them (same-origin requests).
    const client = ownClient(daemon);
    for (const pair of PAIRS) await addSeeding(client, pair.source, writeFolder(daemon.dataDir, pair.name, pair.files, pair.seed));
    for (const torrent of TINY) await client.add(torrent.bytes, { savePath: daemon.downloadDir, paused: true, skipCheck: false });
    return { daemon, client };
  }

  beforeAll(async () => {
    const [qbittorrent, transmission] = await Promise.all([startDaemon('qbittorrent'), startDaemon('transmission')]);
    daemons.qbittorrent = qbittorrent;
    daemons.transmission = transmission;
    world = await startWorld({ service: { data: referenceDataWith(GROUPS), rateLimit: { max: 1000 } } });
    // OurBits is a test tracker (login, details pages, downloads) that also serves its list pages.
    ourbits = new TestTracker('ourbits.club', OURBITS_SID, 'ourbits');
    for (const page of pages.filter((candidate) => candidate.host === 'ourbits.club')) ourbits.list(Number(page.can), PAIRS[page.index]!.candidate, PAIRS[page.index]!.name);
    const ourbitsPages = new Map(pages.filter((page) => page.host === 'ourbits.club').map((page) => [page.served.path, page.served.html]));
    world.router.setHost('ourbits.club', (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => {
      const html = ourbitsPages.get(recorded.path);
      if (html === undefined) return ourbits.handle(req, res, recorded);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    });
    for (const page of pages) {
      if (page.host === 'ourbits.club' || page.served.scheme !== 'http') continue;
      world.router.setHost(page.host, { [page.served.path]: page.served.html });
    }
    // The NexusPHP list pages as a browser without the extension shows them (launched and closed
    // first: the browser under test is the only one from then on).
    const plain = await launchBrowser(kind, { proxyPort: world.router.port, withoutExtension: true });
    try {
      for (const page of pages.filter((candidate) => candidate.key.startsWith('NexusPHP'))) {
        const tab = await plain.newPage();
        if (page.served.scheme === 'https') await serveOverHttps(tab, [page.served]);
        await tab.goto(page.served.url);
        withoutExtension.set(page.key, await tab.evaluate(() => document.documentElement.outerHTML));
        await tab.close();
      }
    } finally {
      await plain.close();
    }
    browser = await launchBrowser(kind, { proxyPort: world.router.port });
    await browser.evaluateInExtension((api, update) => api.runtime.sendMessage({ type: 'settings:save', update }), {
      baseUrl: SERVICE_BASE_URL,
      token: DEMO_TOKEN,
      askedForSites: true,
      privacyNoticeSeen: true,
      // The test tracker serves http: the user's own override for the site, as a person behind such a site would set.
      siteOverrides: { [String(OURBITS_SID)]: { scheme: 'http' } },
    });
    // Both clients saved, NAS (qBittorrent) first in the user's order, as the options page saves them.
    for (const [{ daemon }, name] of [[qbittorrent, 'NAS'], [transmission, 'Seedbox']] as const) {
      const answer = await browser.evaluateInExtension(
        (api, client) => api.runtime.sendMessage({ type: 'clients:save', client }) as Promise<ClientsAnswer | { problem: unknown }>,
        { type: daemon.kind, url: daemon.url, username: daemon.username, password: daemon.password, name },
      );
      if ('problem' in answer) throw new Error(`${daemon.kind} not saved: ${JSON.stringify(answer.problem)}`);
    }
    // The user is logged in on OurBits, as in their own browser.
    const login = await browser.newPage();
    await login.goto(ourbits.loginUrl('http'));
    await login.close();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await world?.close();
    await Promise.all(Object.values(daemons).map((entry) => entry.daemon.stop()));
  }, 60_000);

  const message = <T,>(body: Record<string, unknown>) => browser.evaluateInExtension((api, sent) => api.runtime.sendMessage(sent) as Promise<T>, body);
  const badge = (tabId: number) =>
    browser.evaluateInExtension((api, id) => ((api as unknown as { action?: typeof api.browserAction }).action ?? api.browserAction).getBadgeText({ tabId: id }), tabId);
  const lookups = () => world.router.requestsTo(SERVICE_HOST).filter((request) => request.path === LOOKUP_PATH);
  const hashesIn = (requests: RecordedRequest[]) => requests.flatMap((request) => JSON.parse(new URLSearchParams(request.body).get('hash') ?? '[]') as string[]);
  const clientHashesIn = (requests: RecordedRequest[]) => hashesIn(requests).filter((hash) => CLIENT_HASHES.includes(hash));

  /** Tabs a test opened: closed after it even when it failed, so the next one finds only its own. */
  const opened: HarnessPage[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((tab) => tab.close().catch(() => undefined)));
  });

  /** Opens a list page in a new tab and waits until the extension read it; gives the tab and its id. */
  async function openList(page: (typeof pages)[number]): Promise<{ tab: HarnessPage; tabId: number }> {
    const tab = await browser.newPage();
    opened.push(tab);
    if (page.served.scheme === 'https') await serveOverHttps(tab, [page.served]);
    await tab.goto(page.served.url);
    const tabId = await browser.tabIdOf(`${page.host}${page.served.path}`.slice(0, 48));
    const view = await until(() => tabView(browser, tabId), (seen) => seen.kind === 'list' && !!seen.rows?.length && ['done', 'no-hash', 'error'].includes(seen.status), `the ${page.key} page read`, 30_000);
    expect(view.rows!.map((row) => row.id)).toEqual(expect.arrayContaining([page.can, page.held]));
    return { tab, tabId };
  }

  /** The page's DOM, every byte of it (issue 15: a list page gains no panel, no element, no attribute). */
  const pageDom = (tab: HarnessPage) => tab.evaluate(() => document.documentElement.outerHTML);
  const marksIn = (tab: HarnessPage) =>
    tab.evaluate(() => [...document.querySelectorAll('reseed-lens-mark')].map((mark) => ({ text: mark.textContent, href: mark.previousElementSibling?.getAttribute('href') ?? '' })));

  it('with the index off, a list page learns nothing of it and the popup says how to turn it on', async () => {
    for (const page of pages) {
      const { tab, tabId } = await openList(page);
      expect(await message<IndexPageAnswer>({ type: 'index:page', tabId })).toEqual({ state: 'off' });
      withIndexOff.set(page.key, await pageDom(tab));
      expect(await marksIn(tab)).toEqual([]);
      await tab.close();
    }
  });

  it('a NexusPHP list or search page (with and without hashes) is byte for byte the page a browser without the extension shows (issue 15)', async () => {
    const nexus = pages.filter((page) => page.key.startsWith('NexusPHP'));
    expect([...withoutExtension.keys()]).toEqual(nexus.map((page) => page.key));
    const without = withoutExtension;
    for (const page of nexus) {
      // The same page with the extension, once the background has answered it (the popup's answer).
      const { tab, tabId } = await openList(page);
      expect(await message<IndexPageAnswer>({ type: 'index:page', tabId })).toEqual({ state: 'off' });
      const dom = await pageDom(tab);
      expect(dom.includes('reseed-lens'), page.key).toBe(false);
      expect(dom, page.key).toBe(without.get(page.key));
      expect(withIndexOff.get(page.key), page.key).toBe(without.get(page.key));
      await tab.close();
    }
  });

  it('turned on in the options page: each client\'s sync shows its progress, every client hash reaches the service once (both clients hold them), and "Sync now" again sends nothing', async () => {
    const before = lookups().length;
    const options = await browser.openExtensionPage('options.html#client-index-heading');
    await options.bringToFront();
    await options.waitForSelector('#index-enabled', { state: 'visible' });
    expect(await options.textContent('#client-index-heading')).toBe('Index of your clients');
    expect(await options.evaluate(() => document.querySelector('#index-enabled')?.closest('label')?.textContent?.trim())).toBe('Keep an index of my clients');
    expect(await options.textContent('#index-enabled-hint')).toContain('sends the info-hash of every torrent in your client to the lookup service');
    // The service holds its answer until the progress of both clients has been seen.
    const release = world.service.control.hold(LOOKUP_PATH);
    try {
      await options.click('#index-enabled');
      const progress = await until(
        () => options.evaluate(() => [...document.querySelectorAll('.index-client-row')].map((row) => [row.getAttribute('data-client-name'), row.querySelector('.index-progress-text')?.textContent ?? ''])),
        (rows) => rows.length === 2 && rows.every(([, text]) => !!text?.includes('Looking up hashes')),
        'both clients looking up',
        30_000,
      );
      expect(progress).toEqual([
        ['NAS', 'Looking up hashes: 0 of 18 (requests: 0)…'],
        ['Seedbox', 'Looking up hashes: 0 of 18 (requests: 0)…'],
      ]);
    } finally {
      release();
    }
    await until(() => options.evaluate(() => document.querySelectorAll('.index-client-row .index-last-sync[data-outcome=done]').length), (done) => done === 2, 'both first syncs', 60_000);
    // Both clients hold the same 18 torrents: one lookup carried them, the other client took its answers from the first one's index.
    const synced = lookups().slice(before);
    expect(synced).toHaveLength(1);
    // Every hash in the clients reached the service exactly once: in this sync, or earlier for a row that showed it.
    expect([...clientHashesIn(lookups())].sort()).toEqual([...CLIENT_HASHES].sort());
    expect(await options.evaluate(() => [...document.querySelectorAll('.index-client-row .index-counts')].map((line) => line.textContent))).toEqual([
      'Torrents indexed: 18 · torrents on sites already in your client: 12 · you can cross-seed: 6',
      'Torrents indexed: 18 · torrents on sites already in your client: 12 · you can cross-seed: 6',
    ]);
    expect(await options.textContent('#index-counts')).toBe('All your clients together: Torrents indexed: 36 · torrents on sites already in your client: 12 · you can cross-seed: 6');

    expect((await options.textContent('#index-sync'))?.trim()).toBe('Sync now');
    await options.click('#index-sync');
    await until(
      () => options.evaluate(() => [...document.querySelectorAll('.index-client-row .index-last-sync')].map((line) => line.textContent ?? '')),
      (lines) => lines.length === 2 && lines.every((line) => /hashes sent: 0, requests: 0/.test(line)),
      'the second syncs',
      30_000,
    );
    expect(lookups().length).toBe(before + 1);
    await options.close();
  });

  it.each(PAGES.map((page) => page.key))('%s: the popup lists the row to cross-seed (its count on the badge) and the row in the client; marks only with the switch on', async (key) => {
    const page = pages.find((candidate) => candidate.key === key)!;
    const { tab, tabId } = await openList(page);
    expect(await until(() => badge(tabId), (text) => text === '1', `the badge of ${key}`)).toBe('1');
    // Marks off: the page is exactly what it was with the index off.
    expect(await pageDom(tab)).toBe(withIndexOff.get(key));

    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    await popup.waitForSelector('.list-index[data-state=answered]', { timeoutMs: 30_000 });
    const listed = await popup.evaluate(() => ({
      heading: document.querySelector('#index-cross-seed-heading')?.textContent,
      canCrossSeed: [...document.querySelectorAll('ul.can-cross-seed li.index-row')].map((row) => row.getAttribute('data-row-id')),
      buttons: [...document.querySelectorAll('ul.can-cross-seed button')].map((button) => button.textContent?.trim()),
      inClient: [...document.querySelectorAll('ul.in-client li.index-row')].map((row) => row.getAttribute('data-row-id')),
      route: [...document.querySelectorAll('ul.can-cross-seed .index-route')].map((route) => route.textContent),
      heldBy: [...document.querySelectorAll('ul.in-client .index-held-by')].map((held) => held.textContent?.trim()),
      marks: (document.querySelector('#index-row-marks') as HTMLInputElement | null)?.checked,
    }));
    // Both clients hold the row's data and the held row: the copy is NAS's (first in the user's order), into itself.
    expect(listed).toEqual({ heading: 'Can cross-seed on this page (1)', canCrossSeed: [page.can], buttons: ['Cross-seed'], inClient: [page.held], route: ['from NAS → NAS'], heldBy: ['· in NAS, Seedbox'], marks: false });
    expect(await badge(tabId)).toBe(String(listed.canCrossSeed.length));

    // The site's row marks on, from the popup: exactly those two rows are marked in the page.
    await popup.click('#index-row-marks');
    const marks = await until(() => marksIn(tab), (found) => found.length === 2, `the marks on ${key}`);
    expect(marks.map((mark) => ({ text: mark.text, id: idOfLink(mark.href) })).sort((a, b) => a.text!.localeCompare(b.text!))).toEqual([
      { text: 'Can cross-seed', id: page.can },
      { text: 'In your client', id: page.held },
    ]);
    // Off again: the marks go, and the page is as it was.
    await popup.click('#index-row-marks');
    await until(() => marksIn(tab), (found) => found.length === 0, `the marks gone from ${key}`);
    expect(await pageDom(tab)).toBe(withIndexOff.get(key));
    await popup.close();
    await tab.close();
  });

  async function crossSeedRow(page: (typeof pages)[number], daemon: RunningDaemon, client: TorrentClient, clientName: string): Promise<void> {
    const pair = PAIRS[page.index]!;
    const { tab, tabId } = await openList(page);
    await until(() => badge(tabId), (text) => text === '1', 'the badge');
    const popup = await browser.openExtensionPage(`popup.html?tabId=${tabId}`);
    const button = `li[data-row-id="${page.can}"] button.index-cross-seed`;
    await popup.waitForSelector(button, { timeoutMs: 30_000 });
    // The row says where its copy goes: the first client in the user's order holding its data.
    expect(await popup.textContent(`li[data-row-id="${page.can}"] .index-route`)).toBe(`from ${clientName} → ${clientName}`);
    const downloads = ourbits.downloads.length;
    await popup.click(button);
    await popup.waitForSelector(`li[data-row-id="${page.can}"] .index-outcome`, { timeoutMs: 60_000 });
    expect(await popup.textContent(`li[data-row-id="${page.can}"] .index-outcome`)).toBe(`Added to ${clientName}, seeding: its check found every file on disk.`);
    // One .torrent, with the user's session, for that row.
    expect(ourbits.downloads.slice(downloads)).toEqual([expect.objectContaining({ id: Number(page.can), served: true })]);
    // In the client, beside its data, complete.
    expect(await untilSeeding(client, pair.candidate.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    // The row is the client's now: nothing left to cross-seed on the page.
    expect(await until(() => badge(tabId), (text) => text === '0', 'the badge after the cross-seed')).toBe('0');
    await popup.close();
    await tab.close();
  }

  it('"Cross-seed" on a row adds it to NAS (qBittorrent, first in the user\'s order) beside its source, seeding at 100 %', async () => {
    const { daemon, client } = daemons.qbittorrent;
    await crossSeedRow(pages.find((page) => page.key === 'NexusPHP search')!, daemon, client, 'NAS');
  });

  it('Seedbox (Transmission) moved first in the user\'s order: nothing is synced again, and "Cross-seed" adds the next row to it', async () => {
    const { daemon, client } = daemons.transmission;
    const before = lookups().length;
    const { clients } = await message<ClientsAnswer>({ type: 'clients:list' });
    await message({ type: 'clients:move', id: clients.find((saved) => saved.url === daemon.url)!.id, index: 0 });
    const status = await message<IndexStatusView>({ type: 'index:status' });
    expect(status.clients?.map((view) => [view.client.name, view.counts?.torrents])).toEqual([
      ['Seedbox', 18],
      ['NAS', 19],
    ]);
    await crossSeedRow(pages.find((page) => page.key === 'NexusPHP torrents.php')!, daemon, client, 'Seedbox');
    // No client hash was asked again (the pages' own lookups aside).
    expect(clientHashesIn(lookups().slice(before))).toEqual([]);
  });
});
