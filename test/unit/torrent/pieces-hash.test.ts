/**
 * The pieces hash (SHA-1 of the raw `info.pieces` bytes) from a .torrent and from a client's
 * per-piece hex list, against torrents made by test/clients/torrent-content.ts: the expected value is
 * node:crypto's SHA-1 of the pieces this writer computed, not the walker's own reading.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha1HexOfBytes, sha1HexScript } from '../../../utils/sha1';
import { MAX_PIECES, piecesHashFromHexList, piecesHashFromTorrent } from '../../../utils/torrent/pieces-hash';
import { contentBytes, makeTorrent, torrentOn, TRACKERS, writeSampleContent, type Content } from '../../clients/torrent-content';
import { encode, sorted } from '../../fixtures/torrents/bencode';

const sha1 = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

/** The per-piece SHA-1s of `content`'s data, as qBittorrent's torrents/pieceHashes lists them (hex). */
function pieceHexes(content: Content, pieceLength = 16_384): string[] {
  const data = Buffer.concat(content.files.map((file) => contentBytes(`${content.seed}/${file.path}`, file.size)));
  const hexes: string[] = [];
  for (let start = 0; start < data.length; start += pieceLength) hexes.push(sha1(data.subarray(start, start + pieceLength)));
  return hexes;
}

const expectedOf = (hexes: string[]) => sha1(Buffer.concat(hexes.map((hex) => Buffer.from(hex, 'hex'))));

describe('pieces hash', () => {
  const content = writeSampleContent(mkdtempSync(join(tmpdir(), 'reseed-pieces-')));

  it('from the .torrent and from the hex list agree, and equal node:crypto’s SHA-1 of the pieces', async () => {
    for (const one of [content.single, content.folder]) {
      const hexes = pieceHexes(one);
      const expected = expectedOf(hexes);
      const fromTorrent = await piecesHashFromTorrent(torrentOn('alpha', one).bytes);
      // the .torrent also says its tracker (which site it is from); the hex list cannot
      expect(fromTorrent).toEqual({ piecesHash: expected, pieces: hexes.length, announce: TRACKERS.alpha.announce });
      const sameHash = { piecesHash: expected, pieces: hexes.length };
      expect(await piecesHashFromHexList(hexes)).toEqual(sameHash);
      // the list in capitals (a tolerant reading) gives the same
      expect(await piecesHashFromHexList(hexes.map((hex) => hex.toUpperCase()))).toEqual(sameHash);
    }
  });

  it('is the same for the same files on two trackers (other info-hash), and differs with another piece length', async () => {
    const alpha = torrentOn('alpha', content.folder);
    const beta = torrentOn('beta', content.folder);
    expect(alpha.hash).not.toBe(beta.hash);
    const piecesOf = async (bytes: Uint8Array) => {
      const result = await piecesHashFromTorrent(bytes);
      return 'piecesHash' in result ? { piecesHash: result.piecesHash, pieces: result.pieces } : result;
    };
    expect(await piecesOf(alpha.bytes)).toEqual(await piecesOf(beta.bytes));
    expect(await piecesHashFromTorrent(beta.bytes)).toMatchObject({ announce: TRACKERS.beta.announce });
    const reversed = makeTorrent(content.folder, { ...TRACKERS.beta, canonical: false });
    expect(await piecesOf(reversed.bytes)).toEqual(await piecesOf(alpha.bytes));
    const bigger = makeTorrent(content.folder, { ...TRACKERS.alpha, pieceLength: 32_768 });
    const other = await piecesOf(bigger.bytes);
    expect(other).toEqual({ piecesHash: expectedOf(pieceHexes(content.folder, 32_768)), pieces: 10 });
    expect(other).not.toEqual(await piecesOf(alpha.bytes));
  });

  it('hostile or odd .torrent bytes give an error, never a throw', async () => {
    const info = (fields: Record<string, Parameters<typeof sorted>[0][string]>) => new Uint8Array(encode(sorted({ announce: 'x', info: sorted(fields) })));
    expect(await piecesHashFromTorrent(new Uint8Array())).toEqual({ error: 'not-a-torrent' });
    expect(await piecesHashFromTorrent(new TextEncoder().encode('<html>login</html>'))).toEqual({ error: 'not-a-torrent' });
    expect(await piecesHashFromTorrent(new Uint8Array(encode(sorted({ announce: 'x' }))))).toEqual({ error: 'not-a-torrent' });
    expect(await piecesHashFromTorrent(info({ name: 'a', pieces: Buffer.alloc(7) }))).toEqual({ error: 'malformed' });
    expect(await piecesHashFromTorrent(info({ name: 'a', pieces: Buffer.alloc(0) }))).toEqual({ error: 'no-pieces' });
    expect(await piecesHashFromTorrent(info({ name: 'a', pieces: 5 }))).toEqual({ error: 'malformed' });
    expect(await piecesHashFromTorrent(info({ name: 'a', 'meta version': 2 }))).toEqual({ error: 'v2-only' });
    expect(await piecesHashFromTorrent(info({ name: 'a' }))).toEqual({ error: 'malformed' });
    const whole = torrentOn('alpha', content.single).bytes;
    expect(await piecesHashFromTorrent(new Uint8Array(whole.subarray(0, whole.length - 40)))).toEqual({ error: 'malformed' });
    const deep = new TextEncoder().encode(`d4:info${'l'.repeat(100_000)}`);
    expect(await piecesHashFromTorrent(deep)).toEqual({ error: 'malformed' });
  });

  it('any bytes at all: a result, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) => {
        const result = await piecesHashFromTorrent(bytes);
        expect('piecesHash' in result || 'error' in result).toBe(true);
      }),
      { numRuns: 300 },
    );
    const real = torrentOn('alpha', content.folder).bytes;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: real.length - 1 }), fc.integer({ min: 0, max: 255 }), async (at, value) => {
        const bytes = new Uint8Array(real);
        bytes[at] = value;
        const result = await piecesHashFromTorrent(bytes);
        expect('piecesHash' in result || 'error' in result).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a hex list that is not 40 hex per entry is malformed; empty is no pieces; too long is refused', async () => {
    const good = pieceHexes(content.single);
    expect(await piecesHashFromHexList(undefined)).toEqual({ error: 'malformed' });
    expect(await piecesHashFromHexList({ 0: good[0] })).toEqual({ error: 'malformed' });
    expect(await piecesHashFromHexList([])).toEqual({ error: 'no-pieces' });
    expect(await piecesHashFromHexList([...good, good[0]!.slice(1)])).toEqual({ error: 'malformed' });
    expect(await piecesHashFromHexList([...good, `${good[0]!.slice(1)}g`])).toEqual({ error: 'malformed' });
    expect(await piecesHashFromHexList([...good, 42])).toEqual({ error: 'malformed' });
    expect(await piecesHashFromHexList([` ${good[0]!}`])).toEqual({ error: 'malformed' });
    expect(await piecesHashFromHexList(new Array(MAX_PIECES + 1).fill(good[0]))).toEqual({ error: 'too-many-pieces' });
  });

  it('a real-sized pieces string (60 KB, 3,000 pieces): Web Crypto and the script SHA-1 agree with node:crypto', async () => {
    const bytes = new Uint8Array(contentBytes('sixty-kb', 60_000));
    expect(await sha1HexOfBytes(bytes)).toBe(sha1(bytes));
    expect(sha1HexScript(bytes)).toBe(sha1(bytes));
  });
});
