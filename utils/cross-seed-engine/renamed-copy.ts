/**
 * Same files, other names (issue 25): the one place that decides whether a candidate whose paths
 * differ from the client's torrent is a *renamed copy* — the same bytes in the same order under
 * other names — and how the client must rename the candidate's files so that, added at the
 * source's save path, it finds every byte already on disk. Each adapter only carries out the steps
 * (qBittorrent renameFolder / renameFile, Transmission torrent-rename-path, Deluge rename_folder /
 * rename_files) or says it cannot express them.
 *
 * A renamed copy: its files, in the torrent's order, have exactly the sizes of the client torrent's
 * files in their order; the piece length and the pieces hash agree where both are known; only the
 * names differ (the root folder, file names, or a lone file in a folder on one side and bare on the
 * other). Every target is a relative path under the torrent's own save path, each element by the
 * rule a .torrent's names follow (torrent/files.ts), and no two targets collide. Anything else is
 * "not the same files", naming the file.
 */
import { z } from 'zod';
import type { ClientFile, RenameReach, RenameStep } from '../clients/client-types';
import { unsafeElementOf, type UnsafeElement } from '../torrent/files';
import { compareFiles, MAX_LISTED_DIFFERENCES, type FileDifference } from './verify';

export type { RenameStep };

export interface RenamePlan {
  steps: RenameStep[];
  /** Each file's path in the candidate and on disk, in the torrent's order (for the report: old → new). */
  files: { from: string; to: string; size: number }[];
}

/** A plan as kept in storage (the whole-client job's record of a copy added stopped) and read back. */
export const renamePlanSchema: z.ZodType<RenamePlan> = z.object({
  steps: z.array(
    z.union([
      z.object({ kind: z.literal('folder'), from: z.string(), to: z.string() }),
      z.object({ kind: z.literal('file'), index: z.number().int().nonnegative(), from: z.string(), to: z.string() }),
    ]),
  ),
  files: z.array(z.object({ from: z.string(), to: z.string(), size: z.number() })),
});

export type CopyMatch =
  /** Every path and size equal: added as is. */
  | { kind: 'same' }
  | { kind: 'renamed'; plan: RenamePlan }
  /** Sizes, count or order differ: not the same files (the first differences, by position). */
  | { kind: 'different'; differences: FileDifference[]; more: number }
  /** The piece length or the pieces hash differ where both are known: other data. */
  | { kind: 'other-pieces'; what: 'piece-length' | 'pieces-hash' }
  /** A target the client would not store under that name, or outside the torrent's folder. */
  | { kind: 'unsafe-target'; path: string; element: string; reason: UnsafeElement }
  /** Two targets that are one file (or a file and a folder of the same name). */
  | { kind: 'colliding-targets'; path: string };

export interface CopySide {
  files: readonly { path: string; size: number }[];
  /** Bytes a piece, when known. */
  pieceLength?: number;
  /** SHA-1 of the raw `info.pieces`, when known (always for the candidate's .torrent; for the client's where it gives piece hashes). */
  piecesHash?: string;
}

/** BEP 47 padding files, which some clients list and the .torrent reader leaves out. */
function isPadding(path: string): boolean {
  return /(^|\/)\.pad\/\d+$/.test(path) || /(^|\/)_____padding_file_[^/]*$/.test(path);
}

const rootOf = (path: string): string | undefined => (path.includes('/') ? path.slice(0, path.indexOf('/')) : undefined);
const restOf = (path: string): string => path.slice(path.indexOf('/') + 1);

/** The common root folder of these paths, when every one sits under the same one. */
function commonRoot(paths: readonly string[]): string | undefined {
  const first = paths[0] === undefined ? undefined : rootOf(paths[0]);
  return first !== undefined && paths.every((path) => rootOf(path) === first) ? first : undefined;
}

/**
 * Whether `candidate` can be added to find the client torrent's bytes on disk: as is, renamed (with
 * the steps), or not (why, naming the file).
 */
