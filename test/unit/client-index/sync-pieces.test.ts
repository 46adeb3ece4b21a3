/**
 * A sync with the second source (issue 18, `options.pieces`): pieces hashes read once, each site
 * switched on asked one after another (the real askSite against test NexusPHP sites behind the e2e
 * router, or a hand step where ordering or a cancel is the point), answers stored batch by batch,
 * and the service asked only with a token (the reference service over HTTP counts its requests).
 *
 * The sync's target is a hand SyncTarget over a real IndexModel, recording what each flush stored;
 * the client is one that lists fixed torrents (a sync reads only its list: the pieces hashes come
 * through the step, whose reading from qBittorrent is the background feature's).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { ClientTorrent, TorrentClient } from '../../../utils/clients/client-types';
import type { LastSync } from '../../../utils/client-index/codec';
import { IndexModel, UNBOUNDED } from '../../../utils/client-index/model';
import { ClientIndexError, syncIndex, type PiecesSite, type PiecesSiteEnd, type PiecesStep, type SyncOptions, type SyncProgress, type SyncReport, type SyncTarget } from '../../../utils/client-index/sync';
import { askSite } from '../../../utils/pieces-hash/ask-site';
import { proxiedFetch } from '../../clients/proxy-fetch';
import { startRouter, type Router } from '../../e2e/harness/index.ts';
import { PiecesHashSite } from '../../e2e/support/pieces-hash-site';
import type { ReferenceService } from '../../service/server';
import { QBITTORRENT, SITES, hashOf, makeWorld, restart, startServiceWith, type World } from './support';

const T0 = 1_700_000_000_000;

function torrent(label: string, extra: Partial<ClientTorrent> = {}): ClientTorrent {
  return { hash: hashOf(label), name: label, savePath: '/data', size: 1_000, state: 'seeding', progress: 1, ...extra };
}
const piecesOf = (hash: string) => hashOf(`pieces of ${hash}`);

/** A client as a sync sees it: its list (a sync asks nothing else of it). */
function listing(torrents: readonly ClientTorrent[]): TorrentClient & { lists: number } {
  const client = {
    kind: 'qbittorrent',
    lists: 0,
    async list() {
      client.lists++;
      return torrents.map((entry) => ({ ...entry }));
    },
  };
  return client as unknown as TorrentClient & { lists: number };
}

/** A SyncTarget over a real model, recording every flush (what was stored, and how many records had that site's answer then). */
interface Recorded extends SyncTarget {
  flushes: string[][];
  progressSeen: SyncProgress[];
  finishedWith: LastSync[];
  /** Per flush: records holding an answer of each site. */
  foundAtFlush: Map<number, number>[];
  open: boolean;
}

function target(world: World, model = new IndexModel(), now = () => T0): Recorded {
  let pending: string[] = [];
  const recorded: Recorded = {
    model,
    now,
    settings: async () => world.settings,
    bound: UNBOUNDED,
    open: true,
    isOpen: () => recorded.open,
    changed: (hashes) => void pending.push(...hashes),
    flush: async () => {
      recorded.flushes.push(pending);
      pending = [];
      const counts = new Map<number, number>();
      for (const record of model.records.values()) for (const found of record.found ?? []) counts.set(found.sid, (counts.get(found.sid) ?? 0) + 1);
      recorded.foundAtFlush.push(counts);
    },
    progress: (progress) => void recorded.progressSeen.push(progress),
    finished: async (lastSync) => void recorded.finishedWith.push(lastSync),
    flushes: [],
    progressSeen: [],
    finishedWith: [],
    foundAtFlush: [],
  };
  return recorded;
}

let service: ReferenceService;
let router: Router;
let siteFetch: typeof fetch;

const GROUPED = torrent('grouped');
beforeAll(async () => {
  service = await startServiceWith([
    [
      { site: 'hdsky', torrent_id: 11, info_hash: GROUPED.hash },
      { site: 'm-team', torrent_id: 31, info_hash: hashOf('grouped@m-team') },
    ],
  ]);
  router = await startRouter();
  siteFetch = proxiedFetch(router.port);
});
afterAll(async () => {
  await service?.close();
  await router?.close();
});

let world: World;
let hostSeq = 0;
beforeEach(() => {
  fakeBrowser.reset();
  service.control.reset();
  world = makeWorld(service, {}, { token: '' });
});

