/**
 * HDCity: NexusPHP at paths of its own: torrent pages at `/t-N` (IYUUAutoReseed and the official
 * client's driver build `t-{id}`), the .torrent at `download?id=N&cuhash=…`: `cuhash` is the user's
 * own (the official client asks the user to copy it from a download link; its driver matches
 * `download?id=N&cuhash=…`), so it is read from the candidate's details page, as HDSky's sign is.
 * A details page showing only a bare `download?id=N` gives that link, fetched with the session.
 */
import { strictQuery } from '../engines/strict-query';
import type { DetailsPageLink, SiteDefinition } from '../site-types';

export const hdcityDownloadLink: DetailsPageLink = {
  shape: 'hdcity',
  rebuild(url, id) {
    if (url.pathname !== '/download') return undefined;
    const query = strictQuery(url, ['id', 'cuhash']);
    if (!query || query.get('id') !== id) return undefined;
    const cuhash = query.get('cuhash');
    return `${url.origin}/download?id=${id}${cuhash ? `&cuhash=${cuhash}` : ''}`;
  },
  isBest: (link) => /[?&]cuhash=/.test(link),
};

export const hdcity: SiteDefinition = {
  sid: 17,
  site: 'hdcity',
  nickname: 'HDCity',
  nameZh: '城市',
  engine: 'nexusphp',
  hosts: ['hdcity.city', 'hdcity.leniter.org', 'hdcity.work'],
  oldHosts: ['hdcity.top'],
  detailsPage: 't-{}',
  download: { detailsPageLink: hdcityDownloadLink, cookieTemplate: 'download?id={}' },
  pages: {
    torrentPage: /t-(\d+)/,
    torrentLinks: 'a[href^="t-"], a[href^="/t-"]',
    downloadLink: /download\?(?:[^#]*&)?id=/,
  },
};
