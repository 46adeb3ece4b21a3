/**
 * The downloaded file must be the candidate's torrent (info-hash), and its files exactly the files
 * of the page's torrent in the client; the first differences are listed.
 */
import { describe, expect, it } from 'vitest';
import { checkCandidateFile, compareFiles } from '../../../utils/crossseed/verify';
import { makeTorrent, TRACKERS, type Content } from '../../clients/content';

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

describe('checkCandidateFile', () => {
  it("gives the files when the file's info-hash is the candidate's (case aside)", async () => {
    const beta = makeTorrent(album, TRACKERS.beta);
    expect(await checkCandidateFile(beta.bytes, beta.hash.toUpperCase())).toEqual({ ok: true, hash: beta.hash, files: inClient });
  });

  it('refuses another torrent, naming the hash it got', async () => {
    const alpha = makeTorrent(album, TRACKERS.alpha);
    const beta = makeTorrent(album, TRACKERS.beta);
    expect(await checkCandidateFile(alpha.bytes, beta.hash)).toEqual({ ok: false, kind: 'other-torrent', hash: alpha.hash });
  });

  it('refuses what is not a usable torrent', async () => {
    expect(await checkCandidateFile(new TextEncoder().encode('<html>login</html>'), 'a'.repeat(40))).toEqual({ ok: false, kind: 'not-a-torrent', problem: 'not-a-torrent' });
  });
});

describe('compareFiles', () => {
  it('the same files (order aside, Unicode normal form aside) are the same', () => {
    expect(compareFiles(inClient, [...inClient].reverse())).toEqual({ same: true });
    const decomposed = [{ path: 'Café/é.flac', size: 1 }];
    expect(compareFiles([{ path: 'Café/é.flac', size: 1 }], decomposed.map((file) => ({ ...file, path: file.path.normalize('NFD') })))).toEqual({ same: true });
    // Padding files a client lists are not differences.
    expect(compareFiles(inClient, [...inClient, { path: `${album.name}/.pad/3`, size: 3 }])).toEqual({ same: true });
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