/** A test NexusPHP site on a host of its own, serving as pieces-hash site `sid`. */
function nexus(sid: number): { site: PiecesHashSite; as: PiecesSite } {
  const site = new PiecesHashSite(`pieces-sync-${++hostSeq}.test`);
  router.setHost(site.host, site.handle);
  return { site, as: { sid, endpoint: site.endpoint, passkey: site.passkey } };
}

/** The step the background builds, over askSite (no pace: the pace is askSite's own tests'), reading pieces from `pieces`. */
function realStep(sites: PiecesSite[], pieces: Map<string, { hash: string; fromSid?: number } | { skipped: string }>, reads: string[] = []): PiecesStep {
  return {
    sites,
    read: async (hash) => {
      reads.push(hash);
      return pieces.get(hash) ?? { skipped: 'no metadata' };
    },
    ask: async (site, hashes, onBatch, signal) => {
      const end = await askSite({ endpoint: site.endpoint, passkey: site.passkey, hashes }, { fetch: siteFetch, paceMs: 0, signal, onBatch });
      const result: PiecesSiteEnd = { kind: end.kind, requests: end.requests, asked: end.asked, found: end.found };
      if (end.kind === 'stopped') result.answer = { kind: end.answer.kind };
      return result;
    },
  };
}

const piecesMap = (torrents: readonly ClientTorrent[]) => new Map(torrents.map((entry) => [entry.hash, { hash: piecesOf(entry.hash) }]));
const serviceRequests = () => service.requests.filter((request) => request.path.startsWith('/reseed') || request.path.startsWith('/api'));

