/** The user's sites: the list to pick from, and "Use on this site" for a site the catalog does not cover. */
import { z } from 'zod';
import { message } from '../../utils/messaging/protocol';
import type { ServiceFailure } from '../../utils/iyuu/service-errors';

export interface SiteChoice {
  sid: number;
  site: string;
  nickname: string;
  host?: string;
}

export const sitesMessages = {
  /** Every site the user may pick as their own (the service's list, else the catalog), and the ones seen. */
  'sites:list': message<{ sites: SiteChoice[]; seen: number[]; fromService: boolean; error?: ServiceFailure }>()(
    'extension',
    z.object({ refresh: z.boolean().optional() }),
  ),
  /** Popup "Use on this site" (after the permission was granted) and the options page's removal. */
  'site:enable': message<{ customHosts: string[] }>()('extension', z.object({ host: z.string().max(253) })),
  'site:disable': message<{ customHosts: string[] }>()('extension', z.object({ host: z.string().max(253) })),
};
