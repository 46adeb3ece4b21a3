/**
 * The second source (issue 18) in the real background, in Node, for qBittorrent 4.5.2 (bookworm) and
 * 5.3 (today's): the client seeds four contents; catalogued NexusPHP sites on the e2e router each
 * serve their pieces-hash API as NexusPHP does (pieces-hash-world.ts), with a tracker behind it for
 * the job's downloads. One user's story in steps over the same storage:
 *
 * (a) no IYUU token: a sync reads each torrent's pieces hash once and asks each site switched on
 *     (one on its definition's moved path); every copy lands in the index, the popup's candidates
 *     (never the page's), the list rows; the service hears nothing;
 * (b) the whole-client job adds every copy at 100 % beside its source, the re-upload with a renamed
 *     file renamed in the client to the name on disk (issue 25), nothing else is added; the next
 *     sync reads the new torrents, asks nothing;
 * (c) with a token the service's answers merge: a copy both found is one place, found by both;
 * (f) a new client torrent: one request to each site; answers younger than a week are not asked again;
 * (d) a wrong passkey, a site without the API, a site capping batches and rate-limiting (waited
 *     out), a site whose minute is spent (given up): each in the run's view, the next site still asked;
 * (e) none of the passkeys (though the sites' 401/429 bodies echo them) is in storage, a message to
 *     a page or tab, the console, or any view.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { TorrentClient } from '../../../../utils/clients/client-types';
import type { ClientsAnswer } from '../../../../features/clients/clients.messages';
import { clientIdentity } from '../../../../features/clients/client-identity';
import type { IndexPageAnswer, IndexRunView, IndexStatusView } from '../../../../features/client-index/client-index.messages';
import type { JobPreview, JobView } from '../../../../features/cross-seed-job/cross-seed-job.messages';
import type { TabView } from '../../../../features/lookup/lookup.messages';
import { pageView } from '../../../../features/lookup/panel-view';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { DATABASE_NAME } from '../../../../utils/client-index/store';
import { DEFAULT_PIECES_HASH_PACE_MS } from '../../../../utils/pieces-hash/ask-site';
import { clientBuilds, startQbittorrent, type RunningDaemon } from '../../../clients/daemons';
import { ownClient } from '../../../clients/own-client';
import { untilSeeding } from '../../../clients/seeding';
import { proxiedFetch } from '../../../clients/proxy-fetch';
import { SERVICE_BASE_URL } from '../../../e2e/world';
import { DEMO_TOKEN } from '../../../service/server';
import { extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { installI18n } from '../../support/i18n';
import { installPermissions } from '../../support/permissions';
import { inTakeOrder } from '../cross-seed-job/job-setup';
import { SITES, SOURCE_SITE, startPiecesWorld, type NexusSite, type PiecesWorld } from './pieces-hash-world';

const LIVE = { timeout: 180_000 };
/** The pace between two requests to one site in these tests (the product's is 2 s). */
const PACE_MS = 60;
const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
const extensionPage = { id: extension.id, url: `${extension.origin}options.html` };

const builds = clientBuilds({ kind: 'qbittorrent' }).filter((build) => build.release === '4.5' || build.release === '5.3');

describe('the default pace', () => {
  it('is 2 s a site when the background is given none', () => {
    expect(DEFAULT_PIECES_HASH_PACE_MS).toBe(2_000);
    const app = new BackgroundApp({ retryDelaysMs: [] });
    expect((app.piecesHash as unknown as { options: { paceMs?: number } }).options.paceMs).toBeUndefined();
  });
});

