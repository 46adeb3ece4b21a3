/**
 * HDSky: NexusPHP, but its download link is signed per user on the details page
 * (`download.php?id=N&passkey=…&sign=…`, or `&t=…&sign=…` valid for minutes), as MoviePilot's IYUU
 * plugin, PT-depiler and upload tools read it; a bare `download.php?id=N` is not enough.
 */
import { nexusphpDownloadLink } from '../engines';
import type { SiteDefinition } from '../site-types';

export const hdsky: SiteDefinition = {
  sid: 4,
  site: 'hdsky',
  nickname: 'HDSky',
  nameZh: '天空',
  engine: 'nexusphp',
  hosts: ['hdsky.me'],
  download: { detailsPageLink: nexusphpDownloadLink },
};