export function matchCopy(candidate: CopySide, client: CopySide, max = MAX_LISTED_DIFFERENCES): CopyMatch {
  const clientFiles: ClientFile[] = client.files.filter((file) => !isPadding(file.path));
  const exact = compareFiles(candidate.files, clientFiles, max);
  if (exact.same) return { kind: 'same' };
  if (candidate.pieceLength !== undefined && client.pieceLength !== undefined && candidate.pieceLength !== client.pieceLength) return { kind: 'other-pieces', what: 'piece-length' };
  if (candidate.piecesHash && client.piecesHash && candidate.piecesHash.toLowerCase() !== client.piecesHash.toLowerCase()) return { kind: 'other-pieces', what: 'pieces-hash' };

  // By position: the same count, and each file the size of the client's file at its place.
  const differences: FileDifference[] = [];
  const count = Math.max(candidate.files.length, clientFiles.length);
  for (let i = 0; i < count; i++) {
    const mine = candidate.files[i];
    const theirs = clientFiles[i];
    if (mine && theirs) {
      if (mine.size !== theirs.size) differences.push({ kind: 'size', path: mine.path, size: mine.size, clientSize: theirs.size });
    } else if (mine) differences.push({ kind: 'missing', path: mine.path, size: mine.size });
    else if (theirs) differences.push({ kind: 'extra', path: theirs.path, size: theirs.size });
  }
  if (differences.length) return { kind: 'different', differences: differences.slice(0, max), more: Math.max(0, differences.length - max) };

  // Every target safe, and no two of them one file (nor a file where another needs a folder).
  const targets = new Set<string>();
  const folders = new Set<string>();
  for (const file of clientFiles) {
    for (const element of file.path.split('/')) {
      const reason = unsafeElementOf(element);
      if (reason) return { kind: 'unsafe-target', path: file.path.replaceAll('\0', '\\0'), element: element.replaceAll('\0', '\\0'), reason };
    }
    if (targets.has(file.path) || folders.has(file.path)) return { kind: 'colliding-targets', path: file.path };
    targets.add(file.path);
    const elements = file.path.split('/');
    for (let depth = 1; depth < elements.length; depth++) folders.add(elements.slice(0, depth).join('/'));
  }
  for (const folder of folders) if (targets.has(folder)) return { kind: 'colliding-targets', path: folder };

  // The steps: the root folder at once where both sides have one, then each file still elsewhere.
  const steps: RenameStep[] = [];
  const candidateRoot = commonRoot(candidate.files.map((file) => file.path));
  const clientRoot = commonRoot(clientFiles.map((file) => file.path));
  let current = candidate.files.map((file) => file.path);
  if (candidateRoot !== undefined && clientRoot !== undefined && candidateRoot !== clientRoot) {
    steps.push({ kind: 'folder', from: candidateRoot, to: clientRoot });
    current = current.map((path) => `${clientRoot}/${restOf(path)}`);
  }
  // Files renamed one by one: a target another file still holds (two names swapped) would be refused
  // by the client half way, so such a copy is not taken.
  const held = new Set(current);
  for (const [index, from] of current.entries()) {
    const to = clientFiles[index]!.path;
    if (from === to) continue;
    if (held.has(to)) return { kind: 'colliding-targets', path: to };
    held.delete(from);
    held.add(to);
    steps.push({ kind: 'file', index, from, to });
  }
  return {
    kind: 'renamed',
    plan: { steps, files: candidate.files.map((file, index) => ({ from: file.path, to: clientFiles[index]!.path, size: file.size })) },
  };
}

/**
 * Whether a client can carry out these steps: one that renames only a path's last element
 * (Transmission's torrent-rename-path) cannot move a file to another folder, so it cannot put a lone
 * file into a folder or take it out of one; one that can only place a torrent's own folder
 * (rTorrent) renames no file at all.
 */
export function stepsExpressible(steps: readonly RenameStep[], renames: RenameReach): boolean {
  if (renames === 'any-path') return true;
  if (renames === 'root-folder') return steps.every((step) => step.kind === 'folder');
  const parent = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
  return steps.every((step) => step.kind === 'folder' || parent(step.from) === parent(step.to));
}