describe.each(builds.map((build) => [build.label, build] as const))('%s: copies found by pieces hash', (_, build) => {
  let daemon: RunningDaemon;
  let pw: PiecesWorld;
  let readBack: TorrentClient;
  let app: BackgroundApp;
  /** A passkey the user typed for tjupt that is not theirs there. */
  const wrongPasskey = randomBytes(16).toString('hex');
  /** Everything the background announced to the extension's pages, and sent to tabs. */
  const toPages: unknown[] = [];
  const toTabs: { tabId: number; message: unknown }[] = [];
  const consoleOutput: unknown[][] = [];
  /** The IndexedDB the background's index opened (the unit set-up gives each test a new, empty one). */
  let indexedDbOfTheApp: IDBFactory;
  /**
   * ssd's clock (its rate limit's minute): real for its first three requests; its fourth comes (as far as
   * it can tell) 59.5 s after the first, so the limit of 3 a minute answers 429 with Retry-After 1; from
   * the fifth on, the minute is over. Set per request by the host's handler: no real time decides it.
   */
  let ssdClock: (() => number) | undefined;
  /** chdbits's clock: frozen near the end of a minute spent elsewhere. */
  let chdbitsFrozenAt: number | undefined;

  const fromPage = <T>(message: Record<string, unknown>) => routeMessage(app, message, extensionPage, extension) as Promise<T>;
  const status = () => fromPage<IndexStatusView>({ type: 'index:status' });
  const sync = async (): Promise<IndexRunView> => {
    await fromPage({ type: 'index:sync' });
    await app.index.run('sync');
    const last = (await status()).lastSync;
    if (!last) throw new Error('no sync recorded');
    return last;
  };
  const site = (key: keyof typeof SITES): NexusSite => pw.sites[key];
  const copy = (index: number, key: keyof typeof SITES) => pw.contents[index]!.copies[key]!;
  const trackerTab = (tabId: number, url: string) => ({ id: extension.id, url, frameId: 0, tab: { id: tabId } as never });

  /** A details page of a source on its site, read by the content script; then the popup's view of the tab. */
  async function detailsOf(tabId: number, index: number): Promise<TabView> {
    const content = pw.contents[index]!;
    const url = `https://${SOURCE_SITE.host}/details.php?id=${content.sourceId}`;
    await routeMessage(app, { type: 'page:reading', url, reading: { engine: 'nexusphp', kind: 'details', hashes: [{ hash: content.source.hash, source: 'info-row' }] } }, trackerTab(tabId, url), extension);
    return fromPage<TabView>({ type: 'view:get', tabId });
  }

  /** A list page of `host` with these torrent ids (no hashes, as most lists), then what the index says of it. */
  async function listOf(tabId: number, host: string, ids: number[]): Promise<IndexPageAnswer> {
    const url = `https://${host}/torrents.php?page=1`;
    const reading = { engine: 'nexusphp', kind: 'list', hashes: [], problem: 'site-gives-no-hash', rows: ids.map((id) => ({ id: String(id), title: `Torrent ${id}` })) };
    await routeMessage(app, { type: 'page:reading', url, reading }, trackerTab(tabId, url), extension);
    await app.index.idle();
    return fromPage<IndexPageAnswer>({ type: 'index:page', tabId });
  }

  /** The index's own judgement of a site's rows (the feature's model; the page answer shows no foundBy). */
  async function query(sid: number, ids: number[]) {
    const index = await app.index.indexes.open(clientIdentity(daemon.config));
    return Object.fromEntries(index!.query(sid, ids));
  }

  beforeAll(async () => {
    daemon = await startQbittorrent({ build });
    pw = await startPiecesWorld({
      api: {
        nanyangpt: { withoutApi: 'home-page' },
        ssd: { maxHashes: 2, perMinute: 3, now: () => (ssdClock ?? Date.now)() },
        chdbits: { perMinute: 1, now: () => chdbitsFrozenAt ?? Date.now() },
      },
    });
    const ssd = pw.sites.ssd;
    let fourthAt = 0;
    pw.world.router.setHost(ssd.host, (req, res, recorded) => {
      if (recorded.method === 'POST' && new URL(recorded.path, `https://${ssd.host}`).pathname === ssd.api.path) {
        const before = ssd.api.requests.length;
        const first = ssd.api.requests[0]?.at ?? 0;
        if (before === 3) {
          fourthAt = Date.now();
          ssdClock = () => first + 59_500;
        } else if (before > 3) ssdClock = () => first + 61_000 + (Date.now() - fourthAt);
      }
      ssd.handle(req, res, recorded);
    });
    readBack = ownClient(daemon);
    for (let index = 0; index < 4; index++) await pw.seed(readBack, daemon.dataDir, index);
    const siteFetch = pw.siteFetch();
    for (const key of ['ourbits', 'hhanclub'] as const) await pw.logIn(siteFetch, site(key));

    fakeBrowser.reset();
    installI18n('en');
    installPermissions();
    installSessionRules();
    // What the background logs is kept for (e); SHOW_CONSOLE=1 prints it too.
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const original = console[method].bind(console);
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        consoleOutput.push(args);
        if (process.env.SHOW_CONSOLE) original(...args);
      });
    }
    (fakeBrowser.tabs as unknown as { sendMessage: unknown }).sendMessage = async (tabId: number, message: unknown) => {
      toTabs.push({ tabId, message });
    };
    fakeBrowser.runtime.onMessage.addListener((message: unknown) => {
      toPages.push(message);
      return undefined;
    });
    await fakeBrowser.storage.local.set({
      [SETTINGS_KEY]: {
        version: 1,
        baseUrl: SERVICE_BASE_URL,
        token: '',
        heldSites: [SOURCE_SITE.sid, SITES.ourbits.sid, SITES.ssd.sid, SITES.hhanclub.sid],
        askedForSites: true,
        sitePasskeys: {
          [SITES.tjupt.sid]: wrongPasskey,
          [SITES.ourbits.sid]: site('ourbits').passkey,
          [SITES.nanyangpt.sid]: site('nanyangpt').passkey,
          [SITES.ssd.sid]: site('ssd').passkey,
          [SITES.chdbits.sid]: site('chdbits').passkey,
          [SITES.hhanclub.sid]: site('hhanclub').passkey,
        },
        // hhanclub's API is where its definition moves it: no path of the user's.
        piecesHashSites: { [SITES.ourbits.sid]: { on: true }, [SITES.hhanclub.sid]: { on: true } },
      },
    });
    app = new BackgroundApp({
      fetch: proxiedFetch(pw.world.router.port),
      clientFetch: extensionClientFetch(),
      siteFetch,
      retryDelaysMs: [],
      minIntervalMs: 0,
      indexPauseMs: 0,
      piecesPaceMs: PACE_MS,
    });
    const saved = await fromPage<ClientsAnswer>({ type: 'clients:save', client: daemon.config });
    expect(saved.clients).toHaveLength(1);
  }, 180_000);

  afterAll(async () => {
    vi.restoreAllMocks();
    app?.crossSeedJob.halt();
    await pw?.close();
    await daemon?.stop();
  }, 60_000);

  it('(a) no token: one sync finds every copy by pieces hash, each site on its own path; the service hears nothing', LIVE, async () => {
    indexedDbOfTheApp = globalThis.indexedDB;
    await fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
    const run = await sync();
    expect(run).toMatchObject({ job: 'sync', outcome: 'done', torrents: 4, asked: 0, requests: 0 });
    expect(run.pieces).toEqual({
      read: 4,
      skipped: 0,
      sites: [
        { sid: SITES.ourbits.sid, siteName: expect.any(String), outcome: 'done', asked: 4, requests: 1, found: 3 },
        { sid: SITES.hhanclub.sid, siteName: expect.any(String), outcome: 'done', asked: 4, requests: 1, found: 2 },
      ],
    });
    expect(pw.world.service.requests).toEqual([]);
    // Each asked once, on its own path, by passkey and JSON (no cookie).
    expect(site('ourbits').api.requests).toEqual([expect.objectContaining({ status: 200, asked: 4, cookie: undefined })]);
    expect(site('hhanclub').api.requests).toEqual([expect.objectContaining({ status: 200, asked: 4 })]);
    expect(pw.world.router.requestsTo(SITES.hhanclub.host).map((request) => request.path)).toContain('/nexusapi/pieces-hash');

    const view = await status();
    expect(view.problem).toBeUndefined();
    expect(view.pieces).toEqual({ sites: [SITES.ourbits.sid, SITES.hhanclub.sid] });
    // The client (each client, in its own row) says whether it gives pieces hashes.
    expect(view.clients?.map((one) => one.pieces)).toEqual(['supported']);
    // ourbits 2001–2003, hhanclub 7004 and the renamed re-upload (only its .torrent can tell).
    expect(view.counts).toMatchObject({ torrents: 4, canCrossSeed: 5, inClient: 0 });

    // ourbits's list page: its three copies can be cross-seeded, found by pieces hash (no info-hash known).
    const list = await listOf(31, SITES.ourbits.host, [2001, 2002, 2003, 2099]);
    expect(list.state === 'answered' && list.canCrossSeed.map((row) => row.id)).toEqual(['2001', '2002', '2003']);
    const rows = await query(SITES.ourbits.sid, [2001, 2002, 2003, 2099]);
    expect(Object.keys(rows)).toEqual(['2001', '2002', '2003']);
    for (const [id, index] of [['2001', 0], ['2002', 1], ['2003', 2]] as const) {
      expect(rows[id]).toMatchObject({ kind: 'can-cross-seed', candidateHash: '', foundBy: 'pieces', clientTorrent: { hash: pw.contents[index]!.source.hash } });
      expect(rows[id]!.candidatePieces).toMatch(/^[0-9a-f]{40}$/);
    }

    // The popup on content 0's details page: the copy and the re-upload; the page itself: none of them.
    const popup = await detailsOf(21, 0);
    expect(popup.status).toBe('done');
    expect(popup.candidates.map(({ sid, torrentId, infoHash, foundBy }) => ({ sid, torrentId, infoHash, foundBy })).sort((a, b) => a.torrentId - b.torrentId)).toEqual([
      { sid: SITES.ourbits.sid, torrentId: 2001, infoHash: '', foundBy: 'pieces' },
      { sid: SITES.hhanclub.sid, torrentId: 7900, infoHash: '', foundBy: 'pieces' },
    ]);
    expect(new Set(popup.candidates.map((candidate) => candidate.piecesHash)).size).toBe(1);
    const page = pageView(popup);
    expect(page).toMatchObject({ status: 'no-credentials', candidates: [] });
    const toTab21 = toTabs.filter((sent) => sent.tabId === 21).map((sent) => sent.message as { type: string; view?: { candidates: unknown[]; status: string } });
    expect(toTab21.length).toBeGreaterThan(0);
    for (const message of toTab21) expect(message.view?.candidates ?? []).toEqual([]);
    expect(JSON.stringify(toTabs)).not.toContain('"foundBy"');
    // Content 3's: the copy on the site of the moved path.
    expect((await detailsOf(22, 3)).candidates).toEqual([expect.objectContaining({ sid: SITES.hhanclub.sid, torrentId: 7004, infoHash: '', foundBy: 'pieces' })]);
    expect(pw.world.service.requests).toEqual([]);
  });

  it('(f) a second sync reads no pieces hash and asks no site: every answer is younger than a week', LIVE, async () => {
    const before = { ourbits: site('ourbits').api.requests.length, hhanclub: site('hhanclub').api.requests.length };
    const run = await sync();
    expect(run.pieces).toEqual({
      read: 0,
      skipped: 0,
      sites: [expect.objectContaining({ sid: SITES.ourbits.sid, outcome: 'done', requests: 0, asked: 0 }), expect.objectContaining({ sid: SITES.hhanclub.sid, outcome: 'done', requests: 0, asked: 0 })],
    });
    expect(site('ourbits').api.requests.length).toBe(before.ourbits);
    expect(site('hhanclub').api.requests.length).toBe(before.hhanclub);
  });

  it('(b) with no token the whole-client job adds every copy at 100 % beside its source, the renamed re-upload under the names on disk; nothing else is added', LIVE, async () => {
    for (const sid of [SITES.ourbits.sid, SITES.hhanclub.sid]) await fromPage({ type: 'job:site-pace', sid, secondsBetween: 0, perDay: 100 });
    const preview = await fromPage<JobPreview>({ type: 'job:preview' });
    expect(preview.problem).toBeUndefined();
    const of = (sid: number) => preview.sites.find((entry) => entry.sid === sid);
    expect(of(SITES.ourbits.sid)).toMatchObject({ count: 3, decided: 0, readiness: { state: 'ready' } });
    expect(of(SITES.hhanclub.sid)).toMatchObject({ count: 2, decided: 0, readiness: { state: 'ready' } });
    const listed = await fromPage<{ torrents: { torrentId: number; infoHash: string; foundBy?: string }[] }>({ type: 'job:site-torrents', sid: SITES.ourbits.sid, offset: 0, limit: 100 });
    expect(listed.torrents.map(({ torrentId, infoHash, foundBy }) => ({ torrentId, infoHash, foundBy }))).toEqual([2001, 2002, 2003].map((torrentId) => ({ torrentId, infoHash: '', foundBy: 'pieces' })));

    expect(await fromPage({ type: 'job:start', sids: [SITES.ourbits.sid, SITES.hhanclub.sid] })).toBeUndefined();
    await app.crossSeedJob.settled();
    const job = await fromPage<JobView>({ type: 'job:status' });
    expect(job.state).toBe('done');
    expect(inTakeOrder(job.outcomes)).toEqual([
      [2001, 'added'],
      [2002, 'added'],
      [2003, 'added'],
      [7004, 'added'],
      [7900, 'added'],
    ]);
    // The re-upload: the same bytes, one file under another name, renamed in the client to the name on disk.
    const reupload = job.outcomes.find((outcome) => outcome.torrentId === pw.renamed.id)!.result as { kind: string; renamed?: { from: string; to: string }[] };
    const content0 = pw.contents[0]!;
    expect(reupload).toMatchObject({ kind: 'added', hash: pw.renamed.torrent.hash, savePath: daemon.dataDir, progress: 1 });
    expect(reupload.renamed?.filter((file) => file.from !== file.to)).toEqual([{ from: `${content0.name}/Scans/front.jpg`, to: `${content0.name}/${content0.files[2]!.path}`, size: content0.files[2]!.size }]);
    expect((await readBack.files(pw.renamed.torrent.hash)).map((file) => file.path)).toEqual(content0.files.map((file) => `${content0.name}/${file.path}`));
    expect((await readBack.files(content0.source.hash)).map((file) => file.path)).toEqual(content0.files.map((file) => `${content0.name}/${file.path}`));
    const added = [copy(0, 'ourbits'), copy(1, 'ourbits'), copy(2, 'ourbits'), copy(3, 'hhanclub'), { id: pw.renamed.id, torrent: pw.renamed.torrent }];
    for (const one of added) {
      // Its info-hash learnt from its .torrent: the one the client added it under.
      expect(job.outcomes.find((outcome) => outcome.torrentId === one.id)).toMatchObject({
        foundBy: 'pieces',
        result: { kind: 'added', hash: one.torrent.hash, savePath: daemon.dataDir, progress: 1 },
      });
      expect(await untilSeeding(readBack, one.torrent.hash)).toMatchObject({ savePath: daemon.dataDir, progress: 1 });
    }
    // Downloaded once each, with the passkey (no session needed).
    const downloads = (key: 'ourbits' | 'hhanclub') => site(key).tracker.downloads.filter((download) => download.served).map((download) => download.id);
    expect(downloads('ourbits')).toEqual([2001, 2002, 2003]);
    expect(downloads('hhanclub').sort()).toEqual([7004, 7900]);
    const inClient = (await readBack.list()).map((torrent) => torrent.hash).sort();
    expect(inClient).toEqual([...pw.contents.slice(0, 4).map((content) => content.source.hash), ...added.map((one) => one.torrent.hash)].sort());

    // The next sync reads the five new torrents' pieces hashes; their content was answered: no site is asked.
    const before = site('ourbits').api.requests.length + site('hhanclub').api.requests.length;
    const run = await sync();
    expect(run.pieces).toMatchObject({ read: 5, skipped: 0, sites: [{ requests: 0 }, { requests: 0 }] });
    expect(site('ourbits').api.requests.length + site('hhanclub').api.requests.length).toBe(before);
    expect((await status()).counts).toMatchObject({ torrents: 9 });
    // Every place the job filled is the client's now: the index noted each add at its place (its info-hash learnt
    // from the .torrent), though these copies announce on loopback (no tracker host to tell their site by).
    const tab = await listOf(32, SITES.ourbits.host, [2001, 2002, 2003]);
    expect(tab.state === 'answered' && { can: tab.canCrossSeed.map((row) => row.id), held: tab.inClient.map((row) => row.id) }).toEqual({ can: [], held: ['2001', '2002', '2003'] });
    const held = await query(SITES.hhanclub.sid, [7004]);
    expect(held['7004']).toMatchObject({ kind: 'in-client', candidateHash: copy(3, 'hhanclub').torrent.hash });
    // A row's "Cross-seed" on one of them downloads nothing and adds nothing: the index answers it.
    const served = site('ourbits').tracker.downloads.length;
    const again = await fromPage<{ result: { kind: string; hash?: string } }>({ type: 'index:cross-seed', tabId: 32, rowId: '2003' });
    expect(again.result).toMatchObject({ kind: 'already-in-client', hash: copy(2, 'ourbits').torrent.hash });
    expect(site('ourbits').tracker.downloads.length).toBe(served);
    expect((await readBack.list()).length).toBe(9);
  });

  it('(c) with a token the service\'s answers merge: a copy found both ways is one place, found by both', LIVE, async () => {
    await fromPage({ type: 'settings:save', update: { token: DEMO_TOKEN } });
    const placesBefore = (await status()).counts!.places;
    const run = await sync();
    expect(run).toMatchObject({ outcome: 'done', asked: 9 });
    expect(pw.world.service.requests.length).toBeGreaterThan(0);
    const counts = (await status()).counts!;
    // The service names hdsky's sources 1001 and 1002 (asked their copies' hashes) and the copies it knows,
    // which the sites had found already: two new places, none twice.
    expect(counts.places).toBe(placesBefore + 2);

    for (const [index, foundBy] of [[0, 'both'], [1, 'both'], [2, 'pieces']] as const) {
      const popup = await detailsOf(40 + index, index);
      const ours = popup.candidates.filter((candidate) => candidate.sid === SITES.ourbits.sid);
      expect(ours).toEqual([expect.objectContaining({ torrentId: copy(index, 'ourbits').id, foundBy })]);
      // Found by the service: its info-hash known; by pieces hash only: its info-hash is the client's copy (added in b).
      expect(ours[0]!.infoHash === '' || ours[0]!.infoHash === copy(index, 'ourbits').torrent.hash).toBe(true);
      if (foundBy === 'both') expect(ours[0]!.infoHash).toBe(copy(index, 'ourbits').torrent.hash);
      const places = popup.candidates.map((candidate) => `${candidate.sid}/${candidate.torrentId}`);
      expect(new Set(places).size).toBe(places.length);
      // The page is told what the service named, and only that.
      expect(pageView(popup).candidates.map((candidate) => candidate.torrentId)).toEqual(foundBy === 'both' ? [copy(index, 'ourbits').id] : []);
    }
    const rows = await query(SITES.ourbits.sid, [2001, 2002, 2003]);
    expect(Object.fromEntries(Object.entries(rows).map(([id, row]) => [id, [row.kind, row.foundBy]]))).toEqual({
      '2001': ['in-client', 'both'],
      '2002': ['in-client', 'both'],
      // Found by pieces hash only, in the client since (b)'s job.
      '2003': ['in-client', 'pieces'],
    });
  });

  it('(f) a new torrent in the client: one request to each site, for its pieces hash only', LIVE, async () => {
    await pw.seed(readBack, daemon.dataDir, 4);
    const before = { ourbits: site('ourbits').api.requests.length, hhanclub: site('hhanclub').api.requests.length };
    const run = await sync();
    expect(run.pieces).toEqual({
      read: 1,
      skipped: 0,
      sites: [
        expect.objectContaining({ sid: SITES.ourbits.sid, outcome: 'done', requests: 1, asked: 1, found: 1 }),
        expect.objectContaining({ sid: SITES.hhanclub.sid, outcome: 'done', requests: 1, asked: 1, found: 0 }),
      ],
    });
    expect(site('ourbits').api.requests.slice(before.ourbits)).toEqual([expect.objectContaining({ status: 200, asked: 1 })]);
    expect(site('hhanclub').api.requests.slice(before.hhanclub)).toEqual([expect.objectContaining({ status: 200, asked: 1 })]);
    expect(Object.keys(await query(SITES.ourbits.sid, [2005]))).toEqual(['2005']);
    // Each site was asked at least the pace apart (its own log), across syncs too.
    for (const key of ['ourbits', 'hhanclub'] as const) {
      const at = site(key).api.requests.map((request) => request.at);
      for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(PACE_MS);
    }
  });

  it('(d) a wrong passkey, a site without the API, a capped and rate-limited site, a spent minute: each said in the run, the next site still asked', LIVE, async () => {
    // Someone else used chdbits's passkey this minute (its limit: 1 a minute); its clock then stays 0.5 s before the minute ends.
    const spent = await proxiedFetch(pw.world.router.port)(site('chdbits').api.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ passkey: site('chdbits').passkey, pieces_hash: [] }),
    });
    expect(spent.status).toBe(200);
    chdbitsFrozenAt = site('chdbits').api.requests[0]!.at + 59_500;
    // The sites' error bodies carry the passkey sent (what makes the checks of (e) worth making).
    const refused = await proxiedFetch(pw.world.router.port)(site('tjupt').api.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ passkey: wrongPasskey, pieces_hash: [] }),
    });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain(wrongPasskey);
    site('tjupt').api.requests.length = 0;

    const on = { on: true };
    await fromPage({
      type: 'settings:save',
      update: { piecesHashSites: Object.fromEntries(Object.values(SITES).map((one) => [one.sid, on])) },
    });
    const run = await sync();
    expect(run.outcome).toBe('done');
    const sites = run.pieces!.sites;
    expect(sites.map((one) => one.sid)).toEqual([5, 9, 15, 23, 25, 72]);
    const of = (sid: number) => sites.find((one) => one.sid === sid);
    expect(of(SITES.tjupt.sid)).toMatchObject({ outcome: 'wrong-passkey', requests: 1, asked: 0, found: 0 });
    expect(of(SITES.ourbits.sid)).toMatchObject({ outcome: 'done', requests: 0 });
    expect(of(SITES.nanyangpt.sid)).toMatchObject({ outcome: 'no-api', requests: 1, asked: 0 });
    // 5 pieces hashes: 5 at once (too many: ret -1), then 2 + 2, then 1 (429, Retry-After 1: waited out), then 1.
    expect(of(SITES.ssd.sid)).toMatchObject({ outcome: 'done', requests: 5, asked: 5, found: 1 });
    expect(site('ssd').api.requests.map((request) => [request.asked, request.status])).toEqual([[5, 200], [2, 200], [2, 200], [1, 429], [1, 200]]);
    expect(of(SITES.chdbits.sid)).toMatchObject({ outcome: 'rate-limited', requests: 3, asked: 0, found: 0, retryAfterSeconds: 1 });
    expect(site('chdbits').api.requests.slice(1).map((request) => request.status)).toEqual([429, 429, 429]);
    expect(of(SITES.hhanclub.sid)).toMatchObject({ outcome: 'done', requests: 0 });
    expect(site('tjupt').api.requests.map((request) => request.status)).toEqual([401]);
    // ssd's copy of content 2 is a place now.
    expect(Object.keys(await query(SITES.ssd.sid, [2302]))).toEqual(['2302']);
    // Asked at least the pace apart on ssd (by its clock, which only moves forwards).
    const at = site('ssd').api.requests.map((request) => request.at);
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(PACE_MS);
    expect((await status()).lastSync?.pieces?.sites.map((one) => one.outcome)).toEqual(['wrong-passkey', 'done', 'no-api', 'done', 'rate-limited', 'done']);
  });

  it('(e) no passkey anywhere: storage, messages to pages and tabs, the console, the views', LIVE, async () => {
    const secrets = [wrongPasskey, ...Object.values(pw.sites).map((one) => one.passkey)];
    const leaks = (what: string, text: string) => secrets.filter((secret) => text.includes(secret)).map((secret) => `${what}: ${secret.slice(0, 6)}…`);
    const found: string[] = [];

    const local = await fakeBrowser.storage.local.get(null);
    const settings = { ...(local[SETTINGS_KEY] as Record<string, unknown>) };
    // The one place a passkey belongs: the user's own settings.
    const typed = [wrongPasskey, ...(['ourbits', 'nanyangpt', 'ssd', 'chdbits', 'hhanclub'] as const).map((key) => site(key).passkey)];
    expect(Object.values(settings.sitePasskeys as Record<string, string>).sort()).toEqual(typed.sort());
    delete settings.sitePasskeys;
    found.push(...leaks('storage.local', JSON.stringify({ ...local, [SETTINGS_KEY]: settings })));
    found.push(...leaks('storage.session', JSON.stringify(await fakeBrowser.storage.session.get(null))));
    const indexed = await dumpIndexedDb(indexedDbOfTheApp);
    // The index is there to search (its torrents' names are plain text in it).
    expect(indexed).toContain(pw.contents[0]!.name);
    found.push(...leaks('indexedDB', indexed));
    found.push(...leaks('to pages', JSON.stringify(toPages)));
    found.push(...leaks('to tabs', JSON.stringify(toTabs)));
    found.push(...leaks('console', consoleOutput.map((args) => args.map((arg) => (arg instanceof Error ? `${arg.message} ${arg.stack}` : JSON.stringify(arg) ?? String(arg))).join(' ')).join('\n')));
    found.push(...leaks('index:status', JSON.stringify(await status())));
    found.push(...leaks('job', JSON.stringify([await fromPage({ type: 'job:status' }), await fromPage({ type: 'job:preview' })])));
    for (const tabId of [21, 22, 40, 41, 42]) found.push(...leaks(`tab ${tabId}`, JSON.stringify(await fromPage({ type: 'view:get', tabId }))));
    expect(found).toEqual([]);
    // The checks saw real traffic.
    expect(toPages.length).toBeGreaterThan(5);
    expect(toTabs.length).toBeGreaterThan(2);
  });
});

/** Every value of the index's IndexedDB database, as text (binary as latin1). */
async function dumpIndexedDb(factory: IDBFactory): Promise<string> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = factory.open(DATABASE_NAME);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const parts: string[] = [];
  try {
    for (const name of Array.from(db.objectStoreNames)) {
      const values = await new Promise<unknown[]>((resolve, reject) => {
        const request = db.transaction(name, 'readonly').objectStore(name).getAll();
        request.onsuccess = () => resolve(request.result as unknown[]);
        request.onerror = () => reject(request.error);
      });
      parts.push(
        JSON.stringify(values, (_key, value: unknown) =>
          value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value instanceof ArrayBuffer ? Buffer.from(value).toString('latin1') : value,
        ),
      );
    }
  } finally {
    db.close();
  }
  return parts.join('\n');
}
