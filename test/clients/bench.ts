/**
 * Client figures for issue #9's bench (the lead wires them into bench/):
 * - "In your client": lookup() of 1 hash (a details page) and of 100 hashes (a list page) on a
 *   qBittorrent holding 5,000 torrents, warm session: median ms and requests to the client;
 * - list() of those 5,000 (the background's index);
 * - click → present: add() of a cross-seed until lookup() sees it, qBittorrent and Transmission;
 * - the whole click (issue #9 item 6): crossSeed() from the click to the torrent present in the
 *   client — the page's torrent looked up, the candidate's .torrent downloaded from its test
 *   tracker through the e2e router with the session, its hash and files checked, added, read back.
 *
 *   npx tsx test/clients/bench.ts
 */
import { fileURLToPath } from 'node:url';
import { createClient } from '../../utils/clients/index';
import { clientOriginRule } from '../../utils/clients/csrf';
import { crossSeed, SitePace } from '../../utils/cross-seed-engine';
import { startCrossSeedWorld } from '../e2e/support/cross-seed-world';
import { waitFor } from '../e2e/support/wait';
import type { ClientKind, TorrentClient } from '../../utils/clients/client-types';
import { tinyTorrents, torrentOn, writeFolder, writeSingleFile, type MadeTorrent } from './torrent-content';
import { startQbittorrent, startTransmission, type RunningDaemon } from './daemons';
import { nodeClientFetch, type JarFetch } from './node-fetch';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  budget?: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Adds torrents to qBittorrent 100 files per request (setting up the bench, not measured). */
async function bulkAddQbittorrent(daemon: RunningDaemon, fetch: JarFetch, torrents: MadeTorrent[]): Promise<void> {
  for (let start = 0; start < torrents.length; start += 100) {
    const form = new FormData();
    for (const torrent of torrents.slice(start, start + 100)) {
      form.append('torrents', new Blob([new Uint8Array(torrent.bytes)]), `${torrent.hash}.torrent`);
    }
    form.append('savepath', daemon.downloadDir);
    form.append('paused', 'true');
    form.append('skip_checking', 'true');
    const answer = await fetch(`${daemon.url}/api/v2/torrents/add`, { method: 'POST', body: form });
    if ((await answer.text()).trim() !== 'Ok.') throw new Error(`bulk add answered ${answer.status}`);
  }
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}

/**
 * A qBittorrent holding `count` tiny torrents (added 100 per request, paused, unchecked), once it
 * lists them all. The caller stops the daemon.
 */
export async function qbittorrentHolding(count: number): Promise<{ daemon: RunningDaemon; torrents: MadeTorrent[] }> {
  const daemon = await startQbittorrent();
  try {
    const fetch = nodeClientFetch({ origin: 'same' });
    const client = createClient(daemon.config, { fetch });
    await client.test();
    const torrents = tinyTorrents(count, 'bench');
    await bulkAddQbittorrent(daemon, fetch, torrents);
    const listed = await waitFor(() => client.list(), (torrents) => torrents.length >= count, 120_000, 500);
    if (listed.length < count) throw new Error(`qBittorrent did not reach ${count} torrents`);
    return { daemon, torrents };
  } catch (error) {
    await daemon.stop();
    throw error;
  }
}

/** lookup()/list() figures on a qBittorrent holding `count` torrents. */
export async function benchQbittorrentLookup(count = 5_000, runs = 30): Promise<Figure[]> {
  const { daemon, torrents } = await qbittorrentHolding(count);
  try {
    const fetch = nodeClientFetch({ origin: 'same' });
    const client = createClient(daemon.config, { fetch });
    const one = torrents[Math.floor(count / 2)]!.hash;
    const page = torrents.slice(0, 100).map((torrent) => torrent.hash);
    await client.lookup([one]); // warm: session and connection

    const measure = async (hashes: string[]) => {
      const times: number[] = [];
      let requests = 0;
      for (let run = 0; run < runs; run++) {
        const before = fetch.sent.length;
        const [ms, found] = await timed(() => client.lookup(hashes));
        if (found.size !== hashes.length) throw new Error(`lookup found ${found.size} of ${hashes.length}`);
        requests = Math.max(requests, fetch.sent.length - before);
        times.push(ms);
      }
      return { ms: median(times), requests };
    };
    const single = await measure([one]);
    const list = await measure(page);
    const listTimes: number[] = [];
    for (let run = 0; run < 5; run++) listTimes.push((await timed(() => client.list()))[0]);
    return [
      { name: `qBittorrent ${daemon.version}, ${count} torrents: lookup of 1 hash (warm), median`, value: round(single.ms), unit: 'ms', budget: '≤ 100 ms' },
      { name: 'requests to the client for that lookup', value: single.requests, unit: 'requests', budget: '1' },
      { name: `lookup of 100 hashes (a list page), median`, value: round(list.ms), unit: 'ms' },
      { name: 'requests to the client for that lookup', value: list.requests, unit: 'requests', budget: '1' },
      { name: `list() of all ${count} torrents, median of 5`, value: round(median(listTimes)), unit: 'ms' },
    ];
  } finally {
    await daemon.stop();
  }
}

