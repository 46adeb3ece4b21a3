/**
 * The client-index feature (features/client-index/client-index.feature.ts) in the real background: the reference
 * service over HTTP, real qbittorrent-nox and transmission-daemon (bookworm's) holding real torrents
 * (reached as the extension reaches them, csrf.ts's session rule included), messages through the
 * router as the options page, the popup and a tracker page's content script send them. Most tests
 * save one client; the last block saves both at once (every client takes part, issue 33): each its
 * own index, synced side by side, the list pages answered from both.
 *
 * What the service knows (same content on several sites):
 * - the folder: hdsky 101 (in both clients), pthome 201 (in both clients: already cross-seeded),
 *   m-team 301 (not held);
 * - the single file: hdsky 102 (in both clients, from that site only), tjupt 502 and hdhome 702
 *   (not held);
 * - a torrent only Transmission holds, incomplete: hdsky 103, and its copy tjupt 503;
 * - content both hold under different torrents (added for the last block): qBittorrent its hdsky
 *   801, Transmission its tjupt 802; hdhome 803 is held by neither.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { BackgroundApp } from '../../../../entrypoints/background/app';
import { INDEX_JOB } from '../../../../features/client-index/client-index.feature';
import { sidForHost } from '../../../../features/lookup/candidates';
import { ClientIndexes, type ClientIndex } from '../../../../utils/client-index/indexes-by-client.ts';
import { INDEX_RUNS_KEY } from '../../../../features/client-index/client-index.storage';
import { routeMessage } from '../../../../entrypoints/background/router';
import type { ClientsAnswer } from '../../../../features/clients/clients.messages';
import type { IndexChanged, IndexCrossSeedAnswer, IndexMarks, IndexPageAnswer, IndexStatusView } from '../../../../features/client-index/client-index.messages';
import type { TabView } from '../../../../features/lookup/lookup.messages';
import type { PageReading } from '../../../../utils/pages/page-types';
import { SETTINGS_KEY } from '../../../../features/settings/settings.storage';
import { makeTorrent, tinyTorrents, torrentOn, writeSampleContent, writeSingleFile, type Content } from '../../../clients/torrent-content';
import { clientPlacement } from '../../../../features/clients/placement';
import { indexSyncUnderWayItem } from '../../../../features/client-index/client-index.storage';
import { startQbittorrent, startTransmission, type RunningDaemon } from '../../../clients/daemons';
import { addSeeding } from '../../../clients/seeding';
import { DEMO_TOKEN, type ReferenceService } from '../../../service/server';
import { hashOf, lookupsSeen, refuseIndexWrites, startServiceWith, storedKeys } from '../../client-index/support';
import { extensionClientFetch, installSessionRules } from '../../support/client-browser';
import { installI18n } from '../../support/i18n';
import { grantOrigin } from '../../support/permissions';
import { ownClient } from '../../../clients/own-client';

const LIVE = { timeout: 90_000 };
const extension = { id: fakeBrowser.runtime.id, origin: fakeBrowser.runtime.getURL('/') };
const extensionPage = { id: extension.id, url: `${extension.origin}options.html` };

const COPIES = { mteam: hashOf('folder@m-team'), tjupt: hashOf('single@tjupt'), hdhome: hashOf('single@hdhome'), extra: hashOf('extra@tjupt'), sharedHdhome: hashOf('shared@hdhome') };
/** A third tracker: the shared content's torrent in Transmission is its. */
const GAMMA = { announce: 'http://127.0.0.1:9/gamma/announce.php?passkey=0c0c0c0c0c0c0c0c', source: 'GAMMA' };
const SHARED = { name: 'Shared.Content.2024.1080p.mkv', size: 70_000, seed: 'client-index shared content' };
const sharedContent = (savePath: string): Content => ({ savePath, name: SHARED.name, files: [{ path: SHARED.name, size: SHARED.size }], single: true, seed: SHARED.seed });
/** The shared content's torrents: qBittorrent's (HDSky's, on the alpha tracker) and Transmission's (TJUPT's, on gamma). */
const SHARED_TORRENTS = { alpha: torrentOn('alpha', sharedContent('')), gamma: makeTorrent(sharedContent(''), GAMMA) };

let qbittorrent: RunningDaemon;
let transmission: RunningDaemon;
let held: { folderAlpha: string; folderBeta: string; singleAlpha: string; extra: string };
let service: ReferenceService;
let app: BackgroundApp;
/** Everything the background sent to tabs' content scripts, in order. */
let toTabs: { tabId: number; message: { type: string } }[];
/** Every index:changed the background announced to the extension's pages. */
let announced: IndexStatusView[];

beforeAll(async () => {
  [qbittorrent, transmission] = await Promise.all([startQbittorrent(), startTransmission()]);
  const [extra] = tinyTorrents(1, 'client-index-feature');
  for (const daemon of [qbittorrent, transmission]) {
    const content = writeSampleContent(daemon.dataDir);
    // As the user's own web UI added them (same-origin requests).
    const client = ownClient(daemon);
    await addSeeding(client, torrentOn('alpha', content.folder), content.folder);
    await addSeeding(client, torrentOn('beta', content.folder), content.folder);
    await addSeeding(client, torrentOn('alpha', content.single), content.single);
    if (daemon === transmission) await client.add(extra!.bytes, { savePath: daemon.downloadDir, paused: true, skipCheck: false });
    held = {
      folderAlpha: torrentOn('alpha', content.folder).hash,
      folderBeta: torrentOn('beta', content.folder).hash,
      singleAlpha: torrentOn('alpha', content.single).hash,
      extra: extra!.hash,
    };
  }
  service = await startServiceWith([
    [
      { site: 'hdsky', torrent_id: 101, info_hash: held.folderAlpha },
      { site: 'pthome', torrent_id: 201, info_hash: held.folderBeta },
      { site: 'm-team', torrent_id: 301, info_hash: COPIES.mteam },
    ],
    [
      { site: 'hdsky', torrent_id: 102, info_hash: held.singleAlpha },
      { site: 'tjupt', torrent_id: 502, info_hash: COPIES.tjupt },
      { site: 'hdhome', torrent_id: 702, info_hash: COPIES.hdhome },
    ],
    [
      { site: 'hdsky', torrent_id: 103, info_hash: held.extra },
      { site: 'tjupt', torrent_id: 503, info_hash: COPIES.extra },
    ],
    [
      { site: 'hdsky', torrent_id: 801, info_hash: SHARED_TORRENTS.alpha.hash },
      { site: 'tjupt', torrent_id: 802, info_hash: SHARED_TORRENTS.gamma.hash },
      { site: 'hdhome', torrent_id: 803, info_hash: COPIES.sharedHdhome },
    ],
  ]);
}, 180_000);

