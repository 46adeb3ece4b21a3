/**
 * HDCity: NexusPHP at paths of its own: torrent pages at `/t-N` (IYUUAutoReseed and the official
 * client's driver build `t-{id}`), the .torrent at `download?id=N` with the user's session.
 */
import type { SiteDefinition } from '../site-types';

export const hdcity: SiteDefinition = {
  sid: 17,
  site: 'hdcity',
  nickname: 'HDCity',
  nameZh: '城市',
  engine: 'nexusphp',
  hosts: ['hdcity.city', 'hdcity.leniter.org', 'hdcity.work'],
  oldHosts: ['hdcity.top'],
  detailsPage: 't-{}',
  download: { cookieTemplate: 'download?id={}' },
  pages: {
    torrentPage: /t-(\d+)/,
    torrentLinks: 'a[href^="t-"], a[href^="/t-"]',
    downloadLink: /download\?(?:[^#]*&)?id=/,
  },
};
