/**
 * TTG (ToTheGlory): its own engine, NexusPHP-like pages at paths of its own: torrent pages at
 * `/t/N/`, lists at `browse.php`, and a download link `/dl/N/<key>` carrying a per-user key that
 * only the details page shows.
 */
import type { DetailsPageLink, SiteDefinition } from '../site-types';

const DOWNLOAD_PATH = /^\/dl\/(\d{1,12})\/([A-Za-z0-9]{1,128})\/?$/;

export const ttgDownloadLink: DetailsPageLink = {
  shape: 'ttg',
  rebuild(url, id) {
    const match = DOWNLOAD_PATH.exec(url.pathname);
    if (!match || match[1] !== id || url.search) return undefined;
    return `${url.origin}/dl/${id}/${match[2]}`;
  },
};

export const ttg: SiteDefinition = {
  sid: 14,
  site: 'ttg',
  nickname: 'TTG',
  nameZh: '听听歌',
  engine: 'other',
  hosts: ['totheglory.im'],
  detailsPage: 't/{}/',
  download: { detailsPageLink: ttgDownloadLink },
  pages: {
    torrentPage: /t\/(\d+)/,
    torrentLinks: 'a[href*="/t/"]',
    downloadLink: /dl\//,
    listPage: /browse\.php/,
  },
};
