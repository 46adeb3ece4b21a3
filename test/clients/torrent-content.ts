/**
 * Real content and real .torrent files for the client tests: files of deterministic bytes on disk,
 * and torrents for them with real piece hashes, so a client that verifies the data finds it
 * complete. The same files on two trackers make two torrents that differ only in `announce` and
 * `info.source`, hence two info-hashes: exactly what a cross-seed is.
 *
 * The info-hash is computed here from the bytes this writer put in the info dictionary (node:crypto),
 * not by the walker in utils/torrent, so the tests do not check that code against itself.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Dict, encode, sorted, type Value } from '../fixtures/torrents/bencode';

export interface ContentFile {
  /** Relative to the content's root (the file itself for a single file), `/`-separated. */
  path: string;
  size: number;
}

export interface Content {
  /** The folder the content sits in: what a client calls the save path. */
  savePath: string;
  /** The torrent's name: the file name of a single file, the root folder of a multi-file one. */
  name: string;
  /** One entry (path = name) for a single file; the folder's files otherwise. */
  files: ContentFile[];
  single: boolean;
  /** Deterministic bytes of each file, in torrent order. */
  seed: string;
}

/**
 * Two private trackers carrying the same content. Their announce URLs are on loopback's discard
 * port, where nothing listens: a client announcing there asks no resolver (a host name, even under
 * .test, sent a DNS query off loopback) and reaches no peer.
 */
export const TRACKERS = {
  alpha: { announce: 'http://127.0.0.1:9/alpha/announce.php?passkey=0a0a0a0a0a0a0a0a', source: 'ALPHA' },
  beta: { announce: 'http://127.0.0.1:9/beta/announce.php?passkey=0b0b0b0b0b0b0b0b', source: 'BETA' },
} as const;
export type TrackerName = keyof typeof TRACKERS;

/** `size` deterministic bytes derived from `seed` (SHA-256 in counter mode). */
export function contentBytes(seed: string, size: number): Buffer {
  const blocks: Buffer[] = [];
  for (let counter = 0, length = 0; length < size; counter++, length += 32) {
    blocks.push(createHash('sha256').update(`${seed}:${counter}`).digest());
  }
  return Buffer.concat(blocks).subarray(0, size);
}

function fileSeed(seed: string, path: string): string {
  return `${seed}/${path}`;
}

/** Writes one file of `size` bytes at `savePath/name`. */
export function writeSingleFile(savePath: string, name: string, size: number, seed = name): Content {
  mkdirSync(savePath, { recursive: true });
  writeFileSync(join(savePath, name), contentBytes(fileSeed(seed, name), size));
  return { savePath, name, files: [{ path: name, size }], single: true, seed };
}

/** Writes a folder `savePath/name` holding `files` (paths relative to the folder). */
export function writeFolder(savePath: string, name: string, files: ContentFile[], seed = name): Content {
  for (const file of files) {
    const target = join(savePath, name, ...file.path.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, contentBytes(fileSeed(seed, file.path), file.size));
  }
  return { savePath, name, files, single: false, seed };
}

/** The sample content of the tests: one file and one folder of a few hundred KB. */
export function writeSampleContent(savePath: string): { single: Content; folder: Content } {
  return {
    single: writeSingleFile(savePath, 'Reseed.Lens.Sample.2024.1080p.mkv', 300_000),
    folder: writeFolder(savePath, 'Reseed Lens Album (2024) [FLAC]', [
      { path: '01 - Opening.flac', size: 180_000 },
      { path: '02 - 结尾.flac', size: 120_500 },
      { path: 'Scans/cover.jpg', size: 9_000 },
    ]),
  };
}

export interface MadeTorrent {
  bytes: Buffer;
  /** v1 info-hash, 40 lowercase hex. */
  hash: string;
  name: string;
  tracker: string;
}

export interface TorrentOptions {
  /** The tracker; absent, the torrent has no `announce` (a tracker's stored copy, which gets one per user on download). */
  announce?: string;
  source?: string;
  /** Default 16 KiB: several pieces even for small files, so a wrong byte is noticed. */
  pieceLength?: number;
  private?: boolean;
  /**
   * Default true. False writes the info dictionary's keys in reverse order: valid for libtorrent,
   * which hashes the bytes as written, while Transmission 3.00 re-encodes them (sorted) and so
   * takes it under another info-hash.
   */
  canonical?: boolean;
  /**
   * The names the torrent gives (a renamed copy): its name (the root folder, or the file of a
   * single-file torrent) and its files' paths in order; the bytes stay `content`'s, in its order.
   */
  layout?: { name: string; single: boolean; paths: string[] };
  /** More keys of the info dictionary (UNIT3D's `entropy`), placed in canonical order with the others. */
  extraInfo?: Record<string, Value>;
  /**
   * The top-level keys besides `announce` and `info`, instead of this writer's `created by` and
   * `creation date` (what a tracker keeps of an upload, plus the comment it adds).
   */
  top?: Record<string, Value>;
  /**
   * Piece hashes that stand for content never made (SHA-1 of the seed and the piece's index), so a
   * torrent of many GB costs nothing to write; no client can verify data against them.
   */
  standInPieces?: boolean;
}

