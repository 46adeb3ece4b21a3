/**
 * The index's IndexedDB (version 3): a record that names places kept whole, where a list page reads
 * it by place; one that names none in two parts, what the client says and what was answered, so an
 * answer does not write a torrent's name again; a version 2 database moved to it at open, nothing
 * lost; the storage compacted after many writes.
 */
import { describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord, placeKey, type StoredRecord } from '../../../utils/client-index/codec';
import type { IndexRecord } from '../../../utils/client-index/model';
import { ANSWERS_PART, COMPACT_AFTER_WRITES, DATABASE_NAME, IndexStore, placeRanges, TORRENT_PART } from '../../../utils/client-index/store';
import { hashOf, recordIndexWrites } from './support';

const SLOT = 1;
const answered: IndexRecord = {
  torrent: { hash: hashOf('answered'), name: '[电影] A Film 2160p', savePath: '/data/电影', state: 'seeding', progress: 1, size: 123_456 },
  answer: { at: 60_000 * 1000, times: 1, members: [{ sid: 7, torrentId: 42, hash: hashOf('copy') }] },
};
const asked: IndexRecord = {
  torrent: { hash: hashOf('asked'), name: '[剧集] No copy anywhere', savePath: '/data/剧集', state: 'seeding', progress: 1, size: 77 },
  answer: { at: 60_000 * 2000, times: 2, members: [] },
};
const waiting: IndexRecord = { torrent: { hash: hashOf('waiting'), name: 'Not asked yet', savePath: '/data', state: 'paused', progress: 0.5, size: 9 } };
const stored = (record: IndexRecord) => encodeRecord(SLOT, record)!;

async function readAll(store: IndexStore): Promise<IndexRecord[]> {
  const records: IndexRecord[] = [];
  await store.readSlot(SLOT, (value) => {
    const record = decodeRecord(value, SLOT);
    if (record) records.push(record);
  });
  return records.sort((a, b) => (a.torrent.hash < b.torrent.hash ? -1 : 1));
}

const sorted = (records: IndexRecord[]) => [...records].sort((a, b) => (a.torrent.hash < b.torrent.hash ? -1 : 1));

/** What one store of the index's database holds, as it is. */
async function rawValues(storeName: string): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DATABASE_NAME);
    open.onsuccess = () => {
      const all = open.result.transaction(storeName).objectStore(storeName).getAll();
      all.onsuccess = () => {
        resolve(all.result);
        open.result.close();
      };
    };
    open.onerror = () => reject(open.error);
  });
}

/** A database as version 2 left it: whole records in `torrents`, with the place and answered indexes there. */
async function versionTwoDatabase(records: StoredRecord[]): Promise<void> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(DATABASE_NAME, 2);
    open.onupgradeneeded = () => {
      const made = open.result;
      made.createObjectStore('meta');
      const torrents = made.createObjectStore('torrents', { keyPath: ['s', 'h'] });
      torrents.createIndex('place', 'k', { multiEntry: true });
      torrents.createIndex('answered', 'a');
      made.createObjectStore('packs');
      for (const record of records) torrents.put(record);
      torrents.put({ s: SLOT, h: 'not a hash', r: 'nor a row' });
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  db.close();
}

