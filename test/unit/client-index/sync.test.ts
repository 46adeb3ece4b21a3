/**
 * The client index against the real daemons (qbittorrent-nox 4.5.2 and transmission-daemon 3.00,
 * started here, holding real torrents) and the reference service over HTTP, with groups made for
 * the clients' hashes: what the sync sends, what it stores, and what a list page gets back.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { SettingsStore } from '../../../features/settings/settings-store';
import { ClientIndexError, type ClientIdentity, type ClientIndex, type SyncProgress } from '../../../utils/client-index/indexes-by-client.ts';
import { IndexStore, MAX_INDEX_BYTES, bytesOfTorrent } from '../../../utils/client-index/indexes-by-client.ts';
import { encodeRecord, packHash, utf8Length } from '../../../utils/client-index/codec';
import { ANSWERS_PART, TORRENT_PART } from '../../../utils/client-index/store';
import { clientOriginRule } from '../../../utils/clients/csrf';
import { createClient } from '../../../utils/clients/index';
import type { ClientKind, TorrentClient } from '../../../utils/clients/client-types';
import { ServiceError } from '../../../utils/iyuu/service-errors';
import { DEFAULT_SETTINGS } from '../../../utils/settings';
import { CHECKING } from '../../../utils/cross-seed-engine/cross-seed';
import { until } from '../../e2e/support/wait';
import { tinyTorrents, torrentOn, writeSampleContent, type Content, type MadeTorrent } from '../../clients/torrent-content';
import { startQbittorrent, startTransmission, type RunningDaemon } from '../../clients/daemons';
import { nodeClientFetch, type JarFetch } from '../../clients/node-fetch';
import { addSeeding } from '../../clients/seeding';
import type { ReferenceService } from '../../service/server';
import { SITES, hashOf, lookupsSeen, makeWorld, INDEX_RECORD_STORES, putRawValue, recordIndexWrites, refuseIndexWrites, removeFromDaemon, restart, startServiceWith, storedKeys, type GroupMember, type World } from './support';

const LIVE = { timeout: 60_000 };
const QUICK = { pauseMs: 0 } as const;
const EXTENSION_URL = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';

interface Held {
  daemon: RunningDaemon;
  fetch: JarFetch;
  client: TorrentClient;
  identity: ClientIdentity;
  /** Tiny torrents in the client (no data: never complete); those with i % 5 = 0 have no copy elsewhere. */
  tiny: MadeTorrent[];
  /** Torrents added to the client by a test. */
  later: MadeTorrent[];
}

const TINY = { qbittorrent: 250, transmission: 20 } as const;
const held = {} as Record<'qbittorrent' | 'transmission', Held>;
let content: { single: Content; folder: Content };
let service: ReferenceService;
let groups: GroupMember[][];
let world: World;

// The sample content: the folder held from hdsky and pthome, the single file from hdsky only.
let FOLDER: { alpha: string; beta: string; mteam: string };
let SINGLE: { alpha: string; tjupt: string; hdhome: string };
/** The places of every tiny torrent with copies: its own on hdsky, a copy on pterclub. */
const tinyPlaces = new Map<string, { hdsky: number; pterclub: number; copy: string }>();

function groupsFor(tiny: MadeTorrent[], first: number): GroupMember[][] {
  return tiny.flatMap((torrent, i) => {
    if (i % 5 === 0) return [];
    const place = { hdsky: 10_000 + first + i, pterclub: 60_000 + first + i, copy: hashOf(`${torrent.hash}@pterclub`) };
    tinyPlaces.set(torrent.hash, place);
    return [
      [
        { site: 'hdsky' as const, torrent_id: place.hdsky, info_hash: torrent.hash },
        { site: 'pterclub' as const, torrent_id: place.pterclub, info_hash: place.copy },
      ],
    ];
  });
}

