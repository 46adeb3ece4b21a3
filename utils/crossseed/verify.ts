/**
 * Before anything reaches the client: the downloaded file must be the torrent the service named
 * (its v1 info-hash equals the candidate's info_hash), and its files (paths and sizes) must be
 * exactly the files of the page's torrent in the client, so that added at the same save path it
 * finds every byte already on disk.
 */
import type { ClientFile } from '../clients/types';
import { infoHashFromTorrent } from '../torrent';
import { torrentFiles, type TorrentFile } from '../torrent/files';

/** How many differences are listed; the rest are counted. */
export const MAX_LISTED_DIFFERENCES = 5;

export type TorrentFileProblem = 'not-a-torrent' | 'malformed' | 'v2-only' | 'too-many-files';

export type CandidateFile =
  | { ok: true; hash: string; files: TorrentFile[] }
  | { ok: false; kind: 'other-torrent'; hash: string }
  | { ok: false; kind: 'not-a-torrent'; problem: TorrentFileProblem };

/** The downloaded file, if it is the candidate's torrent: its files. */
export async function checkCandidateFile(bytes: Uint8Array, expectedHash: string): Promise<CandidateFile> {
  const hashed = await infoHashFromTorrent(bytes);
  if ('error' in hashed) return { ok: false, kind: 'not-a-torrent', problem: hashed.error };
  if (hashed.hash !== expectedHash.toLowerCase()) return { ok: false, kind: 'other-torrent', hash: hashed.hash };
  const listed = torrentFiles(bytes);
  if ('error' in listed) return { ok: false, kind: 'not-a-torrent', problem: listed.error };
  return { ok: true, hash: hashed.hash, files: listed.files };
}

export type FileDifference =
  /** In the candidate, not in the page's torrent. */
  | { kind: 'missing'; path: string; size: number }
  /** In the page's torrent, not in the candidate. */
  | { kind: 'extra'; path: string; size: number }
  /** In both, with other sizes. */
  | { kind: 'size'; path: string; size: number; clientSize: number };

export type FileComparison = { same: true } | { same: false; differences: FileDifference[]; more: number };

/** Paths compared as Unicode text in one normal form (a macOS client may store decomposed names). */
function key(path: string): string {
  return path.normalize('NFC');
}

/** BEP 47 padding files, which some clients list and the .torrent reader leaves out. */
function isPadding(path: string): boolean {
  return /(^|\/)\.pad\/\d+$/.test(path) || /(^|\/)_____padding_file_[^/]*$/.test(path);
}

/** The candidate's files against the client's files of the page's torrent: the same, or the first differences. */
export function compareFiles(candidate: readonly TorrentFile[], clientFiles: readonly ClientFile[], max = MAX_LISTED_DIFFERENCES): FileComparison {
  const client = clientFiles.filter((file) => !isPadding(file.path));
  const clientByPath = new Map(client.map((file) => [key(file.path), file]));
  const candidatePaths = new Set<string>();
  const differences: FileDifference[] = [];
  for (const file of candidate) {
    const path = key(file.path);
    candidatePaths.add(path);
    const existing = clientByPath.get(path);
    if (!existing) differences.push({ kind: 'missing', path: file.path, size: file.size });
    else if (existing.size !== file.size) differences.push({ kind: 'size', path: file.path, size: file.size, clientSize: existing.size });
  }
  for (const file of client) if (!candidatePaths.has(key(file.path))) differences.push({ kind: 'extra', path: file.path, size: file.size });
  if (differences.length === 0) return { same: true };
  return { same: false, differences: differences.slice(0, max), more: Math.max(0, differences.length - max) };
}
