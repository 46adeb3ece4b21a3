/**
 * Where the client index lives: the extension's IndexedDB, one object per client torrent.
 *
 * Why IndexedDB and not storage.local: storage.local holds the settings, and Chrome gives it 10 MB
 * in all (without `unlimitedStorage`, which the index would be the only reason for); 50,000
 * long-named torrents filled 9.8 MB of it. IndexedDB has the origin's own quota (a share of the
 * disk), both a Chromium MV3 service worker and a Firefox MV2 background page have it, and it reads
 * one key without reading the rest, so a list page after a restart reads only its rows' records.
 * A full disk or quota refuses the index's write alone: the settings are never in the same store.
 *
 * Database `reseed-lens-client-index`:
 *   meta      'meta' → IndexMeta (the clients indexed, their slots, the last sync of each)
 *   torrents  [slot, hash] → a record that names places, whole (StoredRecord, codec.ts), with the
 *             indexes `place` (multi-entry on k) and `answered` (on a): what a list page reads, one
 *             request a row; or, for a record that names none, its torrent part alone (what the
 *             client says of it);
 *   answers   [slot, hash] → the answers part of a record that names no place, once something is
 *             answered of it, with the index `answered` (version 3: before it, every record was
 *             whole; opening moves those that name no place).
 *   packs     [slot, -1] → how many records the pack holds; [slot, n] → a JSON array of up to
 *             PACK_RECORDS StoredRecords: the whole slot again, in a few large values (version 2).
 *             Any write of the slot's records deletes its pack in the same transaction, so a pack
 *             that is there is exactly what the records say; the index writes a new one once its
 *             writes have settled (indexes-by-client.ts). It is what loading the whole index reads:
 *             IndexedDB's cost is per value, and 100,000 values took about a second to read where
 *             50 packs take a third of that (Chromium, measured). The records stay the truth, and
 *             what a list page reads: its rows' few records by the `place` index.
 * Plain IndexedDB with a few promise helpers: no library for five calls.
 */
import { forStorage, joinParts, splitRecord, type IndexMeta, type StoredRecord } from './codec';

export const DATABASE_NAME = 'reseed-lens-client-index';
const VERSION = 3;
const META = 'meta';
const TORRENTS = 'torrents';
const ANSWERS = 'answers';
const PACKS = 'packs';
/** A database made and deleted at once to have the browser compact its storage (IndexStore.compactAfterWrites). */
const COMPACTION_DATABASE_NAME = `${DATABASE_NAME}-compaction`;
/** Records written (or deleted) since the last compaction from which the next is worth it. */
export const COMPACT_AFTER_WRITES = 500;
/** Records in one value of a pack: about 0.7 MB of JSON with 200-character names. */
export const PACK_RECORDS = 2000;
/** Records of a pack restored between two chances for a list page's answer to go first. */
const PACK_YIELD_RECORDS = 250;

/** Whether an IndexedDB (or storage) failure means "no room": quota or disk full. */
export function isRoomError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED') return true;
  return /quota|exceed|disk.*full|no space|storage.*full|NS_ERROR_DOM_QUOTA/i.test(error instanceof Error ? error.message : String(error));
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

/** Runs `work` in one transaction; resolves once it is committed, rejects with its error when it aborts. */
function transact<T>(db: IDBDatabase, stores: string[], mode: IDBTransactionMode, work: (tx: IDBTransaction) => T): Promise<T> {
  return new Promise((resolve, reject) => {
    let tx: IDBTransaction;
    try {
      tx = db.transaction(stores, mode);
    } catch (error) {
      reject(error);
      return;
    }
    let result: T;
    tx.oncomplete = () => resolve(result);
    tx.onabort = () => reject(tx.error ?? new DOMException('The transaction was aborted', 'AbortError'));
    tx.onerror = (event) => event.preventDefault(); // onabort says it once
    try {
      result = work(tx);
    } catch (error) {
      // A request refused at once (e.g. a quota the engine knows is spent): nothing of the transaction stays.
      try {
        tx.abort();
      } catch {
        // already finished
      }
      tx.onabort = () => reject(error);
      reject(error);
    }
  });
}

