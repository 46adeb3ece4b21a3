/**
 * qBittorrent's one-click without the wait for its refresh (issue 33 item 13), on every qBittorrent
 * the tests run (bookworm's 4.5.2, today's 5.1 and 5.3): a copy added stopped is checked as soon as
 * qBittorrent lists it, while it still reads the add's resume data (qbittorrent.ts rechecksAtOnce),
 * and it stays as safe as when the check waited for the add to settle: a copy below 100 % is never
 * announced and never downloads a byte.
 *
 * Watched for real: the candidates' .torrent files announce to a tracker this file runs on loopback
 * (every announce recorded), which answers with a seeder holding their whole data
 * (test/clients/announce-watch.ts): a copy that ever ran below 100 % would be announced, get the
 * seeder, and download from it, and qBittorrent's own counters would show it. At the end, the
 * damaged copy is started by hand and does all three: the watch sees what it watches for.
 * Everything is ordered by one counter, never by a clock.
 *
 * A copy with NONE of its files on disk is another matter, the same with or without the wait: its
 * check finds nothing to read, so libtorrent never enters checking_files and qBittorrent's torrent
 * extension (which pauses a torrent leaving that state, before it can announce) does not pause it;
 * the recheck made it auto-managed, and libtorrent's auto-manager may start it (it announces, and
 * would download) before qBittorrent's main thread handles the check's end and its stop condition
 * stops it. Seen on 4.5.2 and 5.3 with a busy main thread, once the add had settled as well as
 * at once, and once here on a busy machine. It is qBittorrent's own way (the wait does not change
 * it), so no watch of that copy is asserted here; what the engine does with such a copy (left
 * stopped at 0 %, tagged) is tested.
 */
import { rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../utils/clients/index';
import type { TorrentClient, TorrentState } from '../../../utils/clients/client-types';
import { crossSeed, INCOMPLETE_TAG, SitePace, type CrossSeedEnvironment } from '../../../utils/cross-seed-engine';
import { CHECKING } from '../../../utils/cross-seed-engine/cross-seed';
import { startAnnounceWatch, type AnnounceWatch } from '../../clients/announce-watch';
import { buildRows, startClient, type RunningDaemon } from '../../clients/daemons';
import { nodeClientFetch } from '../../clients/node-fetch';
import type { ContentFile } from '../../clients/torrent-content';
import { until } from '../../e2e/support/wait';
import { startCrossSeedWorld, type CrossSeedPair, type CrossSeedWorld } from '../../e2e/support/cross-seed-world';

const LIVE = { timeout: 120_000 };

/** One call the engine made to the client, as the client object saw it, numbered on the watch's counter. */
interface Call {
  order: number;
  name: string;
  /** The torrent it names (lookup: every hash asked). */
  hashes: string[];
  /** add: whether it asked for the torrent stopped. */
  stopped?: boolean;
  /** lookup: the states it answered, by hash. */
  listed?: Record<string, TorrentState>;
}

/** `client` as the engine uses it, every call recorded in `calls`. */
function observed(client: TorrentClient, calls: Call[], next: () => number): TorrentClient {
  return new Proxy(client, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]) => {
        const call: Call = { order: next(), name: String(key), hashes: [] };
        calls.push(call);
        if (key === 'lookup') call.hashes = [...(args[0] as string[])];
        else if (typeof args[0] === 'string') call.hashes = [args[0]];
        if (key === 'add') call.stopped = (args[1] as { paused: boolean }).paused;
        const answer = await method.apply(target, args);
        if (key === 'add') call.hashes = [(answer as { hash: string }).hash];
        if (key === 'lookup') call.listed = Object.fromEntries([...(answer as Map<string, { state: TorrentState }>)].map(([hash, torrent]) => [hash, torrent.state]));
        return answer;
      };
    },
  });
}

/** The share of the data in pieces untouched by bytes `from`..`to` of the whole (what a check finds when only those are wrong). */
function shareOutside(files: ContentFile[], from: number, to: number, pieceLength = 16_384): number {
  const total = files.reduce((sum, file) => sum + file.size, 0);
  let valid = 0;
  for (let at = 0; at < total; at += pieceLength) {
    const end = Math.min(at + pieceLength, total);
    if (end <= from || at >= to) valid += end - at;
  }
  return valid / total;
}

/** What qBittorrent itself counts for a torrent: bytes downloaded, seeds and peers (connected, and as the tracker said). */
interface Counters {
  downloaded: number;
  totalDownloaded: number;
  numSeeds: number;
  numLeechs: number;
  seedsTotal: number;
  peersTotal: number;
}

