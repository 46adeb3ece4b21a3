/**
 * The cross-seed feature (features/cross-seed/cross-seed.feature.ts) in the real background, in Node: the
 * messages go through the router as the popup's and the content script's do, the tab's view comes
 * from a real page reading looked up at the reference service, the .torrent files come from the
 * test trackers of test/e2e/support/cross-seed-world.ts (a cookie jar standing in for the user's
 * browser session), and the client is a real qbittorrent-nox with its CSRF protection on (passed
 * with the session rule the background installs, test/unit/support/client-browser.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { TorrentClient } from '../../../../utils/clients/client-types';
import { SITE_GAP_MS } from '../../../../utils/cross-seed-engine/site-queue';
import type { ClientsAnswer } from '../../../../features/clients/clients.messages';
import type { CrossSeedsChanged, PageCrossSeed, PageCrossSeedsChanged, TabCrossSeeds } from '../../../../features/cross-seed/cross-seed.messages';
import type { PageView } from '../../../../features/lookup/lookup.messages';
import type { IndexCrossSeedAnswer, IndexPageAnswer } from '../../../../features/client-index/client-index.messages';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { startQbittorrent, type RunningDaemon } from '../../../clients/daemons';
import { type JarFetch } from '../../../clients/node-fetch';
import { proxiedFetch } from '../../../clients/proxy-fetch';
import { untilSeeding } from '../../../clients/seeding';
import { CANDIDATE_SITE, OTHER_SITE, PAGE_SITE, startCrossSeedWorld, type CrossSeedWorld } from '../../../e2e/support/cross-seed-world';
import { SERVICE_BASE_URL } from '../../../e2e/world';
import { DEMO_TOKEN } from '../../../service/server';
import { extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { installI18n } from '../../support/i18n';
import { installPermissions } from '../../support/permissions';
import { pageView } from '../../../../features/lookup/panel-view';
import { ownClient } from '../../../clients/own-client';

const LIVE = { timeout: 90_000 };
const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
const popup = { id: extension.id, url: `${extension.origin}popup.html` };

let daemon: RunningDaemon;
let cs: CrossSeedWorld;
/** The test's own client (as the user's web UI), to read back what the extension did. */
let readBack: TorrentClient;
let siteFetch: JarFetch;

let app: BackgroundApp;
let toPopup: CrossSeedsChanged[];
let toPages: { tabId: number; message: PageCrossSeedsChanged }[];

beforeAll(async () => {
  daemon = await startQbittorrent();
  // pairs[3] is the list row's (its candidate is cross-seeded by no other test).
  cs = await startCrossSeedWorld({ pairs: 4, otherSite: true });
  readBack = ownClient(daemon);
  for (const index of [0, 1, 2, 3]) await cs.seed(readBack, daemon.dataDir, index);
  // The user is logged in on the candidate's site (not on the third one, which is not theirs).
  siteFetch = cs.siteFetch();
  await cs.logIn(siteFetch, cs.candidate);
}, 120_000);
afterAll(async () => {
  await cs?.close();
  await daemon?.stop();
}, 30_000);

beforeEach(async () => {
  fakeBrowser.reset();
  installI18n('en');
  installPermissions();
  installSessionRules();
  await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: SERVICE_BASE_URL, token: DEMO_TOKEN, heldSites: [PAGE_SITE.sid, CANDIDATE_SITE.sid], askedForSites: true } });
  toPopup = [];
  toPages = [];
  fakeBrowser.runtime.onMessage.addListener((message: unknown) => {
    if ((message as { type?: string }).type === 'crossseed:changed') toPopup.push(message as CrossSeedsChanged);
  });
  Object.assign(fakeBrowser.tabs, {
    sendMessage: async (tabId: number, message: { type?: string }) => {
      if (message.type === 'crossseed:changed' && 'outcomes' in message) toPages.push({ tabId, message: message as PageCrossSeedsChanged });
    },
  });
  app = newBackground();
  const saved = (await fromPopup<ClientsAnswer | { problem: unknown }>({ type: 'clients:save', client: { type: 'qbittorrent', url: daemon.url, username: daemon.username, password: daemon.password } })) as ClientsAnswer;
  expect(saved.clients).toHaveLength(1);
});