describe('a sync with sites asked by pieces hash', () => {
  const CLIENT = [torrent('film'), torrent('song'), torrent('draft', { state: 'downloading', progress: 0.2 }), GROUPED];

  it('without a token: the service is never asked; every pieces hash read once, the site asked for the complete ones, its places in the index', async () => {
    const { site, as } = nexus(SITES.pterclub);
    site.list(piecesOf(hashOf('film')), 900);
    const reads: string[] = [];
    const step = realStep([as], piecesMap(CLIENT), reads);
    const t = target(world);
    const report = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: step, pauseMs: 0 });

    expect(serviceRequests()).toEqual([]);
    expect(reads.sort()).toEqual(CLIENT.map((entry) => entry.hash).sort());
    expect(site.requests.map((request) => request.asked)).toEqual([3]); // film, song, grouped: not the draft
    expect(report).toMatchObject({ outcome: 'done', torrents: 4, asked: 0, requests: 0, pieces: { read: 4, skipped: 0, sites: [{ sid: SITES.pterclub, kind: 'done', requests: 1, asked: 3, found: 1 }] } });
    expect(t.model.query(SITES.pterclub, [900]).get('900')).toMatchObject({ kind: 'can-cross-seed', candidateHash: '', candidatePieces: piecesOf(hashOf('film')), foundBy: 'pieces' });
    expect(t.finishedWith).toEqual([expect.objectContaining({ outcome: 'done', asked: 0, requests: 0 })]);

    // The next sync reads nothing and asks nothing (answered this week).
    const again = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: step, pauseMs: 0 });
    expect(reads).toHaveLength(4);
    expect(site.requests).toHaveLength(1);
    expect(again.pieces).toEqual({ read: 0, skipped: 0, sites: [{ sid: SITES.pterclub, kind: 'done', requests: 0, asked: 0, found: 0 }] });
    expect(serviceRequests()).toEqual([]);
  });

  it('a torrent skipped (no metadata yet) is read again next sync, and only it', async () => {
    const { as } = nexus(SITES.pterclub);
    const pieces = new Map<string, { hash: string } | { skipped: string }>(piecesMap(CLIENT));
    pieces.set(hashOf('song'), { skipped: 'no metadata' });
    const reads: string[] = [];
    const t = target(world);
    const first = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: realStep([as], pieces, reads), pauseMs: 0 });
    expect(first.pieces).toMatchObject({ read: 3, skipped: 1 });
    reads.length = 0;
    pieces.set(hashOf('song'), { hash: piecesOf(hashOf('song')) });
    const second = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: realStep([as], pieces, reads), pauseMs: 0 });
    expect(reads).toEqual([hashOf('song')]);
    expect(second.pieces).toMatchObject({ read: 1, skipped: 0, sites: [{ kind: 'done', asked: 1 }] });
  });

  it('sites one after another in order; a stopped site (wrong passkey) does not stop the next; progress says which site', async () => {
    const first = nexus(SITES.pterclub);
    const second = nexus(SITES.hdhome);
    second.site.list(piecesOf(hashOf('song')), 55);
    const wrong = { ...first.as, passkey: 'f'.repeat(32) };
    const t = target(world);
    const report = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: realStep([wrong, second.as], piecesMap(CLIENT)), pauseMs: 0 });
    expect(report.outcome).toBe('done');
    expect(report.pieces!.sites).toEqual([
      { sid: SITES.pterclub, kind: 'stopped', requests: 1, asked: 0, found: 0, answer: { kind: 'wrong-passkey' } },
      { sid: SITES.hdhome, kind: 'done', requests: 1, asked: 3, found: 1 },
    ]);
    // The first site's only request came before the second's.
    const hosts = router.requests.filter((request) => [first.site.host, second.site.host].includes(request.host)).map((request) => request.host);
    expect(hosts).toEqual([first.site.host, second.site.host]);
    expect(t.model.query(SITES.hdhome, [55]).get('55')?.kind).toBe('can-cross-seed');

    const phases = t.progressSeen.map((progress) => `${progress.phase}${progress.sid === undefined ? '' : `:${progress.sid}`}`);
    const distinct = phases.filter((phase, index) => phase !== phases[index - 1]);
    expect(distinct).toEqual(['reading-client', 'reading-pieces', `asking-sites:${SITES.pterclub}`, `asking-sites:${SITES.hdhome}`, 'done']);
    expect(t.progressSeen.filter((progress) => progress.phase === 'reading-pieces').at(-1)).toMatchObject({ done: 4, total: 4 });
    expect(t.progressSeen.filter((progress) => progress.sid === SITES.hdhome).at(-1)).toMatchObject({ done: 3, total: 3 });
  });

  it('each batch of a site is stored as it comes (150 hashes: a flush after 100, another after 150)', async () => {
    const many = Array.from({ length: 150 }, (_, index) => torrent(`many ${index}`));
    const { site, as } = nexus(SITES.pterclub);
    for (const [index, entry] of many.entries()) if (index % 10 === 0) site.list(piecesOf(entry.hash), 1000 + index);
    const t = target(world);
    const report = await syncIndex(t, listing(many), world.lookup, { pieces: realStep([as], piecesMap(many)), pauseMs: 0 });
    expect(site.requests.map((request) => request.asked)).toEqual([100, 50]);
    expect(report.pieces!.sites).toEqual([{ sid: SITES.pterclub, kind: 'done', requests: 2, asked: 150, found: 15 }]);
    const stored = t.foundAtFlush.map((counts) => counts.get(SITES.pterclub) ?? 0);
    // The reading: two flushes (100, then 50) with no answer yet; then one per batch.
    expect(stored).toEqual([0, 0, 0, 100, 150]);
    expect(t.flushes.at(-2)).toHaveLength(100);
    expect(t.flushes.at(-1)).toHaveLength(50);
    expect(t.flushes.slice(1, 3).map((flush) => flush.length)).toEqual([100, 50]);
  });

  it('with a token: the service is asked first, then the sites; both sources in one index', async () => {
    world.settings = { ...world.settings, token: makeWorld(service).settings.token };
    const { site, as } = nexus(SITES.pterclub);
    site.list(piecesOf(GROUPED.hash), 905);
    const t = target(world);
    const report = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: realStep([as], piecesMap(CLIENT)), pauseMs: 0 });
    expect(report.asked).toBe(4);
    expect(serviceRequests().length).toBeGreaterThan(0);
    expect(report.pieces!.sites[0]).toMatchObject({ kind: 'done', found: 1 });
    expect(t.model.query(SITES['m-team'], [31]).get('31')).toMatchObject({ kind: 'can-cross-seed', foundBy: 'iyuu' });
    expect(t.model.query(SITES.pterclub, [905]).get('905')).toMatchObject({ kind: 'can-cross-seed', foundBy: 'pieces' });
    const phases = [...new Set(t.progressSeen.map((progress) => progress.phase))];
    expect(phases.indexOf('asking')).toBeLessThan(phases.indexOf('reading-pieces'));
    expect(phases.indexOf('asking-sites')).toBeLessThan(phases.indexOf('done'));
  });

  it('no token and no step (or a step with no site): needs-token, before the client is read or anything asked', async () => {
    for (const options of [{}, { pieces: realStep([], piecesMap(CLIENT)) }] as SyncOptions[]) {
      const client = listing(CLIENT);
      const t = target(world);
      const failure = await syncIndex(t, client, world.lookup, { ...options, pauseMs: 0 }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ClientIndexError);
      expect((failure as ClientIndexError).kind).toBe('needs-token');
      expect(client.lists).toBe(0);
      expect(t.finishedWith).toEqual([expect.objectContaining({ outcome: 'failed', error: 'index:needs-token' })]);
    }
    expect(serviceRequests()).toEqual([]);
  });
});