const slotRange = (slot: number) => IDBKeyRange.bound([slot], [slot, []]);

/** The packed hash's alphabet (codec.ts) in IndexedDB's key order (by UTF-16 code unit). */
const KEY_ORDER_ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
/** How many ranges of a whole-slot read are asked before the first is decoded. */
const RANGES_IN_FLIGHT = 4;

/**
 * A slot's key space cut by the hash's first character: together they cover every key of the slot
 * exactly once (the first from the slot's start, the last to its end, so a key outside the
 * alphabet is still read).
 */
function firstCharacterRanges(slot: number): IDBKeyRange[] {
  const ranges: IDBKeyRange[] = [];
  for (let i = 0; i < KEY_ORDER_ALPHABET.length; i++) {
    const lower = i === 0 ? [slot] : [slot, KEY_ORDER_ALPHABET[i]!];
    const upper = i === KEY_ORDER_ALPHABET.length - 1 ? [slot, []] : [slot, KEY_ORDER_ALPHABET[i + 1]!];
    ranges.push(IDBKeyRange.bound(lower, upper, false, true));
  }
  return ranges;
}

/** Places of one site and slot whose torrent ids are this close together are read as one range. */
const RANGE_SLACK = 4;
/** Two ids further apart than this start another range. */
const RANGE_GAP = 64;

/**
 * A list page's place keys (`slot:sid:torrentId`), grouped for reading: those of one slot and site
 * whose ids are numbers of one length and lie close together (a page's rows) become one key range
 * of the `place` index, read in one request; the rest are read one by one. Among keys of one
 * length, string order is number order, so the range holds every asked key, and what else it holds
 * (other ids between them, or longer or shorter ids that sort between) is dropped by the reader;
 * its limit (a few times the places it covers) bounds what such a range may cost: at the limit,
 * the range's places are read one by one. One request for a page's rows instead of one a row: in
 * Chromium each request is a round trip to the browser (300 of them, 100 rows of 3 clients, took
 * 23 ms in a worker just started).
 */
export function placeRanges(places: readonly string[]): { ranges: { lower: string; upper: string; limit: number; places: string[] }[]; single: string[] } {
  const groups = new Map<string, { prefix: string; ids: number[]; places: string[] }>();
  const single: string[] = [];
  for (const place of places) {
    const cut = place.lastIndexOf(':');
    const id = place.slice(cut + 1);
    if (cut < 0 || !/^[1-9]\d{0,14}$/.test(id)) {
      single.push(place);
      continue;
    }
    const prefix = place.slice(0, cut + 1);
    const key = `${prefix}${id.length}`;
    const group = groups.get(key) ?? { prefix, ids: [], places: [] };
    group.ids.push(Number(id));
    group.places.push(place);
    groups.set(key, group);
  }
  const ranges: { lower: string; upper: string; limit: number; places: string[] }[] = [];
  for (const { prefix, ids, places: grouped } of groups.values()) {
    // In id order, cut where two ids lie far apart (a pinned old torrent above a page of new ones).
    const order = ids.map((id, at) => ({ id, place: grouped[at]! })).sort((x, y) => x.id - y.id);
    let cluster: typeof order = [];
    const close = () => {
      const low = cluster[0]?.id ?? 0;
      const high = cluster.at(-1)?.id ?? 0;
      const limit = RANGE_SLACK * cluster.length + 16;
      // Too few to gain, or too sparse for one range: one by one.
      if (cluster.length < 3 || high - low + 1 > limit) single.push(...cluster.map((entry) => entry.place));
      else ranges.push({ lower: `${prefix}${low}`, upper: `${prefix}${high}`, limit, places: cluster.map((entry) => entry.place) });
      cluster = [];
    };
    for (const entry of order) {
      if (cluster.length && entry.id - cluster.at(-1)!.id > RANGE_GAP) close();
      cluster.push(entry);
    }
    close();
  }
  return { ranges, single };
}

