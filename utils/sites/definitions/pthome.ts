/**
 * PTHome: NexusPHP whose download link carries the user's `downhash` (the official client asks for
 * this site's uid and downhash; utils/sites/SOURCES.md "D"): read from the candidate's details page.
 */
import { nexusphpDownhashLink } from '../engines';
import type { SiteDefinition } from '../site-types';

export const pthome: SiteDefinition = {
  sid: 2,
  site: 'pthome',
  nickname: 'PTHome',
  nameZh: '铂金家',
  engine: 'nexusphp',
  hosts: ['pthome.net'],
  download: { detailsPageLink: nexusphpDownhashLink },
};
