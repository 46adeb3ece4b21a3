/** What the client index keeps in storage.local besides the index itself (which lives in IndexedDB: utils/client-index). */
import { z } from 'zod';
import type { IndexRunView } from './client-index.messages';
import { defineStoredItem } from '../../utils/stored-item';

/** A run as the options page was shown it; one that is not a record is not shown (the other run still is). */
const runSchema = z
  .custom<IndexRunView>((value) => !!value && typeof value === 'object')
  .optional()
  .catch(undefined);

/** The last sync and the last placing of the indexed client, for the options page (deleted with the index). */
export const indexRunsItem = defineStoredItem({
  area: 'local',
  key: 'clientIndexRuns',
  schema: z.object({ client: z.string(), sync: runSchema, place: runSchema }),
  fallback: undefined,
});
export type StoredRuns = NonNullable<Awaited<ReturnType<typeof indexRunsItem.get>>>;

/** The key, for tests and for code that must name it (nothing else reads or writes it directly). */
export const INDEX_RUNS_KEY = indexRunsItem.key;

/**
 * A sync under way, kept while it runs: a stop of the worker or the browser in the middle (a first
 * sync of a large client takes minutes) leaves it, and the next start goes on with it. `listed`:
 * the client's list was read and stored (the resumed sync does not read it again), with how many
 * torrents the index's bound left out.
 */
export const indexSyncUnderWayItem = defineStoredItem({
  area: 'local',
  key: 'clientIndexSyncUnderWay',
  schema: z.object({
    client: z.string(),
    job: z.enum(['sync', 'place']),
    startedAt: z.number(),
    listed: z.object({ leftOut: z.number().int().nonnegative() }).optional(),
  }),
  fallback: undefined,
});