function newBackground(): BackgroundApp {
  return new BackgroundApp({ fetch: proxiedFetch(cs.world.router.port), clientFetch: extensionClientFetch(), siteFetch, retryDelaysMs: [], minIntervalMs: 0 });
}

function fromPopup<T>(message: Record<string, unknown>): Promise<T> {
  return routeMessage(app, message, popup, extension) as Promise<T>;
}

/**
 * A cross-seed command (`crossseed:one`, `crossseed:all`): it answers nothing once done (its state
 * is announced as `crossseed:changed`); the tab's cross-seeds are then read as the popup reads them.
 */
async function command(message: Record<string, unknown> & { tabId: number }, sender = popup): Promise<TabCrossSeeds> {
  expect(await routeMessage(app, message, sender, extension)).toBeUndefined();
  return fromPopup<TabCrossSeeds>({ type: 'crossseed:get', tabId: message.tabId });
}

const pageUrl = (index: number) => `https://${PAGE_SITE.host}/details.php?id=${cs.pairs[index]!.sourceId}`;
const trackerPage = (tabId: number, url: string) => ({ id: extension.id, url, frameId: 0, tab: { id: tabId } as never });

/** The page's content script reports its torrent (pair `index`'s source) and gets the panel's view. */
async function openPage(tabId: number, index: number): Promise<PageView> {
  const url = pageUrl(index);
  await routeMessage(
    app,
    { type: 'page:reading', url, reading: { engine: 'nexusphp', kind: 'details', hashes: [{ hash: cs.pairs[index]!.source.hash, source: 'info-row' }] } },
    trackerPage(tabId, url),
    extension,
  );
  // The page's view is announced to its tab, not answered: this is the one the tab was last told.
  const view = pageView((await app.tabs.get(tabId))!);
  expect(view.status).toBe('done');
  return view;
}

function fromTab<T>(tabId: number, index: number, message: Record<string, unknown>): Promise<T> | undefined {
  return routeMessage(app, message, trackerPage(tabId, pageUrl(index)), extension) as Promise<T> | undefined;
}

const downloadsFrom = (tracker: CrossSeedWorld['candidate']) => tracker.downloads.filter((download) => download.path.startsWith('/download.php'));

/** The index switched on and synced with the client. */
async function indexOn(): Promise<void> {
  await fromPopup({ type: 'settings:save', update: { clientIndexEnabled: true } });
  await app.index.run('sync');
}

/** The candidate's site's list page in tab `tabId`, its one row pair `index`'s candidate: the index's answer for it, as the popup reads it. */
async function listPage(tabId: number, index: number): Promise<IndexPageAnswer> {
  const pair = cs.pairs[index]!;
  const listUrl = `https://${CANDIDATE_SITE.host}/torrents.php`;
  await routeMessage(
    app,
    { type: 'page:reading', url: listUrl, reading: { engine: 'nexusphp', kind: 'list', hashes: [], problem: 'site-gives-no-hash', rows: [{ id: String(pair.candidateId), title: pair.title }] } },
    trackerPage(tabId, listUrl),
    extension,
  );
  await app.index.idle();
  return fromPopup<IndexPageAnswer>({ type: 'index:page', tabId });
}