afterAll(async () => {
  await service?.close();
  await Promise.all([qbittorrent?.stop(), transmission?.stop()]);
}, 60_000);

beforeEach(async () => {
  fakeBrowser.reset();
  installI18n('en');
  installSessionRules();
  service.control.reset();
  await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: DEMO_TOKEN } });
  grantOrigin(service.url);
  toTabs = [];
  announced = [];
  (fakeBrowser.tabs as unknown as { sendMessage: unknown }).sendMessage = async (tabId: number, message: { type: string }) => {
    toTabs.push({ tabId, message });
  };
  fakeBrowser.runtime.onMessage.addListener((message: unknown) => {
    const changed = message as Partial<IndexChanged>;
    if (changed?.type === 'index:changed' && changed.status) announced.push(changed.status);
    return undefined;
  });
  app = new BackgroundApp({ clientFetch: extensionClientFetch(), retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
});

/** A message from an extension page (options, popup), through the router. */
function fromPage<T>(message: Record<string, unknown>): Promise<T> {
  return routeMessage(app, message, extensionPage, extension) as Promise<T>;
}

/** Saves a client as the options page does (after those saved before it in the user's order); gives its id. */
async function useClient(daemon: RunningDaemon, extra: Record<string, unknown> = {}): Promise<string> {
  const answer = await fromPage<ClientsAnswer | { problem: unknown }>({
    type: 'clients:save',
    client: { type: daemon.kind, url: daemon.url, username: daemon.username, password: daemon.password, ...extra },
  });
  if ('problem' in answer) throw new Error(`not saved: ${JSON.stringify(answer.problem)}`);
  return answer.clients.find((client) => client.url === daemon.url)!.id;
}

/** The index turned on as the options page does, and its first sync awaited. */
async function turnOn(): Promise<void> {
  await fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
  await app.index.run('sync');
}

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const listUrl = (host: string) => `https://${host}/torrents.php?page=1`;

/** A tracker's list page reads (its content script's message), rows without hashes as most lists are. */
async function readList(tabId: number, host: string, ids: number[]): Promise<TabView> {
  const url = listUrl(host);
  const reading: PageReading = {
    engine: 'nexusphp',
    kind: 'list',
    hashes: [],
    problem: 'site-gives-no-hash',
    rows: ids.map((id) => ({ id: String(id), title: `Torrent ${id} on ${host}` })),
  };
  await routeMessage(app, { type: 'page:reading', url, reading }, { id: extension.id, url, frameId: 0, tab: { id: tabId } as never }, extension);
  return (await app.tabs.get(tabId))!;
}

const badge = (tabId: number) => fakeBrowser.action.getBadgeText({ tabId });
const lookups = () => lookupsSeen(service).length;
const marksTo = (tabId: number) => toTabs.filter((sent) => sent.tabId === tabId && sent.message.type === 'index:marks').map((sent) => sent.message as IndexMarks);
const indexMessages = () => toTabs.filter((sent) => sent.message.type.startsWith('index:'));
const page = (tabId: number) => fromPage<IndexPageAnswer>({ type: 'index:page', tabId });
const ids = (answer: IndexPageAnswer, list: 'inClient' | 'canCrossSeed') => (answer.state === 'answered' ? answer[list].map((row) => row.id) : `not answered: ${answer.state}`);

describe('off (the default)', () => {
  it('asks the service nothing, stores nothing, and a list page gets no count, no marks, no index message', LIVE, async () => {
    await useClient(qbittorrent);
    const status = await fromPage<IndexStatusView>({ type: 'index:status' });
    expect(status).toEqual({ enabled: false, markHosts: [], revision: expect.any(Number) });
    await readList(5, 'tjupt.org', [502, 503]);
    await app.index.idle();
    expect(await page(5)).toEqual({ state: 'off' });
    // The list page's own badge (no hash on it): empty.
    expect(await badge(5)).toBe('');
    // Row marks asked for while the index is off: the page still hears nothing.
    expect(await fromPage<IndexPageAnswer>({ type: 'index:row-marks', tabId: 5, on: true })).toEqual({ state: 'off' });
    await fromPage({ type: 'index:sync' });
    await app.index.run('sync');
    await app.repeatedJobs[INDEX_JOB]!.run();
    expect(lookups()).toBe(0);
    expect(indexMessages()).toEqual([]);
    expect(await storedKeys()).toEqual([]);
    expect(await storedKeys(INDEX_RUNS_KEY)).toEqual([]);
  });
});

