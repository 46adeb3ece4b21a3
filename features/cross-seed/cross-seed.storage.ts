/**
 * What cross-seeding keeps in storage.session, so a service worker that slept still finds it: each
 * tab's outcomes (`crossseed:tab:<id>`, cross-seed.feature.ts) and the open confirmation windows
 * (`crossseed:confirm`, confirm-windows.ts). storage.session is not kept across an update or a
 * browser restart: what is read was written by this very build.
 */
import { z } from 'zod';
import type { TabCrossSeeds } from './cross-seed.messages';
import { defineStoredFamily, defineStoredItem } from '../../utils/stored-item';

/** A tab's cross-seeds as written: checked for what the reading relies on (its tab and list of items), the rest taken as written. */
const tabCrossSeedsSchema = z.custom<TabCrossSeeds>((value) => {
  const state = value as Partial<Record<keyof TabCrossSeeds, unknown>> | null;
  return !!state && typeof state === 'object' && typeof state.tabId === 'number' && Array.isArray(state.items);
});

export const tabCrossSeedItems = defineStoredFamily({ area: 'session', prefix: 'crossseed:tab:', schema: tabCrossSeedsSchema, fallback: undefined });

/** A confirmation window open for a tab's candidate. */
const openConfirmationSchema = z.object({
  windowId: z.number(),
  /** The window's own tab (to show another candidate in it). */
  tabId: z.number().optional(),
  /** The page it shows (its query names the candidate). */
  path: z.string(),
});
export type OpenConfirmation = z.infer<typeof openConfirmationSchema>;

/** By the tab they are for; an entry that does not read is dropped alone (its window is then treated as closed). */
export const confirmWindowsItem = defineStoredItem({
  area: 'session',
  key: 'crossseed:confirm',
  schema: z.record(z.string(), z.unknown()).transform((entries) => {
    const kept: Record<string, OpenConfirmation> = {};
    for (const [tabId, entry] of Object.entries(entries)) {
      const parsed = openConfirmationSchema.safeParse(entry);
      if (parsed.success) kept[tabId] = parsed.data;
    }
    return kept;
  }),
  fallback: {},
});

/** Each site's pace, by sid: "Seconds between downloads" and "Downloads per day" (storage.local: kept across restarts). */
const sitePaceSchema = z.object({ secondsBetween: z.number().int().min(0), perDay: z.number().int().min(0) });
export type SitePaceSetting = z.infer<typeof sitePaceSchema>;
export const sitePacesItem = defineStoredItem({
  area: 'local',
  key: 'crossseed:site-pace',
  schema: z.record(z.string(), z.unknown()).transform((entries) => {
    const kept: Record<string, SitePaceSetting> = {};
    for (const [sid, entry] of Object.entries(entries)) {
      const parsed = sitePaceSchema.safeParse(entry);
      if (parsed.success) kept[sid] = parsed.data;
    }
    return kept;
  }),
  fallback: {} as Record<string, SitePaceSetting>,
});

/**
 * When each download from a site started (epoch ms), by sid: the rolling 24 hours the daily cap
 * counts (successes and failures, one-click and the job's together). Written before the request
 * leaves, so a worker stopped mid-download still counts it.
 */
export const siteDownloadsItem = defineStoredItem({
  area: 'local',
  key: 'crossseed:site-downloads',
  schema: z.record(z.string(), z.array(z.number())),
  fallback: {} as Record<string, number[]>,
});
