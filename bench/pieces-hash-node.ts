/**
 * The pieces-hash source (issue 18), in Node:
 *
 *   node --import tsx bench/pieces-hash-node.ts site    → 10,000 client torrents asked of one test NexusPHP site
 *   node --import tsx bench/pieces-hash-node.ts client  → pieces hashes read from a real qBittorrent holding 1,000 torrents
 *
 * JSON on the last line (bench/run.ts reads it).
 *
 * site: askSite (utils/pieces-hash/ask-site.ts) asks PiecesHashSite (test/e2e/support/pieces-hash-site.ts,
 * NexusPHP's answers, its 60-a-minute limit on) over HTTP on loopback through the e2e router about
 * 10,000 distinct pieces hashes, 3,000 of which the site holds. The 2 s pace is kept on a clock of
 * the bench's own — the real time elapsed plus every wait askSite asked for, which moves it on at
 * once — shared by the site (its request log, its minute): the bench does not sleep 200 s, and the
 * time at the pace is what a real run would take with requests as fast as on loopback. The hits are
 * stored batch by batch into a map standing in for the cache; its size is estimated per torrent by
 * cachedBytesPerTorrent.
 *
 * client: Debian bookworm's qbittorrent-nox (4.5.2, test/clients/daemons.ts) holding 1,000 torrents
 * of 3,000 pieces each (random piece hashes, no data: added stopped and unchecked, metadata is all
 * that is read), read through the product's client (utils/clients/qbittorrent.ts piecesHash) one
 * torrent after another, each way, every answer checked against the pieces hash of the .torrent made.
 */