describe('"Cross-seed" from the popup', () => {
  it('downloads the candidate the view holds, adds it beside the source, and tells the popup and the panel', LIVE, async () => {
    const pair = cs.pairs[1]!;
    await openPage(11, 1);
    const before = downloadsFrom(cs.candidate).length;
    const answer = await command({ type: 'crossseed:one', tabId: 11, sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, infoHash: pair.candidate.hash });

    expect(answer.url).toBe(pageUrl(1));
    expect(answer.items).toEqual([
      expect.objectContaining({ sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, forHash: pair.source.hash, state: 'done', result: expect.objectContaining({ kind: 'added', savePath: daemon.dataDir }) }),
    ]);
    expect(downloadsFrom(cs.candidate).slice(before)).toEqual([expect.objectContaining({ id: pair.candidateId, served: true })]);
    expect(await untilSeeding(readBack, pair.candidate.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });

    // The popup heard it start and end; the panel heard the same as sentences only.
    expect(toPopup.map((message) => message.crossSeeds.items.map((item) => item.state).join())).toEqual(['running', 'done']);
    expect(toPages.map(({ tabId }) => tabId)).toEqual([11, 11]);
    expect(toPages.map(({ message }) => message.outcomes)).toEqual([
      [{ sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, running: true, ok: false, lines: ['Cross-seeding…'] }],
      [{ sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, running: false, ok: true, lines: ['Added to qBittorrent on 127.0.0.1, seeding: its check found every file on disk.'] }],
    ]);
    expect(JSON.stringify(toPages)).not.toContain(daemon.url);
    expect(JSON.stringify(toPages)).not.toContain(daemon.dataDir);

    // A reopened popup shows it, even from a background that was restarted meanwhile.
    app = newBackground();
    expect((await fromPopup<TabCrossSeeds>({ type: 'crossseed:get', tabId: 11 })).items).toEqual(answer.items);
  });

  it('takes nothing from the message but which candidate: another info-hash, a candidate not on the page, another tab do nothing', LIVE, async () => {
    const pair = cs.pairs[1]!;
    await openPage(12, 1);
    const before = cs.world.router.requests.length;
    const asks = [
      { tabId: 12, sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, infoHash: cs.differentFiles.torrent.hash },
      { tabId: 12, sid: CANDIDATE_SITE.sid, torrentId: cs.differentFiles.id, infoHash: cs.differentFiles.torrent.hash },
      { tabId: 99, sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, infoHash: pair.candidate.hash },
    ];
    for (const ask of asks) expect((await command({ type: 'crossseed:one', ...ask })).items).toEqual([]);
    // Nor a page hash as the candidate, nor a bad hash (refused by the message's schema: no answer at all).
    expect(routeMessage(app, { type: 'crossseed:one', tabId: 12, sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, infoHash: 'NOT-A-HASH' }, popup, extension)).toBeUndefined();
    expect(cs.world.router.requests.slice(before)).toEqual([]);
    expect(toPopup).toEqual([]);
  });

  it('two clicks while it runs (the popup twice, and the panel\'s confirmation) join one run: one download', LIVE, async () => {
    const pair = cs.pairs[2]!;
    await openPage(13, 2);
    const before = downloadsFrom(cs.candidate).length;
    const ask = { type: 'crossseed:one', tabId: 13, sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, infoHash: pair.candidate.hash };
    // The confirmation window is an extension page: its click is the popup's own message.
    const confirmation = { id: extension.id, url: `${extension.origin}confirm.html?tabId=13&sid=${CANDIDATE_SITE.sid}&torrentId=${pair.candidateId}` };
    const [first, second, confirmed] = await Promise.all([
      command(ask),
      command(ask),
      command(ask, confirmation),
    ]);
    expect(downloadsFrom(cs.candidate).slice(before)).toHaveLength(1);
    expect(first.items[0]!.result).toMatchObject({ kind: 'added' });
    expect(second.items).toEqual(first.items);
    expect(confirmed.items).toEqual(first.items);
  });
});

/** The extension's windows the background opened (the panel's confirmations), as the fake browser holds them. */
async function confirmationWindows(): Promise<{ id?: number; type?: string }[]> {
  return (await fakeBrowser.windows.getAll()).filter((window) => window.type === 'popup');
}