describe('a sync', () => {
  it('turned on: the first sync sends every client hash once, in one request, announcing its progress; the second sends nothing', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    expect(lookupsSeen(service)).toEqual([[held.folderAlpha, held.folderBeta, held.singleAlpha].sort()]);
    const phases = announced.flatMap((status) => (status.clients?.[0]?.running ? [status.clients[0].running.phase] : []));
    expect(phases).toContain('asking');
    expect(announced.find((status) => status.clients?.[0]?.running?.phase === 'asking')?.clients?.[0]?.running).toMatchObject({ job: 'sync', total: 3 });

    const first = await fromPage<IndexStatusView>({ type: 'index:status' });
    // hdsky 101 and pthome 201 are named by each other's answer; m-team 301, tjupt 502, hdhome 702 can be cross-seeded;
    // the single file is held from hdsky only, its page not known yet.
    const counts = { torrents: 3, answered: 3, inClient: 2, canCrossSeed: 3, toPlace: 1 };
    expect(first).toMatchObject({
      enabled: true,
      clients: [
        {
          client: { type: 'qbittorrent', url: qbittorrent.url, name: 'qBittorrent on 127.0.0.1' },
          lastSync: { job: 'sync', outcome: 'done', torrents: 3, asked: 3, requests: 1 },
          counts,
          storage: 'ok',
        },
      ],
      // The whole index: one client's.
      counts,
      lastSync: { job: 'sync', outcome: 'done', torrents: 3, asked: 3, requests: 1 },
    });
    expect(first.clients).toHaveLength(1);
    expect(first.running).toBeUndefined();
    expect(first.clients![0]!.running).toBeUndefined();
    expect(announced.at(-1)?.clients?.[0]?.lastSync).toMatchObject({ outcome: 'done', asked: 3 });

    // "Sync now" again, nothing new in the client: nothing sent.
    await fromPage({ type: 'index:sync' });
    await app.index.run('sync');
    expect(lookups()).toBe(1);
    expect((await fromPage<IndexStatusView>({ type: 'index:status' })).clients?.[0]?.lastSync).toMatchObject({ outcome: 'done', asked: 0, requests: 0, torrents: 3 });
  });

  it('a list page is answered from memory: its badge counts the rows to cross-seed, the popup lists them and those in the client; no request', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    const before = service.requests.length;

    await readList(5, 'tjupt.org', [502, 503, 504]);
    await until(() => badge(5), (text) => text === '1', 'the tjupt list badge');
    const tjupt = await page(5);
    expect(tjupt).toMatchObject({ state: 'answered', host: 'tjupt.org', rows: 3, marks: false, empty: false, inClient: [] });
    expect(ids(tjupt, 'canCrossSeed')).toEqual(['502']);
    // Seeded from the single file the client holds, where it lies.
    // Seeded from the single file the client holds, where it lies; its copy goes into that very client.
    expect(tjupt.state === 'answered' && tjupt.canCrossSeed[0]).toMatchObject({
      title: 'Torrent 502 on tjupt.org',
      clientTorrent: { hash: held.singleAlpha, savePath: qbittorrent.dataDir, state: 'seeding', progress: 1 },
      from: 'qBittorrent on 127.0.0.1',
      into: { name: 'qBittorrent on 127.0.0.1', savePath: qbittorrent.dataDir, viaPair: false },
    });

    await readList(6, 'hdsky.me', [101, 102, 103]);
    await until(() => badge(6), (text) => text === '0', 'the hdsky list badge');
    const hdsky = await page(6);
    expect(ids(hdsky, 'inClient')).toEqual(['101']);
    expect(hdsky.state === 'answered' && hdsky.inClient[0]?.heldBy).toEqual(['qBittorrent on 127.0.0.1']);
    expect(ids(hdsky, 'canCrossSeed')).toEqual([]);

    // M-Team's list (kp.m-team.cc): the folder's copy there.
    await readList(7, 'kp.m-team.cc', [301, 302]);
    await until(() => badge(7), (text) => text === '1', 'the M-Team list badge');
    expect(ids(await page(7), 'canCrossSeed')).toEqual(['301']);

    await app.index.idle();
    expect(service.requests.length).toBe(before);
    expect(indexMessages()).toEqual([]);
  });

  it('the popup on a page whose badge was just worked out gets that answer without reading the index again; a change of the index is read', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    await readList(8, 'tjupt.org', [502, 503, 504]);
    await until(() => badge(8), (text) => text === '1', 'the tjupt list badge');
    const rows = vi.spyOn(ClientIndexes.prototype, 'rowsOfEach');
    try {
      const first = await page(8);
      expect(await page(8)).toEqual(first);
      expect(rows).not.toHaveBeenCalled();
      // A cross-seed lands on row 503 (the index notes it as the cross-seed feature does): read again.
      const open: ClientIndex = (await app.index.clientIndexes())[0]!.index;
      await open.noteAdded({ hash: hashOf('landed on tjupt 503'), name: 'Landed', savePath: qbittorrent.dataDir, state: 'seeding', progress: 1, size: 1 }, { sid: sidForHost('tjupt.org', undefined)!, torrentId: 503 });
      const after = await page(8);
      expect(rows).toHaveBeenCalledTimes(1);
      expect(ids(after, 'inClient')).toEqual(['503']);
      expect(ids(after, 'canCrossSeed')).toEqual(['502']);
    } finally {
      rows.mockRestore();
    }
  });

  it('a list page whose own lookup is still under way is answered from its reading: badge and popup at once, the view set later changes nothing; a page left meanwhile is not painted', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    // The page's own lookup of its hashes held (after a worker stop it reads the answer cache first).
    let release!: () => void;
    const held_ = new Promise<void>((resolve) => (release = resolve));
    const original = app.lookup.answers.bind(app.lookup);
    const answers = vi.spyOn(app.lookup, 'answers').mockImplementation(async (...args) => {
      await held_;
      return original(...args);
    });
    try {
      const url = listUrl('tjupt.org');
      const reading: PageReading = {
        engine: 'nexusphp',
        kind: 'list',
        hashes: [{ hash: hashOf('a row with its hash'), source: 'magnet', row: '504' }],
        rows: [502, 503, 504].map((id) => ({ id: String(id), title: `Torrent ${id} on tjupt.org`, ...(id === 504 && { hash: hashOf('a row with its hash') }) })),
      };
      const sent = routeMessage(app, { type: 'page:reading', url, reading }, { id: extension.id, url, frameId: 0, tab: { id: 21 } as never }, extension);
      await until(() => badge(21), (text) => text === '1', 'the badge from the reading');
      expect(answers).toHaveBeenCalled();
      expect(await app.tabs.get(21)).toBeUndefined();
      const early = await page(21);
      expect(ids(early, 'canCrossSeed')).toEqual(['502']);
      release();
      await sent;
      await app.index.idle();
      expect((await app.tabs.get(21))?.kind).toBe('list');
      expect(await badge(21)).toBe('1');
      expect(await page(21)).toEqual(early);

      // A reading whose tab goes elsewhere before its answer is there: nothing is painted on it.
      const away: TabView = { tabId: 22, url, host: 'tjupt.org', status: 'no-hash', hashes: [], candidates: [], kind: 'list', rows: reading.rows };
      app.tabs.reading(away);
      await app.tabs.forget(22);
      const pending = (app.index as unknown as { lists: { early: Map<number, { answer: Promise<unknown> }> } }).lists.early.get(22)!;
      await pending.answer;
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(await badge(22)).toBe('');
      expect(await page(22)).toEqual({ state: 'not-a-list' });
    } finally {
      release();
      answers.mockRestore();
    }
  });

  it('on but with nothing answered yet (the first sync failed): the popup says so and the badge stays the page\'s own', LIVE, async () => {
    await useClient(qbittorrent);
    await readList(5, 'tjupt.org', [502]);
    service.control.forceStatus(500, 5);
    await turnOn();
    expect((await fromPage<IndexStatusView>({ type: 'index:status' })).clients?.[0]?.lastSync).toMatchObject({ outcome: 'failed', problem: { kind: 'service', failure: { kind: 'server' } } });
    await app.index.idle();
    expect(await page(5)).toMatchObject({ state: 'answered', empty: true, canCrossSeed: [] });
    expect(await badge(5)).toBe('');
    service.control.clearOverrides();
    await fromPage({ type: 'index:sync' });
    await app.index.run('sync');
    await until(() => badge(5), (text) => text === '1', 'the badge once synced');
    expect(await page(5)).toMatchObject({ state: 'answered', empty: false });
  });

  it('placing: the alarm job syncs, then asks one copy\'s hash to find the page of the torrent held from one site, counted apart', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    const since = lookups();
    await app.repeatedJobs[INDEX_JOB]!.run();
    // Nothing new to sync; one lookup carrying one copy's hash (never a client hash again).
    const placing = lookupsSeen(service, 0).slice(since);
    expect(placing).toHaveLength(1);
    expect(placing[0]).toHaveLength(1);
    expect([COPIES.tjupt, COPIES.hdhome]).toContain(placing[0]![0]);
    const status = await fromPage<IndexStatusView>({ type: 'index:status' });
    expect(status.clients?.[0]?.lastPlacing).toMatchObject({ job: 'place', outcome: 'done', asked: 1, requests: 1, located: 1 });
    expect(status.clients?.[0]?.lastSync).toMatchObject({ job: 'sync', outcome: 'done', asked: 0, requests: 0 });
    expect(status.clients?.[0]?.counts).toMatchObject({ toPlace: 0, inClient: 3 });
    expect(status.counts).toMatchObject({ toPlace: 0, inClient: 3 });
    // Its own list row now reads "in your client".
    await readList(6, 'hdsky.me', [101, 102]);
    expect(ids(await page(6), 'inClient')).toEqual(['101', '102']);
    // Nothing left to place: the next alarm asks nothing.
    await app.repeatedJobs[INDEX_JOB]!.run();
    expect(lookups()).toBe(since + 1);
  });

  it('"Find them now" places at once', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    const since = lookups();
    await fromPage({ type: 'index:place' });
    await app.index.run('place');
    expect(lookups()).toBe(since + 1);
    expect((await fromPage<IndexStatusView>({ type: 'index:status' })).counts?.toPlace).toBe(0);
  });
});