function allBytes(content: Content): Buffer {
  return Buffer.concat(content.files.map((file) => contentBytes(fileSeed(content.seed, file.path), file.size)));
}

/** A real .torrent for `content`: canonical bencode, real piece hashes. */
export function makeTorrent(content: Content, options: TorrentOptions): MadeTorrent {
  const pieceLength = options.pieceLength ?? 16_384;
  const pieceHashes: Buffer[] = [];
  if (options.standInPieces) {
    const total = content.files.reduce((sum, file) => sum + file.size, 0);
    for (let index = 0; index * pieceLength < total; index++) pieceHashes.push(createHash('sha1').update(`${content.seed}#${index}`).digest());
  } else {
    const data = allBytes(content);
    for (let start = 0; start < data.length; start += pieceLength) {
      pieceHashes.push(createHash('sha1').update(data.subarray(start, start + pieceLength)).digest());
    }
  }
  const layout = options.layout ?? { name: content.name, single: content.single, paths: content.files.map((file) => file.path) };
  const info: Record<string, Value> = {
    name: layout.name,
    'piece length': pieceLength,
    pieces: Buffer.concat(pieceHashes),
  };
  if (layout.single) info.length = content.files[0]!.size;
  else info.files = content.files.map((file, index) => sorted({ length: file.size, path: layout.paths[index]!.split('/') }));
  if (options.private ?? true) info.private = 1;
  if (options.source) info.source = options.source;
  Object.assign(info, options.extraInfo);
  const marks: { key: string; at?: [number, number] } = { key: 'info' };
  const infoDict = options.canonical === false ? new Dict([...sorted(info).entries].reverse()) : sorted(info);
  const top: Record<string, Value> = { ...(options.top ?? { 'created by': 'Reseed Lens tests', 'creation date': 1_700_000_000 }), info: infoDict };
  if (options.announce !== undefined) top.announce = options.announce;
  const bytes = encode(sorted(top), marks);
  const hash = createHash('sha1').update(bytes.subarray(marks.at![0], marks.at![1])).digest('hex');
  return { bytes, hash, name: layout.name, tracker: options.source ?? options.announce ?? '' };
}

/** The torrent of `content` on one of the two test trackers. */
export function torrentOn(tracker: TrackerName, content: Content): MadeTorrent {
  return makeTorrent(content, TRACKERS[tracker]);
}

/**
 * A torrent whose info dictionary libtorrent cannot load (its `pieces` is not a multiple of 20
 * bytes) but which still has a v1 info-hash: what a client refuses, not what our hash reader does.
 */
export function unloadableTorrent(name: string): MadeTorrent {
  const info = sorted({ length: 1000, name, 'piece length': 16_384, pieces: Buffer.alloc(7, 1) });
  const marks: { key: string; at?: [number, number] } = { key: 'info' };
  const bytes = encode(sorted({ announce: TRACKERS.alpha.announce, info }), marks);
  return { bytes, hash: createHash('sha1').update(bytes.subarray(marks.at![0], marks.at![1])).digest('hex'), name, tracker: 'broken' };
}

/** What pads a long name: a few words, some of them not ASCII, as real release names have. */
const LONG_NAME_FILLER = '.Reseed.Lens.长名字.Long.Release.Name.2024.1080p.BluRay.x264-GROUP';

/**
 * `count` tiny distinct torrents without data (for a client holding many torrents); with
 * `nameLength`, each name is padded to that many characters (a heavy seeder's long names).
 */
export function tinyTorrents(count: number, prefix = 'tiny', nameLength?: number): MadeTorrent[] {
  return Array.from({ length: count }, (_, index) => {
    const short = `${prefix}-${String(index).padStart(5, '0')}`;
    const padding = nameLength === undefined ? '' : LONG_NAME_FILLER.repeat(Math.ceil(nameLength / LONG_NAME_FILLER.length)).slice(0, Math.max(0, nameLength - short.length - 4));
    const name = `${short}${padding}.bin`;
    const info = sorted({ length: 1024, name, 'piece length': 16_384, pieces: createHash('sha1').update(name).digest(), private: 1 });
    const marks: { key: string; at?: [number, number] } = { key: 'info' };
    const bytes = encode(sorted({ announce: TRACKERS.alpha.announce, info }), marks);
    return { bytes, hash: createHash('sha1').update(bytes.subarray(marks.at![0], marks.at![1])).digest('hex'), name, tracker: 'ALPHA' };
  });
}

/** The share of the data (in bytes) in pieces that do not touch file `damaged`: what a check finds when only that file is wrong. */
export function shareOfValidPieces(files: ContentFile[], damaged: number, pieceLength = 16_384): number {
  const total = files.reduce((sum, file) => sum + file.size, 0);
  const start = files.slice(0, damaged).reduce((sum, file) => sum + file.size, 0);
  const end = start + files[damaged]!.size;
  let valid = 0;
  for (let at = 0; at < total; at += pieceLength) {
    const pieceEnd = Math.min(at + pieceLength, total);
    if (pieceEnd <= start || at >= end) valid += pieceEnd - at;
  }
  return valid / total;
}
