/**
 * The .torrent a test tracker holds for one upload, and the one it hands a user, for the search
 * answerers (unit3d-site.ts, gazelle-site.ts, nexusphp-search-site.ts).
 *
 * An upload is described as a tracker lists it: a root folder (or none for a single file) and the
 * files' paths inside it with their sizes. The bytes come from test/clients/torrent-content.ts's
 * `makeTorrent`, so the piece hashes are those of the same deterministic content the client tests
 * write to disk (same seed, same paths, same sizes): a client handed the site's .torrent verifies
 * the user's files against it. Big uploads (more than `REAL_PIECES_LIMIT` bytes) get stand-in piece
 * hashes instead, which cost nothing to make and which no client can verify.
 *
 * Each tracker changes the info dictionary in its own way (its `source`, UNIT3D's `entropy`), so the
 * info-hash of the same files differs per site; the answerers give those keys here. The torrent is
 * made again, with the same info dictionary, whenever a site serves it with a user's announce URL:
 * the info-hash a user gets is the one the site listed.
 */
import { randomBytes } from 'node:crypto';
import type { Value } from '../../fixtures/torrents/bencode';
import { makeTorrent, type Content, type MadeTorrent } from '../../clients/torrent-content';

/** One file as a tracker lists it: its path inside the root folder (`/`-joined), or the file itself for a single-file upload. */
export interface SiteFile {
  name: string;
  size: number;
}

/** What an upload holds: the root folder (null: a single file, whose name is `files[0].name`) and its files in torrent order. */
export interface SiteLayout {
  folder: string | null;
  files: SiteFile[];
  /** The content's seed (test/clients/torrent-content.ts): by default the root's name, as writeFolder/writeSingleFile use. */
  seed?: string;
  /** Default 16 KiB, or what keeps a big upload near 2,000 pieces. */
  pieceLength?: number;
}

/** Above this many bytes an upload gets stand-in piece hashes (no content is made). */
export const REAL_PIECES_LIMIT = 16 * 1024 * 1024;

/** The torrent's `info.name`: the root folder, or the single file's name. */
export function rootName(layout: SiteLayout): string {
  return layout.folder ?? layout.files[0]!.name;
}

export function totalSize(layout: SiteLayout): number {
  return layout.files.reduce((sum, file) => sum + file.size, 0);
}

/** A layout for content written by test/clients/torrent-content.ts (the files a client seeds). */
export function layoutOf(content: Content): SiteLayout {
  return {
    folder: content.single ? null : content.name,
    files: content.files.map((file) => ({ name: file.path, size: file.size })),
    seed: content.seed,
  };
}

/** UNIT3D's `entropy`: `bin2hex(random_bytes(64))`, 128 hex characters. */
export function randomEntropy(): string {
  return randomBytes(64).toString('hex');
}

function pieceLengthFor(layout: SiteLayout): number {
  if (layout.pieceLength) return layout.pieceLength;
  let length = 16_384;
  while (totalSize(layout) / length > 2_000) length *= 2;
  return length;
}

/**
 * The .torrent of `layout` with `info` keys added to the standard ones (`source`, `private`,
 * `entropy`…), the top-level keys `top` (besides `info`) and, when given, `announce`.
 */
export function siteTorrent(layout: SiteLayout, info: Record<string, Value>, top: Record<string, Value> = {}, announce?: string): MadeTorrent {
  if (layout.files.length === 0) throw new Error('an upload holds at least one file');
  if (layout.folder === null && layout.files.length !== 1) throw new Error('a single-file upload holds one file');
  const name = rootName(layout);
  const content: Content = {
    savePath: '',
    name,
    files: layout.files.map((file) => ({ path: file.name, size: file.size })),
    single: layout.folder === null,
    seed: layout.seed ?? name,
  };
  const { private: isPrivate, ...extraInfo } = info;
  return makeTorrent(content, {
    announce,
    pieceLength: pieceLengthFor(layout),
    private: isPrivate !== undefined,
    extraInfo,
    top,
    standInPieces: totalSize(layout) > REAL_PIECES_LIMIT,
  });
}