describe('the index in IndexedDB, version 3', () => {
  it('a version 2 database is moved at open: every record reads back the same, found by its places, its answers part apart', async () => {
    await versionTwoDatabase([stored(answered), stored(asked), stored(waiting)]);
    const store = new IndexStore();
    expect(await readAll(store)).toEqual(sorted([answered, asked, waiting]));
    const found = await store.readPlaces([placeKey(SLOT, 7, 42)], SLOT, () => []);
    expect(found.map((value) => decodeRecord(value, SLOT))).toEqual([answered]);
    expect(await store.anyAnswered(SLOT)).toBe(true);

    // On disk: the record that names a place whole, the others' torrent parts in the torrents store; the answer of nothing apart.
    const raw = await new Promise<{ torrents: unknown[]; answers: unknown[]; indexes: string[] }>((resolve, reject) => {
      const open = indexedDB.open(DATABASE_NAME);
      open.onsuccess = () => {
        const tx = open.result.transaction(['torrents', 'answers']);
        const torrents = tx.objectStore('torrents');
        const all = [torrents.getAll(), tx.objectStore('answers').getAll()];
        tx.oncomplete = () => {
          resolve({ torrents: all[0]!.result, answers: all[1]!.result, indexes: [...torrents.indexNames] });
          open.result.close();
        };
      };
      open.onerror = () => reject(open.error);
    });
    expect(raw.indexes.sort()).toEqual(['answered', 'place']);
    const whole = raw.torrents.filter((value) => 'r' in (value as object));
    expect(whole).toEqual(expect.arrayContaining([stored(answered), { s: SLOT, h: 'not a hash', r: 'nor a row' }]));
    expect(whole).toHaveLength(2);
    expect(raw.torrents).toContainEqual({ s: SLOT, h: stored(asked).h, t: stored(asked).r.slice(0, 5) });
    expect(raw.answers).toEqual([{ s: SLOT, h: stored(asked).h, r: stored(asked).r.slice(5), a: SLOT }]);
  });

  it('an answer that names no place writes only its answers part; one that names places, the whole record; and back', async () => {
    const store = new IndexStore();
    const recording = recordIndexWrites();
    const hash = asked.torrent.hash;
    try {
      await store.write(SLOT, [{ record: stored({ torrent: asked.torrent }), parts: TORRENT_PART }], []);
      expect(recording.byStore.get('torrents')).toEqual([hash]);
      expect(recording.byStore.get('answers')).toEqual([]);
      await store.write(SLOT, [{ record: stored(asked), parts: ANSWERS_PART }], []);
      expect(recording.byStore.get('torrents')).toEqual([hash]);
      expect(recording.byStore.get('answers')).toEqual([hash]);
      expect(await readAll(store)).toEqual([asked]);
      expect(await store.anyAnswered(SLOT)).toBe(true);

      // Asked again, it has a copy: whole from now on, found by its place; its answers part goes.
      const copied: IndexRecord = { ...asked, answer: { ...answered.answer!, at: asked.answer!.at } };
      await store.write(SLOT, [{ record: stored(copied), parts: ANSWERS_PART }], []);
      expect(await readAll(store)).toEqual([copied]);
      expect((await store.readPlaces([placeKey(SLOT, 7, 42)], SLOT, () => [])).map((value) => decodeRecord(value, SLOT))).toEqual([copied]);
      expect(await rawValues('answers')).toEqual([]);

      // And back: the copy gone, nothing of the whole record stays.
      await store.write(SLOT, [{ record: stored(asked), parts: ANSWERS_PART }], []);
      expect(await readAll(store)).toEqual([asked]);
      expect(await store.readPlaces([placeKey(SLOT, 7, 42)], SLOT, () => [])).toEqual([]);
    } finally {
      recording.undo();
    }
  });

  it(`has the browser compact its storage once ${COMPACT_AFTER_WRITES} records were written, and leaves no database of its own for it`, async () => {
    const store = new IndexStore();
    const many = Array.from({ length: COMPACT_AFTER_WRITES }, (_, index) => stored({ torrent: { ...waiting.torrent, hash: hashOf(`many ${index}`) } }));
    await store.write(SLOT, many.slice(1).map((record) => ({ record, parts: TORRENT_PART })), []);
    await store.compactAfterWrites();
    expect(store.compactions).toBe(0);
    await store.write(SLOT, [{ record: many[0]!, parts: TORRENT_PART }], []);
    await store.compactAfterWrites();
    expect(store.compactions).toBe(1);
    expect((await indexedDB.databases()).map((database) => database.name)).toEqual([DATABASE_NAME]);
    expect(await readAll(store)).toHaveLength(COMPACT_AFTER_WRITES);
  });
});

