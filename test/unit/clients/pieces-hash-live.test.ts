/**
 * Pieces hashes read from a real qBittorrent (Debian's 4.5.2 and today's 5.3, test/clients/daemons.ts):
 * through torrents/export (the raw .torrent) and through torrents/pieceHashes (the hex list), each
 * equal to the pieces hash computed from the .torrent we made (torrent-content.ts). A magnet without
 * metadata is skipped as such; a hash the client does not hold is not-found. The time per torrent of
 * each way is printed for the report (never asserted).
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOriginRule } from '../../../utils/clients/csrf';
import { createClient } from '../../../utils/clients/index';
import type { PieceHashSource, TorrentClient } from '../../../utils/clients/client-types';
import { piecesHashFromTorrent } from '../../../utils/torrent/pieces-hash';
import { clientBuilds, startQbittorrent, type RunningDaemon } from '../../clients/daemons';
import { nodeClientFetch, type JarFetch } from '../../clients/node-fetch';
import { makeTorrent, TRACKERS, torrentOn, writeSampleContent, type MadeTorrent } from '../../clients/torrent-content';
import { encode, sorted } from '../../fixtures/torrents/bencode';
import { until } from '../../e2e/support/wait';

const EXTENSION_URL = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';
const LIVE = { timeout: 180_000 };

/** A torrent of `pieces` pieces (16 KiB each) whose data exists nowhere: the client holds it, stopped, with its metadata. */
function bigTorrent(name: string, pieces: number): MadeTorrent {
  const info = sorted({ length: pieces * 16_384, name, 'piece length': 16_384, pieces: randomBytes(pieces * 20), private: 1 });
  const marks: { key: string; at?: [number, number] } = { key: 'info' };
  const bytes = encode(sorted({ announce: TRACKERS.alpha.announce, info }), marks);
  return { bytes, hash: createHash('sha1').update(bytes.subarray(marks.at![0], marks.at![1])).digest('hex'), name, tracker: 'ALPHA' };
}

const builds = clientBuilds({ kind: 'qbittorrent' }).filter((build) => build.release === '4.5' || build.release === '5.3');

