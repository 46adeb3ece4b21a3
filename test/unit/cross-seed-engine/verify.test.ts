/**
 * The downloaded file must be the candidate's torrent (info-hash), and its files exactly the files
 * of the page's torrent in the client; the first differences are listed.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkCandidateFile, compareFiles } from '../../../utils/cross-seed-engine/verify';
import { makeTorrent, TRACKERS, type Content } from '../../clients/torrent-content';
import { encode, sorted } from '../../fixtures/torrents/bencode';

const album: Content = {
  savePath: '/unused',
  name: 'Album (2024)',
  files: [
    { path: '01.flac', size: 100 },
    { path: 'Scans/cover.jpg', size: 20 },
  ],
  single: false,
  seed: 'verify',
};
const inClient = album.files.map((file) => ({ path: `${album.name}/${file.path}`, size: file.size }));
/** As the .torrent lists them: with the path's elements. */
const listed = inClient.map((file) => ({ ...file, elements: file.path.split('/') }));

describe('checkCandidateFile', () => {
  it("gives the files when the file's info-hash is the candidate's (case aside)", async () => {
    const beta = makeTorrent(album, TRACKERS.beta);
    expect(await checkCandidateFile(beta.bytes, beta.hash.toUpperCase())).toEqual({ ok: true, hash: beta.hash, files: listed });
  });

  it('refuses another torrent, naming the hash it got', async () => {
    const alpha = makeTorrent(album, TRACKERS.alpha);
    const beta = makeTorrent(album, TRACKERS.beta);
    expect(await checkCandidateFile(alpha.bytes, beta.hash)).toEqual({ ok: false, kind: 'other-torrent', hash: alpha.hash });
  });

  it('refuses a candidate whose file has an element the client would rename, naming the file', async () => {
    // One file entry's path is ["Scans/cover.jpg"]: qBittorrent stores it as Scans_cover.jpg and downloads it.
    const info = sorted({
      files: [sorted({ length: 100, path: ['01.flac'] }), sorted({ length: 20, path: ['Scans/cover.jpg'] })],
      name: album.name,
      'piece length': 16_384,
      pieces: Buffer.alloc(20),
    });
    const marks: { key: string; at?: [number, number] } = { key: 'info' };
    const bytes = encode(sorted({ announce: TRACKERS.beta.announce, info }), marks);
    const hash = createHash('sha1').update(bytes.subarray(marks.at![0], marks.at![1])).digest('hex');
    expect(await checkCandidateFile(bytes, hash)).toEqual({ ok: false, kind: 'unsafe-file', path: `${album.name}/Scans/cover.jpg`, element: 'Scans/cover.jpg', reason: 'separator' });
  });

  it('refuses what is not a usable torrent', async () => {
    expect(await checkCandidateFile(new TextEncoder().encode('<html>login</html>'), 'a'.repeat(40))).toEqual({ ok: false, kind: 'not-a-torrent', problem: 'not-a-torrent' });
  });
});

describe('compareFiles', () => {
  it('the same files (order aside) are the same', () => {
    expect(compareFiles(inClient, [...inClient].reverse())).toEqual({ same: true });
    // Padding files a client lists are not differences.
    expect(compareFiles(inClient, [...inClient, { path: `${album.name}/.pad/3`, size: 3 }])).toEqual({ same: true });
  });

  it('a name equal only after Unicode normalisation is another file to the client, and is said to differ in its form', () => {
    // (The contract changed with issue 15: NFC and NFD were once taken as one name; on Linux they are two files, and such a candidate stalled at 0 %.)
    const composed = 'Caf\u00e9/\u00e9.flac';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    const candidate = [{ path: decomposed, size: 1 }, { path: 'Caf\u00e9/cover.jpg', size: 2 }];
    const client = [{ path: composed, size: 1 }, { path: 'Caf\u00e9/cover.jpg', size: 2 }];
    expect(compareFiles(candidate, client)).toEqual({ same: false, differences: [{ kind: 'unicode-form', path: decomposed, clientPath: composed, size: 1 }], more: 0 });
    // And the other way round: an NFC candidate against NFD names on disk.
    expect(compareFiles(client, candidate)).toEqual({ same: false, differences: [{ kind: 'unicode-form', path: composed, clientPath: decomposed, size: 1 }], more: 0 });
  });

  it('names what is missing, extra or of another size', () => {
    const candidate = [
      { path: 'Album (2024)/01.flac', size: 101 },
      { path: 'Album (2024)/extra.nfo', size: 7 },
    ];
    expect(compareFiles(candidate, inClient)).toEqual({
      same: false,
      differences: [
        { kind: 'size', path: 'Album (2024)/01.flac', size: 101, clientSize: 100 },
        { kind: 'missing', path: 'Album (2024)/extra.nfo', size: 7 },
        { kind: 'extra', path: 'Album (2024)/Scans/cover.jpg', size: 20 },
      ],
      more: 0,
    });
    // Another root folder (the user renamed it in the client): every file differs.
    expect(compareFiles(inClient, inClient.map((file) => ({ ...file, path: file.path.replace('Album (2024)', 'Album') })))).toMatchObject({ same: false, more: 0 });
  });

  it('lists at most five and counts the rest', () => {
    const many = Array.from({ length: 12 }, (_, index) => ({ path: `x/${index}.bin`, size: index }));
    const result = compareFiles(many, []);
    expect(result).toMatchObject({ same: false, more: 7 });
    expect(result.same === false && result.differences.map((difference) => difference.path)).toEqual(['x/0.bin', 'x/1.bin', 'x/2.bin', 'x/3.bin', 'x/4.bin']);
  });
});
