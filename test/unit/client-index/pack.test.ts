/**
 * The index's pack (store.ts): the whole slot again in a few large values, what loading the whole
 * index reads after a restart. It must say exactly what the records say: written only once the
 * writes have settled, deleted by any write of the records, and ignored (the records read instead)
 * when it is missing or unreadable. 4,500 torrents: three chunks of PACK_RECORDS. An index of
 * fewer than PACK_MIN_RECORDS has none: its records load fast enough.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { PACK_AFTER_MS, PACK_MIN_RECORDS, PACK_SOON_MS, type ClientIndex } from '../../../utils/client-index/indexes-by-client.ts';
import { PACK_RECORDS } from '../../../utils/client-index/store';
import type { ClientTorrent, TorrentClient } from '../../../utils/clients/client-types';
import type { ReferenceService } from '../../service/server';
import { QBITTORRENT, SITES, hashOf, makeWorld, restart, startServiceWith, type GroupMember, type World } from './support';

const COUNT = Math.round(PACK_RECORDS * 2.25);
const torrents: ClientTorrent[] = Array.from({ length: COUNT }, (_, i) => ({
  hash: hashOf(`packed ${i}`),
  name: `Some.Show.S01E${i}.1080p.WEB-DL 某剧 第${i}集`,
  savePath: `/data/pt/${i % 7}`,
  state: i % 11 === 0 ? 'paused' : 'seeding',
  progress: i % 11 === 0 ? 0.25 : 1,
  size: 1e9 + i,
}));
const client = { kind: 'qbittorrent', list: async () => torrents.map((torrent) => ({ ...torrent })) } as unknown as TorrentClient;
const groups: GroupMember[][] = torrents
  .filter((_, i) => i % 3 === 0)
  .map((torrent, i) => [
    { site: 'hdsky', torrent_id: 1 + i, info_hash: torrent.hash },
    { site: 'pterclub', torrent_id: 1 + i, info_hash: hashOf(`copy ${i}`) },
  ]);
/** These 4,500 torrents are packed (the product packs from PACK_MIN_RECORDS). */
const PACKED = { packMinRecords: PACK_RECORDS };
const PAGE = Array.from({ length: 100 }, (_, i) => String(1 + i * 7));

let service: ReferenceService;
let world: World;
beforeAll(async () => {
  service = await startServiceWith(groups, { rateLimit: { max: 1_000_000 } });
});
afterAll(async () => {
  await service?.close();
});
beforeEach(() => {
  fakeBrowser.reset();
  world = makeWorld(service, { packAfterMs: 0, ...PACKED });
});

/** Waits until the index's pack holds `count` records (or, with `undefined`, until it has none). */
async function packHolds(target: World, count: number | undefined): Promise<void> {
  await expect.poll(() => target.indexes.store.packedRecords(0), { timeout: 20_000 }).toBe(count);
}

async function synced(): Promise<ClientIndex> {
  const index = (await world.indexes.open(QBITTORRENT))!;
  await index.sync(client, world.lookup, { pauseMs: 0, locate: false });
  return index;
}

