/**
 * What the lookup library keeps in storage.local: the site report (sid_sha1), the rate limit and
 * the clock offset the service taught us (lookup.ts), and the answer cache (answer-cache.ts).
 */
import { z } from 'zod';
import { defineStoredFamily, defineStoredItem } from '../stored-item';

const SHA1_HEX = /^[0-9a-f]{40}$/;

/** sid_sha1 for a site list, with what it was reported under: reused while all of it still holds. */
export const siteReportItem = defineStoredItem({
  area: 'local',
  key: 'siteReport',
  schema: z.object({ value: z.string(), sids: z.string(), origin: z.string(), tokenTag: z.string(), at: z.number() }),
  fallback: undefined,
});
export type SiteReport = NonNullable<Awaited<ReturnType<typeof siteReportItem.get>>>;

/** When the service's rate limit lifts (ms); 0 when none was announced. */
export const rateLimitItem = defineStoredItem({
  area: 'local',
  key: 'rateLimit',
  schema: z.object({ until: z.number() }),
  fallback: { until: 0 },
});

/** Seconds the service's clock is ahead of ours (learnt from an expired-timestamp answer), and when learnt. */
export const clockOffsetItem = defineStoredItem({
  area: 'local',
  key: 'clockOffset',
  // Only the offset is read: a record whose time is odd still gives it.
  schema: z.object({ seconds: z.number(), at: z.number().optional().catch(undefined) }),
  fallback: { seconds: 0 },
});

/** A candidate as stored: [sid, torrent_id, info_hash]. */
type StoredCandidate = [sid: number, torrentId: number, infoHash: string];

/** Checked by hand, not by a zod tuple per candidate: this runs for every cached answer read (a list page reads hundreds). */
function isCandidateList(value: unknown): value is StoredCandidate[] {
  return (
    Array.isArray(value) &&
    value.every((candidate) => Array.isArray(candidate) && Number.isSafeInteger(candidate[0]) && Number.isSafeInteger(candidate[1]) && typeof candidate[2] === 'string' && SHA1_HEX.test(candidate[2]))
  );
}

/**
 * One hash's answer, stored compactly (`answer:<hash>`): when it was fetched (t), its candidates
 * (c) and the site list it was asked under (s). An entry whose candidates do not read is kept for
 * its time alone (a prune still orders it by age) and answers nothing.
 */
export const answerItems = defineStoredFamily({
  area: 'local',
  prefix: 'answer:',
  schema: z.object({
    t: z.number(),
    c: z.custom<StoredCandidate[]>(isCandidateList).optional().catch(undefined),
    s: z.string().optional().catch(undefined),
  }),
  fallback: undefined,
});
export type StoredAnswer = NonNullable<Awaited<ReturnType<typeof answerItems.get>>>;

/** How many answers storage holds, as far as writes tell (a prune counts them exactly). */
export const answerCountItem = defineStoredItem({
  area: 'local',
  key: 'answerCount',
  schema: z.number().int().nonnegative(),
  fallback: 0,
});
