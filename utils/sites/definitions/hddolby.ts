/**
 * HD Dolby: NexusPHP whose download link carries the user's `downhash` (the official client asks for
 * this site's uid and downhash; utils/sites/SOURCES.md "D"): read from the candidate's details page.
 */
import { nexusphpDownhashLink } from '../engines';
import type { SiteDefinition } from '../site-types';

export const hddolby: SiteDefinition = {
  sid: 105,
  site: 'hddolby',
  nickname: 'HD Dolby',
  nameZh: '高清杜比',
  engine: 'nexusphp',
  hosts: ['www.hddolby.com'],
  oldHosts: ['hddolby.com'],
  download: { detailsPageLink: nexusphpDownhashLink },
};
