/**
 * The files a .torrent describes (paths and sizes), as a torrent client lists them: a single-file
 * torrent is its name; a multi-file torrent's files sit under its name as the root folder. Used to
 * compare a candidate with the torrent already in the client before adding it beside those files.
 *
 * A small bencode reader for the `info` dictionary only, bounded everywhere (nesting, counts,
 * lengths) so a hostile file costs little. Names are UTF-8 (`name.utf-8` / `path.utf-8` win, as
 * libtorrent and Transmission read them). BEP 47 padding files are left out: clients hide them.
 */

export interface TorrentFile {
  /** `/`-separated, the root folder included for a multi-file torrent. */
  path: string;
  size: number;
}

export type TorrentFilesResult =
  | { name: string; single: boolean; files: TorrentFile[] }
  | { error: 'not-a-torrent' | 'malformed' | 'v2-only' | 'too-many-files' };

/** More than any real release; beyond it the comparison would cost more than it is worth. */
export const MAX_TORRENT_FILES = 100_000;
const MAX_DEPTH = 32;

type Value = Uint8Array | number | Value[] | Map<string, Value>;

class Malformed extends Error {}
class TooMany extends Error {}

const decoder = new TextDecoder('utf-8');

/** Reads one bencoded value at `at`; returns it and the offset past it. Recursion is bounded by MAX_DEPTH. */
function read(bytes: Uint8Array, at: number, depth: number, budget: { items: number }): [Value, number] {
  if (depth > MAX_DEPTH || at >= bytes.length) throw new Malformed();
  const byte = bytes[at]!;
  if (byte === 0x69 /* i */) {
    const end = bytes.indexOf(0x65, at + 1);
    if (end < 0 || end - at > 24) throw new Malformed();
    const text = decoder.decode(bytes.subarray(at + 1, end));
    if (!/^-?\d+$/.test(text)) throw new Malformed();
    const value = Number(text);
    if (!Number.isSafeInteger(value)) throw new Malformed();
    return [value, end + 1];
  }
  if (byte === 0x6c /* l */) {
    const list: Value[] = [];
    let position = at + 1;
    while (bytes[position] !== 0x65) {
      if (position >= bytes.length) throw new Malformed();
      if (--budget.items < 0) throw new TooMany();
      const [value, next] = read(bytes, position, depth + 1, budget);
      list.push(value);
      position = next;
    }
    return [list, position + 1];
  }
  if (byte === 0x64 /* d */) {
    const dict = new Map<string, Value>();
    let position = at + 1;
    while (bytes[position] !== 0x65) {
      if (position >= bytes.length) throw new Malformed();
      if (--budget.items < 0) throw new TooMany();
      const [key, afterKey] = read(bytes, position, depth + 1, budget);
      if (!(key instanceof Uint8Array)) throw new Malformed();
      const [value, next] = read(bytes, afterKey, depth + 1, budget);
      const name = decoder.decode(key);
      if (!dict.has(name)) dict.set(name, value);
      position = next;
    }
    return [dict, position + 1];
  }
  // A string: <length>:<bytes>
  let length = 0;
  let position = at;
  while (bytes[position] !== 0x3a /* : */) {
    const digit = (bytes[position] ?? -1) - 0x30;
    if (digit < 0 || digit > 9 || position - at > 15) throw new Malformed();
    length = length * 10 + digit;
    position++;
  }
  if (position === at) throw new Malformed();
  const end = position + 1 + length;
  if (end > bytes.length) throw new Malformed();
  return [bytes.subarray(position + 1, end), end];
}

function text(value: Value | undefined): string | undefined {
  return value instanceof Uint8Array ? decoder.decode(value) : undefined;
}

function size(value: Value | undefined): number | undefined {
  return typeof value === 'number' && value >= 0 ? value : undefined;
}

function pathOf(entry: Map<string, Value>): string[] | undefined {
  const list = entry.get('path.utf-8') ?? entry.get('path');
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const parts = list.map((part) => text(part));
  return parts.every((part): part is string => part !== undefined) ? parts : undefined;
}

function isPadding(entry: Map<string, Value>, parts: string[]): boolean {
  const attr = text(entry.get('attr'));
  if (attr?.includes('p')) return true;
  // Older writers (BitComet) mark padding only by name.
  const last = parts[parts.length - 1] ?? '';
  return last.startsWith('_____padding_file_') || (parts.length === 2 && parts[0] === '.pad');
}

export function torrentFiles(bytes: Uint8Array): TorrentFilesResult {
  if (bytes.length < 2 || bytes[0] !== 0x64) return { error: 'not-a-torrent' };
  let info: Value | undefined;
  try {
    const budget = { items: MAX_TORRENT_FILES * 12 };
    const [top] = read(bytes, 0, 0, budget);
    if (!(top instanceof Map)) return { error: 'not-a-torrent' };
    info = top.get('info');
  } catch (error) {
    return { error: error instanceof TooMany ? 'too-many-files' : 'malformed' };
  }
  if (!(info instanceof Map)) return { error: 'not-a-torrent' };
  const name = text(info.get('name.utf-8')) ?? text(info.get('name'));
  if (!info.has('pieces')) return { error: info.get('meta version') === 2 ? 'v2-only' : 'malformed' };
  if (name === undefined || name === '') return { error: 'malformed' };
  const length = size(info.get('length'));
  const list = info.get('files');
  if (length !== undefined && list === undefined) return { name, single: true, files: [{ path: name, size: length }] };
  if (!Array.isArray(list)) return { error: 'malformed' };
  if (list.length > MAX_TORRENT_FILES) return { error: 'too-many-files' };
  const files: TorrentFile[] = [];
  for (const entry of list) {
    if (!(entry instanceof Map)) return { error: 'malformed' };
    const parts = pathOf(entry);
    const fileSize = size(entry.get('length'));
    if (!parts || fileSize === undefined) return { error: 'malformed' };
    if (isPadding(entry, parts)) continue;
    files.push({ path: [name, ...parts].join('/'), size: fileSize });
  }
  return { name, single: false, files };
}