async function startHeld(kind: 'qbittorrent' | 'transmission'): Promise<Held> {
  const daemon = kind === 'qbittorrent' ? await startQbittorrent() : await startTransmission();
  // What the browser sends once csrf.ts's rule is in place.
  const origin = kind === 'qbittorrent' ? clientOriginRule(daemon.url, EXTENSION_URL).action.requestHeaders.find((header) => header.header === 'Origin')!.value : undefined;
  const fetch = nodeClientFetch(origin ? { origin } : {});
  const client = createClient(daemon.config, { fetch });
  const sample = writeSampleContent(daemon.dataDir);
  content = sample;
  await addSeeding(client, torrentOn('alpha', sample.folder), sample.folder);
  await addSeeding(client, torrentOn('beta', sample.folder), sample.folder);
  await addSeeding(client, torrentOn('alpha', sample.single), sample.single);
  const tiny = tinyTorrents(TINY[kind], `${kind}-tiny`);
  for (const torrent of tiny) await client.add(torrent.bytes, { savePath: daemon.downloadDir, paused: true, skipCheck: false });
  return { daemon, fetch, client, identity: { type: kind as ClientKind, url: daemon.url }, tiny, later: tinyTorrents(10, `${kind}-later`) };
}

beforeAll(async () => {
  held.qbittorrent = await startHeld('qbittorrent');
  held.transmission = await startHeld('transmission');
  FOLDER = { alpha: torrentOn('alpha', content.folder).hash, beta: torrentOn('beta', content.folder).hash, mteam: hashOf('folder@m-team') };
  SINGLE = { alpha: torrentOn('alpha', content.single).hash, tjupt: hashOf('single@tjupt'), hdhome: hashOf('single@hdhome') };
  groups = [
    [
      { site: 'hdsky', torrent_id: 101, info_hash: FOLDER.alpha },
      { site: 'pthome', torrent_id: 201, info_hash: FOLDER.beta },
      { site: 'm-team', torrent_id: 301, info_hash: FOLDER.mteam },
    ],
    [
      { site: 'hdsky', torrent_id: 102, info_hash: SINGLE.alpha },
      { site: 'tjupt', torrent_id: 502, info_hash: SINGLE.tjupt },
      { site: 'hdhome', torrent_id: 702, info_hash: SINGLE.hdhome },
    ],
    ...groupsFor(held.qbittorrent.tiny, 0),
    ...groupsFor(held.qbittorrent.later, 1000),
    ...groupsFor(held.transmission.tiny, 2000),
    ...groupsFor(held.transmission.later, 3000),
  ];
  service = await startServiceWith(groups);
}, 180_000);

afterAll(async () => {
  await service?.close();
  await held.qbittorrent?.daemon.stop();
  await held.transmission?.daemon.stop();
}, 60_000);

beforeEach(() => {
  fakeBrowser.reset();
  service.control.reset();
  world = makeWorld(service);
});

async function open(which: Held, on = world): Promise<ClientIndex> {
  const index = await on.indexes.open(which.identity);
  if (!index) throw new Error('the index is off');
  return index;
}

/** Every record the index writes to IndexedDB from now on, by hash (undone after the test). */
let undoRecording: (() => void) | undefined;
/** The last recordWrites()'s writes by store (which part of each record). */
let writesByStore = new Map<string, string[]>();
function recordWrites(): string[] {
  const recording = recordIndexWrites();
  undoRecording = recording.undo;
  writesByStore = recording.byStore;
  return recording.written;
}
afterEach(() => {
  undoRecording?.();
  undoRecording = undefined;
});

/** Each indexed torrent as it is now, to tell which changed (a real daemon moves states on its own). */
function snapshot(index: ClientIndex, hashes: readonly string[]): Map<string, string> {
  return new Map(hashes.map((hash) => [hash, JSON.stringify(index.torrent(hash) ?? null)]));
}

function torrentsChanged(before: Map<string, string>, after: Map<string, string>): Set<string> {
  return new Set([...after].filter(([hash, value]) => before.get(hash) !== value).map(([hash]) => hash));
}

async function hashesIn(which: Held): Promise<string[]> {
  return (await which.client.list()).map((torrent) => torrent.hash).sort();
}

