/**
 * Gazelle (DICMusic, GreatPosterWall): `torrents.php?torrentid=N`; the download link carries the
 * user's `authkey` and `torrent_pass`, so it is read from the details page.
 */
import type { DetailsPageLink, EngineSchema } from '../site-types';
import { strictQuery } from './strict-query';

/** `torrents.php?action=download&id=N&authkey=…&torrent_pass=…`, as on DICMusic's and GreatPosterWall's pages. */
export const gazelleDownloadLink: DetailsPageLink = {
  shape: 'gazelle',
  rebuild(url, id) {
    if (url.pathname !== '/torrents.php') return undefined;
    const query = strictQuery(url, ['action', 'id', 'authkey', 'torrent_pass']);
    if (!query || query.get('action') !== 'download' || query.get('id') !== id || !query.get('authkey') || !query.get('torrent_pass')) return undefined;
    return `${url.origin}/torrents.php?action=download&id=${id}&authkey=${query.get('authkey')}&torrent_pass=${query.get('torrent_pass')}`;
  },
};

export const gazelleSchema = {
  detailsPage: 'torrents.php?torrentid={}',
  download: { detailsPageLink: gazelleDownloadLink },
} satisfies EngineSchema;