import { createHash, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { Figure } from './figures';
import { encodeRecord, storedBytes } from '../utils/client-index/codec';
import type { NodeBenchOutput } from './lookup-node';

export const SITE_TORRENTS = 10_000;
export const SITE_COPIES = 3_000;
export const CLIENT_TORRENTS = 1_000;
export const CLIENT_PIECES = 3_000;

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** What the cache keeps for one client torrent: its pieces hash and, per site asked, when and what it answered (id 0: not on the site). */
export interface CachedPiecesHash {
  piecesHash: string;
  answers: Record<string, { at: number; id: number }>;
}

/**
 * Stored bytes the second source adds to one torrent's record in the index (utils/client-index/codec.ts,
 * the bytes its bound counts: storedBytes): its record with the pieces hash and each site's answer,
 * less the same record without them. A found place also costs its entry in the place index.
 */
export function cachedBytesPerTorrent(record: CachedPiecesHash): number {
  const torrent = { hash: 'ab'.repeat(20), name: 'Some.Movie.2024.1080p.BluRay.x264-GROUP', savePath: '/data/movies', state: 'seeding' as const, progress: 1, size: 8_000_000_000 };
  const found = Object.entries(record.answers).map(([sid, answer]) => ({ sid: Number(sid), at: answer.at, torrentId: answer.id }));
  const withPieces = encodeRecord(1, { torrent, pieces: { hash: record.piecesHash }, ...(found.length && { found }) });
  const without = encodeRecord(1, { torrent });
  return storedBytes(withPieces!) - storedBytes(without!);
}

// --------------------------------------------------------------------------------------------
// site: 10,000 torrents asked of one site

async function site(): Promise<NodeBenchOutput> {
  const { askSite, DEFAULT_PIECES_HASH_PACE_MS } = await import('../utils/pieces-hash/ask-site');
  const { PIECES_HASH_BATCH } = await import('../utils/pieces-hash/nexus-api');
  const { startRouter } = await import('../test/e2e/harness/index.ts');
  const { PiecesHashSite } = await import('../test/e2e/support/pieces-hash-site');
  const { proxiedFetch } = await import('../test/clients/proxy-fetch');

  const problems: string[] = [];
  const router = await startRouter();
  try {
    // The bench's clock: real time plus the waits askSite asked for.
    const origin = Date.now();
    const realStart = performance.now();
    let waited = 0;
    const now = () => origin + (performance.now() - realStart) + waited;
    const waits: number[] = [];
    const wait = async (ms: number) => {
      waits.push(ms);
      waited += ms;
    };
    const nexus = new PiecesHashSite('pieces.bench.test', { now });
    router.setHost(nexus.host, nexus.handle);

    const hashes = Array.from({ length: SITE_TORRENTS }, () => randomBytes(20).toString('hex'));
    if (new Set(hashes).size !== SITE_TORRENTS) throw new Error('random pieces hashes collided');
    // Copies on the site: a random 3,000, with ids as a NexusPHP site's (up to 7 digits).
    const order = hashes.map((hash) => ({ hash, key: Math.random() })).sort((a, b) => a.key - b.key);
    for (const { hash } of order.slice(0, SITE_COPIES)) nexus.list(hash, 1 + Math.floor(Math.random() * 9_999_999));

    const SITE_ID = '42';
    const cache = new Map<string, CachedPiecesHash>();
    const started = performance.now();
    const startedAt = now();
    const end = await askSite(
      { endpoint: nexus.endpoint, passkey: nexus.passkey, hashes },
      {
        fetch: proxiedFetch(router.port),
        now,
        wait,
        onBatch: (batch) => {
          const at = now();
          for (const hash of batch.asked) cache.set(hash, { piecesHash: hash, answers: { [SITE_ID]: { at, id: batch.ids.get(hash) ?? 0 } } });
        },
      },
    );
    const realMs = performance.now() - started;
    const pacedSeconds = (end.lastRequestAt! - startedAt) / 1000;

    const wrongIds = [...nexus.torrents].filter(([hash, id]) => cache.get(hash)?.answers[SITE_ID]?.id !== id).length;
    const limited = nexus.requests.filter((request) => request.status === 429).length;
    const gaps = nexus.requests.slice(1).map((request, index) => request.at - nexus.requests[index]!.at);
    if (end.kind !== 'done') problems.push(`askSite ended ${end.kind}${end.kind === 'stopped' ? ` (${end.answer.kind})` : ''}`);
    if (end.found !== SITE_COPIES || wrongIds) problems.push(`found ${end.found} of the site's ${SITE_COPIES} copies, ${wrongIds} with a wrong or missing id`);
    if (cache.size !== SITE_TORRENTS) problems.push(`${cache.size} of ${SITE_TORRENTS} torrents stored`);
    if (gaps.some((gap) => gap < DEFAULT_PIECES_HASH_PACE_MS)) problems.push(`two requests ${Math.min(...gaps)} ms apart at the site (pace ${DEFAULT_PIECES_HASH_PACE_MS} ms)`);

    const sizes = [...cache.values()].map(cachedBytesPerTorrent);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    const hit = cachedBytesPerTorrent(cache.get(order[0]!.hash)!);
    const miss = cachedBytesPerTorrent(cache.get(order.at(-1)!.hash)!);
    const n = SITE_TORRENTS.toLocaleString('en');
    const pace = DEFAULT_PIECES_HASH_PACE_MS / 1000;
    const figures: Figure[] = [
      { id: 'pieces.site.requests', bench: 'pieces', label: `pieces hash: ${n} client torrents asked of one NexusPHP test site (${SITE_COPIES.toLocaleString('en')} on it), requests`, value: end.requests, unit: 'requests', budget: { op: '<=', limit: Math.ceil(SITE_TORRENTS / PIECES_HASH_BATCH) } },
      {
        id: 'pieces.site.paced',
        bench: 'pieces',
        label: `  … time at the ${pace} s pace, first request to last answer (the waits simulated on the bench's clock, the requests' own time real)`,
        value: round(pacedSeconds, 2),
        unit: 's',
        budget: { op: '<=', limit: Math.ceil(SITE_TORRENTS / PIECES_HASH_BATCH) * pace + 10 },
        note: 'the 2 s waits are not slept: a clock of the bench moves on by each wait askSite asks for',
      },
      { id: 'pieces.site.real', bench: 'pieces', label: '  … of it real (requests on loopback through the router, answers read, hits stored)', value: round(realMs), unit: 'ms' },
      { id: 'pieces.site.found', bench: 'pieces', label: `  … hits found (copies on the site: ${SITE_COPIES.toLocaleString('en')})`, value: end.found, unit: 'count' },
      { id: 'pieces.site.limited', bench: 'pieces', label: '  … 429s from the site (60 requests a minute allowed)', value: limited, unit: 'count', budget: { op: '<=', limit: 0 } },
      { id: 'pieces.site.bytes', bench: 'pieces', label: `  … bytes kept per torrent (the index codec: packed pieces hash + [sid, minute, id] for the one site, a hit also its place-index entry), mean (a hit ${hit} B, a miss ${miss} B)`, value: round(total / SITE_TORRENTS), unit: 'bytes' },
      { id: 'pieces.site.bytes.total', bench: 'pieces', label: `  … for all ${n}`, value: total, unit: 'bytes' },
    ];
    const report = [
      `pieces hash, one site (PiecesHashSite through the router, 60 a minute; pace ${pace} s on the bench's clock): ${end.requests} requests of ${nexus.requests.map((request) => request.asked).slice(0, 3).join(', ')}… hashes, ${end.found} found, ${pacedSeconds.toFixed(1)} s at the pace (${realMs.toFixed(0)} ms real), waits ${waits.length} × ~${round(waits.reduce((a, b) => a + b, 0) / Math.max(1, waits.length) / 1000, 2)} s; cache estimate ${(total / 1024).toFixed(0)} KB for ${n}`,
    ];
    return { figures, report, problems, details: { end, realMs: round(realMs), pacedSeconds: round(pacedSeconds, 2), gapsMs: { min: Math.min(...gaps), max: Math.max(...gaps) }, bytes: { hit, miss, total } } };
  } finally {
    await router.close();
  }
}

// --------------------------------------------------------------------------------------------
// client: pieces hashes from a real qBittorrent 4.5

/** A torrent of `pieces` random pieces (16 KiB each) whose data exists nowhere, and the pieces hash it has. */
function torrentWithoutData(name: string, pieces: number, encode: typeof import('../test/fixtures/torrents/bencode').encode, sorted: typeof import('../test/fixtures/torrents/bencode').sorted, announce: string) {
  const raw = randomBytes(pieces * 20);
  const info = sorted({ length: pieces * 16_384, name, 'piece length': 16_384, pieces: raw, private: 1 });
  const marks: { key: string; at?: [number, number] } = { key: 'info' };
  const bytes = encode(sorted({ announce, info }), marks);
  return { bytes, hash: createHash('sha1').update(bytes.subarray(marks.at![0], marks.at![1])).digest('hex'), piecesHash: createHash('sha1').update(raw).digest('hex') };
}

/** A fetch counting the body bytes it hands over (decoded), for one pass apart from the timed ones. */
function countingFetch(): typeof fetch & { bytes: number } {
  const counted = Object.assign(
    async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      if (!response.body) return response;
      const counter = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          counted.bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
    },
    { bytes: 0 },
  );
  return counted;
}