describe.each(buildRows('qbittorrent'))('checked at once in %s: a copy short of its data is never announced and never downloads (live daemon, a tracker and a seeder on loopback)', (_label, build) => {
  let watch: AnnounceWatch;
  let daemon: RunningDaemon;
  let cs: CrossSeedWorld;
  const calls: Call[] = [];
  let client: TorrentClient;
  let env: (client?: TorrentClient) => CrossSeedEnvironment;
  let counters: (hash: string) => Promise<Counters>;

  beforeAll(async () => {
    watch = await startAnnounceWatch();
    daemon = await startClient(build);
    cs = await startCrossSeedWorld({ pairs: 4, candidateAnnounce: watch.announceUrl });
    for (const pair of cs.pairs) watch.seed(pair.candidate.hash, { savePath: '', name: pair.name, files: pair.files, single: false, seed: pair.seed });
    const clientFetch = nodeClientFetch({ origin: 'same' });
    client = observed(createClient(daemon.config, { fetch: clientFetch }), calls, watch.next);
    const siteFetch = cs.siteFetch();
    await cs.logIn(siteFetch, cs.candidate);
    for (let index = 0; index < cs.pairs.length; index++) await cs.seed(client, daemon.dataDir, index);
    env = (target = client) => ({ target: { client: target, skipCheckWhenFilesMatch: false, url: daemon.url }, sites: cs.siteSettings(), fetch: siteFetch, pace: new SitePace() });
    // The client's own counters, read through the same session.
    const read = async <T>(path: string): Promise<T> => JSON.parse(await (await clientFetch(`${daemon.url}/api/v2/${path}`)).text()) as T;
    counters = async (hash) => {
      const [info] = await read<{ downloaded: number; num_seeds: number; num_leechs: number }[]>(`torrents/info?hashes=${hash}`);
      const properties = await read<{ total_downloaded: number; seeds_total: number; peers_total: number }>(`torrents/properties?hash=${hash}`);
      return { downloaded: info!.downloaded, totalDownloaded: properties.total_downloaded, numSeeds: info!.num_seeds, numLeechs: info!.num_leechs, seedsTotal: properties.seeds_total, peersTotal: properties.peers_total };
    };
  }, 180_000);

  afterAll(async () => {
    await cs?.close();
    await daemon?.stop();
    await watch?.close();
  }, 30_000);

  /** The engine's calls about `hash` from its add on. */
  const callsOf = (hash: string) => {
    const about = calls.filter((call) => call.hashes.includes(hash));
    return about.slice(about.findIndex((call) => call.name === 'add'));
  };
  /** The add, and what came between it and the check asked for: the lookups that listed the copy before the recheck. */
  const untilRecheck = (hash: string) => {
    const about = callsOf(hash);
    const recheck = about.findIndex((call) => call.name === 'recheck');
    return { add: about[0]!, recheck: about[recheck], listings: about.slice(1, recheck).filter((call) => call.listed?.[hash] !== undefined) };
  };
  const damagedFile = (pair: CrossSeedPair) => join(daemon.dataDir, pair.name, pair.files[1]!.path);

  it('says it takes the check at once (4.5 and later)', LIVE, async () => {
    expect(await client.rechecksAtOnce!()).toBe(true);
  });

  it('a complete copy: added stopped, its check asked as soon as qBittorrent lists it, started at 100 %, and announced only once started', LIVE, async () => {
    const pair = cs.pairs[0]!;
    const hash = pair.candidate.hash;
    const result = await crossSeed(pair.source.hash, pair.ref, env());
    expect(result).toMatchObject({ kind: 'added', hash, checked: true, progress: 1 });
    const { add, recheck, listings } = untilRecheck(hash);
    expect(add).toMatchObject({ name: 'add', stopped: true });
    // The first reading that listed it is the last before the check: no wait for qBittorrent's refresh.
    expect(listings).toHaveLength(1);
    expect(recheck).toBeDefined();
    const start = callsOf(hash).find((call) => call.name === 'start')!;
    expect(start.order).toBeGreaterThan(recheck!.order);
    // Running complete, it announces (the tracker works), and never before it was started.
    await until(async () => watch.announcesOf(hash), (seen) => seen.length > 0, 'the started copy announced', 60_000);
    for (const announce of watch.announcesOf(hash)) expect(announce).toMatchObject({ left: 0 });
    expect(Math.min(...watch.announcesOf(hash).map((announce) => announce.order))).toBeGreaterThan(start.order);
  });

  it('a damaged copy (a file cut short on disk): checked at once, left stopped and tagged at the share found, never started', LIVE, async () => {
    const pair = cs.pairs[1]!;
    const hash = pair.candidate.hash;
    // The data changed on disk after the source was checked (the client still says 100 %): the second file lost its second half.
    const file = pair.files[1]!;
    const kept = Math.floor(file.size / 2);
    truncateSync(damagedFile(pair), kept);
    const result = await crossSeed(pair.source.hash, pair.ref, env());
    const cut = pair.files[0]!.size + kept;
    const found = shareOutside(pair.files, cut, pair.files[0]!.size + file.size);
    expect(result).toMatchObject({ kind: 'left-stopped', hash, checkFinished: true, tagged: true });
    expect(result.kind === 'left-stopped' && result.progress).toBeCloseTo(found, 3);
    expect(untilRecheck(hash)).toMatchObject({ add: { stopped: true }, listings: [expect.anything()] });
    expect(callsOf(hash).filter((call) => call.name === 'start')).toEqual([]);
    const held = (await client.lookup([hash])).get(hash)!;
    expect(held.state).toBe('paused');
    expect(held.tags).toContain(INCOMPLETE_TAG);
  });

  it('a missing copy (none of its files on disk): checked at once, left stopped and tagged at 0 %, never started by the engine', LIVE, async () => {
    const pair = cs.pairs[2]!;
    const hash = pair.candidate.hash;
    rmSync(join(daemon.dataDir, pair.name), { recursive: true });
    const result = await crossSeed(pair.source.hash, pair.ref, env());
    expect(result).toMatchObject({ kind: 'left-stopped', hash, checkFinished: true, tagged: true, progress: 0 });
    expect(untilRecheck(hash)).toMatchObject({ add: { stopped: true }, listings: [expect.anything()] });
    expect(callsOf(hash).filter((call) => call.name === 'start')).toEqual([]);
    const held = (await client.lookup([hash])).get(hash)!;
    expect(held).toMatchObject({ state: 'paused', progress: 0 });
    expect(held.tags).toContain(INCOMPLETE_TAG);
  });

  it('a qBittorrent before 4.5 (app/version 4.4.5) is let settle the add before its check, as always', LIVE, async () => {
    const pair = cs.pairs[3]!;
    const hash = pair.candidate.hash;
    // The same daemon, said to be 4.4.5: only the version answer differs.
    const inner = nodeClientFetch({ origin: 'same' });
    const older: typeof fetch = async (input, init) =>
      String(input instanceof Request ? input.url : input).endsWith('/api/v2/app/version') ? new Response('v4.4.5', { status: 200 }) : inner(input, init);
    const old = observed(createClient(daemon.config, { fetch: older }), calls, watch.next);
    expect(await old.rechecksAtOnce!()).toBe(false);
    expect(await crossSeed(pair.source.hash, pair.ref, env(old))).toMatchObject({ kind: 'added', hash, checked: true, progress: 1 });
    const { add, recheck, listings } = untilRecheck(hash);
    expect(add).toMatchObject({ stopped: true });
    expect(recheck).toBeDefined();
    // It was asked for once a reading showed the add out of qBittorrent's checking states.
    expect(CHECKING.has(listings.at(-1)!.listed![hash]!)).toBe(false);
  });

  const none: Counters = { downloaded: 0, totalDownloaded: 0, numSeeds: 0, numLeechs: 0, seedsTotal: 0, peersTotal: 0 };

  it('the damaged copy was never announced, given a peer or counted a byte; started by hand, it is announced, gets the seeder and downloads', LIVE, async () => {
    const damaged = cs.pairs[1]!.candidate.hash;
    expect(watch.announcesOf(damaged)).toEqual([]);
    expect(watch.visitsOf(damaged)).toEqual([]);
    expect(await counters(damaged)).toEqual(none);
    // The watch sees what it watches for: the damaged copy, started by hand below 100 %.
    const started = watch.next();
    await client.start(damaged);
    await until(() => counters(damaged), (seen) => seen.totalDownloaded > 0, 'the damaged copy downloading from the seeder', 60_000);
    expect(Math.min(...watch.announcesOf(damaged).map((announce) => announce.order))).toBeGreaterThan(started);
    expect(watch.announcesOf(damaged)[0]!.left).toBeGreaterThan(0);
    expect(watch.visitsOf(damaged).reduce((sum, visit) => sum + visit.served, 0)).toBeGreaterThan(0);
    await client.stop(damaged);
  });
});