describe('cancelling and stopping (a hand step)', () => {
  const CLIENT = [torrent('a'), torrent('b'), torrent('c')];

  /** A step recording its calls in order; `onAsk` may act during a site's asking. */
  function handStep(sites: number[], onAsk?: (sid: number) => PiecesSiteEnd | undefined, onRead?: (hash: string) => void) {
    const calls: string[] = [];
    const step: PiecesStep = {
      sites: sites.map((sid) => ({ sid, endpoint: `https://site-${sid}.test/api/pieces-hash`, passkey: 'p'.repeat(32) })),
      read: async (hash) => {
        calls.push(`read ${hash}`);
        onRead?.(hash);
        return { hash: piecesOf(hash) };
      },
      ask: async (site, hashes, onBatch) => {
        calls.push(`ask ${site.sid}`);
        const end = onAsk?.(site.sid);
        if (end) return end;
        await onBatch({ asked: hashes, ids: new Map() });
        return { kind: 'done', requests: 1, asked: hashes.length, found: 0 };
      },
    };
    return { step, calls };
  }

  it('cancelled during a site: the next site is not asked, the sync ends cancelled, what was answered is kept', async () => {
    const controller = new AbortController();
    const { step, calls } = handStep([1, 2, 3], (sid) => {
      if (sid !== 2) return undefined;
      controller.abort();
      return { kind: 'cancelled', requests: 0, asked: 0, found: 0 };
    });
    const t = target(world);
    const report = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: step, signal: controller.signal, pauseMs: 0 });
    expect(calls.filter((call) => call.startsWith('ask'))).toEqual(['ask 1', 'ask 2']);
    expect(report.outcome).toBe('cancelled');
    expect(report.pieces!.sites.map((site) => [site.sid, site.kind])).toEqual([
      [1, 'done'],
      [2, 'cancelled'],
    ]);
    expect(t.finishedWith).toEqual([expect.objectContaining({ outcome: 'cancelled' })]);
    // Site 1's answers were stored.
    expect(t.foundAtFlush.at(-1)!.get(1)).toBe(3);
  });

  it('cancelled while reading pieces: no more reads, no site asked; the reads made are kept and not made again', async () => {
    const controller = new AbortController();
    const { step, calls } = handStep([1], undefined, () => controller.abort());
    const t = target(world);
    const report = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: step, signal: controller.signal, pauseMs: 0 });
    expect(report.outcome).toBe('cancelled');
    expect(calls).toHaveLength(1);
    expect(report.pieces).toEqual({ read: 1, skipped: 0, sites: [] });
    const next = handStep([1]);
    await syncIndex(t, listing(CLIENT), world.lookup, { pieces: next.step, pauseMs: 0 });
    expect(next.calls.filter((call) => call.startsWith('read')).sort()).toEqual(CLIENT.map((entry) => `read ${entry.hash}`).filter((call) => call !== calls[0]).sort());
  });

  it('the index turned off during a site: disabled, and the sites after it are not asked', async () => {
    const { step, calls } = handStep([1, 2], (sid) => {
      if (sid === 1) world.settings = { ...world.settings, clientIndexEnabled: false };
      return undefined;
    });
    const t = target(world);
    const failure = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: step, pauseMs: 0 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClientIndexError);
    expect((failure as ClientIndexError).kind).toBe('disabled');
    expect(calls.filter((call) => call.startsWith('ask'))).toEqual(['ask 1']);
  });

  it('the client failing during the reading: the sync fails with its error, and the pieces hashes read before are marked to be stored', async () => {
    const reads: string[] = [];
    const step: PiecesStep = {
      sites: [{ sid: 1, endpoint: 'https://site-1.test/api/pieces-hash', passkey: 'p'.repeat(32) }],
      read: async (hash) => {
        if (reads.length === 2) throw new Error('qBittorrent went away');
        reads.push(hash);
        return { hash: piecesOf(hash) };
      },
      ask: async () => {
        throw new Error('not reached');
      },
    };
    const marked: string[] = [];
    // Torrents the index already holds (a sync before the site was switched on): the list changes nothing.
    const model = new IndexModel();
    model.applyClientList(CLIENT, UNBOUNDED);
    const t = target(world, model);
    const changed = t.changed;
    t.changed = (hashes, what) => {
      marked.push(...hashes);
      changed(hashes, what);
    };
    await expect(syncIndex(t, listing(CLIENT), world.lookup, { pieces: step, pauseMs: 0 })).rejects.toThrow('qBittorrent went away');
    expect(t.finishedWith).toEqual([expect.objectContaining({ outcome: 'failed', error: 'unknown' })]);
    expect(reads).toHaveLength(2);
    // Both reads are in the model, and marked changed (the next flush stores them: they are not read again).
    for (const hash of reads) expect(t.model.records.get(hash)!.pieces).toEqual({ hash: piecesOf(hash) });
    expect(marked).toEqual(expect.arrayContaining(reads));
  });

  it("a content answered by one site this week is not asked of it again, but still of a site that has not answered", async () => {
    const { step, calls } = handStep([1, 2]);
    const t = target(world);
    await syncIndex(t, listing(CLIENT), world.lookup, { pieces: step, pauseMs: 0 });
    calls.length = 0;
    // Site 2's answers are forgotten (switched off and on again): only it is asked.
    t.model.forgetFound(2);
    const report: SyncReport = await syncIndex(t, listing(CLIENT), world.lookup, { pieces: step, pauseMs: 0 });
    expect(calls).toEqual(['ask 2']);
    expect(report.pieces!.sites).toEqual([
      { sid: 1, kind: 'done', requests: 0, asked: 0, found: 0 },
      { sid: 2, kind: 'done', requests: 1, asked: 3, found: 0 },
    ]);
  });
});

