/**
 * The search test sites' .torrent helper (test/e2e/support/site-torrent.ts) and the options it
 * added to test/clients/torrent-content.ts's makeTorrent: the client tests' torrents are byte for
 * byte what they were, and a site's copy of the same content has the same info dictionary but for
 * the keys the site changes (so a client seeding the content verifies the site's .torrent).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentBytes, makeTorrent, type Content } from '../../clients/torrent-content';
import { encode, sorted } from '../../fixtures/torrents/bencode';
import { layoutOf, randomEntropy, REAL_PIECES_LIMIT, siteTorrent } from '../../e2e/support/site-torrent';

const FOLDER: Content = {
  savePath: '/nowhere',
  name: 'Reseed Lens Album (2024) [FLAC]',
  files: [
    { path: '01 - Opening.flac', size: 40_000 },
    { path: 'Scans/cover.jpg', size: 9_000 },
  ],
  single: false,
  seed: 'Reseed Lens Album (2024) [FLAC]',
};

describe('site-torrent', () => {
  it('makeTorrent without the new options writes what it always wrote', () => {
    const data = Buffer.concat(FOLDER.files.map((file) => contentBytes(`${FOLDER.seed}/${file.path}`, file.size)));
    const pieces = [];
    for (let at = 0; at < data.length; at += 16_384) pieces.push(createHash('sha1').update(data.subarray(at, at + 16_384)).digest());
    const info = sorted({
      name: FOLDER.name,
      'piece length': 16_384,
      pieces: Buffer.concat(pieces),
      files: FOLDER.files.map((file) => sorted({ length: file.size, path: file.path.split('/') })),
      private: 1,
      source: 'ALPHA',
    });
    const expected = encode(sorted({ announce: 'http://127.0.0.1:9/a', 'created by': 'Reseed Lens tests', 'creation date': 1_700_000_000, info }));
    expect(makeTorrent(FOLDER, { announce: 'http://127.0.0.1:9/a', source: 'ALPHA' }).bytes.equals(expected)).toBe(true);
  });

  it('a site’s copy of the content: the same info dictionary as the client tests’ torrent when the keys agree, another hash with entropy; no announce unless given', () => {
    const clientSide = makeTorrent(FOLDER, { announce: 'http://127.0.0.1:9/a', source: 'UNIT3D' });
    const stored = siteTorrent(layoutOf(FOLDER), { source: 'UNIT3D', private: 1 }, { comment: 'kept' });
    expect(stored.hash).toBe(clientSide.hash);
    expect(stored.bytes.toString('latin1')).not.toContain('8:announce');
    expect(stored.bytes.toString('latin1')).toContain('7:comment4:kept');
    const entropy = randomEntropy();
    const withEntropy = siteTorrent(layoutOf(FOLDER), { source: 'UNIT3D', private: 1, entropy });
    expect(withEntropy.hash).not.toBe(clientSide.hash);
    expect(siteTorrent(layoutOf(FOLDER), { source: 'UNIT3D', private: 1, entropy }, {}, 'https://t/announce/k').hash).toBe(withEntropy.hash);
  });

  it('an upload of many GB gets stand-in pieces at once, about 2,000 of them', () => {
    const big = siteTorrent({ folder: null, files: [{ name: 'big.mkv', size: 40 * 1024 ** 3 }] }, { private: 1 });
    const text = big.bytes.toString('latin1');
    const pieceLength = Number(/12:piece lengthi(\d+)e/.exec(text)![1]);
    expect(pieceLength).toBe(32 * 1024 * 1024);
    expect(text).toContain(`6:pieces${Math.ceil((40 * 1024 ** 3) / pieceLength) * 20}:`);
    expect(40 * 1024 ** 3).toBeGreaterThan(REAL_PIECES_LIMIT);
  });
});
