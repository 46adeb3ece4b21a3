/**
 * The files a .torrent describes (path elements and sizes), as a torrent client lists them: a
 * single-file torrent is its name; a multi-file torrent's files sit under its name as the root
 * folder. Used to compare a candidate with the torrent already in the client before adding it
 * beside those files.
 *
 * A small bencode reader for the `info` dictionary only, bounded everywhere (nesting, counts,
 * lengths) so a hostile file costs little. Names are UTF-8 (`name.utf-8` / `path.utf-8` win, as
 * libtorrent and Transmission read them). BEP 47 padding files are left out: clients hide them.
 *
 * Path elements are kept as elements and taken exactly as the client will create them, so an
 * element a client would drop, rename or resolve outside the torrent's folder is refused here,
 * naming the file: an empty element, `.` or `..`, one holding `/`, `\` or NUL (qBittorrent stores
 * `Scans/cover.jpg` as `Scans_cover.jpg`), and a name that is not valid UTF-8 (a client transcodes
 * or replaces its bytes). No Unicode normalisation: the client opens the bytes it is given.
 */

export interface TorrentFile {
  /** The path's elements, the root folder first for a multi-file torrent; none is empty, `.`, `..`, or holds `/`, `\` or NUL. */
  elements: string[];
  /** The elements joined with `/` (unambiguous, since no element holds one). */
  path: string;
  size: number;
}

/** Why a path element is refused. */
export type UnsafeElement = 'empty' | 'dot' | 'separator' | 'nul' | 'not-utf8';

export type TorrentFilesResult =
  | { name: string; single: boolean; files: TorrentFile[] }
  | { error: 'not-a-torrent' | 'malformed' | 'v2-only' | 'too-many-files' }
  /** A file the client would not store under the name the torrent gives: `path` shows it (invalid bytes as U+FFFD, NUL as \0), `element` is the refused part. */
  | { error: 'unsafe-path'; path: string; element: string; reason: UnsafeElement };

/** More than any real release; beyond it the comparison would cost more than it is worth. */
export const MAX_TORRENT_FILES = 100_000;
const MAX_READ_NESTING = 32;

type Value = Uint8Array | number | Value[] | Map<string, Value>;

class Malformed extends Error {}
class TooMany extends Error {}

const decoder = new TextDecoder('utf-8');
/** For names: a byte sequence that is not UTF-8 is an error, not a silent U+FFFD. */
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** Reads one bencoded value at `at`; returns it and the offset past it. Recursion is bounded by MAX_READ_NESTING. */
function read(bytes: Uint8Array, at: number, depth: number, budget: { items: number }): [Value, number] {
  if (depth > MAX_READ_NESTING || at >= bytes.length) throw new Malformed();
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

/** A name's bytes as the client reads them, or what makes it unsafe. */
type Element = { ok: true; name: string } | { ok: false; shown: string; reason: UnsafeElement };

function element(value: Uint8Array): Element {
  let name: string;
  try {
    name = strictDecoder.decode(value);
  } catch {
    return { ok: false, shown: shown(decoder.decode(value)), reason: 'not-utf8' };
  }
  const reason = unsafeElementOf(name);
  return reason ? { ok: false, shown: reason === 'nul' ? shown(name) : name, reason } : { ok: true, name };
}

/**
 * What makes one path element (already text) one a client would not store under that name: the
 * rule for a .torrent's names, and for a name a rename gives (renamed-copy.ts). A lone surrogate is
 * text that no UTF-8 encodes.
 */
export function unsafeElementOf(name: string): UnsafeElement | undefined {
  if (name === '') return 'empty';
  if (name === '.' || name === '..') return 'dot';
  if (name.includes('\0')) return 'nul';
  if (name.includes('/') || name.includes('\\')) return 'separator';
  if (!name.isWellFormed()) return 'not-utf8';
  return undefined;
}

/** A name as text a person can read in a message: NUL written as \0. */
function shown(name: string): string {
  return name.replaceAll('\0', '\\0');
}

/** The raw bytes of a file entry's path (`path.utf-8` wins), or undefined when it is not a list of strings. */
function pathOf(entry: Map<string, Value>): Uint8Array[] | undefined {
  const list = entry.get('path.utf-8') ?? entry.get('path');
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.every((part): part is Uint8Array => part instanceof Uint8Array) ? list : undefined;
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
  const rawName = info.get('name.utf-8') ?? info.get('name');
  if (!info.has('pieces')) return { error: info.get('meta version') === 2 ? 'v2-only' : 'malformed' };
  if (!(rawName instanceof Uint8Array)) return { error: 'malformed' };
  const root = element(rawName);
  if (!root.ok) return { error: 'unsafe-path', path: root.shown, element: root.shown, reason: root.reason };
  const name = root.name;
  const length = size(info.get('length'));
  const list = info.get('files');
  if (length !== undefined && list === undefined) return { name, single: true, files: [{ elements: [name], path: name, size: length }] };
  if (!Array.isArray(list)) return { error: 'malformed' };
  if (list.length > MAX_TORRENT_FILES) return { error: 'too-many-files' };
  const files: TorrentFile[] = [];
  for (const entry of list) {
    if (!(entry instanceof Map)) return { error: 'malformed' };
    const raw = pathOf(entry);
    const fileSize = size(entry.get('length'));
    if (!raw || fileSize === undefined) return { error: 'malformed' };
    const parts = raw.map(element);
    const names = parts.map((part) => (part.ok ? part.name : part.shown));
    if (isPadding(entry, names)) continue;
    const unsafe = parts.find((part) => !part.ok);
    if (unsafe && !unsafe.ok) return { error: 'unsafe-path', path: [name, ...names].join('/'), element: unsafe.shown, reason: unsafe.reason };
    const elements = [name, ...names];
    files.push({ elements, path: elements.join('/'), size: fileSize });
  }
  return { name, single: false, files };
}