describe('stored and read back (IndexedDB)', () => {
  it('a restarted background answers list rows with pieces places the same: from the store before the index loads, and once loaded', async () => {
    const FILM_HDSKY = torrent('film@hdsky', { state: 'paused' });
    const FILM_PRIVATE = torrent('film@private');
    const SONG = torrent('song@private');
    const client = [FILM_HDSKY, FILM_PRIVATE, SONG];
    const film = piecesOf(FILM_HDSKY.hash);
    const pieces = new Map<string, { hash: string; fromSid?: number }>([
      [FILM_HDSKY.hash, { hash: film, fromSid: SITES.hdsky }],
      [FILM_PRIVATE.hash, { hash: film }],
      [SONG.hash, { hash: piecesOf(SONG.hash) }],
    ]);
    const hdsky = nexus(SITES.hdsky);
    hdsky.site.list(film, 101);
    const pter = nexus(SITES.pterclub);
    pter.site.list(film, 900);
    pter.site.list(piecesOf(SONG.hash), 901);

    const index = (await world.indexes.open(QBITTORRENT))!;
    await index.sync(listing(client), world.lookup, { pieces: realStep([hdsky.as, pter.as], pieces), pauseMs: 0 });
    const asked = [
      [SITES.hdsky, [101, 102]],
      [SITES.pterclub, [900, 901, 902]],
    ] as const;
    const expected = asked.map(([sid, ids]) => index.query(sid, ids));
    expect(expected[0]!.get('101')).toMatchObject({ kind: 'in-client', candidateHash: FILM_HDSKY.hash, foundBy: 'pieces' });
    expect(expected[1]!.get('900')).toMatchObject({ kind: 'can-cross-seed', candidateHash: '', candidatePieces: film, clientTorrent: { hash: FILM_PRIVATE.hash } });
    expect(expected[1]!.get('901')).toMatchObject({ kind: 'can-cross-seed', clientTorrent: { hash: SONG.hash } });

    // A restarted service worker: the first list page is answered from IndexedDB.
    const again = restart(world);
    for (const [i, [sid, ids]] of asked.entries()) {
      const fromStore = await again.indexes.rows(QBITTORRENT, sid, ids);
      expect(fromStore, `site ${sid} from the store`).toEqual({ matches: expected[i], answered: true });
    }
    const loaded = (await again.indexes.open(QBITTORRENT))!;
    expect(asked.map(([sid, ids]) => loaded.query(sid, ids))).toEqual(expected);
    expect(serviceRequests()).toEqual([]);
  });
});
