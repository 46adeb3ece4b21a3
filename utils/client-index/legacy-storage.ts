/**
 * The index's keys in storage.local before it moved to IndexedDB (layout: codec.ts): read once to
 * move a client's records, then removed (client-indexes.ts). Nothing writes them any more.
 */
import { bucketSchema, indexMetaSchema } from './codec';
import { defineStoredFamily, defineStoredItem } from '../stored-item';

/** The clients indexed then, their slots and last syncs. */
export const legacyIndexMetaItem = defineStoredItem({ area: 'local', key: 'clientIndex', schema: indexMetaSchema, fallback: undefined });

/** One bucket of one slot: `clientIndex:<slot>:<bucket>`; its rows are read one by one (decodeBucket). */
export const legacyIndexBuckets = defineStoredFamily({ area: 'local', prefix: 'clientIndex:', schema: bucketSchema, fallback: undefined });

export function legacyBucketId(slot: number, bucket: number): string {
  return `${slot}:${bucket}`;
}
