/**
 * "Copies go to" another client (issue 33): a folder pair says where that client sees a folder of
 * this one ("/downloads" here is "/mnt/nas/downloads" there: another mount of the same disk). A
 * source's save path is mapped through the pair whose folder holds it, the longest such folder
 * winning; a path under no pair is not mapped (the copy is not sent).
 *
 * Paths are the clients' own: POSIX (`/data/music`) or Windows (`D:\Torrents`, `\\nas\share`), as
 * each client reports them. A folder holds a path when the path is that folder or goes on from it
 * at a separator (`/data` holds `/data/music`, not `/database`); characters are compared as they
 * are (byte for byte: `/Data` is not `/data`), only the separator differs between `/` and `\` on
 * a Windows path, where both are one. Pure: no browser, no client.
 */

export interface FolderPair {
  /** The folder as this client (the source's) sees it: an absolute path. */
  from: string;
  /** The same folder as the "Copies go to" client sees it: an absolute path. */
  to: string;
}

/** At most this many pairs per client (one per disk or share is what users have). */
export const MAX_FOLDER_PAIRS = 20;
/** A path longer than this is no folder anyone types. */
export const MAX_FOLDER_PATH = 1000;

/** `C:\…`, `C:/…`, or a UNC share `\\server\share…`. */
const WINDOWS_ABSOLUTE = /^(?:[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/][^\\/]+)/;

function isWindowsPath(path: string): boolean {
  return WINDOWS_ABSOLUTE.test(path);
}

/** Whether a client would read `path` as an absolute folder: `/…` on POSIX, `C:\…` or `\\server\share` on Windows. */
export function isAbsoluteFolder(path: string): boolean {
  if (path.length === 0 || path.length > MAX_FOLDER_PATH || path.includes('\0')) return false;
  if (path !== path.trim()) return false;
  return path.startsWith('/') || isWindowsPath(path);
}

/** The path without its trailing separators (the root `/` and `C:\` stay as they are). */
function withoutTrailingSeparator(path: string): string {
  const windows = isWindowsPath(path);
  const trailing = windows ? /[\\/]+$/ : /\/+$/;
  const trimmed = path.replace(trailing, '');
  if (trimmed === '') return '/';
  if (windows && /^[A-Za-z]:$/.test(trimmed)) return `${trimmed}${path[2] ?? '\\'}`;
  return trimmed;
}

/** How far into `path` the folder `folder` goes, or -1 when it does not hold it. */
function heldLength(folder: string, path: string): number {
  const windows = isWindowsPath(folder);
  if (windows !== isWindowsPath(path)) return -1;
  const base = withoutTrailingSeparator(folder);
  // One separator for the comparison on Windows; POSIX paths as they are.
  const same = (value: string) => (windows ? value.replace(/\//g, '\\') : value);
  const a = same(base);
  const b = same(path);
  if (b === a || withoutTrailingSeparator(b) === a) return path.length;
  const separator = windows ? '\\' : '/';
  const prefix = a.endsWith(separator) ? a : `${a}${separator}`;
  return b.startsWith(prefix) ? prefix.length : -1;
}

/**
 * The pair whose folder holds `path`, the longest folder winning (two pairs for `/data` and
 * `/data/music`: a path under `/data/music` takes the second); undefined when none holds it.
 */
export function pairFor(pairs: readonly FolderPair[], path: string): FolderPair | undefined {
  let best: FolderPair | undefined;
  let bestLength = -1;
  for (const pair of pairs) {
    const length = heldLength(pair.from, path);
    if (length < 0) continue;
    const folder = withoutTrailingSeparator(pair.from).length;
    if (folder > bestLength) {
      best = pair;
      bestLength = folder;
    }
  }
  return best;
}

/**
 * `path` as the other client sees it through the pairs: the longest pair folder holding it replaced
 * by that pair's other folder, the rest kept as it is (its separators turned into the other side's
 * where one side is Windows and the other not). Undefined when no pair holds it.
 */
export function mapThroughPairs(pairs: readonly FolderPair[], path: string): string | undefined {
  const pair = pairFor(pairs, path);
  if (!pair) return undefined;
  const cut = heldLength(pair.from, path);
  let rest = path.slice(cut).replace(/^[\\/]+/, '');
  const toWindows = isWindowsPath(pair.to);
  if (isWindowsPath(pair.from) !== toWindows) rest = toWindows ? rest.replace(/\//g, '\\') : rest.replace(/\\/g, '/');
  const base = withoutTrailingSeparator(pair.to);
  if (!rest) return base;
  const separator = toWindows ? (base.includes('/') && !base.includes('\\') ? '/' : '\\') : '/';
  return base.endsWith(separator) || base.endsWith('/') || base.endsWith('\\') ? `${base}${rest}` : `${base}${separator}${rest}`;
}