/** Whether a record is kept whole in the torrents store: it names places, so a list page finds it by the `place` index. */
export const keptWhole = (record: StoredRecord): boolean => !!record.k?.length;

/**
 * Version 3's move, in the upgrade's own transaction (all or nothing): every record that names no
 * place is cut into its two parts. A value that is no record is left as it is: reading drops it.
 */
function splitRecordsWithoutPlaces(torrents: IDBObjectStore, answers: IDBObjectStore): void {
  const cursor = torrents.openCursor();
  cursor.onsuccess = () => {
    const at = cursor.result;
    if (!at) return;
    const value = at.value as Partial<StoredRecord> | undefined;
    if (value && Array.isArray(value.r) && (value.r.length === 7 || value.r.length === 9) && !keptWhole(value as StoredRecord)) {
      const parts = splitRecord(value as StoredRecord);
      at.update(parts.torrent);
      if (parts.answers) answers.put(parts.answers);
    }
    at.continue();
  };
}

/** What changed of a record: what the client says of it (TORRENT_PART), what was answered of it (ANSWERS_PART), or both. */
export const TORRENT_PART = 1;
export const ANSWERS_PART = 2;
export interface RecordWrite {
  record: StoredRecord;
  parts: number;
}

export class IndexStore {
  private db: Promise<IDBDatabase> | undefined;
  /** Records read from the torrents store, in all and by list-page reads (tests and the bench count what a page reads). */
  recordsRead = 0;
  placeRecordsRead = 0;
  /** Of placeRecordsRead, those a key range of the `place` index gave that name none of the asked places (dropped: placeRanges). */
  placeRecordsDropped = 0;
  /** Of recordsRead, those read from a pack. */
  packRecordsRead = 0;
  /** Records written or deleted since the last compaction (this lifetime's). */
  writtenSinceCompaction = 0;
  /** Compactions asked for (tests). */
  compactions = 0;

  constructor(private readonly factory: () => IDBFactory | undefined = () => globalThis.indexedDB) {}