describe('"Cross-seed" from the panel (issue 15: only opens the confirmation)', () => {
  it('opens one confirmation window for a candidate the page shows, downloads and adds nothing, and answers the page nothing', LIVE, async () => {
    const pair = cs.pairs[0]!;
    await openPage(14, 0);
    const before = cs.world.router.requests.length;
    const opened: string[] = [];
    const create = fakeBrowser.windows.create.bind(fakeBrowser.windows);
    Object.assign(fakeBrowser.windows, {
      create: (data: { url?: string | string[] }) => {
        opened.push(String(data.url));
        return create(data as never);
      },
    });
    // A candidate the page does not show, or one of another tab's page: nothing opens.
    expect(await fromTab(14, 0, { type: 'page:cross-seed', sid: CANDIDATE_SITE.sid, torrentId: 424242 })).toBeUndefined();
    await openPage(15, 1);
    expect(await fromTab(15, 1, { type: 'page:cross-seed', sid: CANDIDATE_SITE.sid, torrentId: cs.differentFiles.id })).toBeUndefined();
    expect(opened).toEqual([]);

    // The candidate shown: its confirmation opens, naming the tab and the candidate; the page hears nothing back.
    expect(await fromTab(14, 0, { type: 'page:cross-seed', sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId })).toBeUndefined();
    expect(opened).toEqual([`${extension.origin}confirm.html?tabId=14&sid=${CANDIDATE_SITE.sid}&torrentId=${pair.candidateId}`]);
    // Clicked again (and on another candidate): no second window.
    await fromTab(14, 0, { type: 'page:cross-seed', sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId });
    await fromTab(14, 0, { type: 'page:cross-seed', sid: CANDIDATE_SITE.sid, torrentId: cs.differentFiles.id });
    expect(opened).toHaveLength(1);
    expect(await confirmationWindows()).toHaveLength(1);

    // Not a single request to any tracker, nothing in the client, no outcome recorded or told.
    expect(cs.world.router.requests.slice(before).filter((request) => request.host !== '2025.iyuu.cn')).toEqual([]);
    expect((await readBack.lookup([pair.candidate.hash])).size).toBe(0);
    expect((await fromPopup<TabCrossSeeds>({ type: 'crossseed:get', tabId: 14 })).items).toEqual([]);
    expect(toPages).toEqual([]);

    // The tab's page goes: so does its confirmation; a later click opens a new one.
    await app.crossSeeds.forget(14);
    expect(await confirmationWindows()).toEqual([]);
    await openPage(14, 0);
    await fromTab(14, 0, { type: 'page:cross-seed', sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId });
    expect(opened).toHaveLength(2);
    // The user closes it: the next click opens it again.
    await app.crossSeeds.confirmations.closed((await confirmationWindows())[0]!.id!);
    await fromTab(14, 0, { type: 'page:cross-seed', sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId });
    expect(opened).toHaveLength(3);
  });

  it('a page the tab no longer shows keeps none of the old outcomes', LIVE, async () => {
    await openPage(16, 0);
    await fromPopup({ type: 'crossseed:one', tabId: 16, sid: CANDIDATE_SITE.sid, torrentId: cs.differentFiles.id, infoHash: cs.differentFiles.torrent.hash });
    expect((await fromPopup<TabCrossSeeds>({ type: 'crossseed:get', tabId: 16 })).items).toHaveLength(1);
    // The candidate with other files: not added, and the tab's panel is told the first differences.
    expect(toPages.at(-1)).toEqual({
      tabId: 16,
      message: {
        type: 'crossseed:changed',
        outcomes: [
          {
            sid: CANDIDATE_SITE.sid,
            torrentId: cs.differentFiles.id,
            running: false,
            ok: false,
            lines: [
              "The files differ from this page's torrent: not added.",
              `${cs.pairs[0]!.name}/01 - Opening.flac — 180,000 bytes in this page's torrent, 180,001 bytes in the candidate`,
              `${cs.pairs[0]!.name}/extra.nfo — not in this page's torrent`,
              `${cs.pairs[0]!.name}/Scans/cover.jpg — only in this page's torrent`,
            ],
          } satisfies PageCrossSeed,
        ],
      },
    });
    await openPage(16, 1);
    expect((await fromPopup<TabCrossSeeds>({ type: 'crossseed:get', tabId: 16 })).items).toEqual([]);
  });
});