describe("a list page's places, read as key ranges of the place index", () => {
  /** A client torrent whose answer names one copy on site 7 at `torrentId`. */
  const naming = (torrentId: number): IndexRecord => ({
    torrent: { hash: hashOf(`source ${torrentId}`), name: `Source ${torrentId}`, savePath: '/data', state: 'seeding', progress: 1, size: torrentId },
    answer: { at: 60_000 * 1000, times: 1, members: [{ sid: 7, torrentId, hash: hashOf(`copy ${torrentId}`) }] },
  });
  const put = (records: IndexRecord[]) => records.map((record) => ({ record: stored(record), parts: TORRENT_PART | ANSWERS_PART }));
  const page = Array.from({ length: 11 }, (_, at) => 100 + at);
  const places = page.map((id) => placeKey(SLOT, 7, id));
  const names = (values: unknown[]) => values.map((value) => decodeRecord(value, SLOT)?.torrent.size).sort((a, b) => a! - b!);

  it('cuts a page into ranges of close ids of one length; a pinned old id, a lone one and a non-number are read alone', () => {
    const { ranges, single } = placeRanges([...places, placeKey(SLOT, 7, 5), placeKey(SLOT, 9, 100), placeKey(SLOT, 7, 'abc')]);
    expect(ranges).toEqual([{ lower: placeKey(SLOT, 7, 100), upper: placeKey(SLOT, 7, 110), limit: 4 * 11 + 16, places }]);
    expect(single.sort()).toEqual([placeKey(SLOT, 7, 5), placeKey(SLOT, 9, 100), placeKey(SLOT, 7, 'abc')].sort());
  });

  it('takes exactly the asked rows: longer ids that sort between them are dropped, and past the limit the places are read one by one', async () => {
    const store = new IndexStore();
    // 1000…1019 sort between "100" and "110": read with the range, then dropped.
    await store.write(SLOT, put([...page.map(naming), ...Array.from({ length: 20 }, (_, at) => naming(1000 + at))]), []);
    expect(names(await store.readPlaces(places, SLOT, () => []))).toEqual(page);
    expect(store.placeRecordsDropped).toBe(20);
    expect(store.placeRecordsRead).toBe(11 + 20);

    // 80 more of them: the range would hold 111 (more than its limit of 60), so each place is read alone.
    await store.write(SLOT, put(Array.from({ length: 80 }, (_, at) => naming(1020 + at))), []);
    const again = new IndexStore();
    expect(names(await again.readPlaces(places, SLOT, () => []))).toEqual(page);
    expect(again.placeRecordsDropped).toBe(0);
    expect(again.placeRecordsRead).toBe(60 + 11);
  });
});

describe('names and save paths on disk', () => {
  it('one with characters beyond Latin-1 is kept as its UTF-8 bytes, a Latin-1 one as it is; both read back the same, and bytes that are no UTF-8 drop the record alone', async () => {
    const store = new IndexStore();
    const latin: IndexRecord = { torrent: { hash: hashOf('latin'), name: 'Café.Crème.1080p', savePath: '/data/films', state: 'seeding', progress: 1, size: 5 } };
    await store.write(SLOT, [answered, latin].map((record) => ({ record: stored(record), parts: TORRENT_PART | ANSWERS_PART })), []);
    const values = (await rawValues('torrents')) as { h: string; r?: unknown[]; t?: unknown[] }[];
    const fields = (record: IndexRecord) => {
      const value = values.find((one) => one.h === stored(record).h)!;
      return (value.r ?? value.t)!;
    };
    expect(fields(answered)[0]).toEqual(new TextEncoder().encode('[电影] A Film 2160p'));
    expect(fields(answered)[1]).toEqual(new TextEncoder().encode('/data/电影'));
    expect(fields(latin).slice(0, 2)).toEqual(['Café.Crème.1080p', '/data/films']);
    expect(sorted(await readAll(store))).toEqual(sorted([answered, latin]));
    // Bytes that do not read as UTF-8: that record alone is dropped (its torrent is asked again).
    const broken = { ...stored(latin), r: [new Uint8Array([0xff, 0xfe]), ...stored(latin).r.slice(1)] };
    expect(decodeRecord(broken, SLOT)).toBeUndefined();
  });
});
