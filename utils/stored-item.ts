/**
 * One stored key as one typed item: its area, its key (or, for a family such as `answer:<hash>`,
 * its key prefix), its zod schema and what a read gives when nothing readable is stored. Every
 * read goes through the schema: a value that fails it reads as the fallback, or through the
 * item's own tolerant reading where a record is repaired field by field (the settings).
 *
 * A record kept across updates (the settings, the clients) is versioned: its version sits in the
 * record's own `version` field, as it always has, and numbered migrations (`{ 2: (v1) => v2 }`)
 * run on read, from the stored version up to the current one. A record from a newer build is
 * read as it is: nothing is downgraded.
 *
 * Why not WXT's `storage.defineItem`: it keeps an item's version in a second key (`<key>$`) and
 * runs migrations when the item is defined, so existing users' records (version inside the
 * value) would read as unversioned; and it has no key families and no schema. This is a thin
 * layer over browser.storage, so the WXT fake browser serves it in the unit tests.
 */
import { browser } from 'wxt/browser';
import type { z } from 'zod';

export type StorageAreaName = 'local' | 'session';

/** One step up, from the version before to the version it is keyed by. */
export type Migration = (older: Record<string, unknown>) => Record<string, unknown>;
/** Keyed by the version each step produces: `{ 2: (v1) => v2, 3: (v2) => v3 }`. */
export type Migrations = Readonly<Record<number, Migration>>;

/** A stored record brought up to the current version. */
export interface Upgraded {
  /** The record (a copy; `{}` when what was stored is not a record at all). */
  value: Record<string, unknown>;
  /** The version it was stored with: 0 when it says none (or a foreign one, such as a negative number). */
  from: number;
  /** Whether a migration step ran on it. */
  migrated: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** Runs the migrations a stored record needs, in order; a record of a newer version is left as it is. */
export function upgrade(stored: unknown, version: number, migrations: Migrations): Upgraded {
  let value: Record<string, unknown> = isRecord(stored) ? { ...stored } : {};
  // A negative version is foreign: counting up from it would never end.
  const from = typeof value.version === 'number' && Number.isInteger(value.version) && value.version >= 0 ? value.version : 0;
  let migrated = false;
  for (let next = from + 1; next <= version; next++) {
    const step = migrations[next];
    if (step) {
      value = step(value);
      migrated = true;
    }
  }
  return { value, from, migrated };
}

function areaOf(area: StorageAreaName) {
  // Looked up on each call: a browser without storage.session fails that call, not the module.
  return browser.storage[area];
}

/** Values to write in one storage call (one item's, or a family's entries): see setTogether. */
export interface StoredWrite {
  readonly area: StorageAreaName;
  readonly values: Record<string, unknown>;
}

/** Writes several items' values in one storage call: all are written, or (a full storage) none. */
export async function setTogether(...writes: StoredWrite[]): Promise<void> {
  const area = writes[0]?.area;
  if (!area) return;
  if (writes.some((write) => write.area !== area)) throw new Error('setTogether: one storage area per call');
  await areaOf(area).set(Object.assign({}, ...writes.map((write) => write.values)));
}

interface ItemBase<T> {
  area: StorageAreaName;
  key: string;
  /** What is stored (and what a read gives unless the item reads tolerantly). */
  schema: z.ZodType<T>;
  /** The record's current version, for a versioned record (stored in its `version` field). */
  version?: number;
  migrations?: Migrations;
  /** The record as stored, when it is not the value itself (the version is added to it). */
  toStored?: (value: T) => Record<string, unknown>;
}

/** Read by the schema: a value that fails it (or none) gives the fallback. */
export interface ItemDefinition<T, F> extends ItemBase<T> {
  fallback: F;
}

/** Read by the item's own tolerant reading, given the stored record upgraded to the current version. */
export interface TolerantItemDefinition<T, R> extends ItemBase<T> {
  read: (upgraded: Upgraded, stored: unknown) => R;
}

export class StoredItem<T, R> {
  readonly area: StorageAreaName;
  readonly key: string;
  readonly schema: z.ZodType<T>;
  readonly version: number | undefined;
  readonly migrations: Migrations;

  constructor(private readonly definition: ItemDefinition<T, R> | TolerantItemDefinition<T, R>) {
    this.area = definition.area;
    this.key = definition.key;
    this.schema = definition.schema;
    this.version = definition.version;
    this.migrations = definition.migrations ?? {};
  }

  /** What a stored value reads as (no I/O): upgraded, then read by the schema or the item's own reading. */
  decode(stored: unknown): R {
    const upgraded = this.version === undefined ? undefined : upgrade(stored, this.version, this.migrations);
    if ('read' in this.definition) return this.definition.read(upgraded ?? upgrade(stored, 0, {}), stored);
    if (stored === undefined) return this.definition.fallback;
    const parsed = this.schema.safeParse(upgraded ? upgraded.value : stored);
    return parsed.success ? (parsed.data as unknown as R) : this.definition.fallback;
  }

