/** What the client index keeps in storage.local besides the indexes themselves (which live in IndexedDB: utils/client-index). */
import { z } from 'zod';
import type { IndexRunView } from './client-index.messages';
import { defineStoredItem } from '../../utils/stored-item';

/** A run as the options page was shown it; one that is not a record is not shown (the other run still is). */
const runSchema = z
  .custom<IndexRunView>((value) => !!value && typeof value === 'object')
  .optional()
  .catch(undefined);

const clientRunsSchema = z.object({ sync: runSchema, place: runSchema });

/**
 * The last sync and the last placing of each indexed client, for the options page (deleted with the
 * index), keyed by the client as the index is (clientKey: its kind and address; a client whose
 * kind or address changed is another index, with records of its own). Version 2: per client
 * (version 1 held one client's, `{client, sync, place}`).
 */
export const indexRunsItem = defineStoredItem({
  area: 'local',
  key: 'clientIndexRuns',
  version: 2,
  migrations: {
    2: (older) => (typeof older.client === 'string' && older.client ? { clients: { [older.client]: { sync: older.sync, place: older.place } } } : { clients: {} }),
  },
  schema: z.object({ clients: z.record(z.string(), clientRunsSchema.catch({ sync: undefined, place: undefined })) }),
  fallback: undefined,
});
export type StoredRuns = z.infer<typeof clientRunsSchema>;

/** The key, for tests and for code that must name it (nothing else reads or writes it directly). */
export const INDEX_RUNS_KEY = indexRunsItem.key;

const underWaySchema = z.object({
  job: z.enum(['sync', 'place']),
  startedAt: z.number(),
  listed: z.object({ leftOut: z.number().int().nonnegative() }).optional(),
});
export type RunUnderWay = z.infer<typeof underWaySchema>;

/**
 * The runs under way, one per client (clientKey), each kept while it runs: a stop of the worker or
 * the browser in the middle (a first sync of a large client takes minutes) leaves it, and the next
 * start goes on with each. `listed`: the client's list was read and stored (the resumed sync does
 * not read it again), with how many torrents the index's bound left out. Version 2: per client
 * (version 1 held one run, `{client, job, startedAt, listed}`).
 */
export const indexSyncUnderWayItem = defineStoredItem({
  area: 'local',
  key: 'clientIndexSyncUnderWay',
  version: 2,
  migrations: {
    2: (older) => {
      const { client, ...run } = older;
      return typeof client === 'string' && client ? { clients: { [client]: run } } : { clients: {} };
    },
  },
  schema: z.object({ clients: z.record(z.string(), underWaySchema) }),
  fallback: undefined,
});

/**
 * Writes of one item, one after another: the clients' runs go side by side, and each reads the
 * item, changes its own client's entry and writes it back (two at once would lose one's change).
 */
function serialized<T>(item: { get(): Promise<T | undefined>; set(value: T): Promise<void>; remove(): Promise<void> }) {
  let queue: Promise<unknown> = Promise.resolve();
  /** `change` gives the new value, or undefined for none at all (the key goes). */
  return (change: (stored: T | undefined) => T | undefined): Promise<void> => {
    const write = queue.then(async () => {
      const next = change(await item.get().catch(() => undefined));
      await (next === undefined ? item.remove() : item.set(next));
    });
    queue = write.catch(() => undefined);
    return write.catch(() => undefined);
  };
}

type Runs = NonNullable<Awaited<ReturnType<typeof indexRunsItem.get>>>;
type UnderWay = NonNullable<Awaited<ReturnType<typeof indexSyncUnderWayItem.get>>>;

const updateRuns = serialized<Runs>(indexRunsItem);
const updateUnderWay = serialized<UnderWay>(indexSyncUnderWayItem);

/** One client's runs changed (`undefined`: they go). */
export function setClientRuns(client: string, change: (runs: StoredRuns | undefined) => StoredRuns | undefined): Promise<void> {
  return updateRuns((stored) => {
    const clients = { ...(stored?.clients ?? {}) };
    const next = change(clients[client]);
    if (next) clients[client] = next;
    else delete clients[client];
    return { clients };
  });
}

/** Only these clients' runs are kept (the others' clients are no longer saved, or are other indexes now). */
export function keepClientRuns(clients: readonly string[]): Promise<void> {
  return updateRuns((stored) => ({ clients: Object.fromEntries(Object.entries(stored?.clients ?? {}).filter(([client]) => clients.includes(client))) }));
}

/** One client's run under way recorded (`undefined`: it ended). */
export function setRunUnderWay(client: string, run: RunUnderWay | undefined): Promise<void> {
  return updateUnderWay((stored) => {
    const clients = { ...(stored?.clients ?? {}) };
    if (run) clients[client] = run;
    else delete clients[client];
    return Object.keys(clients).length ? { clients } : undefined;
  });
}

/** Every client's runs go (the index was turned off): after any write under way. */
export function forgetAllRuns(): Promise<void> {
  return updateRuns(() => undefined);
}

/** No run under way is kept (the index was turned off). */
export function forgetRunsUnderWay(): Promise<void> {
  return updateUnderWay(() => undefined);
}