describe('what stops a sync, in words', () => {
  it('no client set up: said before anything is sent', LIVE, async () => {
    await fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
    await app.index.run('sync');
    expect(await fromPage<IndexStatusView>({ type: 'index:status' })).toEqual({ enabled: true, markHosts: [], problem: { kind: 'no-client' }, revision: expect.any(Number) });
    await readList(5, 'tjupt.org', [502]);
    expect(await page(5)).toEqual({ state: 'no-client' });
    expect(lookups()).toBe(0);
  });

  it('no token (App ID only): said, and the client is not even read', LIVE, async () => {
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: '', appId: 'demo-app', secret: 'demo-secret' } });
    app = new BackgroundApp({ clientFetch: extensionClientFetch(), retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
    await useClient(qbittorrent);
    await turnOn();
    const status = await fromPage<IndexStatusView>({ type: 'index:status' });
    expect(status.problem).toEqual({ kind: 'needs-token' });
    expect(status.clients?.[0]?.problem).toEqual({ kind: 'needs-token' });
    expect(status.clients?.[0]?.lastSync).toMatchObject({ outcome: 'failed', problem: { kind: 'needs-token' } });
    expect(service.requests).toEqual([]);
  });

  it('the service refuses the token: the service\'s failure is kept with its kind', LIVE, async () => {
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: 'not-a-token' } });
    app = new BackgroundApp({ clientFetch: extensionClientFetch(), retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
    await useClient(qbittorrent);
    await turnOn();
    expect((await fromPage<IndexStatusView>({ type: 'index:status' })).clients?.[0]?.lastSync).toMatchObject({ outcome: 'failed', problem: { kind: 'service', failure: { kind: 'auth' } } });
  });

  it('the client refuses the password: the client\'s failure is kept with its kind', LIVE, async () => {
    await useClient(transmission, { password: 'not-the-password' });
    await turnOn();
    expect((await fromPage<IndexStatusView>({ type: 'index:status' })).clients?.[0]?.lastSync).toMatchObject({ outcome: 'failed', problem: { kind: 'client', problem: { kind: 'auth' } } });
    expect(lookups()).toBe(0);
  });
});

