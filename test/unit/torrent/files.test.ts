/**
 * The file list of a .torrent as clients show it: real torrents made by the client tests' writer,
 * the .torrent fixtures, and hostile or odd files (padding, UTF-8 names, too many files, junk).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_TORRENT_FILES, torrentFiles } from '../../../utils/torrent/files';
import { makeTorrent, TRACKERS, type Content } from '../../clients/torrent-content';
import { d, encode, sorted } from '../../fixtures/torrents/bencode';

const FIXTURES = join(__dirname, '../../fixtures/torrents');
const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)));

/** A listed file: its path's elements, the same joined with `/`, and its size. */
const file = (path: string, size: number) => ({ elements: path.split('/'), path, size });

const folder: Content = {
  savePath: '/unused',
  name: 'Reseed Lens Album (2024) [FLAC]',
  files: [
    { path: '01 - Opening.flac', size: 180_000 },
    { path: '02 - 结尾.flac', size: 120_500 },
    { path: 'Scans/cover.jpg', size: 9_000 },
  ],
  single: false,
  seed: 'files-test',
};

function withInfo(info: Record<string, unknown>): Uint8Array {
  return new Uint8Array(encode(sorted({ announce: 'http://t.reseed.test/a', info: sorted(info as never) })));
}

describe('torrentFiles', () => {
  it('lists a multi-file torrent under its root folder, in torrent order, with sizes', () => {
    const torrent = makeTorrent(folder, TRACKERS.alpha);
    expect(torrentFiles(torrent.bytes)).toEqual({
      name: folder.name,
      single: false,
      files: folder.files.map((entry) => file(`${folder.name}/${entry.path}`, entry.size)),
    });
  });

  it('lists a single-file torrent as its name', () => {
    const torrent = makeTorrent({ savePath: '/unused', name: 'Film.2024.mkv', files: [{ path: 'Film.2024.mkv', size: 300_000 }], single: true, seed: 's' }, TRACKERS.beta);
    expect(torrentFiles(torrent.bytes)).toEqual({ name: 'Film.2024.mkv', single: true, files: [file('Film.2024.mkv', 300_000)] });
  });

  it('reads the fixtures: multi-file with a Chinese name, single-file, hybrid (v1 part), v2-only refused', () => {
    expect(torrentFiles(fixture('multi-file.torrent'))).toEqual({
      name: '专辑 Album (2024) [FLAC]',
      single: false,
      files: [
        file('专辑 Album (2024) [FLAC]/Disc 1/01.flac', 700_000),
        file('专辑 Album (2024) [FLAC]/Disc 1/cover.jpg', 500_000),
      ],
    });
    expect(torrentFiles(fixture('single-file.torrent'))).toEqual({ name: 'Some.Film.2024.1080p.mkv', single: true, files: [file('Some.Film.2024.1080p.mkv', 1_048_576)] });
    expect(torrentFiles(fixture('hybrid.torrent'))).toMatchObject({ single: true, files: [file('film.mkv', 40_000_000)] });
    expect(torrentFiles(fixture('v2-only.torrent'))).toEqual({ error: 'v2-only' });
  });

  it('refuses what is not a torrent, or is broken', () => {
    expect(torrentFiles(fixture('garbage.torrent'))).toHaveProperty('error');
    expect(torrentFiles(fixture('login-page.torrent'))).toEqual({ error: 'not-a-torrent' });
    expect(torrentFiles(fixture('truncated.torrent'))).toEqual({ error: 'malformed' });
    expect(torrentFiles(fixture('no-info.torrent'))).toEqual({ error: 'not-a-torrent' });
    expect(torrentFiles(fixture('info-not-dict.torrent'))).toEqual({ error: 'not-a-torrent' });
    expect(torrentFiles(new Uint8Array())).toEqual({ error: 'not-a-torrent' });
    // A file entry without a size, or with a negative one.
    expect(torrentFiles(withInfo({ name: 'x', 'piece length': 16_384, pieces: Buffer.alloc(20), files: [sorted({ path: ['a'] })] }))).toEqual({ error: 'malformed' });
    expect(torrentFiles(withInfo({ name: 'x', 'piece length': 16_384, pieces: Buffer.alloc(20), files: [sorted({ length: -1, path: ['a'] })] }))).toEqual({ error: 'malformed' });
  });

  it('prefers the UTF-8 names when a torrent carries both, and leaves out BEP 47 padding files', () => {
    const bytes = withInfo({
      name: Buffer.from([0xd7, 0xa8, 0xbc, 0xad]), // "专辑" in GBK
      'name.utf-8': '专辑',
      'piece length': 16_384,
      pieces: Buffer.alloc(40),
      files: [
        sorted({ length: 10_000, path: [Buffer.from([0xb8, 0xe8])], 'path.utf-8': ['歌.flac'] }),
        sorted({ attr: 'p', length: 6_384, path: ['.pad', '6384'] }),
        sorted({ length: 5_000, path: ['_____padding_file_0_如果您看到此文件，请升级到BitComet(比特彗星)0.85或以上版本____'] }),
        sorted({ length: 7, path: ['b.txt'] }),
      ],
    });
    expect(torrentFiles(bytes)).toEqual({
      name: '专辑',
      single: false,
      files: [
        file('专辑/歌.flac', 10_000),
        file('专辑/b.txt', 7),
      ],
    });
  });

  it('refuses a torrent with more files than any release has', () => {
    const entry = encode(sorted({ length: 1, path: ['f'] }));
    const count = MAX_TORRENT_FILES + 1;
    const head = Buffer.from(`d8:announce3:x:y4:infod5:filesl`);
    const tail = Buffer.from(`e4:name1:x12:piece lengthi16384e6:pieces20:${'\0'.repeat(20)}ee`);
    const bytes = Buffer.concat([head, Buffer.concat(Array.from({ length: count }, () => entry)), tail]);
    expect(torrentFiles(new Uint8Array(bytes))).toEqual({ error: 'too-many-files' });
  });

  it('survives deep nesting and odd integers without throwing', () => {
    const deep = Buffer.from(`d4:info${'l'.repeat(10_000)}${'e'.repeat(10_000)}e`);
    expect(torrentFiles(new Uint8Array(deep))).toHaveProperty('error');
    const zeroPadded = new Uint8Array(encode(d(['info', d(['length', { raw: Buffer.from('i0300e') }], ['name', 'x'], ['piece length', 16_384], ['pieces', Buffer.alloc(20)])])));
    expect(torrentFiles(zeroPadded)).toEqual({ name: 'x', single: true, files: [file('x', 300)] });
  });
  it('refuses a path element the client would drop, rename or resolve outside the folder, naming the file', () => {
    const info = (name: string | Buffer, ...paths: (string | Buffer)[][]) =>
      withInfo({ name, 'piece length': 16_384, pieces: Buffer.alloc(20), files: paths.map((path) => sorted({ length: 10, path })) });
    // qBittorrent stores an element "Scans/cover.jpg" as "Scans_cover.jpg": another file than the one on disk.
    expect(torrentFiles(info('Album', ['01.flac'], ['Scans/cover.jpg']))).toEqual({ error: 'unsafe-path', path: 'Album/Scans/cover.jpg', element: 'Scans/cover.jpg', reason: 'separator' });
    expect(torrentFiles(info('Album', ['Scans\\cover.jpg']))).toEqual({ error: 'unsafe-path', path: 'Album/Scans\\cover.jpg', element: 'Scans\\cover.jpg', reason: 'separator' });
    expect(torrentFiles(info('Album', ['..', 'etc', 'passwd']))).toEqual({ error: 'unsafe-path', path: 'Album/../etc/passwd', element: '..', reason: 'dot' });
    expect(torrentFiles(info('Album', ['Disc 1', '.', '01.flac']))).toEqual({ error: 'unsafe-path', path: 'Album/Disc 1/./01.flac', element: '.', reason: 'dot' });
    expect(torrentFiles(info('Album', ['Disc 1', '', '01.flac']))).toEqual({ error: 'unsafe-path', path: 'Album/Disc 1//01.flac', element: '', reason: 'empty' });
    expect(torrentFiles(info('Album', ['01.flac\0.txt']))).toEqual({ error: 'unsafe-path', path: 'Album/01.flac\\0.txt', element: '01.flac\\0.txt', reason: 'nul' });
    // GBK bytes with no path.utf-8: not UTF-8, so the client would transcode or replace them.
    expect(torrentFiles(info('Album', [Buffer.from([0xb8, 0xe8, 0x2e, 0x66])]))).toEqual({ error: 'unsafe-path', path: 'Album/\ufffd\ufffd.f', element: '\ufffd\ufffd.f', reason: 'not-utf8' });
    // The root folder (or a single file's name) too.
    expect(torrentFiles(info('..', ['01.flac']))).toEqual({ error: 'unsafe-path', path: '..', element: '..', reason: 'dot' });
    expect(torrentFiles(withInfo({ name: 'a/b.mkv', length: 10, 'piece length': 16_384, pieces: Buffer.alloc(20) }))).toEqual({ error: 'unsafe-path', path: 'a/b.mkv', element: 'a/b.mkv', reason: 'separator' });
    expect(torrentFiles(fixture('non-canonical.torrent'))).toMatchObject({ error: 'unsafe-path', reason: 'not-utf8' });
    // Names that only look odd are kept as they are: "...", a leading dot, spaces.
    expect(torrentFiles(info('Album', ['...'], ['.hidden'], [' 01 .flac']))).toMatchObject({ files: [file('Album/...', 10), file('Album/.hidden', 10), file('Album/ 01 .flac', 10)] });
  });

  it('keeps names exactly as their bytes are: no Unicode normalisation', () => {
    const nfd = 'Cafe\u0301'; // "Café" decomposed, as macOS writes it
    const bytes = withInfo({ name: nfd, 'piece length': 16_384, pieces: Buffer.alloc(20), files: [sorted({ length: 10, path: ['e\u0301.flac'] })] });
    expect(torrentFiles(bytes)).toEqual({ name: nfd, single: false, files: [file(`${nfd}/e\u0301.flac`, 10)] });
  });
});