async function client(): Promise<NodeBenchOutput> {
  const { startQbittorrent } = await import('../test/clients/daemons');
  const { nodeClientFetch } = await import('../test/clients/node-fetch');
  const { waitFor } = await import('../test/e2e/support/wait');
  const { TRACKERS } = await import('../test/clients/torrent-content');
  const { encode, sorted } = await import('../test/fixtures/torrents/bencode');
  const { createClient } = await import('../utils/clients/index');
  const { OWN_CLIENT_TIMEOUT_MS } = await import('../test/clients/own-client');

  const problems: string[] = [];
  const daemon = await startQbittorrent();
  try {
    const setUp = nodeClientFetch({ origin: 'same' });
    const made = Array.from({ length: CLIENT_TORRENTS }, (_, index) => torrentWithoutData(`pieces-${String(index).padStart(4, '0')}.bin`, CLIENT_PIECES, encode, sorted, TRACKERS.alpha.announce));
    const addStarted = performance.now();
    // Set-up, not measured: 50 .torrent files a request, stopped, unchecked (there is no data).
    await createClient(daemon.config, { fetch: setUp, timeoutMs: OWN_CLIENT_TIMEOUT_MS }).test(); // logs the set-up fetch in
    for (let start = 0; start < made.length; start += 50) {
      const form = new FormData();
      for (const torrent of made.slice(start, start + 50)) form.append('torrents', new Blob([new Uint8Array(torrent.bytes)]), `${torrent.hash}.torrent`);
      form.append('savepath', daemon.downloadDir);
      form.append('paused', 'true');
      form.append('stopped', 'true');
      form.append('skip_checking', 'true');
      const answer = await setUp(`${daemon.url}/api/v2/torrents/add`, { method: 'POST', body: form });
      if ((await answer.text()).trim() !== 'Ok.') throw new Error(`adding torrents answered ${answer.status}`);
    }
    const own = createClient(daemon.config, { fetch: nodeClientFetch({ origin: 'same' }), timeoutMs: OWN_CLIENT_TIMEOUT_MS });
    await waitFor(() => own.list(), (listed) => listed.length >= CLIENT_TORRENTS, 120_000, 500);
    const addSeconds = (performance.now() - addStarted) / 1000;

    const reader = createClient(daemon.config, { fetch: nodeClientFetch({ origin: 'same' }) });
    await reader.test(); // a warm session, as in the background
    const times: Record<'export' | 'pieceHashes', number> = { export: 0, pieceHashes: 0 };
    for (const via of ['export', 'pieceHashes'] as const) {
      for (const torrent of made.slice(0, 20)) await reader.piecesHash!(torrent.hash, via); // warm-up, not counted
      const answers: unknown[] = [];
      const started = performance.now();
      for (const torrent of made) answers.push(await reader.piecesHash!(torrent.hash, via));
      times[via] = performance.now() - started;
      const wrong = answers.filter((answer, index) => {
        const read = answer as { piecesHash?: string; pieces?: number; via?: string };
        return read.piecesHash !== made[index]!.piecesHash || read.pieces !== CLIENT_PIECES || read.via !== via;
      }).length;
      if (wrong) problems.push(`${via}: ${wrong} of ${CLIENT_TORRENTS} pieces hashes wrong or missing`);
    }
    // Bytes read, a pass of its own (the counting is not in the timed passes).
    const SAMPLE = 50;
    const bytes: Record<'export' | 'pieceHashes', number> = { export: 0, pieceHashes: 0 };
    for (const via of ['export', 'pieceHashes'] as const) {
      const counting = countingFetch();
      const sampler = createClient(daemon.config, { fetch: nodeClientFetch({ origin: 'same', inner: counting }) });
      await sampler.test();
      await sampler.piecesHash!(made[0]!.hash, via); // the version check once
      counting.bytes = 0;
      for (const torrent of made.slice(0, SAMPLE)) await sampler.piecesHash!(torrent.hash, via);
      bytes[via] = counting.bytes / SAMPLE;
    }

    const label = `qBittorrent ${daemon.version.replace(/^v/, '')} (${daemon.build.generation})`;
    const perThousand = (ms: number) => round((ms / CLIENT_TORRENTS) * 1000 / 1000, 2);
    const figures: Figure[] = [
      {
        id: 'pieces.client.export',
        bench: 'pieces',
        label: `pieces hash from ${label} holding ${CLIENT_TORRENTS.toLocaleString('en')} torrents of ${CLIENT_PIECES.toLocaleString('en')} pieces: torrents/export, one after another, per 1,000`,
        value: perThousand(times.export),
        unit: 's',
        budget: { op: '<=', limit: 10 },
      },
      { id: 'pieces.client.pieceHashes', bench: 'pieces', label: '  … torrents/pieceHashes (the way before 4.5), per 1,000', value: perThousand(times.pieceHashes), unit: 's' },
      { id: 'pieces.client.export.bytes', bench: 'pieces', label: `  … bytes read a torrent by export (the .torrent; mean of ${SAMPLE})`, value: Math.round(bytes.export), unit: 'bytes' },
      { id: 'pieces.client.pieceHashes.bytes', bench: 'pieces', label: `  … bytes read a torrent by pieceHashes (40 hex a piece, JSON; mean of ${SAMPLE})`, value: Math.round(bytes.pieceHashes), unit: 'bytes' },
    ];
    const report = [
      `pieces hash, client (${label}, ${CLIENT_TORRENTS} torrents × ${CLIENT_PIECES} pieces, added stopped without data in ${addSeconds.toFixed(0)} s, not measured): export ${(times.export / CLIENT_TORRENTS).toFixed(2)} ms a torrent, pieceHashes ${(times.pieceHashes / CLIENT_TORRENTS).toFixed(2)} ms a torrent; ${Math.round(bytes.export)} B vs ${Math.round(bytes.pieceHashes)} B read a torrent`,
    ];
    return { figures, report, problems, details: { version: daemon.version, msPerTorrent: { export: round(times.export / CLIENT_TORRENTS, 3), pieceHashes: round(times.pieceHashes / CLIENT_TORRENTS, 3) }, bytes, addSeconds: round(addSeconds) } };
  } finally {
    await daemon.stop();
  }
}

async function main(mode: string): Promise<NodeBenchOutput> {
  if (mode === 'site') return site();
  if (mode === 'client') return client();
  throw new Error(`unknown mode ${mode}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const output = await main(process.argv[2] ?? 'site');
  process.stdout.write(`\n${JSON.stringify(output)}\n`);
  process.exit(0);
}