describe('row marks', () => {
  it('go only to pages on a host the user switched on, marking exactly the known rows; switching off takes them away', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    await readList(5, 'tjupt.org', [502, 503]);
    await readList(6, 'hdsky.me', [101, 102]);
    await app.index.idle();
    expect([await badge(5), await badge(6)]).toEqual(['1', '0']);
    expect(indexMessages()).toEqual([]);

    const on = await fromPage<IndexPageAnswer>({ type: 'index:row-marks', tabId: 5, on: true });
    expect(on).toMatchObject({ state: 'answered', marks: true });
    expect(marksTo(5)).toEqual([{ type: 'index:marks', url: listUrl('tjupt.org'), marks: { '502': 'c' } }]);
    expect((await fromPage<{ settings: { indexMarkHosts: string[] } }>({ type: 'settings:get' })).settings.indexMarkHosts).toEqual(['tjupt.org']);
    // The page reads again (it changed): the same marks are not sent twice; new rows are.
    await readList(5, 'tjupt.org', [502, 503]);
    await readList(5, 'tjupt.org', [502, 503, 702]);
    await until(() => Promise.resolve(marksTo(5).length), (count) => count === 2, 'marks for the new rows');
    expect(marksTo(5)[1]!.marks).toEqual({ '502': 'c' });

    // A page on another host reads: it hears nothing.
    await readList(6, 'hdsky.me', [101, 102, 103]);
    await app.index.idle();
    expect(ids(await page(6), 'inClient')).toEqual(['101']);
    expect(marksTo(6)).toEqual([]);

    await fromPage({ type: 'index:row-marks', tabId: 5, on: false });
    expect(marksTo(5).at(-1)).toEqual({ type: 'index:marks', url: listUrl('tjupt.org'), marks: {} });
    expect(marksTo(6)).toEqual([]);
    const sent = indexMessages().length;
    await readList(5, 'tjupt.org', [502]);
    await app.index.idle();
    expect(await badge(5)).toBe('1');
    expect(indexMessages().length).toBe(sent);
  });

  it('turning the index off deletes it and takes the marks away from the pages that had them', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    await readList(6, 'hdsky.me', [101, 102]);
    await fromPage({ type: 'index:row-marks', tabId: 6, on: true });
    expect(marksTo(6)).toEqual([{ type: 'index:marks', url: listUrl('hdsky.me'), marks: { '101': 'i' } }]);
    expect((await storedKeys()).length).toBeGreaterThan(1);

    await fromPage({ type: 'settings:save', update: { clientIndexEnabled: false } });
    expect(marksTo(6).at(-1)).toEqual({ type: 'index:marks', url: listUrl('hdsky.me'), marks: {} });
    expect(await storedKeys()).toEqual([]);
    expect(await storedKeys(INDEX_RUNS_KEY)).toEqual([]);
    expect(await page(6)).toEqual({ state: 'off' });
    expect(await badge(6)).toBe('');
    // Off: a new reading there brings nothing more.
    const sent = indexMessages().length;
    await readList(6, 'hdsky.me', [101, 102, 103]);
    await app.index.idle();
    expect(await page(6)).toEqual({ state: 'off' });
    expect(indexMessages().length).toBe(sent);
  });
});

describe('clients change', () => {
  it('a second client saved: its own first sync (only what the first client\'s index has not answered is asked), its own index; the first client\'s pages stand', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    await readList(5, 'tjupt.org', [502, 503]);
    await until(() => badge(5), (text) => text === '1', 'the badge with qBittorrent');
    const since = lookups();
    await useClient(transmission);
    // Saving it started its own sync; join it (qBittorrent's is synced again with it: nothing new there).
    await app.index.run('sync');
    // Transmission holds qBittorrent's three torrents too: their fresh answers are taken from qBittorrent's index, and only its own is asked.
    expect(lookupsSeen(service).slice(since)).toEqual([[held.extra]]);
    const status = await fromPage<IndexStatusView>({ type: 'index:status' });
    expect(status.clients?.map((view) => [view.client.type, view.counts?.torrents, view.lastSync?.torrents, view.lastSync?.asked])).toEqual([
      ['qbittorrent', 3, 3, 0],
      ['transmission', 4, 4, 1],
    ]);
    // Transmission's incomplete torrent is no source: tjupt 503 is not offered; 502 still is, from qBittorrent, the first in the user's order.
    const tjupt = await page(5);
    expect(ids(tjupt, 'canCrossSeed')).toEqual(['502']);
    expect(tjupt.state === 'answered' && tjupt.canCrossSeed[0]?.from).toBe('qBittorrent on 127.0.0.1');
  });

  it('no room for the index (IndexedDB refuses, a full disk or quota): the options page is told, the settings still save, and storage.local holds nothing of the index', LIVE, async () => {
    await useClient(qbittorrent);
    const undo = refuseIndexWrites();
    try {
      await turnOn();
      const status = await fromPage<IndexStatusView>({ type: 'index:status' });
      expect(status.clients?.[0]).toMatchObject({ storage: 'full', counts: { torrents: 3, answered: 3 } });
      // The index answers from memory all the same.
      await readList(5, 'tjupt.org', [502, 503, 504]);
      expect(ids(await page(5), 'canCrossSeed')).toEqual(['502']);
      const hosts = Array.from({ length: 4 }, (_, i) => `s${i}.example.org`);
      const answer = await fromPage<{ settings?: { panelDisabledHosts: string[] } }>({ type: 'settings:save', update: { panelDisabledHosts: hosts } });
      expect(answer.settings?.panelDisabledHosts).toEqual(hosts);
      expect(((await fakeBrowser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as { panelDisabledHosts: string[] }).panelDisabledHosts).toEqual(hosts);
    } finally {
      undo();
    }
    // Only the record of the last run (a few bytes) is in storage.local; no torrent of the index.
    expect(Object.keys(await fakeBrowser.storage.local.get(null)).filter((key) => key === 'clientIndex' || key.startsWith('clientIndex:'))).toEqual([]);
    expect((await storedKeys()).filter((key) => key !== 'clientIndex')).toEqual([]);
  });
});

