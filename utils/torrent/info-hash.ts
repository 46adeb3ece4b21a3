/**
 * The v1 info-hash of a .torrent file: SHA-1 of the exact bytes of its top-level `info`
 * dictionary. A small bencode walker finds that byte range; nothing is decoded or re-encoded,
 * so files with unsorted keys or other non-canonical encodings hash as clients hash them.
 */
import { sha1HexOfBytes } from '../sha1';

export type TorrentHashResult = { hash: string } | { error: 'not-a-torrent' | 'v2-only' | 'malformed' };

const D = 0x64; // d
const E = 0x65; // e
const I = 0x69; // i
const L = 0x6c; // l
const COLON = 0x3a;
const MAX_SKIPPED_NESTING = 512;

/** Thrown by the walker below on bytes that are not bencode. */
export class Malformed extends Error {}

/** Read a string's length prefix at `at`; returns [start of bytes, end of bytes]. */
export function stringAt(bytes: Uint8Array, at: number): [number, number] {
  let length = 0;
  let position = at;
  while (position < bytes.length && bytes[position] !== COLON) {
    const digit = bytes[position]! - 0x30;
    if (digit < 0 || digit > 9 || position - at > 15) throw new Malformed();
    length = length * 10 + digit;
    position++;
  }
  if (position === at || position >= bytes.length) throw new Malformed();
  const end = position + 1 + length;
  if (end > bytes.length) throw new Malformed();
  return [position + 1, end];
}

/** The offset just past the value starting at `at` (iterative: deep nesting cannot blow the stack). */
function skipValue(bytes: Uint8Array, at: number): number {
  let depth = 0;
  let position = at;
  do {
    if (position >= bytes.length) throw new Malformed();
    const byte = bytes[position]!;
    if (byte === D || byte === L) {
      if (++depth > MAX_SKIPPED_NESTING) throw new Malformed();
      position++;
    } else if (byte === E) {
      if (depth === 0) throw new Malformed();
      depth--;
      position++;
    } else if (byte === I) {
      const end = bytes.indexOf(E, position + 1);
      if (end < 0 || !/^-?\d+$/.test(ascii(bytes, position + 1, end))) throw new Malformed();
      position = end + 1;
    } else {
      position = stringAt(bytes, position)[1];
    }
  } while (depth > 0);
  return position;
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let i = start; i < end && i - start < 64; i++) text += String.fromCharCode(bytes[i]!);
  return end - start > 64 ? 'x' : text;
}

/** Each key of the dictionary at `at` with its value's range; returns the offset past the dict. */
export function eachEntry(bytes: Uint8Array, at: number, visit: (key: string, start: number, end: number) => void): number {
  if (bytes[at] !== D) throw new Malformed();
  let position = at + 1;
  while (position < bytes.length && bytes[position] !== E) {
    const [keyStart, keyEnd] = stringAt(bytes, position);
    const valueEnd = skipValue(bytes, keyEnd);
    visit(ascii(bytes, keyStart, keyEnd), keyEnd, valueEnd);
    position = valueEnd;
  }
  if (position >= bytes.length) throw new Malformed();
  return position + 1;
}

export async function infoHashFromTorrent(bytes: Uint8Array): Promise<TorrentHashResult> {
  if (bytes.length < 2 || bytes[0] !== D) return { error: 'not-a-torrent' };
  let info: [number, number] | undefined;
  try {
    eachEntry(bytes, 0, (key, start, end) => {
      if (key === 'info' && !info) info = [start, end];
    });
    if (!info) return { error: 'not-a-torrent' };
    let hasPieces = false;
    let metaVersion = 1;
    eachEntry(bytes, info[0], (key, start, end) => {
      if (key === 'pieces') hasPieces = true;
      if (key === 'meta version') metaVersion = Number(ascii(bytes, start + 1, end - 1));
    });
    // v2-only files have no v1 info-hash; hybrids keep `pieces`, so they hash as v1
    if (!hasPieces) return { error: metaVersion === 2 ? 'v2-only' : 'malformed' };
  } catch {
    return { error: 'malformed' }; // Malformed, or anything else a broken file provokes
  }
  return { hash: await sha1HexOfBytes(bytes.subarray(info[0], info[1])) };
}
