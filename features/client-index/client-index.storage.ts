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
