/**
 * What the sites feature keeps in storage.local: the catalogued sites the user has visited
 * (seen-sites.ts), and the service's site list and recommended sites, each kept for a day per
 * service origin (site-directory.ts).
 */
import { z } from 'zod';
import type { RecommendedSite, ServiceSite } from '../../utils/iyuu/answer-schemas';
import { defineStoredItem } from '../../utils/stored-item';

/** The sids of catalogued sites visited, oldest first; an entry that is not a sid is left out alone. */
export const seenSitesItem = defineStoredItem({
  area: 'local',
  key: 'seenSites',
  schema: z.array(z.unknown()).transform((sids) => sids.filter((sid): sid is number => Number.isSafeInteger(sid))),
  fallback: [],
});

/**
 * A list as the service gave it, with the service origin it came from and when. The list was
 * checked entry by entry when it arrived (utils/iyuu) and is stored as checked: read back as it
 * was written, not parsed again on every start.
 */
function cachedListSchema<T>() {
  return z.object({ origin: z.string(), at: z.number(), value: z.custom<T>((value) => value !== undefined) });
}
export interface CachedListRecord<T> {
  origin: string;
  at: number;
  value: T;
}

export const siteListItem = defineStoredItem({ area: 'local', key: 'siteList', schema: cachedListSchema<ServiceSite[]>(), fallback: undefined });

export const recommendedSitesItem = defineStoredItem({
  area: 'local',
  key: 'recommendedSites',
  schema: cachedListSchema<{ count: number; list: RecommendedSite[] }>(),
  fallback: undefined,
});