describe.each(['qbittorrent', 'transmission'] as const)('%s', (kind) => {
  const which = () => held[kind];

  it('the first sync sends every client hash once, in batches of at most 200, then one candidate per torrent held from one site only', LIVE, async () => {
    const index = await open(which());
    const inClient = await hashesIn(which());
    const report = await index.sync(which().client, world.lookup, QUICK);

    const lookups = lookupsSeen(service);
    const batches = Math.ceil(inClient.length / 200);
    const own = lookups.slice(0, batches);
    expect(own.flat().sort()).toEqual(inClient);
    expect(own.every((batch) => batch.length <= 200)).toBe(true);
    // Then the locate phase: candidates' hashes only, never a client hash again.
    const located = lookups.slice(batches).flat();
    expect(located.filter((hash) => inClient.includes(hash))).toEqual([]);
    // The single file (held from hdsky alone) and every tiny torrent with a copy; not the folder, held twice.
    const placedAlone = which().tiny.filter((torrent) => tinyPlaces.has(torrent.hash)).length + 1;
    expect(located).toHaveLength(placedAlone);
    expect(lookups.length).toBe(batches + Math.ceil(placedAlone / 200));
    expect(report).toMatchObject({ outcome: 'done', torrents: inClient.length, added: inClient.length, removed: 0, asked: inClient.length, locateAsked: placedAlone, located: placedAlone, requests: lookups.length });
    // The index keeps its own copy: none of it went into the answer cache of the user's browsing.
    expect((await world.lookup.cache.get([...inClient, ...located])).size).toBe(0);
  });

  it('answers a list page from the index: in the client, can cross-seed, and nothing for an incomplete source', LIVE, async () => {
    const index = await open(which());
    await index.sync(which().client, world.lookup, QUICK);
    const before = service.requests.length;
    const listed = new Map((await which().client.list()).map((torrent) => [torrent.hash, torrent]));

    // m-team carries the folder: cross-seed it from the client's complete copy, in its save path.
    const mteam = index.query(SITES['m-team'], ['301']).get('301');
    expect(mteam).toMatchObject({ kind: 'can-cross-seed', candidateHash: FOLDER.mteam, clientTorrent: { progress: 1, state: 'seeding', savePath: listed.get(FOLDER.alpha)!.savePath } });
    expect([FOLDER.alpha, FOLDER.beta]).toContain(mteam!.clientTorrent.hash);
    expect(index.query(SITES.tjupt, ['502']).get('502')).toMatchObject({ kind: 'can-cross-seed', candidateHash: SINGLE.tjupt, clientTorrent: { hash: SINGLE.alpha, name: content.single.name } });
    // The folder, held from hdsky and pthome: each answer placed the other.
    expect(index.query(SITES.hdsky, ['101']).get('101')).toMatchObject({ kind: 'in-client', clientTorrent: { hash: FOLDER.alpha } });
    expect(index.query(SITES.pthome, ['201']).get('201')).toMatchObject({ kind: 'in-client', clientTorrent: { hash: FOLDER.beta } });
    // The single file, held from hdsky alone: placed by asking for one of its candidates.
    expect(index.query(SITES.hdsky, ['102']).get('102')).toMatchObject({ kind: 'in-client', candidateHash: SINGLE.alpha });
    // Tiny torrents: in the client on hdsky; their data is not there, so pterclub's copies are not offered.
    const [tiny] = which().tiny.filter((torrent) => tinyPlaces.has(torrent.hash));
    const place = tinyPlaces.get(tiny!.hash)!;
    expect(listed.get(tiny!.hash)!.progress).toBeLessThan(1);
    expect(index.query(SITES.hdsky, [String(place.hdsky)]).get(String(place.hdsky))).toMatchObject({ kind: 'in-client', clientTorrent: { hash: tiny!.hash } });
    expect(index.query(SITES.pterclub, [String(place.pterclub)]).size).toBe(0);
    expect(index.status()).toMatchObject({ torrents: listed.size, answered: listed.size, waiting: 0, storage: 'ok', lastSync: { outcome: 'done', torrents: listed.size } });
    // All of it without a word to the service.
    expect(service.requests.length).toBe(before);
  });

  it('a second sync with no new torrent sends nothing and rewrites only the records of torrents that changed state', LIVE, async () => {
    const index = await open(which());
    await index.sync(which().client, world.lookup, QUICK);
    const hashes = await hashesIn(which());
    const before = service.requests.length;
    const states = snapshot(index, hashes);
    const writes = recordWrites();
    const report = await index.sync(which().client, world.lookup, QUICK);
    expect(service.requests.length).toBe(before);
    expect(report).toMatchObject({ outcome: 'done', asked: 0, locateAsked: 0, requests: 0, added: 0, removed: 0 });
    expect(new Set(writes)).toEqual(torrentsChanged(states, snapshot(index, hashes)));
  });

  it('reports its progress phase by phase, and the state shows the sync under way', LIVE, async () => {
    const index = await open(which());
    const seen: SyncProgress[] = [];
    const statuses: (SyncProgress | undefined)[] = [];
    await index.sync(which().client, world.lookup, {
      ...QUICK,
      onProgress: (progress) => {
        seen.push(progress);
        statuses.push(index.status().syncing);
      },
    });
    const total = (await hashesIn(which())).length;
    const phases = seen.map((progress) => progress.phase).filter((phase, i, all) => all[i - 1] !== phase);
    expect(phases).toEqual(['reading-client', 'asking', 'locating', 'done']);
    const asking = seen.filter((progress) => progress.phase === 'asking');
    expect(asking.map((progress) => progress.done)).toEqual([0, ...Array.from({ length: Math.ceil(total / 200) }, (_, i) => Math.min((i + 1) * 200, total))]);
    expect(asking.every((progress) => progress.total === total)).toBe(true);
    const requests = seen.map((progress) => progress.requests);
    expect(requests).toEqual([...requests].sort((a, b) => a - b));
    expect(requests.at(-1)).toBe(lookupsSeen(service).length);
    expect(statuses.at(-1)?.phase).toBe('done');
    expect(index.status().syncing).toBeUndefined();
  });

  it('turned off during a sync: stops at the next batch and nothing stays stored', LIVE, async () => {
    const index = await open(which());
    let deleting: Promise<void> | undefined;
    const sync = index.sync(which().client, world.lookup, {
      ...QUICK,
      batchSize: 5,
      onProgress: (progress) => {
        if (progress.phase === 'asking' && progress.done === 5 && !deleting) {
          world.settings = { ...world.settings, clientIndexEnabled: false };
          deleting = world.indexes.deleteAll();
        }
      },
    });
    await expect(sync).rejects.toMatchObject({ kind: 'disabled' });
    await deleting;
    expect(lookupsSeen(service)).toHaveLength(1);
    expect(await storedKeys()).toEqual([]);
    expect(await world.indexes.open(which().identity)).toBeUndefined();
  });

  it('10 new torrents: one request carrying just those 10, writing just their records; the next sync locates them in one more', LIVE, async () => {
    const index = await open(which());
    await index.sync(which().client, world.lookup, QUICK);
    for (const torrent of which().later) await which().client.add(torrent.bytes, { savePath: which().daemon.downloadDir, paused: true, skipCheck: false });
    const since = service.requests.length;
    const known = await hashesIn(which());
    const states = snapshot(index, known);
    const writes = recordWrites();
    const report = await index.sync(which().client, world.lookup, { ...QUICK, locate: false });
    const newHashes = which().later.map((torrent) => torrent.hash).sort();
    expect(lookupsSeen(service, since)).toEqual([newHashes]);
    expect(report).toMatchObject({ added: 10, asked: 10, locateAsked: 0 });
    // Their records, and those of torrents the daemon moved on meanwhile; no other.
    const expected = new Set([...newHashes, ...torrentsChanged(states, snapshot(index, known))]);
    expect(new Set(writes)).toEqual(expected);
    // What the client says of a new torrent is written once, at the listing; an answer that names no
    // place writes its answers part alone (one that names places, the whole record, which list pages read by place).
    const withoutPlaces = newHashes.filter((hash) => !tinyPlaces.has(hash));
    expect(withoutPlaces.length).toBeGreaterThan(0);
    expect(writesByStore.get('torrents')!.filter((hash) => withoutPlaces.includes(hash)).sort()).toEqual(withoutPlaces);
    expect(new Set(writesByStore.get('answers')!.filter((hash) => withoutPlaces.includes(hash)))).toEqual(new Set(withoutPlaces));

    const next = service.requests.length;
    await index.sync(which().client, world.lookup, QUICK);
    const located = lookupsSeen(service, next);
    expect(located).toHaveLength(1);
    expect(located[0]!.sort()).toEqual(which().later.flatMap((torrent) => (tinyPlaces.has(torrent.hash) ? [tinyPlaces.get(torrent.hash)!.copy] : [])).sort());
  });

  it('a torrent removed from the client leaves the index, with no request, and stays gone after a restart', LIVE, async () => {
    const index = await open(which());
    await index.sync(which().client, world.lookup, QUICK);
    const [gone] = which().tiny.filter((torrent) => tinyPlaces.has(torrent.hash)).slice(-1);
    const place = String(tinyPlaces.get(gone!.hash)!.hdsky);
    expect(index.query(SITES.hdsky, [place]).size).toBe(1);
    await removeFromDaemon(which().daemon, which().fetch, [gone!.hash]);
    const before = service.requests.length;
    const report = await index.sync(which().client, world.lookup, QUICK);
    expect(report).toMatchObject({ removed: 1, added: 0, asked: 0 });
    expect(service.requests.length).toBe(before);
    expect(index.query(SITES.hdsky, [place]).size).toBe(0);
    expect(index.torrent(gone!.hash)).toBeUndefined();
    const again = await open(which(), restart(world));
    expect(again.torrent(gone!.hash)).toBeUndefined();
    expect(again.query(SITES.hdsky, [place]).size).toBe(0);
    expect(again.status().torrents).toBe((await hashesIn(which())).length);
  });
});