  private open(): Promise<IDBDatabase> {
    this.db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const factory = this.factory();
      if (!factory) {
        reject(new Error('IndexedDB is not available here'));
        return;
      }
      const req = factory.open(DATABASE_NAME, VERSION);
      req.onupgradeneeded = () => {
        const db = req.result;
        if (!db.objectStoreNames.contains(META)) db.createObjectStore(META);
        // Version 2: the packs. A version 1 index has none yet: its first load reads the records, then writes one.
        if (!db.objectStoreNames.contains(PACKS)) db.createObjectStore(PACKS);
        const answers = db.createObjectStore(ANSWERS, { keyPath: ['s', 'h'] });
        answers.createIndex('answered', 'a');
        if (db.objectStoreNames.contains(TORRENTS)) splitRecordsWithoutPlaces(req.transaction!.objectStore(TORRENTS), answers);
        else {
          const torrents = db.createObjectStore(TORRENTS, { keyPath: ['s', 'h'] });
          torrents.createIndex('place', 'k', { multiEntry: true });
          torrents.createIndex('answered', 'a');
        }
      };
      req.onsuccess = () => {
        const db = req.result;
        // Another lifetime deletes or upgrades the database: let it, and open again next time.
        db.onversionchange = () => {
          db.close();
          this.db = undefined;
        };
        resolve(db);
      };
      req.onerror = () => reject(req.error ?? new Error('IndexedDB would not open'));
      req.onblocked = () => undefined;
    });
    this.db.catch(() => (this.db = undefined));
    return this.db;
  }

  async readMeta(): Promise<unknown> {
    const db = await this.open();
    return transact(db, [META], 'readonly', (tx) => request(tx.objectStore(META).get('meta'))).then((value) => value);
  }

  async writeMeta(meta: IndexMeta): Promise<void> {
    const db = await this.open();
    await transact(db, [META], 'readwrite', (tx) => void tx.objectStore(META).put(meta, 'meta'));
  }

  /**
   * Every stored record of a slot, in key order, read in ranges of the packed hash's first
   * character (64 of them: 1,600 records each at 100,000 torrents), a few ranges in flight at once,
   * each in its own readonly transaction. One getAll of the whole slot was a single task of the
   * worker that deserialised 100,000 values at once (about a second), during which a list page's
   * own few records could not be answered; in ranges, such a read waits for one range's task at
   * most, and `between` (awaited before each next range) lets a waiting list page go first. The
   * ranges in flight keep the browser's reads and the worker's decoding going side by side, so the
   * whole load takes less time than the one getAll did (measured in Chromium: 0.9 s → 0.7 s).
   */
  async readSlot(slot: number, each: (value: unknown) => void, between?: () => Promise<void>): Promise<void> {
    const db = await this.open();
    const ranges = firstCharacterRanges(slot);
    const inFlight: Promise<unknown[]>[] = [];
    // Both parts of the range's records in one transaction, joined by key (both stores' keys are [slot, hash]).
    const read = async (range: IDBKeyRange): Promise<unknown[]> => {
      const [torrents, answers] = await transact(db, [TORRENTS, ANSWERS], 'readonly', (tx) =>
        Promise.all([request(tx.objectStore(TORRENTS).getAll(range)), request(tx.objectStore(ANSWERS).getAll(range))]),
      );
      const answered = new Map<unknown, unknown>();
      for (const part of answers) answered.set((part as { h?: unknown } | undefined)?.h, part);
      return torrents.map((part) => joinParts(part, answered.get((part as { h?: unknown } | undefined)?.h)));
    };
    let next = 0;
    while (next < ranges.length && inFlight.length < RANGES_IN_FLIGHT) inFlight.push(read(ranges[next++]!));
    while (inFlight.length) {
      const values = await inFlight.shift()!;
      this.recordsRead += values.length;
      for (const value of values) each(value);
      if (next < ranges.length) {
        await between?.();
        inFlight.push(read(ranges[next++]!));
      }
    }
  }

  /**
   * The records that say something about these places (by the `place` index: whole records), then
   * the records of the hashes `more` gives for what was found (the other members of their groups
   * the client may hold, read for what the client says of them: what was answered of such a record
   * that a list page could use names a place, and then it is whole), in one transaction. Reads
   * only those keys, one request each.
   */
  async readPlaces(places: readonly string[], slot: number, more: (values: unknown[]) => string[]): Promise<unknown[]> {
    const read = await this.readPlacesOfSlots([slot], places, (found) => more(found.get(slot) ?? []), false);
    return read.values.get(slot) ?? [];
  }

  /**
   * readPlaces over several clients' slots at once, in ONE transaction (a list page after a restart
   * costs one read however many clients are indexed): `places` are place keys of any of `slots`
   * (codec.ts's placeKey names the slot); `more` gives, from what was found in every slot, packed
   * hashes to read in EACH slot (a torrent one client's answer names may be held by another);
   * `first`, hashes known at once (the rows' own), read in each slot beside the places. With
   * `answered`, whether the service has answered anything for each slot is read in it too.
   */
  async readPlacesOfSlots(
    slots: readonly number[],
    places: readonly string[],
    more: (found: ReadonlyMap<number, unknown[]>) => string[],
    answered = true,
    first: readonly string[] = [],
  ): Promise<{ values: Map<number, unknown[]>; answered: Set<number> }> {
    const db = await this.open();
    const values = new Map<number, unknown[]>(slots.map((slot) => [slot, []]));
    const anyAnswered = new Set<number>();
    await transact(db, answered ? [TORRENTS, ANSWERS] : [TORRENTS], 'readonly', (tx) => {
      const store = tx.objectStore(TORRENTS);
      const byPlace = store.index('place');
      let pending = 0;
      const seen = new Set<string>();
      const take = (value: unknown): boolean => {
        const { s: slot, h: hash } = (value ?? {}) as { s?: unknown; h?: unknown };
        const found = typeof slot === 'number' ? values.get(slot) : undefined;
        if (typeof hash !== 'string' || !found || seen.has(`${slot}:${hash}`)) return false;
        seen.add(`${slot}:${hash}`);
        found.push(value);
        return true;
      };
      const readHashes = (hashes: Iterable<string>) => {
        for (const hash of new Set(hashes)) {
          for (const slot of slots) {
            if (seen.has(`${slot}:${hash}`)) continue;
            seen.add(`${slot}:${hash}`);
            const req = store.get([slot, hash]);
            req.onsuccess = () => {
              const joined = req.result === undefined ? undefined : joinParts(req.result, undefined);
              if (joined === undefined) return;
              this.recordsRead++;
              this.placeRecordsRead++;
              values.get(slot)!.push(joined);
            };
          }
        }
      };
      const second = () => readHashes(more(values));
      // Known before anything is found: read beside the places, not after them.
      readHashes(first);
      if (answered) {
        for (const slot of slots) {
          for (const name of [TORRENTS, ANSWERS]) {
            const req = tx.objectStore(name).index('answered').getKey(slot);
            req.onsuccess = () => {
              if (req.result !== undefined) anyAnswered.add(slot);
            };
          }
        }
      }
      const asked = new Set(places);
      // A record another asked range holds but that names none of these places is not taken.
      const namesAsked = (value: unknown): boolean => ((value as { k?: unknown } | undefined)?.k as unknown[] | undefined)?.some((key) => asked.has(key as string)) ?? false;
      const readOne = (place: string) => {
        pending++;
        const req = byPlace.getAll(place);
        req.onsuccess = () => {
          this.recordsRead += req.result.length;
          this.placeRecordsRead += req.result.length;
          for (const value of req.result) take(value);
          if (--pending === 0) second();
        };
      };
      const { ranges, single } = placeRanges(places);
      for (const place of single) readOne(place);
      for (const range of ranges) {
        pending++;
        const req = byPlace.getAll(IDBKeyRange.bound(range.lower, range.upper), range.limit);
        req.onsuccess = () => {
          this.recordsRead += req.result.length;
          this.placeRecordsRead += req.result.length;
          // As many as the limit: the range holds more than a page's worth (ids of other lengths
          // between these): its places are read one by one instead.
          if (req.result.length >= range.limit) for (const place of range.places) readOne(place);
          else {
            for (const value of req.result) {
              if (namesAsked(value)) take(value);
              else this.placeRecordsDropped++;
            }
          }
          if (--pending === 0) second();
        };
      }
      if (!pending) second();
    });
    return { values, answered: anyAnswered };
  }

  /** Which of these packed hashes the slot holds a record of (what a client held at its last sync), in one transaction. */
  async holds(slot: number, hashes: readonly string[]): Promise<Set<string>> {
    const db = await this.open();
    const held = new Set<string>();
    await transact(db, [TORRENTS], 'readonly', (tx) => {
      const store = tx.objectStore(TORRENTS);
      for (const hash of new Set(hashes)) {
        const req = store.getKey([slot, hash]);
        req.onsuccess = () => {
          if (req.result !== undefined) held.add(hash);
        };
      }
    });
    return held;
  }

  /** How many records the slot's pack holds; undefined when it has none (tests and diagnostics). */
  async packedRecords(slot: number): Promise<number | undefined> {
    const db = await this.open();
    const count: unknown = await transact(db, [PACKS], 'readonly', (tx) => request(tx.objectStore(PACKS).get([slot, -1])));
    return typeof count === 'number' ? count : undefined;
  }

  /** Whether the service has answered for any torrent of this slot (a key read in each store at most). */
  async anyAnswered(slot: number): Promise<boolean> {
    const db = await this.open();
    const keys = await transact(db, [TORRENTS, ANSWERS], 'readonly', (tx) =>
      Promise.all([request(tx.objectStore(TORRENTS).index('answered').getKey(slot)), request(tx.objectStore(ANSWERS).index('answered').getKey(slot))]),
    );
    return keys.some((key) => key !== undefined);
  }

  /**
   * Puts and deletes records of a slot, all in one transaction (all or nothing); the slot's pack
   * goes with it (no longer what the records say). A record that names places is put whole; one
   * that names none, only the part of it that changed: an answer batch does not write its torrents'
   * names again. A record that named places before and names none now is put in both parts (what
   * the torrents store holds of it is read first, in the same transaction, to know).
   */
  async write(slot: number, put: readonly RecordWrite[], remove: readonly string[]): Promise<void> {
    const db = await this.open();
    await transact(db, [TORRENTS, ANSWERS, PACKS], 'readwrite', (tx) => {
      const torrents = tx.objectStore(TORRENTS);
      const answers = tx.objectStore(ANSWERS);
      for (const hash of remove) {
        torrents.delete([slot, hash]);
        answers.delete([slot, hash]);
      }
      for (const { record, parts } of put) {
        if (keptWhole(record)) {
          torrents.put(forStorage(record));
          // It may have named no place before: an answers part of it goes.
          if (parts & ANSWERS_PART) answers.delete([slot, record.h]);
          continue;
        }
        const split = splitRecord(record);
        if (parts & TORRENT_PART) torrents.put(forStorage(split.torrent));
        else if (parts & ANSWERS_PART) {
          // Kept whole until now (it named places): its torrent part alone from now on.
          const stored = torrents.get([slot, record.h]);
          stored.onsuccess = () => {
            if ((stored.result as { r?: unknown } | undefined)?.r !== undefined) torrents.put(forStorage(split.torrent));
          };
        }
        if (!(parts & ANSWERS_PART)) continue;
        if (split.answers) answers.put(split.answers);
        else answers.delete([slot, record.h]);
      }
      tx.objectStore(PACKS).delete(slotRange(slot));
    });
    this.writtenSinceCompaction += put.length + remove.length;
  }

  /**
   * Has the browser compact the index's storage, once COMPACT_AFTER_WRITES records were written
   * since the last time. Why: Chromium's IndexedDB (LevelDB) keeps every write in its log, with an
   * undo entry for each, until 4 MB of them have gathered, and keeps that log across restarts: a
   * first sync of 1,000 torrents left 2.1 MB of log, which written out compressed took 0.9 MB.
   * Deleting a database is what has Chromium's LevelDB do it (it compacts the deleted range, and
   * writes its log out as a compressed table first), so an empty database of our own is made and
   * deleted. Elsewhere (Firefox's SQLite) this only makes and deletes an empty database. Never
   * fails: the index works uncompacted.
   */
  async compactAfterWrites(): Promise<void> {
    if (this.writtenSinceCompaction < COMPACT_AFTER_WRITES) return;
    this.writtenSinceCompaction = 0;
    this.compactions++;
    const factory = this.factory();
    if (!factory) return;
    const settle = (req: IDBRequest | IDBOpenDBRequest, onSuccess: () => void) =>
      new Promise<void>((resolve) => {
        req.onsuccess = () => (onSuccess(), resolve());
        req.onerror = () => resolve();
        // Another lifetime's compaction holds it: that one compacts.
        (req as IDBOpenDBRequest).onblocked = () => resolve();
      });
    try {
      const made = factory.open(COMPACTION_DATABASE_NAME, 1);
      await settle(made, () => made.result.close());
      await settle(factory.deleteDatabase(COMPACTION_DATABASE_NAME), () => undefined);
    } catch {
      // No compaction: the browser compacts in its own time.
    }
  }

  /**
   * Writes the slot's pack: `chunks` are JSON arrays of stored records, `count` records in all.
   * A write of the records that began before this one commits first (IndexedDB runs readwrite
   * transactions on one store in the order they were made); one made after deletes this pack.
   */
  async writePack(slot: number, chunks: readonly string[], count: number): Promise<void> {
    const db = await this.open();
    await transact(db, [PACKS], 'readwrite', (tx) => {
      const packs = tx.objectStore(PACKS);
      packs.delete(slotRange(slot));
      packs.put(count, [slot, -1]);
      // Which pack this is: a load reads it chunk by chunk, and must not mix two packs' chunks.
      packs.put(`${Date.now()}:${Math.random()}`, [slot, -2]);
      chunks.forEach((chunk, n) => packs.put(chunk, [slot, n]));
    });
  }

  /**
   * Every record of the slot from its pack, to `each`, with `between` awaited every
   * PACK_YIELD_RECORDS records; false (and nothing given to `each`, or what was given to be
   * dropped) when there is no whole, readable pack: the caller then reads the records. One chunk a
   * request: a single getAll of a 100,000-torrent pack hands the worker some 35 MB at once, and a
   * list page's answer would wait behind that.
   */
  async readPack(slot: number, each: (value: unknown) => void, between?: () => Promise<void>): Promise<boolean> {
    const db = await this.open();
    /** A value of the pack with the pack's stamp, read together. */
    const get = (n: number) =>
      transact(db, [PACKS], 'readonly', (tx) => {
        const packs = tx.objectStore(PACKS);
        return Promise.all([request(packs.get([slot, -2])), request(packs.get([slot, n]))]);
      });
    const [stamp, count] = (await get(-1)) as unknown[];
    if (typeof count !== 'number') return false;
    let given = 0;
    for (let n = 0; given < count; n++) {
      // Gone or written anew between two chunks (a write deleted the pack): the records are read instead.
      const [chunkStamp, chunk] = (await get(n)) as unknown[];
      if (chunkStamp !== stamp || typeof chunk !== 'string') return false;
      let records: unknown;
      try {
        records = JSON.parse(chunk);
      } catch {
        return false;
      }
      if (!Array.isArray(records) || records.length === 0) return false;
      for (const [at, value] of records.entries()) {
        each(value);
        if (at % PACK_YIELD_RECORDS === PACK_YIELD_RECORDS - 1) await between?.();
      }
      given += records.length;
      this.recordsRead += records.length;
      this.packRecordsRead += records.length;
      await between?.();
    }
    return given === count;
  }

  async deleteSlots(slots: readonly number[]): Promise<void> {
    if (!slots.length) return;
    const db = await this.open();
    await transact(db, [TORRENTS, ANSWERS, PACKS], 'readwrite', (tx) => {
      for (const slot of slots) {
        tx.objectStore(TORRENTS).delete(slotRange(slot));
        tx.objectStore(ANSWERS).delete(slotRange(slot));
        tx.objectStore(PACKS).delete(slotRange(slot));
      }
    });
  }

  /** Everything gone: the meta and every client's records. */
  async clear(): Promise<void> {
    const db = await this.open();
    await transact(db, [META, TORRENTS, ANSWERS, PACKS], 'readwrite', (tx) => {
      tx.objectStore(META).clear();
      tx.objectStore(TORRENTS).clear();
      tx.objectStore(ANSWERS).clear();
      tx.objectStore(PACKS).clear();
    });
  }

  /** Every stored record's key, [slot, hash], of either part (tests and diagnostics). */
  async keys(): Promise<[number, string][]> {
    const db = await this.open();
    const [torrents, answers] = (await transact(db, [TORRENTS, ANSWERS], 'readonly', (tx) =>
      Promise.all([request(tx.objectStore(TORRENTS).getAllKeys()), request(tx.objectStore(ANSWERS).getAllKeys())]),
    )) as unknown as [[number, string][], [number, string][]];
    const seen = new Set(torrents.map((key) => key.join(':')));
    return [...torrents, ...answers.filter((key) => !seen.has(key.join(':')))];
  }
}