describe('the pack of the index', () => {
  it('is written once the sync has settled, and a restart loads the same index from it alone', async () => {
    const index = await synced();
    await packHolds(world, COUNT);
    const later = restart(world, PACKED);
    const again = (await later.indexes.open(QBITTORRENT))!;
    expect(later.indexes.store.packRecordsRead).toBe(COUNT);
    expect(later.indexes.store.recordsRead).toBe(COUNT);
    expect(again.status()).toEqual(index.status());
    expect(again.query(SITES.pterclub, PAGE)).toEqual(index.query(SITES.pterclub, PAGE));
    expect(again.storedBytes()).toBe(index.storedBytes());
  });

  it('goes with any write of the records; the next load reads the records, the same, and writes a pack again', async () => {
    const index = await synced();
    await packHolds(world, COUNT);
    const added = { ...torrents[0]!, hash: hashOf('added later'), name: 'Added.Later' };
    await index.noteAdded(added, { sid: SITES.hdsky, torrentId: 999_999 });
    // The write deleted the pack in its own transaction; the index writes one again after it settles.
    await packHolds(world, COUNT + 1);
    index.close(false);

    const later = restart(world, { packAfterMs: 60_000, ...PACKED });
    const again = (await later.indexes.open(QBITTORRENT))!;
    expect(later.indexes.store.packRecordsRead).toBe(COUNT + 1);
    expect(again.torrent(added.hash)?.name).toBe('Added.Later');
    await again.noteAdded({ ...added, hash: hashOf('added after the restart'), name: 'After' });
    expect(await later.indexes.store.packedRecords(0)).toBeUndefined();

    const third = restart(world, { packAfterMs: 0, ...PACKED });
    const loaded = (await third.indexes.open(QBITTORRENT))!;
    expect(third.indexes.store.packRecordsRead).toBe(0);
    expect(third.indexes.store.recordsRead).toBe(COUNT + 2);
    expect(loaded.status()).toEqual(again.status());
    expect(loaded.query(SITES.pterclub, PAGE)).toEqual(again.query(SITES.pterclub, PAGE));
    await packHolds(third, COUNT + 2);
  });

  it('that is cut short or unreadable is not read: the records are, and give the same index', async () => {
    const index = await synced();
    await packHolds(world, COUNT);
    const status = index.status();
    const page = index.query(SITES.pterclub, PAGE);
    index.close(false);
    // A pack whose count does not match its chunks, then one with a chunk that is not JSON.
    for (const chunks of [['[]'], ['[', '[]']]) {
      await world.indexes.store.writePack(0, chunks, COUNT);
      const later = restart(world, { packAfterMs: 60_000, ...PACKED });
      const again = (await later.indexes.open(QBITTORRENT))!;
      expect(later.indexes.store.recordsRead - later.indexes.store.packRecordsRead).toBe(COUNT);
      expect(again.status()).toEqual(status);
      expect(again.query(SITES.pterclub, PAGE)).toEqual(page);
      again.close(false);
    }
  });

  it('is read a chunk at a time, and one written anew between two chunks is dropped, never mixed with the old', async () => {
    await synced();
    await packHolds(world, COUNT);
    const store = world.indexes.store;
    const whole: unknown[] = [];
    expect(await store.readPack(0, (value) => whole.push(value))).toBe(true);
    expect(whole).toHaveLength(COUNT);
    // The same records in a new pack, written while the first chunk is being restored.
    const chunks = [JSON.stringify(whole.slice(0, PACK_RECORDS)), JSON.stringify(whole.slice(PACK_RECORDS))];
    let rewritten = false;
    const given: unknown[] = [];
    const read = await store.readPack(
      0,
      (value) => given.push(value),
      async () => {
        if (rewritten) return;
        rewritten = true;
        await store.writePack(0, chunks, COUNT);
      },
    );
    expect(rewritten).toBe(true);
    expect(read).toBe(false);
    // The new pack, read alone, is whole.
    const again: unknown[] = [];
    expect(await store.readPack(0, (value) => again.push(value))).toBe(true);
    expect(again).toEqual(whole);
  });

  it('is written PACK_SOON_MS after a run ends, not PACK_AFTER_MS: a worker stopped soon after a sync still leaves one', async () => {
    const timed = restart(world, PACKED);
    const index = (await timed.indexes.open(QBITTORRENT))!;
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      await index.sync(client, timed.lookup, { pauseMs: 0, locate: false });
      const delays = timers.mock.calls.map((call) => call[1]);
      // The sync's writes each put the pack off by PACK_AFTER_MS; its end asks for it sooner, last.
      expect(delays).toContain(PACK_AFTER_MS);
      expect(delays.lastIndexOf(PACK_SOON_MS)).toBeGreaterThan(delays.lastIndexOf(PACK_AFTER_MS));
    } finally {
      timers.mockRestore();
    }
    await packHolds(timed, COUNT);
  });

  it(`is not written for an index of fewer than PACK_MIN_RECORDS (${PACK_MIN_RECORDS}): once settled, there is none, and the storage was compacted`, async () => {
    expect(COUNT).toBeLessThan(PACK_MIN_RECORDS);
    const small = restart(world, { packAfterMs: 0 });
    const index = (await small.indexes.open(QBITTORRENT))!;
    expect(index.settled).toBe(true);
    await index.sync(client, small.lookup, { pauseMs: 0, locate: false });
    expect(index.settled).toBe(false);
    await expect.poll(() => index.settled, { timeout: 20_000 }).toBe(true);
    expect(await small.indexes.store.packedRecords(0)).toBeUndefined();
    expect(small.indexes.store.compactions).toBeGreaterThan(0);
  });
});