  async get(): Promise<R> {
    return this.decode((await areaOf(this.area).get(this.key))[this.key]);
  }

  /** Whether anything is stored under the key, readable or not. */
  async has(): Promise<boolean> {
    return (await areaOf(this.area).get(this.key))[this.key] !== undefined;
  }

  /** The value as stored: with its version when the record is versioned. */
  toStored(value: T): unknown {
    const stored = this.definition.toStored ? this.definition.toStored(value) : value;
    return this.version === undefined ? stored : { version: this.version, ...(stored as Record<string, unknown>) };
  }

  write(value: T): StoredWrite {
    return { area: this.area, values: { [this.key]: this.toStored(value) } };
  }

  async set(value: T): Promise<void> {
    await setTogether(this.write(value));
  }

  async remove(): Promise<void> {
    await areaOf(this.area).remove(this.key);
  }

  /** Calls `listener` whenever the key changes in storage (any context of ours); returns the unsubscribe. */
  onChanged(listener: () => void): () => void {
    const heard = (changes: Record<string, unknown>, area: string) => {
      if (area === this.area && this.key in changes) listener();
    };
    browser.storage.onChanged.addListener(heard);
    return () => browser.storage.onChanged.removeListener(heard);
  }
}

/** One stored key, read by its schema: a value that fails the schema (or none) reads as the fallback. */
export function defineStoredItem<T, F>(definition: ItemDefinition<T, F>): StoredItem<T, T | F>;
/** One stored record with its own tolerant reading (e.g. field by field, reporting what it repaired). */
export function defineStoredItem<T, R>(definition: TolerantItemDefinition<T, R>): StoredItem<T, R>;
export function defineStoredItem<T, R>(definition: ItemDefinition<T, R> | TolerantItemDefinition<T, R>): StoredItem<T, R> {
  return new StoredItem(definition);
}

export interface FamilyDefinition<T, F> {
  area: StorageAreaName;
  /** Every key of the family is this prefix and an id (a hash, a tab id). */
  prefix: string;
  schema: z.ZodType<T>;
  fallback: F;
}

/** Keys of one kind, one per id (`answer:<hash>`, `tab:<id>`): each entry read by the family's schema. */
export class StoredFamily<T, F> {
  readonly area: StorageAreaName;
  readonly prefix: string;
  readonly schema: z.ZodType<T>;

  constructor(private readonly definition: FamilyDefinition<T, F>) {
    this.area = definition.area;
    this.prefix = definition.prefix;
    this.schema = definition.schema;
  }

  keyOf(id: string | number): string {
    return this.prefix + id;
  }

  /** What a stored entry reads as (no I/O). */
  decode(stored: unknown): T | F {
    if (stored === undefined) return this.definition.fallback;
    const parsed = this.schema.safeParse(stored);
    return parsed.success ? parsed.data : this.definition.fallback;
  }

  async get(id: string | number): Promise<T | F> {
    const key = this.keyOf(id);
    return this.decode((await areaOf(this.area).get(key))[key]);
  }

  /** These ids' entries, in one storage call: every id is in the answer (the fallback where nothing readable is stored). */
  async getMany(ids: readonly string[]): Promise<Map<string, T | F>> {
    const stored = await areaOf(this.area).get(ids.map((id) => this.keyOf(id)));
    return new Map(ids.map((id) => [id, this.decode(stored[this.keyOf(id)])]));
  }

  /** Every entry stored, by id (the fallback for one that does not read). Reads the whole area. */
  async all(): Promise<Map<string, T | F>> {
    const entries = new Map<string, T | F>();
    for (const [key, value] of Object.entries(await areaOf(this.area).get(null))) {
      if (key.startsWith(this.prefix)) entries.set(key.slice(this.prefix.length), this.decode(value));
    }
    return entries;
  }

  write(entries: Iterable<readonly [string | number, T]>): StoredWrite {
    const values: Record<string, unknown> = {};
    for (const [id, value] of entries) values[this.keyOf(id)] = value;
    return { area: this.area, values };
  }

  async set(id: string | number, value: T): Promise<void> {
    await setTogether(this.write([[id, value]]));
  }

  async setMany(entries: Iterable<readonly [string | number, T]>): Promise<void> {
    await setTogether(this.write(entries));
  }

  async remove(ids: string | number | readonly (string | number)[]): Promise<void> {
    const keys = (Array.isArray(ids) ? ids : [ids]).map((id: string | number) => this.keyOf(id));
    if (keys.length) await areaOf(this.area).remove(keys.length === 1 ? keys[0]! : keys);
  }

  /** Removes every entry of the family; returns how many went. */
  async removeAll(): Promise<number> {
    const keys = Object.keys(await areaOf(this.area).get(null)).filter((key) => key.startsWith(this.prefix));
    if (keys.length) await areaOf(this.area).remove(keys);
    return keys.length;
  }
}

export function defineStoredFamily<T, F>(definition: FamilyDefinition<T, F>): StoredFamily<T, F> {
  return new StoredFamily(definition);
}