describe('"Cross-seed all"', () => {
  it("takes every candidate on the user's sites and no other, one download at a time from a site (≥ 1 s apart), with progress; the index notes the add at once", LIVE, async () => {
    const pair = cs.pairs[0]!;
    await indexOn();
    const rowId = String(pair.candidateId);
    expect(await listPage(24, 0)).toMatchObject({ state: 'answered', canCrossSeed: [{ id: rowId }], inClient: [] });
    await openPage(21, 0);
    const before = { candidate: downloadsFrom(cs.candidate).length, other: cs.other!.tracker.downloads.length };
    const answer = await command({ type: 'crossseed:all', tabId: 21 });
    // The index noted the add at once, as a single cross-seed's: the list row reads "in your client" before any sync.
    expect(await listPage(24, 0)).toMatchObject({ state: 'answered', canCrossSeed: [], inClient: [{ id: rowId }] });

    expect(answer.all).toEqual({ state: 'done', total: 2, done: 2, added: 1, sitesChosen: true, notYourSites: 1, alreadyInClient: 0, overLimit: 0, limit: 20 });
    const byId = new Map(answer.items.map((item) => [item.torrentId, item.result?.kind]));
    expect(byId).toEqual(new Map([[pair.candidateId, 'added'], [cs.differentFiles.id, 'files-differ']]));
    // SpringSunday is not one of the user's sites: nothing was asked of it.
    expect(cs.other!.tracker.downloads.length).toBe(before.other);
    expect((await readBack.lookup([cs.other!.torrent.hash])).size).toBe(0);
    expect(await untilSeeding(readBack, pair.candidate.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });

    const downloads = downloadsFrom(cs.candidate).slice(before.candidate);
    expect(downloads.map((download) => download.id).sort()).toEqual([pair.candidateId, cs.differentFiles.id].sort());
    // Measured where the tracker sees them (the pace counts from the end of one request; allow the timer's rounding).
    expect(downloads[1]!.at - downloads[0]!.at).toBeGreaterThanOrEqual(SITE_GAP_MS - 5);

    // The popup saw it go: planned, then one more each time.
    const progress = toPopup.map((message) => message.crossSeeds.all).filter((all) => all !== undefined);
    expect(progress.map((all) => `${all.state} ${all.done}/${all.total ?? '?'}`)).toEqual(['running 0/?', 'running 0/2', 'running 1/2', 'running 2/2', 'done 2/2']);

    // Again: nothing left to do, nothing downloaded.
    const again = await command({ type: 'crossseed:all', tabId: 21 });
    expect(again.all).toMatchObject({ state: 'done', total: 1, done: 1, added: 0 });
    expect(again.items.find((item) => item.torrentId === cs.differentFiles.id)?.result?.kind).toBe('files-differ');
    expect(downloadsFrom(cs.candidate).length - before.candidate).toBe(3);
  });

  it('crossing the site\'s "Downloads per day" in the middle of the run: the rest of that site is "daily-cap", not asked for (not "site unreachable")', LIVE, async () => {
    const pair = cs.pairs[0]!;
    // The candidate the test above added goes out of the client again (its files stay): the page has two candidates on the site again.
    await readBack.remove(pair.candidate.hash);
    for (let left = 50; (await readBack.lookup([pair.candidate.hash])).size && left; left--) await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await readBack.lookup([pair.candidate.hash])).size).toBe(0);
    // One download a day on the candidate's site, none used yet: the first candidate takes it.
    await app.crossSeeds.budget.setPace(CANDIDATE_SITE.sid, { secondsBetween: 0, perDay: 1 });
    await openPage(23, 0);
    const before = downloadsFrom(cs.candidate).length;
    const answer = await command({ type: 'crossseed:all', tabId: 23 });

    expect(answer.all).toMatchObject({ state: 'done', total: 2, done: 2 });
    expect(answer.all?.stopped).toBeUndefined();
    const kinds = answer.items.map((item) => item.result?.kind);
    expect(kinds).toHaveLength(2);
    expect(kinds.filter((kind) => kind === 'daily-cap')).toHaveLength(1);
    expect(kinds).not.toContain('site-unreachable');
    const capped = answer.items.find((item) => item.result?.kind === 'daily-cap')!;
    expect(capped.result).toEqual({ kind: 'daily-cap', perDay: 1 });
    // The tracker saw one download: the first candidate's, never the capped one's.
    expect(downloadsFrom(cs.candidate).slice(before).map((download) => download.id)).toEqual(answer.items.filter((item) => item !== capped).map((item) => item.torrentId));
    expect(await app.crossSeeds.budget.usedToday(CANDIDATE_SITE.sid)).toBe(1);
    // The panel tells it in words: the daily cap, not a site that did not answer.
    const told = toPages.at(-1)!.message.outcomes.find((outcome) => outcome.torrentId === capped.torrentId)!;
    expect(told.lines).toEqual([`Not downloaded: 1 downloads from ${capped.siteName} in the last 24 hours is its "Downloads per day". It goes on tomorrow.`]);
  });

  it('before the user chose their sites, tries nothing and says so', LIVE, async () => {
    await fromPopup({ type: 'settings:save', update: { heldSites: null } });
    await openPage(22, 0);
    const before = cs.world.router.requests.length;
    const answer = await command({ type: 'crossseed:all', tabId: 22 });
    expect(answer.all).toMatchObject({ state: 'done', sitesChosen: false, done: 0 });
    expect(cs.world.router.requests.slice(before).filter((request) => request.host !== '2025.iyuu.cn')).toEqual([]);
  });
});

