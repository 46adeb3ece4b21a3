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
 *   torrents  [slot, hash] → StoredRecord (codec.ts), indexes `place` (multi-entry on k) and
 *             `answered` (on a)
 * Plain IndexedDB with a few promise helpers: no library for five calls.
 */
import type { IndexMeta } from './codec';

export const DATABASE_NAME = 'reseed-lens-client-index';
const VERSION = 1;
const META = 'meta';
const TORRENTS = 'torrents';

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

export class IndexStore {
  private db: Promise<IDBDatabase> | undefined;
  /** Records read from the torrents store, in all and by list-page reads (tests and the bench count what a page reads). */
  recordsRead = 0;
  placeRecordsRead = 0;

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
        if (!db.objectStoreNames.contains(TORRENTS)) {
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
   * Every stored record of a slot, in key order, with one getAll: reading in chunks from a key
   * range costs a seek per chunk, which grows with the index (2.3× a torrent from 10,000 to
   * 100,000 in the bench), and the records become the model at once anyway.
   */
  async readSlot(slot: number, each: (value: unknown) => void): Promise<void> {
    const db = await this.open();
    const all = await transact(db, [TORRENTS], 'readonly', (tx) => request(tx.objectStore(TORRENTS).getAll(slotRange(slot))));
    this.recordsRead += all.length;
    for (const value of all) each(value);
  }

  /**
   * The records that say something about these places (by the `place` index), then the records of
   * the hashes `more` gives for what was found (the other members of their groups the client may
   * hold), in one transaction. Reads only those keys.
   */
  async readPlaces(places: readonly string[], slot: number, more: (values: unknown[]) => string[]): Promise<unknown[]> {
    const db = await this.open();
    const found: unknown[] = [];
    await transact(db, [TORRENTS], 'readonly', (tx) => {
      const store = tx.objectStore(TORRENTS);
      const byPlace = store.index('place');
      let pending = places.length;
      const seen = new Set<string>();
      const take = (value: unknown) => {
        const hash = (value as { h?: unknown } | undefined)?.h;
        if (typeof hash !== 'string' || seen.has(hash)) return false;
        seen.add(hash);
        found.push(value);
        return true;
      };
      const second = () => {
        for (const hash of more(found)) {
          if (seen.has(hash)) continue;
          seen.add(hash);
          const req = store.get([slot, hash]);
          req.onsuccess = () => {
            if (req.result !== undefined) {
              this.recordsRead++;
              this.placeRecordsRead++;
              found.push(req.result);
            }
          };
        }
      };
      if (!pending) second();
      for (const place of places) {
        const req = byPlace.getAll(place);
        req.onsuccess = () => {
          this.recordsRead += req.result.length;
          this.placeRecordsRead += req.result.length;
          for (const value of req.result) take(value);
          if (--pending === 0) second();
        };
      }
    });
    return found;
  }

  /** Whether the service has answered for any torrent of this slot (one key read). */
  async anyAnswered(slot: number): Promise<boolean> {
    const db = await this.open();
    const key = await transact(db, [TORRENTS], 'readonly', (tx) => request(tx.objectStore(TORRENTS).index('answered').getKey(slot)));
    return key !== undefined;
  }

  /** Puts and deletes records of a slot, all in one transaction (all or nothing). */
  async write(slot: number, put: readonly unknown[], remove: readonly string[]): Promise<void> {
    const db = await this.open();
    await transact(db, [TORRENTS], 'readwrite', (tx) => {
      const store = tx.objectStore(TORRENTS);
      for (const hash of remove) store.delete([slot, hash]);
      for (const value of put) store.put(value);
    });
  }

  async deleteSlots(slots: readonly number[]): Promise<void> {
    if (!slots.length) return;
    const db = await this.open();
    await transact(db, [TORRENTS], 'readwrite', (tx) => {
      for (const slot of slots) tx.objectStore(TORRENTS).delete(slotRange(slot));
    });
  }

  /** Everything gone: the meta and every client's records. */
  async clear(): Promise<void> {
    const db = await this.open();
    await transact(db, [META, TORRENTS], 'readwrite', (tx) => {
      tx.objectStore(META).clear();
      tx.objectStore(TORRENTS).clear();
    });
  }

  /** Every stored record's key, [slot, hash] (tests and diagnostics). */
  async keys(): Promise<[number, string][]> {
    const db = await this.open();
    return (await transact(db, [TORRENTS], 'readonly', (tx) => request(tx.objectStore(TORRENTS).getAllKeys()))) as [number, string][];
  }
}