describe.each(builds.map((build) => [build.label, build] as const))('%s: pieces hashes from the client', (_, build) => {
  let daemon: RunningDaemon;
  let fetch: JarFetch;
  let client: TorrentClient;
  const torrents: MadeTorrent[] = [];
  const big: MadeTorrent[] = [];
  let content: ReturnType<typeof writeSampleContent>;

  beforeAll(async () => {
    daemon = await startQbittorrent({ build });
    const origin = clientOriginRule(daemon.url, EXTENSION_URL).action.requestHeaders.find((header) => header.header === 'Origin')!.value;
    fetch = nodeClientFetch({ origin });
    client = createClient(daemon.config, { fetch });
    content = writeSampleContent(daemon.dataDir);
    torrents.push(torrentOn('alpha', content.single), torrentOn('beta', content.folder), makeTorrent(content.folder, { ...TRACKERS.alpha, pieceLength: 32_768 }));
    for (let index = 0; index < 10; index++) big.push(bigTorrent(`big-${index}.bin`, 3_000));
    for (const torrent of [...torrents, ...big]) {
      expect(await client.add(torrent.bytes, { savePath: content.single.savePath, paused: true, skipCheck: false })).toMatchObject({ hash: torrent.hash });
    }
  }, 120_000);

  afterAll(async () => {
    await daemon?.stop();
  }, 30_000);

  it('both ways give the pieces hash computed from the .torrent; the default way is export from 4.5.0', LIVE, async () => {
    expect(daemon.version).toContain(build.release);
    for (const torrent of [...torrents, ...big.slice(0, 2)]) {
      const expected = await piecesHashFromTorrent(torrent.bytes);
      if (!('piecesHash' in expected)) throw new Error('the made torrent has no pieces hash');
      const want = { piecesHash: expected.piecesHash, pieces: expected.pieces };
      // the export carries the tracker the torrent came with (which site it is from); the hex list does not
      expect(expected.announce).toMatch(/^https?:\/\//);
      expect(await client.piecesHash!(torrent.hash)).toEqual({ ...want, via: 'export', announce: expected.announce });
      expect(await client.piecesHash!(torrent.hash, 'export')).toEqual({ ...want, via: 'export', announce: expected.announce });
      expect(await client.piecesHash!(torrent.hash, 'pieceHashes')).toEqual({ ...want, via: 'pieceHashes' });
    }
    // the same files on another tracker: one pieces hash (what lets a site find the copy)
    const fromClient = await client.piecesHash!(torrents[1]!.hash);
    expect(await piecesHashFromTorrent(torrentOn('alpha', content.folder).bytes)).toMatchObject({ piecesHash: (fromClient as { piecesHash: string }).piecesHash });
  });

  it('a torrent the client does not hold is not-found, both ways', LIVE, async () => {
    const absent = createHash('sha1').update('absent').digest('hex');
    expect(await client.piecesHash!(absent)).toEqual({ skipped: 'not-found', via: 'export' });
    expect(await client.piecesHash!(absent, 'pieceHashes')).toEqual({ skipped: 'not-found', via: 'pieceHashes' });
  });

  it('a magnet without metadata is skipped as no-metadata, both ways', LIVE, async () => {
    const hash = createHash('sha1').update(`magnet-${build.release}`).digest('hex');
    const form = new FormData();
    form.append('urls', `magnet:?xt=urn:btih:${hash}&dn=no-metadata`);
    form.append('paused', 'true');
    form.append('stopped', 'true');
    const added = await fetch(`${daemon.url}/api/v2/torrents/add`, { method: 'POST', body: form });
    expect(added.status).toBeLessThan(300);
    await until(() => client.lookup([hash]), (found) => found.has(hash), 'the magnet listed by the client', 30_000);
    expect(await client.piecesHash!(hash)).toEqual({ skipped: 'no-metadata', via: 'export' });
    expect(await client.piecesHash!(hash, 'pieceHashes')).toEqual({ skipped: 'no-metadata', via: 'pieceHashes' });
  });

  it('a qBittorrent before 4.5 (its app/version says 4.4.5, export answers 404) is read by pieceHashes; a 404 to export falls back once', LIVE, async () => {
    const torrent = torrents[0]!;
    const fromFile = (await piecesHashFromTorrent(torrent.bytes)) as { piecesHash: string; pieces: number };
    // the hex list says nothing of the tracker
    const expected = { piecesHash: fromFile.piecesHash, pieces: fromFile.pieces };
    /** The real daemon behind a fetch that answers as an older build would on these two paths. */
    const older = (version: string): typeof globalThis.fetch => {
      const seen: string[] = [];
      const wrapped = (async (input: RequestInfo | URL, init?: RequestInit) => {
        const url = String(input);
        seen.push(new URL(url).pathname);
        if (url.includes('/api/v2/app/version')) return new Response(version, { status: 200 });
        if (url.includes('/api/v2/torrents/export')) return new Response('Not Found', { status: 404 });
        return fetch(input, init);
      }) as typeof globalThis.fetch;
      return Object.assign(wrapped, { seen });
    };
    const old = older('v4.4.5');
    const oldClient = createClient(daemon.config, { fetch: old });
    expect(await oldClient.piecesHash!(torrent.hash)).toEqual({ ...expected, via: 'pieceHashes' });
    expect((old as unknown as { seen: string[] }).seen).not.toContain('/api/v2/torrents/export');
    const odd = older('v4.6.0');
    const oddClient = createClient(daemon.config, { fetch: odd });
    expect(await oddClient.piecesHash!(torrent.hash)).toEqual({ ...expected, via: 'pieceHashes' });
    expect(await oddClient.piecesHash!(torrents[1]!.hash)).toMatchObject({ via: 'pieceHashes' });
    expect((odd as unknown as { seen: string[] }).seen.filter((path) => path === '/api/v2/torrents/export')).toHaveLength(1);
  });

  it('time per torrent of 3,000 pieces, each way (printed for the report)', LIVE, async () => {
    const times: Record<PieceHashSource, number> = { export: 0, pieceHashes: 0 };
    for (const via of ['export', 'pieceHashes', 'export', 'pieceHashes'] as const) {
      const start = performance.now();
      for (const torrent of big) expect(await client.piecesHash!(torrent.hash, via)).toMatchObject({ via, pieces: 3_000 });
      times[via] = (performance.now() - start) / big.length; // the second round (warm) is the one kept
    }
    console.info(`[pieces-hash] ${build.label} ${daemon.version}: export ${times.export.toFixed(1)} ms/torrent, pieceHashes ${times.pieceHashes.toFixed(1)} ms/torrent (3,000 pieces, ${big.length} torrents)`);
  });
});
