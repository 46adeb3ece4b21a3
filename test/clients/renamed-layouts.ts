/**
 * The four shapes of a renamed copy (issue 25) that the live test and the rename bench make on every
 * daemon: a source written to disk, and a candidate with the same bytes under other names. Where a
 * client cannot express the steps (Transmission renames only a path's last element), the lone file's
 * two shapes are refused.
 */
import type { ClientFile, TorrentClient } from '../../utils/clients/client-types';
import { until } from '../e2e/support/wait';
import { writeFolder, writeSingleFile, type Content } from './torrent-content';

export interface RenamedLayout {
  title: string;
  /** The source's content (on disk, seeding); `seed` makes its bytes differ from another copy's of the same names. */
  content: (dir: string, seed?: string) => Content;
  /** The candidate's names for the same bytes. */
  renamed: (content: Content) => { name: string; single: boolean; paths: string[] };
}

export const RENAMED_LAYOUTS: readonly RenamedLayout[] = [
  {
    title: 'a renamed root folder',
    content: (dir, seed) =>
      writeFolder(dir, 'Movie.2024.1080p.BluRay.x264-GRP', [{ path: 'Movie.2024.1080p.BluRay.x264-GRP.mkv', size: 90_000 }, { path: 'Movie.nfo', size: 1_500 }], seed),
    renamed: (content) => ({ name: 'Movie 2024 1080p BluRay x264-GRP', single: false, paths: content.files.map((file) => file.path) }),
  },
  {
    title: 'renamed files inside (a site tag)',
    content: (dir, seed) => writeFolder(dir, 'Album (2024) [FLAC]', [{ path: '01 - Opening.flac', size: 70_000 }, { path: 'Scans/cover.jpg', size: 9_000 }], seed),
    renamed: (content) => ({ name: content.name, single: false, paths: ['01 - Opening [SITE].flac', 'Scans/cover [SITE].jpg'] }),
  },
  {
    title: 'a lone file wrapped in a folder by the candidate',
    content: (dir, seed) => writeSingleFile(dir, 'Show.S01E01.1080p.WEB-DL.mkv', 60_000, seed),
    renamed: () => ({ name: 'Show.S01E01.1080p.WEB-DL', single: false, paths: ['Show.S01E01.1080p.WEB-DL.mkv'] }),
  },
  {
    title: 'a lone file in a folder, bare in the candidate',
    content: (dir, seed) => writeFolder(dir, 'Show.S01E02.1080p.WEB-DL', [{ path: 'Show.S01E02.1080p.WEB-DL.mkv', size: 60_000 }], seed),
    renamed: () => ({ name: 'Show.S01E02.1080p.WEB-DL.mkv', single: true, paths: ['Show.S01E02.1080p.WEB-DL.mkv'] }),
  },
];

/** The candidate's files as its .torrent lists them (root folder included), with the source's sizes. */
export function candidateFilesOf(layout: RenamedLayout, content: Content): { path: string; size: number }[] {
  const names = layout.renamed(content);
  return names.paths.map((path, index) => ({ path: names.single ? names.name : `${names.name}/${path}`, size: content.files[index]!.size }));
}

/** The files of a torrent once the client lists them all. */
export function filesOf(client: TorrentClient, hash: string, count: number): Promise<ClientFile[]> {
  return until(
    () => client.files(hash),
    (files) => files.length === count,
    `the ${count} files of ${hash}`,
    30_000,
  );
}
