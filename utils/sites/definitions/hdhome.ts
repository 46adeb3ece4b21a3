/**
 * HDHome: NexusPHP whose download link carries the user's `downhash` (the official client asks for
 * this site's uid and downhash; utils/sites/SOURCES.md "D"): read from the candidate's details page.
 */
import { nexusphpDownhashLink } from '../engines';
import type { SiteDefinition } from '../site-types';

export const hdhome: SiteDefinition = {
  sid: 7,
  site: 'hdhome',
  nickname: 'HDHome',
  nameZh: '家园',
  engine: 'nexusphp',
  hosts: ['hdhome.org'],
  download: { detailsPageLink: nexusphpDownhashLink },
};