describe('no cross-seed without a click', () => {
  it('opening pages, asking for the state and the client status download nothing', LIVE, async () => {
    const before = cs.world.router.requests.length;
    await openPage(31, 0);
    await fromPopup({ type: 'crossseed:get', tabId: 31 });
    await fromPopup({ type: 'client:status', tabId: 31 });
    const trackerHosts: string[] = [CANDIDATE_SITE.host, PAGE_SITE.host, OTHER_SITE.host];
    const trackers = cs.world.router.requests.slice(before).filter((request) => trackerHosts.includes(request.host));
    expect(trackers).toEqual([]);
  });
});

describe('"Cross-seed" on a list row (the index) goes the popup\'s one way', () => {
  it('two clicks on the row and one on its details page at once join one run: one download, with the site fetch every cross-seed uses; the list page hears nothing', LIVE, async () => {
    const pair = cs.pairs[3]!;
    await indexOn();
    // The candidate's site's list page, its row the pair's candidate.
    const rowId = String(pair.candidateId);
    expect(await listPage(41, 3)).toMatchObject({ state: 'answered', canCrossSeed: [{ id: rowId }], inClient: [] });
    await openPage(42, 3);

    const before = downloadsFrom(cs.candidate).length;
    const row = { type: 'index:cross-seed', tabId: 41, rowId };
    const [first, second, details] = await Promise.all([
      fromPopup<IndexCrossSeedAnswer>(row),
      fromPopup<IndexCrossSeedAnswer>(row),
      command({ type: 'crossseed:one', tabId: 42, sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, infoHash: pair.candidate.hash }),
    ]);
    // One .torrent, and served: fetched with the user's session (the background's siteFetch, the cookie jar), which no other fetch here has.
    expect(downloadsFrom(cs.candidate).slice(before)).toEqual([expect.objectContaining({ id: pair.candidateId, served: true })]);
    expect(first.result).toMatchObject({ kind: 'added', hash: pair.candidate.hash, savePath: daemon.dataDir });
    expect(second.result).toEqual(first.result);
    expect(details.items).toEqual([expect.objectContaining({ sid: CANDIDATE_SITE.sid, torrentId: pair.candidateId, forHash: pair.source.hash, state: 'done', result: first.result })]);
    // The answers as before: the site's name, and the row in the client now.
    expect(first.siteName).toBe(second.siteName);
    for (const answer of [first, second]) expect(answer.page).toMatchObject({ state: 'answered', canCrossSeed: [], inClient: [{ id: rowId }] });
    expect(await untilSeeding(readBack, pair.candidate.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    // The details page's panel heard its outcome; the list page heard nothing, and its tab keeps no record.
    expect(toPages.some(({ tabId }) => tabId === 42)).toBe(true);
    expect(toPages.filter(({ tabId }) => tabId === 41)).toEqual([]);
    expect((await fromPopup<TabCrossSeeds>({ type: 'crossseed:get', tabId: 41 })).items).toEqual([]);
  });
});