describe('qBittorrent with 250+ torrents', () => {
  const which = () => held.qbittorrent;

  it('a cancelled sync stops after its batch; the next one asks only for the rest', LIVE, async () => {
    const index = await open(which());
    const inClient = await hashesIn(which());
    const controller = new AbortController();
    const report = await index.sync(which().client, world.lookup, {
      ...QUICK,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.phase === 'asking' && progress.done === 200) controller.abort();
      },
    });
    expect(report).toMatchObject({ outcome: 'cancelled', asked: 200 });
    expect(lookupsSeen(service)).toHaveLength(1);
    expect(index.status()).toMatchObject({ answered: 200, waiting: inClient.length - 200, lastSync: { outcome: 'cancelled' } });

    const rest = await index.sync(which().client, world.lookup, QUICK);
    expect(rest).toMatchObject({ outcome: 'done', asked: inClient.length - 200 });
    const own = lookupsSeen(service).flat().filter((hash) => inClient.includes(hash));
    expect(own.sort()).toEqual(inClient);
  });

  it('interrupted by a failing service, it goes on after a restart from what was stored: every hash answered once', LIVE, async () => {
    const index = await open(which());
    const inClient = await hashesIn(which());
    const sync = index.sync(which().client, world.lookup, {
      ...QUICK,
      onProgress: (progress) => {
        // The second batch meets a service that fails every try (the Lookup retries twice).
        if (progress.phase === 'asking' && progress.done === 200) service.control.forceStatus(500, 3, { path: '/reseed/index/index' });
      },
    });
    await expect(sync).rejects.toSatisfy((error) => error instanceof ServiceError && error.kind === 'server');
    expect(index.status().lastSync).toMatchObject({ outcome: 'failed', error: 'service:server' });
    const answeredFirst = lookupsSeen(service)[0]!;
    expect(answeredFirst).toHaveLength(200);

    // The service worker restarts: a new background lifetime reads the stored index.
    const since = service.requests.length;
    const later = restart(world);
    const resumed = await open(which(), later);
    expect(resumed.status()).toMatchObject({ answered: 200, lastSync: { outcome: 'failed', error: 'service:server' } });
    const report = await resumed.sync(which().client, later.lookup, QUICK);
    expect(report).toMatchObject({ outcome: 'done', asked: inClient.length - 200 });
    const afterRestart = lookupsSeen(service, since).flat();
    expect(afterRestart.filter((hash) => answeredFirst.includes(hash))).toEqual([]);
    expect([...answeredFirst, ...afterRestart.filter((hash) => inClient.includes(hash))].sort()).toEqual(inClient);
  });

  it("against the live service's untidy shapes and passing failures: the same index, and nothing asked twice", LIVE, async () => {
    // The two syncs must read the same client: torrents an earlier test added stopped may still be at
    // qBittorrent's first read of them ("checking"), and would be "paused" by the second sync.
    await until(() => held.qbittorrent.client.list(), (torrents) => torrents.every((torrent) => !CHECKING.has(torrent.state)), 'the client done with its first reads', 60_000);
    const strict = await open(held.qbittorrent);
    await strict.sync(held.qbittorrent.client, world.lookup, QUICK);
    const ids = [101, 102, 201, 301, 502, 702, ...[...tinyPlaces.values()].flatMap((place) => [place.hdsky, place.pterclub])];
    const expected = Object.values(SITES).map((sid) => strict.query(sid, ids));

    // Realistic shapes: PHP objects, string ids, a broken candidate in every list, and the first two lookups failing.
    const untidy = await startServiceWith(groups, { shapes: 'realistic' });
    try {
      fakeBrowser.reset();
      const there = makeWorld(untidy);
      const index = await open(held.qbittorrent, there);
      const report = await index.sync(held.qbittorrent.client, there.lookup, QUICK);
      expect(report).toMatchObject({ outcome: 'done', unanswered: 0 });
      expect(Object.values(SITES).map((sid) => index.query(sid, ids))).toEqual(expected);
      const before = untidy.requests.length;
      await index.sync(held.qbittorrent.client, there.lookup, QUICK);
      expect(untidy.requests.length).toBe(before);
    } finally {
      await untidy.close();
    }
  });

  it('a second call while a sync runs joins it', LIVE, async () => {
    const index = await open(which());
    const [first, second] = await Promise.all([index.sync(which().client, world.lookup, QUICK), index.sync(which().client, world.lookup, QUICK)]);
    expect(second).toBe(first);
    expect(lookupsSeen(service).flat().filter((hash) => hash === FOLDER.alpha)).toHaveLength(1);
  });

  it('needs a token: with only an App ID it refuses before reading the client or asking anything', LIVE, async () => {
    world.settings = { ...world.settings, token: '', appId: 'demo-app', secret: 'demo-secret' };
    const index = await open(which());
    const sent = which().fetch.sent.length;
    await expect(index.sync(which().client, world.lookup, QUICK)).rejects.toSatisfy((error) => error instanceof ClientIndexError && error.kind === 'needs-token');
    expect(service.requests).toHaveLength(0);
    expect(which().fetch.sent.length).toBe(sent);
  });

  it('keeps at most maxBytes, the complete ones first, and says how many it left out', LIVE, async () => {
    // Room for the complete torrents and as many more as 100 torrents' share of bytes allows.
    const listed = (await which().client.list()).map((torrent) => ({ ...torrent, hash: torrent.hash.toLowerCase(), progress: Math.floor(torrent.progress * 1000) / 1000 }));
    const ranked = [...listed].sort((a, b) => (a.progress >= 1 ? 0 : 1) - (b.progress >= 1 ? 0 : 1) || (a.hash < b.hash ? -1 : 1));
    const maxBytes = ranked.slice(0, 100).reduce((sum, torrent) => sum + bytesOfTorrent(torrent, undefined), 0);
    const bounded = makeWorld(service, { maxBytes });
    const index = await open(which(), bounded);
    const report = await index.sync(which().client, bounded.lookup, QUICK);
    const total = (await hashesIn(which())).length;
    expect(report).toMatchObject({ torrents: 100, leftOut: total - 100, asked: 100 });
    expect(MAX_INDEX_BYTES).toBeGreaterThan(maxBytes);
    expect(index.torrent(FOLDER.alpha)).toBeDefined();
    expect(index.status().lastSync?.leftOut).toBe(total - 100);
  });
});

