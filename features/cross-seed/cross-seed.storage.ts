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
