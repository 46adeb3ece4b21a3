/**
 * A torrent's "pieces hash": SHA-1 (40 lowercase hex) of the raw bytes of its `info.pieces` string,
 * the key NexusPHP's `POST /api/pieces-hash` maps to that site's torrent id. Two torrents of the
 * same files cut into the same pieces share it even when their info-hashes differ (another
 * `source`, another announce): that is what makes it a cross-seed finder.
 *
 * Two ways to it, which agree: from the .torrent's bytes (the bencode walker of info-hash.ts finds
 * the string; nothing is decoded or re-encoded), and from the per-piece hex list a client gives
 * (qBittorrent's `torrents/pieceHashes`: each 40 hex, decoded and joined). Both are bounded and
 * never throw on hostile input: a result union.
 */
import { sha1HexOfBytes } from '../sha1';
import { eachEntry, stringAt } from './info-hash';

export type PiecesHashResult =
  /** `announce`: the .torrent's tracker address (its `announce`, else the first of `announce-list`), when it has one. */
  | { piecesHash: string; pieces: number; announce?: string }
  /** `no-pieces`: an empty `pieces` string or list; `malformed`: not bencode, `pieces` not whole 20-byte hashes, or a list entry that is not 40 hex. */
  | { error: 'not-a-torrent' | 'v2-only' | 'malformed' | 'no-pieces' | 'too-many-pieces' };

/**
 * More pieces than any real torrent (a 4 TB torrent at 16 KiB pieces has about 250,000; clients
 * refuse far fewer): 20 MB of hashes at most.
 */
export const MAX_PIECES = 1_000_000;
const PIECE_HASH_BYTES = 20;
const HEX_PIECE = /^[0-9a-fA-F]{40}$/;

/** The pieces hash of a v1 (or hybrid) .torrent, from its bytes. */
export async function piecesHashFromTorrent(bytes: Uint8Array): Promise<PiecesHashResult> {
  if (bytes.length < 2 || bytes[0] !== 0x64 /* d */) return { error: 'not-a-torrent' };
  let pieces: [number, number] | undefined;
  let announce: string | undefined;
  try {
    let info: [number, number] | undefined;
    let list: number | undefined;
    eachEntry(bytes, 0, (key, start, end) => {
      if (key === 'info' && !info) info = [start, end];
      if (key === 'announce' && bytes[start] !== 0x6c) announce = textAt(bytes, start);
      if (key === 'announce-list' && bytes[start] === 0x6c /* l */) list = start;
    });
    // The first tracker of the first tier: `announce-list` is a list of lists of strings.
    if (!announce && list !== undefined && bytes[list + 1] === 0x6c && bytes[list + 2] !== 0x65 /* e */) announce = textAt(bytes, list + 2);
    if (!info) return { error: 'not-a-torrent' };
    let metaVersion = 1;
    eachEntry(bytes, info[0], (key, start) => {
      if (key === 'pieces' && !pieces) pieces = stringAt(bytes, start); // a non-string throws: malformed
      if (key === 'meta version') metaVersion = bytes[start + 1] === 0x32 /* 2 */ ? 2 : 1;
    });
    if (!pieces) return { error: metaVersion === 2 ? 'v2-only' : 'malformed' };
  } catch {
    return { error: 'malformed' };
  }
  const length = pieces[1] - pieces[0];
  if (length === 0) return { error: 'no-pieces' };
  if (length % PIECE_HASH_BYTES !== 0) return { error: 'malformed' };
  if (length / PIECE_HASH_BYTES > MAX_PIECES) return { error: 'too-many-pieces' };
  const piecesHash = await sha1HexOfBytes(bytes.subarray(pieces[0], pieces[1]));
  return announce ? { piecesHash, pieces: length / PIECE_HASH_BYTES, announce } : { piecesHash, pieces: length / PIECE_HASH_BYTES };
}

/** A bencoded string at `at` as text (a tracker address: short, printable), or undefined. */
function textAt(bytes: Uint8Array, at: number): string | undefined {
  try {
    const [start, end] = stringAt(bytes, at);
    if (end - start > 2048) return undefined;
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start, end));
    return /^[\x21-\x7e]+$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** A hex digit's value (the caller has checked it is one): 0-9, a-f, A-F. */
function nibble(code: number): number {
  return code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57;
}

/** The pieces hash from a client's list of per-piece SHA-1s (40 hex each, in piece order). */
export async function piecesHashFromHexList(list: unknown): Promise<PiecesHashResult> {
  if (!Array.isArray(list)) return { error: 'malformed' };
  if (list.length === 0) return { error: 'no-pieces' };
  if (list.length > MAX_PIECES) return { error: 'too-many-pieces' };
  const joined = new Uint8Array(list.length * PIECE_HASH_BYTES);
  for (let index = 0; index < list.length; index++) {
    const hex: unknown = list[index];
    if (typeof hex !== 'string' || !HEX_PIECE.test(hex)) return { error: 'malformed' };
    const at = index * PIECE_HASH_BYTES;
    for (let byte = 0; byte < PIECE_HASH_BYTES; byte++) joined[at + byte] = (nibble(hex.charCodeAt(byte * 2)) << 4) | nibble(hex.charCodeAt(byte * 2 + 1));
  }
  return { piecesHash: await sha1HexOfBytes(joined), pieces: list.length };
}
