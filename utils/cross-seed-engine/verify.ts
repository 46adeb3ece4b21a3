/**
 * Before anything reaches the client: the downloaded file must be the torrent the service named
 * (its v1 info-hash equals the candidate's info_hash), and its files (paths and sizes) must be
 * exactly the files of the page's torrent in the client, so that added at the same save path it
 * finds every byte already on disk.
 *
 * "Exactly" is byte for byte, as the client will open the files: no Unicode normalisation (a
 * decomposed name is another file on Linux and stalled at 0 %), and no path element the client
 * would rename (torrent/files.ts refuses those, naming the file).
 */
import type { ClientFile } from '../clients/client-types';
import { infoHashFromTorrent } from '../torrent/info-hash';
import { piecesHashFromTorrent } from '../torrent/pieces-hash';
import { torrentFiles, type TorrentFile, type UnsafeElement } from '../torrent/files';

/** How many differences are listed; the rest are counted. */
export const MAX_LISTED_DIFFERENCES = 5;

export type TorrentFileProblem = 'not-a-torrent' | 'malformed' | 'v2-only' | 'too-many-files';

export type CandidateFile =
  | { ok: true; hash: string; files: TorrentFile[] }
  | { ok: false; kind: 'other-torrent'; hash: string }
  | { ok: false; kind: 'not-a-torrent'; problem: TorrentFileProblem }
  /** A file the client would store under another name, or outside the torrent's folder. */
  | { ok: false; kind: 'unsafe-file'; path: string; element: string; reason: UnsafeElement };

/**
 * The downloaded file, if it is the candidate's torrent: its files. The candidate is known by its
 * info-hash (the service named it), or, found by a site's pieces-hash API, by its pieces hash (its
 * info-hash is learnt here): the same pieces are the same data cut the same way, and the files are
 * still compared byte for byte after.
 */
export async function checkCandidateFile(bytes: Uint8Array, expected: string | { piecesHash: string }): Promise<CandidateFile> {
  const hashed = await infoHashFromTorrent(bytes);
  if ('error' in hashed) return { ok: false, kind: 'not-a-torrent', problem: hashed.error };
  if (typeof expected === 'string') {
    if (hashed.hash !== expected.toLowerCase()) return { ok: false, kind: 'other-torrent', hash: hashed.hash };
  } else {
    const pieces = await piecesHashFromTorrent(bytes);
    if (!('piecesHash' in pieces)) return { ok: false, kind: 'not-a-torrent', problem: pieces.error === 'v2-only' ? 'v2-only' : 'malformed' };
    if (pieces.piecesHash !== expected.piecesHash.toLowerCase()) return { ok: false, kind: 'other-torrent', hash: hashed.hash };
  }
  const listed = torrentFiles(bytes);
  if ('error' in listed) {
    if (listed.error === 'unsafe-path') return { ok: false, kind: 'unsafe-file', path: listed.path, element: listed.element, reason: listed.reason };
    return { ok: false, kind: 'not-a-torrent', problem: listed.error };
  }
  return { ok: true, hash: hashed.hash, files: listed.files };
}

export type FileDifference =
  /** In the candidate, not in the page's torrent. */
  | { kind: 'missing'; path: string; size: number }
  /** In the page's torrent, not in the candidate. */
  | { kind: 'extra'; path: string; size: number }
  /** In both, with other sizes. */
  | { kind: 'size'; path: string; size: number; clientSize: number }
  /** The same name as `clientPath` only after Unicode normalisation (NFC/NFD): to the client another file. */
  | { kind: 'unicode-form'; path: string; clientPath: string; size: number };

export type FileComparison = { same: true } | { same: false; differences: FileDifference[]; more: number };

/** BEP 47 padding files, which some clients list and the .torrent reader leaves out. */
function isPadding(path: string): boolean {
  return /(^|\/)\.pad\/\d+$/.test(path) || /(^|\/)_____padding_file_[^/]*$/.test(path);
}

/**
 * The candidate's files against the client's files of the page's torrent: the same (every path
 * and size equal, code unit for code unit), or the first differences. A name equal to a client's
 * only in another Unicode normal form is a difference of its own kind, so the message can say so.
 */
export function compareFiles(candidate: readonly Pick<TorrentFile, 'path' | 'size'>[], clientFiles: readonly ClientFile[], max = MAX_LISTED_DIFFERENCES): FileComparison {
  const client = clientFiles.filter((file) => !isPadding(file.path));
  const clientByPath = new Map(client.map((file) => [file.path, file]));
  const matched = new Set<string>();
  const unmatched: Pick<TorrentFile, 'path' | 'size'>[] = [];
  const differences: FileDifference[] = [];
  for (const file of candidate) {
    const existing = clientByPath.get(file.path);
    if (!existing) {
      unmatched.push(file);
      continue;
    }
    matched.add(file.path);
    if (existing.size !== file.size) differences.push({ kind: 'size', path: file.path, size: file.size, clientSize: existing.size });
  }
  // Among what is left on both sides, names that are one name in another normal form.
  const byForm = new Map<string, ClientFile>();
  for (const file of client) if (!matched.has(file.path)) byForm.set(file.path.normalize('NFC'), file);
  for (const file of unmatched) {
    const twin = byForm.get(file.path.normalize('NFC'));
    if (twin && !matched.has(twin.path)) {
      matched.add(twin.path);
      differences.push({ kind: 'unicode-form', path: file.path, clientPath: twin.path, size: file.size });
    } else differences.push({ kind: 'missing', path: file.path, size: file.size });
  }
  for (const file of client) if (!matched.has(file.path)) differences.push({ kind: 'extra', path: file.path, size: file.size });
  if (differences.length === 0) return { same: true };
  return { same: false, differences: differences.slice(0, max), more: Math.max(0, differences.length - max) };
}