/** add() of a cross-seed until lookup() sees it, `runs` times. */
export async function benchAddToPresent(kind: Extract<ClientKind, 'qbittorrent' | 'transmission'>, runs = 9): Promise<Figure[]> {
  const daemon = kind === 'qbittorrent' ? await startQbittorrent() : await startTransmission();
  try {
    const client: TorrentClient = createClient(daemon.config, { fetch: nodeClientFetch({ origin: kind === 'qbittorrent' ? 'same' : undefined }) });
    await client.test(); // a warm session, as in the background
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const content = run % 2 ? writeSingleFile(daemon.dataDir, `bench-${run}.bin`, 200_000) : writeFolder(daemon.dataDir, `bench-${run}`, [{ path: 'a.bin', size: 150_000 }, { path: 'b.bin', size: 50_000 }]);
      const torrent = torrentOn('beta', content);
      const [ms] = await timed(async () => {
        await client.add(torrent.bytes, { savePath: content.savePath, paused: false, skipCheck: false });
        for (;;) {
          if ((await client.lookup([torrent.hash])).has(torrent.hash)) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      });
      times.push(ms);
    }
    return [{ name: `${kind === 'qbittorrent' ? 'qBittorrent' : 'Transmission'} ${daemon.version}: click → torrent present (add + lookup), median of ${runs}`, value: round(median(times)), unit: 'ms', budget: '≤ 1000 ms' }];
  } finally {
    await daemon.stop();
  }
}

/**
 * The "Cross-seed" click until the torrent is in the client (crossSeed() resolving with `added`,
 * which reads it back), `runs` times on loopback, each a different candidate. Between two runs the
 * test waits out the site's 1 s pace (a person does not click nine times a second): the figure is
 * the click's own cost, not the pacing.
 */
export async function benchCrossSeedClick(kind: Extract<ClientKind, 'qbittorrent' | 'transmission'>, runs = 9): Promise<Figure[]> {
  const daemon = kind === 'qbittorrent' ? await startQbittorrent() : await startTransmission();
  const cs = await startCrossSeedWorld({ pairs: runs });
  try {
    // qBittorrent keeps CSRF protection on: the Origin is the one the background's DNR rule sets.
    const origin = kind === 'qbittorrent' ? clientOriginRule(daemon.url, 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/').action.requestHeaders[0]!.value : undefined;
    const client = createClient(daemon.config, { fetch: nodeClientFetch({ origin }) });
    const siteFetch = cs.siteFetch();
    await cs.logIn(siteFetch, cs.candidate);
    for (let run = 0; run < runs; run++) await cs.seed(client, daemon.dataDir, run);
    const pace = new SitePace();
    const env = { target: { client, skipCheckWhenFilesMatch: false, url: daemon.url }, sites: cs.siteSettings(), fetch: siteFetch, pace };
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const wait = pace.readyIn(`sid:${cs.candidate.sid}`);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 5));
      const pair = cs.pairs[run]!;
      const [ms, result] = await timed(() => crossSeed(pair.source.hash, pair.ref, env));
      if (result.kind !== 'added') throw new Error(`run ${run}: ${JSON.stringify(result)}`);
      times.push(ms);
    }
    return [
      {
        name: `${kind === 'qbittorrent' ? 'qBittorrent' : 'Transmission'} ${daemon.version}: "Cross-seed" click → torrent present in the client (download, checks, add, read back), loopback, median of ${runs}`,
        value: round(median(times)),
        unit: 'ms',
        budget: '≤ 1000 ms',
      },
    ];
  } finally {
    await cs.close();
    await daemon.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const figures = [
    ...(await benchQbittorrentLookup()),
    ...(await benchAddToPresent('qbittorrent')),
    ...(await benchAddToPresent('transmission')),
    ...(await benchCrossSeedClick('qbittorrent')),
    ...(await benchCrossSeedClick('transmission')),
  ];
  for (const figure of figures) console.log(`${figure.name}: ${figure.value} ${figure.unit}${figure.budget ? ` (budget ${figure.budget})` : ''}`);
}