describe('storage', () => {
  it('round trip: a restarted background answers the same from storage, with no request', LIVE, async () => {
    const index = await open(held.qbittorrent);
    await index.sync(held.qbittorrent.client, world.lookup, QUICK);
    const rows = (sid: number, ids: number[]) => index.query(sid, ids);
    const ids = [101, 102, 201, 301, 502, 702, ...[...tinyPlaces.values()].flatMap((place) => [place.hdsky, place.pterclub])];
    const expected = Object.values(SITES).map((sid) => rows(sid, ids));
    const status = index.status();
    const before = service.requests.length;

    const again = await open(held.qbittorrent, restart(world));
    expect(Object.values(SITES).map((sid) => again.query(sid, ids))).toEqual(expected);
    expect(again.status()).toEqual(status);
    expect(service.requests.length).toBe(before);
  });

  it('is compact: one IndexedDB record per torrent and nothing in storage.local, under 350 bytes a torrent besides its name and save path (key, numbers, answer, index entries)', LIVE, async () => {
    const index = await open(held.qbittorrent);
    await index.sync(held.qbittorrent.client, world.lookup, QUICK);
    const keys = await storedKeys();
    expect(keys).toContain('clientIndex');
    expect(keys).toHaveLength(index.status().torrents + 1);
    expect(Object.keys(await fakeBrowser.storage.local.get(null)).filter((key) => key.startsWith('clientIndex'))).toEqual([]);
    const listed = await held.qbittorrent.client.list();
    const texts = listed.reduce((sum, torrent) => sum + utf8Length(torrent.name) + utf8Length(torrent.savePath), 0);
    expect((index.storedBytes() - texts) / listed.length).toBeLessThan(350);
  });

  it('two clients are not mixed: each has its own index, kept side by side', LIVE, async () => {
    const qbit = await open(held.qbittorrent);
    await qbit.sync(held.qbittorrent.client, world.lookup, QUICK);
    const transmission = await open(held.transmission);
    // Every client takes part: opening another leaves the first one's open.
    expect(qbit.isClosed).toBe(false);
    await transmission.sync(held.transmission.client, world.lookup, QUICK);
    const qbitTiny = held.qbittorrent.tiny.find((torrent) => tinyPlaces.has(torrent.hash))!;
    const transmissionTiny = held.transmission.tiny.find((torrent) => tinyPlaces.has(torrent.hash))!;
    const qbitPlace = String(tinyPlaces.get(qbitTiny.hash)!.hdsky);
    const transmissionPlace = String(tinyPlaces.get(transmissionTiny.hash)!.hdsky);
    expect(transmission.query(SITES.hdsky, [qbitPlace, transmissionPlace])).toEqual(new Map([[transmissionPlace, expect.objectContaining({ kind: 'in-client' })]]));

    expect(qbit.query(SITES.hdsky, [qbitPlace, transmissionPlace])).toEqual(new Map([[qbitPlace, expect.objectContaining({ kind: 'in-client' })]]));
    // A client no longer saved is closed; opened again, its index is read back from storage.
    world.indexes.keepOnly([held.transmission.identity]);
    expect(qbit.isClosed).toBe(true);
    expect(transmission.isClosed).toBe(false);
    const before = service.requests.length;
    const qbitAgain = await open(held.qbittorrent);
    expect(qbitAgain.query(SITES.hdsky, [qbitPlace, transmissionPlace])).toEqual(new Map([[qbitPlace, expect.objectContaining({ kind: 'in-client' })]]));
    expect(qbitAgain.status().torrents).toBe((await hashesIn(held.qbittorrent)).length);
    expect(service.requests.length).toBe(before);
    // The same client under another spelling of its address is the same index.
    expect(await world.indexes.open({ ...held.qbittorrent.identity, url: `${held.qbittorrent.daemon.url}/` })).toBe(qbitAgain);
  });

  it('keeps at most maxClients indexes, dropping the least recently used; with no room left, those of clients not in use go', LIVE, async () => {
    const limited = makeWorld(service, { maxClients: 2 });
    const other: ClientIdentity = { type: 'qbittorrent', url: held.qbittorrent.daemon.url.replace('127.0.0.1', 'localhost') };
    for (const [identity, client] of [
      [held.qbittorrent.identity, held.qbittorrent.client],
      [held.transmission.identity, held.transmission.client],
      [other, held.qbittorrent.client],
    ] as const) {
      const index = (await limited.indexes.open(identity))!;
      await index.sync(client, limited.lookup, QUICK);
    }
    const meta = (await new IndexStore().readMeta()) as { clients: { url: string; slot: number }[] };
    expect(meta.clients.map((client) => client.url)).toEqual([held.transmission.identity.url, other.url]);
    expect((await storedKeys()).filter((key) => key.startsWith('clientIndex:0:'))).toEqual([]);

    // Both clients still in use keep theirs; once one is no longer saved, its goes.
    expect(await limited.indexes.dropOthers(2)).toBe(0);
    limited.indexes.keepOnly([other]);
    expect(await limited.indexes.dropOthers(2)).toBe(1);
    const slots = new Set((await storedKeys()).filter((key) => key !== 'clientIndex').map((key) => key.split(':')[1]));
    expect([...slots]).toEqual(['2']);
  });

  it('a record that does not read back is dropped alone: only its torrent is asked again', LIVE, async () => {
    const index = await open(held.qbittorrent);
    await index.sync(held.qbittorrent.client, world.lookup, QUICK);
    await putRawValue('torrents', { s: 0, h: packHash(FOLDER.alpha), t: 'not a row' });
    const since = service.requests.length;
    const later = restart(world);
    const again = await open(held.qbittorrent, later);
    await again.sync(held.qbittorrent.client, later.lookup, { ...QUICK, locate: false });
    expect(lookupsSeen(service, since)).toEqual([[FOLDER.alpha]]);
  });

  it('IndexedDB with no room: the indexes of clients no longer in use go, and the open one is stored', LIVE, async () => {
    const qbit = await open(held.qbittorrent);
    await qbit.sync(held.qbittorrent.client, world.lookup, QUICK);
    const transmission = await open(held.transmission);
    // qBittorrent removed from the user's clients (an index in use is never dropped for another's room).
    world.indexes.keepOnly([held.transmission.identity]);
    // The first write of Transmission's index finds no room; once qBittorrent's index is gone there is.
    const prototype = IDBObjectStore.prototype;
    const put = prototype.put;
    let refused = 0;
    prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
      if (INDEX_RECORD_STORES.includes(this.name) && !refused++) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return put.apply(this, args);
    };
    try {
      await transmission.sync(held.transmission.client, world.lookup, QUICK);
    } finally {
      prototype.put = put;
    }
    expect(refused).toBeGreaterThan(1);
    expect(transmission.status().storage).toBe('ok');
    expect((await storedKeys()).filter((key) => key.startsWith('clientIndex:0:'))).toEqual([]);
    const later = await open(held.transmission, restart(world));
    expect(later.status().answered).toBe(transmission.status().answered);
  });

  it('IndexedDB refusing every write (a full disk or quota): the index lives in memory, says so, and the settings still save', LIVE, async () => {
    const undo = refuseIndexWrites();
    try {
      const index = await open(held.qbittorrent);
      const report = await index.sync(held.qbittorrent.client, world.lookup, QUICK);
      expect(report.outcome).toBe('done');
      expect(index.status().storage).toBe('full');
      expect(index.query(SITES['m-team'], ['301']).get('301')?.kind).toBe('can-cross-seed');
      const settings = new SettingsStore(() => world.lookup.cache.shrink());
      await settings.save({ ...DEFAULT_SETTINGS, token: 'still-saved' });
      expect((await settings.get()).token).toBe('still-saved');
    } finally {
      undo();
    }
  });

  it('turning the index off deletes everything it stored; open() then gives nothing and deletes leftovers', LIVE, async () => {
    const index = await open(held.qbittorrent);
    await index.sync(held.qbittorrent.client, world.lookup, QUICK);
    expect((await storedKeys()).length).toBeGreaterThan(1);
    world.settings = { ...world.settings, clientIndexEnabled: false };
    expect(await world.indexes.open(held.qbittorrent.identity)).toBeUndefined();
    expect(await storedKeys()).toEqual([]);
    expect(index.query(SITES['m-team'], ['301']).size).toBe(0);
    // Leftovers another lifetime wrote (and an older version's keys in storage.local) are deleted by the next open() while off.
    const leftover = new IndexStore();
    await leftover.writeMeta({ v: 1, nextSlot: 1, clients: [] });
    await leftover.write(0, [{ record: encodeRecord(0, { torrent: { hash: FOLDER.alpha, name: 'x', savePath: '/x', state: 'seeding', progress: 1, size: 1 }, answer: { at: 0, times: 1, members: [] } })!, parts: TORRENT_PART | ANSWERS_PART }], []);
    await fakeBrowser.storage.local.set({ clientIndex: { v: 1, nextSlot: 1, clients: [] }, 'clientIndex:0:3': { v: 1, p: [], t: [] } });
    expect((await storedKeys()).length).toBe(4);
    expect(await restart(world).indexes.open(held.qbittorrent.identity)).toBeUndefined();
    expect(await storedKeys()).toEqual([]);
  });
});