describe('"Cross-seed" on a row', () => {
  it('takes the row from the page and the candidate from the index: an unknown row or one without a cross-seed is refused unfetched; one in the client says so', LIVE, async () => {
    await useClient(qbittorrent);
    await turnOn();
    await readList(5, 'pthome.net', [201, 202]);
    // Every fetch the background makes to anything but the service and the clients (a tracker's download).
    const fetched: string[] = [];
    const original = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (!url.startsWith(service.url) && !url.startsWith('http://127.0.0.1')) fetched.push(url);
      return original(input, init);
    };
    try {
      const unknown = await fromPage<IndexCrossSeedAnswer>({ type: 'index:cross-seed', tabId: 5, rowId: '999' });
      expect(unknown.result).toMatchObject({ kind: 'bad-request' });
      const none = await fromPage<IndexCrossSeedAnswer>({ type: 'index:cross-seed', tabId: 5, rowId: '202' });
      expect(none.result).toMatchObject({ kind: 'bad-request' });
      const inClient = await fromPage<IndexCrossSeedAnswer>({ type: 'index:cross-seed', tabId: 5, rowId: '201' });
      const [saved] = (await fromPage<ClientsAnswer>({ type: 'clients:list' })).clients;
      expect(inClient.result).toEqual({ kind: 'already-in-client', hash: held.folderBeta, savePath: qbittorrent.dataDir, clientName: 'qBittorrent on 127.0.0.1', clientId: saved!.id });
      expect(inClient.siteName).toBe('PTHome');
      // A row id that is not digits never reaches the feature.
      expect(await routeMessage(app, { type: 'index:cross-seed', tabId: 5, rowId: '201 OR 1' }, extensionPage, extension)).toBeUndefined();
    } finally {
      globalThis.fetch = original;
    }
    expect(fetched).toEqual([]);
  });
});

