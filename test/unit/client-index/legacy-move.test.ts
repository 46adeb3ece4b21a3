/**
 * An older version kept the client index in storage.local (buckets under `clientIndex:<slot>:<b>`,
 * the meta under `clientIndex`: utils/client-index/legacy-storage.ts). Opening the index of a
 * client it held moves that client's records into IndexedDB without asking the service again,
 * keeps its last sync, and removes every legacy key from storage.local (nothing else there).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { ClientIndexes, IndexStore, type ClientIdentity } from '../../../utils/client-index/indexes-by-client.ts';
import { bucketOf, encodeBucket, indexMetaSchema, packHash } from '../../../utils/client-index/codec';
import type { IndexRecord } from '../../../utils/client-index/model';
import { DEFAULT_SETTINGS } from '../../../utils/settings';
import { hashOf } from './support';

const AT = Date.UTC(2025, 0, 2, 3, 4); // a whole minute: stored in minutes
const QBITTORRENT: ClientIdentity = { type: 'qbittorrent', url: 'http://127.0.0.1:8080' };
const LAST_SYNC = { at: AT, outcome: 'done' as const, torrents: 3, asked: 3, requests: 1 };

const RECORDS: IndexRecord[] = [
  {
    torrent: { hash: hashOf('album'), name: 'Album [FLAC]', savePath: '/data/music', state: 'seeding', progress: 1, size: 1_234_567 },
    answer: { at: AT, times: 1, members: [{ sid: 7, torrentId: 123, hash: hashOf('album elsewhere') }] },
  },
  {
    torrent: { hash: hashOf('film'), name: '影片 2024', savePath: '/data/影视', state: 'paused', progress: 0.5, size: 9_876_543_210 },
    answer: { at: AT, times: 2, members: [] },
    located: { at: AT + 60_000, places: [{ sid: 4, torrentId: 77 }] },
  },
  { torrent: { hash: hashOf('new'), name: 'Not asked yet', savePath: '/data', state: 'downloading', progress: 0.25, size: 42 } },
];

const enabled = () => ({ settings: async () => ({ ...DEFAULT_SETTINGS, clientIndexEnabled: true }) });

/** storage.local as the older version left it: this client in slot 2, another client in slot 0, and a key of someone else. */
async function seedLegacyIndex(): Promise<void> {
  const buckets = new Map<number, IndexRecord[]>();
  for (const record of RECORDS) buckets.set(bucketOf(record.torrent.hash), [...(buckets.get(bucketOf(record.torrent.hash)) ?? []), record]);
  const meta = {
    v: 1,
    nextSlot: 3,
    clients: [
      { slot: 0, type: 'transmission', url: 'http://127.0.0.1:9091', usedAt: AT },
      { slot: 2, type: QBITTORRENT.type, url: QBITTORRENT.url, usedAt: AT, lastSync: LAST_SYNC },
    ],
  };
  expect(indexMetaSchema.safeParse(meta).success).toBe(true);
  await fakeBrowser.storage.local.set({
    clientIndex: meta,
    ...Object.fromEntries([...buckets].map(([bucket, records]) => [`clientIndex:2:${bucket}`, JSON.parse(JSON.stringify(encodeBucket(records)))])),
    'clientIndex:0:5': encodeBucket([]),
    answerCount: 5,
  });
  expect(buckets.size).toBeGreaterThan(1);
}

const legacyKeys = async () => Object.keys(await fakeBrowser.storage.local.get(null)).filter((key) => key === 'clientIndex' || key.startsWith('clientIndex:'));

beforeEach(() => {
  fakeBrowser.reset();
});

describe('the move of an older version\'s index from storage.local to IndexedDB', () => {
  it('takes the client\'s records and last sync into IndexedDB, and removes every legacy key', async () => {
    await seedLegacyIndex();
    const index = (await new ClientIndexes(enabled()).open(QBITTORRENT))!;

    for (const record of RECORDS) expect(index.torrent(record.torrent.hash)).toEqual(record.torrent);
    expect(index.status()).toMatchObject({ torrents: 3, answered: 2, lastSync: LAST_SYNC, storage: 'ok' });

    // In IndexedDB: one record per torrent under the client's new slot, and the meta naming it with its last sync.
    const store = new IndexStore();
    const meta = indexMetaSchema.parse(await store.readMeta());
    expect(meta.clients).toEqual([expect.objectContaining({ type: QBITTORRENT.type, url: QBITTORRENT.url, lastSync: LAST_SYNC })]);
    const slot = meta.clients[0]!.slot;
    expect((await store.keys()).sort()).toEqual(RECORDS.map((record) => [slot, packHash(record.torrent.hash)!]).sort());

    // storage.local: the legacy keys gone (the other client's too: its next sync asks again), the rest kept.
    expect(await legacyKeys()).toEqual([]);
    expect(await fakeBrowser.storage.local.get(null)).toEqual({ answerCount: 5 });
  });

  it('a restarted background reads the moved index from IndexedDB alone', async () => {
    await seedLegacyIndex();
    await new ClientIndexes(enabled()).open(QBITTORRENT);
    const again = (await new ClientIndexes(enabled()).open(QBITTORRENT))!;
    for (const record of RECORDS) expect(again.torrent(record.torrent.hash)).toEqual(record.torrent);
    expect(again.status()).toMatchObject({ torrents: 3, answered: 2, lastSync: LAST_SYNC });
  });

  it('a client the older version did not index starts empty, and the legacy keys go all the same', async () => {
    await seedLegacyIndex();
    const other = (await new ClientIndexes(enabled()).open({ type: 'deluge', url: 'http://127.0.0.1:8112' }))!;
    expect(other.status().torrents).toBe(0);
    expect(await legacyKeys()).toEqual([]);
    expect(await new IndexStore().keys()).toEqual([]);
  });
});