describe('every client at once (a qBittorrent "NAS" and a Transmission "Seedbox")', () => {
  const LOOKUP_PATH = '/reseed/index/index';
  const CLIENT_HASHES = () => ({
    nas: [held.folderAlpha, held.folderBeta, held.singleAlpha, SHARED_TORRENTS.alpha.hash],
    seedbox: [held.folderAlpha, held.folderBeta, held.singleAlpha, held.extra, SHARED_TORRENTS.gamma.hash],
  });

  beforeAll(async () => {
    // The shared content on both disks: NAS holds it as HDSky 801's torrent, Seedbox as TJUPT 802's.
    const nas = writeSingleFile(qbittorrent.dataDir, SHARED.name, SHARED.size, SHARED.seed);
    const seedbox = writeSingleFile(transmission.dataDir, SHARED.name, SHARED.size, SHARED.seed);
    await Promise.all([addSeeding(ownClient(qbittorrent), SHARED_TORRENTS.alpha, nas), addSeeding(ownClient(transmission), SHARED_TORRENTS.gamma, seedbox)]);
  }, 120_000);

  /** Both saved, NAS first in the user's order; their ids. */
  async function bothClients(seedbox: Record<string, unknown> = {}): Promise<{ nas: string; seedbox: string }> {
    return { nas: await useClient(qbittorrent, { name: 'NAS' }), seedbox: await useClient(transmission, { name: 'Seedbox', ...seedbox }) };
  }

  /** A client saved again as the options page's form does (the password left empty keeps it). */
  async function edit(id: string, daemon: RunningDaemon, change: Record<string, unknown>): Promise<void> {
    const answer = await fromPage<ClientsAnswer | { problem: unknown }>({ type: 'clients:save', client: { id, type: daemon.kind, url: daemon.url, username: daemon.username, password: '', ...change } });
    if ('problem' in answer) throw new Error(`not saved: ${JSON.stringify(answer.problem)}`);
  }

  const row = (answer: IndexPageAnswer, id: string) => (answer.state === 'answered' ? [...answer.canCrossSeed, ...answer.inClient, ...(answer.refused ?? [])].find((entry) => entry.id === id) : undefined);

  it('turned on: both synced side by side, each hash the clients hold reaches the service once; each its own index and status by Name; again, nothing is asked', LIVE, async () => {
    await bothClients();
    // The first lookup is held until both clients' syncs wait on the lane: whatever comes first, nothing is asked twice.
    const release = service.control.hold(LOOKUP_PATH);
    await fromPage({ type: 'settings:save', update: { clientIndexEnabled: true } });
    await until(() => Promise.resolve(announced.at(-1)?.clients?.filter((view) => view.running?.phase === 'asking').length ?? 0), (count) => count === 2, 'both clients asking');
    release();
    await app.index.run('sync');
    const asked = lookupsSeen(service).flat();
    const { nas, seedbox } = CLIENT_HASHES();
    expect([...asked].sort()).toEqual([...new Set([...nas, ...seedbox])].sort());
    expect(lookupsSeen(service).length).toBeLessThanOrEqual(2);

    const status = await fromPage<IndexStatusView>({ type: 'index:status' });
    expect(status.clients?.map((view) => ({ name: view.client.name, type: view.client.type, torrents: view.counts?.torrents, sync: view.lastSync?.outcome, storage: view.storage, running: view.running }))).toEqual([
      { name: 'NAS', type: 'qbittorrent', torrents: 4, sync: 'done', storage: 'ok', running: undefined },
      { name: 'Seedbox', type: 'transmission', torrents: 5, sync: 'done', storage: 'ok', running: undefined },
    ]);
    // Each hash a client sent or took from the other's index: 4 + 5 together, 6 of them sent.
    expect(status.clients!.reduce((sum, view) => sum + view.lastSync!.asked, 0)).toBe(6);
    expect(status.lastSync).toMatchObject({ outcome: 'done', torrents: 9 });
    // The whole index: a place counts once. HDSky 101, PTHome 201 and 801 and TJUPT 802 are in a client; M-Team 301,
    // TJUPT 502, HDHome 702 and 803 can be cross-seeded (TJUPT 503's source is incomplete).
    expect(status.counts).toMatchObject({ torrents: 9, inClient: 4, canCrossSeed: 4 });
    // Each client's run under way was said apart, by client.
    expect(new Set(announced.flatMap((view) => view.clients?.filter((one) => one.running).map((one) => one.client.name) ?? []))).toEqual(new Set(['NAS', 'Seedbox']));

    const before = lookups();
    await fromPage({ type: 'index:sync' });
    await app.index.run('sync');
    expect(lookups()).toBe(before);
  });

  it('list pages from both indexes: a place one client offers that the other holds is in that client; the first in the user\'s order takes the copy; "Only read" and folder pairs decide where it goes, a refusal is shown and not counted', LIVE, async () => {
    const ids_ = await bothClients();
    await turnOn();
    // TJUPT: 502 from NAS (both hold its source: NAS is first); 802 is Seedbox's own torrent (NAS's index offers it); 503's source is incomplete.
    await readList(5, 'tjupt.org', [502, 802, 503]);
    await until(() => badge(5), (text) => text === '1', 'the TJUPT badge');
    const tjupt = await page(5);
    expect(ids(tjupt, 'canCrossSeed')).toEqual(['502']);
    expect(ids(tjupt, 'inClient')).toEqual(['802']);
    expect(row(tjupt, '502')).toMatchObject({ from: 'NAS', into: { name: 'NAS', savePath: qbittorrent.dataDir, viaPair: false } });
    expect(row(tjupt, '802')).toMatchObject({ heldBy: ['Seedbox'], clientTorrent: { hash: SHARED_TORRENTS.gamma.hash } });
    // HDSky: 801 is NAS's own (Seedbox's index offers it); 101 is in both.
    await readList(6, 'hdsky.me', [801, 101]);
    await until(() => badge(6), (text) => text === '0', 'the HDSky badge');
    const hdsky = await page(6);
    expect(ids(hdsky, 'inClient')).toEqual(['801', '101']);
    expect(row(hdsky, '801')?.heldBy).toEqual(['NAS']);
    expect(row(hdsky, '101')?.heldBy).toEqual(['NAS', 'Seedbox']);
    // "Cross-seed" on a row another client holds: already there, named, nothing fetched.
    const already = await fromPage<IndexCrossSeedAnswer>({ type: 'index:cross-seed', tabId: 5, rowId: '802' });
    expect(already.result).toMatchObject({ kind: 'already-in-client', hash: SHARED_TORRENTS.gamma.hash, clientName: 'Seedbox', clientId: ids_.seedbox });

    // HDHome 803: both can; the first in the user's order takes it.
    await readList(7, 'hdhome.org', [803]);
    await until(() => badge(7), (text) => text === '1', 'the HDHome badge');
    expect(row(await page(7), '803')).toMatchObject({ from: 'NAS', into: { name: 'NAS' } });
    await fromPage({ type: 'clients:move', id: ids_.seedbox, index: 0 });
    expect(row(await page(7), '803')).toMatchObject({ from: 'Seedbox', into: { name: 'Seedbox', savePath: transmission.dataDir } });
    await fromPage({ type: 'clients:move', id: ids_.seedbox, index: 1 });
    // NAS only reads: its copy goes nowhere, so Seedbox's source takes it.
    await edit(ids_.nas, qbittorrent, { readOnly: true });
    expect(row(await page(7), '803')).toMatchObject({ from: 'Seedbox', into: { name: 'Seedbox' } });
    // NAS sends its copies to Seedbox through a folder pair: from NAS into Seedbox, at the mapped path.
    await edit(ids_.nas, qbittorrent, { readOnly: false, copiesTo: ids_.seedbox, folderPairs: [{ from: qbittorrent.dataDir, to: '/srv/nas' }] });
    expect(row(await page(7), '803')).toMatchObject({ from: 'NAS', into: { name: 'Seedbox', savePath: '/srv/nas', viaPair: true } });
    // A pair that does not hold the source's folder: NAS's copy goes nowhere, Seedbox's own source takes it.
    await edit(ids_.nas, qbittorrent, { copiesTo: ids_.seedbox, folderPairs: [{ from: '/elsewhere', to: '/srv' }] });
    expect(row(await page(7), '803')).toMatchObject({ from: 'Seedbox', into: { name: 'Seedbox' } });
    // Both only read: the row is shown refused, with why, and not counted; its "Cross-seed" fetches nothing.
    await edit(ids_.nas, qbittorrent, { copiesTo: '', folderPairs: [], readOnly: true });
    await edit(ids_.seedbox, transmission, { readOnly: true });
    const refused = await page(7);
    expect(ids(refused, 'canCrossSeed')).toEqual([]);
    expect(refused.state === 'answered' && refused.refused?.map((entry) => [entry.id, entry.from, entry.refused])).toEqual([['803', 'NAS', { kind: 'read-only', clientName: 'NAS' }]]);
    expect(await badge(7)).toBe('0');
    expect((await fromPage<IndexCrossSeedAnswer>({ type: 'index:cross-seed', tabId: 7, rowId: '803' })).result).toEqual({ kind: 'read-only', clientName: 'NAS' });

    // Seedbox removed: its index answers nothing more, its records of runs go; TJUPT 802 is NAS's to cross-seed again.
    await edit(ids_.nas, qbittorrent, { readOnly: false });
    await fromPage({ type: 'clients:remove', id: ids_.seedbox });
    const after = await page(5);
    expect(ids(after, 'canCrossSeed')).toEqual(['502', '802']);
    expect(ids(after, 'inClient')).toEqual([]);
    const status = await fromPage<IndexStatusView>({ type: 'index:status' });
    expect(status.clients?.map((view) => view.client.name)).toEqual(['NAS']);
    const runs = (await fakeBrowser.storage.local.get(INDEX_RUNS_KEY))[INDEX_RUNS_KEY] as { clients: Record<string, unknown> };
    expect(Object.keys(runs.clients)).toEqual([`qbittorrent ${qbittorrent.url}`]);
  });

  it('a client that fails fails alone, in words; the other\'s index goes on and answers the pages', LIVE, async () => {
    await bothClients({ password: 'not-the-password' });
    await turnOn();
    const status = await fromPage<IndexStatusView>({ type: 'index:status' });
    expect(status.clients?.map((view) => [view.client.name, view.lastSync?.outcome, view.lastSync?.problem])).toEqual([
      ['NAS', 'done', undefined],
      ['Seedbox', 'failed', { kind: 'client', problem: expect.objectContaining({ kind: 'auth' }) }],
    ]);
    expect(status.lastSync).toMatchObject({ outcome: 'failed', problem: { kind: 'client' } });
    expect([...lookupsSeen(service).flat()].sort()).toEqual([...CLIENT_HASHES().nas].sort());
    await readList(5, 'tjupt.org', [502, 802]);
    await until(() => badge(5), (text) => text === '2', 'the TJUPT badge from NAS alone');
    expect(row(await page(5), '802')).toMatchObject({ from: 'NAS' });
  });

  it('a run cut short is kept per client, and a sync of each goes on with its own', LIVE, async () => {
    const { seedbox } = await bothClients();
    await fakeBrowser.storage.local.set({ [SETTINGS_KEY]: { version: 1, baseUrl: service.url, token: DEMO_TOKEN, clientIndexEnabled: true } });
    // As a stop left them: NAS had read its client, Seedbox had not.
    const startedAt = Date.now();
    await fakeBrowser.storage.local.set({
      clientIndexSyncUnderWay: { version: 2, clients: { [`qbittorrent ${qbittorrent.url}`]: { job: 'sync', startedAt, listed: { leftOut: 0 } }, [`transmission ${transmission.url}`]: { job: 'sync', startedAt } } },
    });
    app = new BackgroundApp({ clientFetch: extensionClientFetch(), retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
    await app.start();
    await until(() => fromPage<IndexStatusView>({ type: 'index:status' }), (view) => !!view.clients?.every((one) => one.lastSync?.outcome === 'done'), 'both resumed runs ended');
    // NAS's index was empty and its run had "read" the client: nothing to ask. Seedbox read its own and asked it.
    const status = await fromPage<IndexStatusView>({ type: 'index:status' });
    expect(status.clients?.map((view) => view.counts?.torrents)).toEqual([0, 5]);
    expect(announced.some((view) => view.clients?.some((one) => one.client.id === seedbox && one.running?.resumed))).toBe(true);
    expect(await indexSyncUnderWayItem.get()).toBeUndefined();
  });

  it('a cross-seed that lands is noted in the index of the client it landed in; a client that cannot be asked is taken at its index\'s last word, from IndexedDB after a restart', LIVE, async () => {
    const ids_ = await bothClients();
    await turnOn();
    // A torrent Seedbox now holds (as a cross-seed into it leaves one), landed as HDHome 804 (a place no answer named).
    const [landed] = tinyTorrents(1, 'landed-in-seedbox');
    await ownClient(transmission).add(landed!.bytes, { savePath: transmission.downloadDir, paused: true, skipCheck: false });
    const hdhome = sidForHost('hdhome.org', undefined)!;
    for (const listener of app.crossSeeds.landed) await listener({ candidate: { sid: hdhome, torrentId: 804, infoHash: landed!.hash }, hash: landed!.hash, clientId: ids_.seedbox });
    const [nas, box] = await app.index.clientIndexes();
    expect([nas!.index.torrent(landed!.hash), box!.index.torrent(landed!.hash)?.hash]).toEqual([undefined, landed!.hash]);
    await readList(7, 'hdhome.org', [803, 804]);
    await until(() => badge(7), (text) => text === '1', 'the HDHome badge');
    const listed = await page(7);
    expect(ids(listed, 'inClient')).toEqual(['804']);
    expect(row(listed, '804')).toMatchObject({ heldBy: ['Seedbox'] });

    const asked = [SHARED_TORRENTS.alpha.hash, SHARED_TORRENTS.gamma.hash, landed!.hash, COPIES.sharedHdhome];
    expect(await app.clients.lastKnownHeld!(box!.handle.config, asked)).toEqual(new Set([SHARED_TORRENTS.gamma.hash, landed!.hash]));
    expect(await app.clients.lastKnownHeld!(nas!.handle.config, asked)).toEqual(new Set([SHARED_TORRENTS.alpha.hash]));

    // The worker restarted: what a client held at its last sync is read from IndexedDB alone, without loading its index.
    await until(async () => (await fromPage<IndexStatusView>({ type: 'index:status' })).settled, (settled) => settled === true, 'the indexes settled');
    app = new BackgroundApp({ clientFetch: extensionClientFetch(), retryDelaysMs: [], minIntervalMs: 0, indexPauseMs: 0 });
    await app.start();
    expect(await app.clients.lastKnownHeld!((await app.clients.handles())[1]!.config, asked)).toEqual(new Set([SHARED_TORRENTS.gamma.hash, landed!.hash]));
    expect(app.index.indexes.store.recordsRead).toBe(0);
    // Seedbox answers no more (its password changed, the same client): it is taken at its index's word.
    await edit(ids_.seedbox, transmission, { password: 'not-the-password' });
    const handles = await app.clients.handles();
    // The one place that decides who holds a torrent takes it so: Seedbox holds it, nothing goes anywhere.
    const placement = clientPlacement(handles, { reachable: (config) => app.clients.reachable(config), lastKnownHeld: app.clients.lastKnownHeld });
    expect(await placement.holder(landed!.hash)).toMatchObject({ clientName: 'Seedbox', clientId: ids_.seedbox });
  });
});
