/**
 * A big client: 100,000 torrents with long names (about 200 characters, Chinese and Latin, on
 * realistic paths), synced against the reference service over HTTP, stored in IndexedDB
 * (fake-indexeddb as the engine: Node has none), read back after a restart, bounded by bytes; and
 * the first list page after a restart answered from the page's own records, not the whole index.
 *
 * The client is its list: TorrentClient.list() giving 100,000 torrents as qBittorrent's answer does
 * (no daemon holds that many here; the daemons' own lists are in sync.test.ts).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { MAX_INDEX_BYTES, type ClientIdentity } from '../../../utils/client-index/indexes-by-client.ts';
import { utf8Length } from '../../../utils/client-index/codec';
import type { ClientTorrent, TorrentClient } from '../../../utils/clients/client-types';
import type { ReferenceService } from '../../service/server';
import { SITES, makeWorld, restart, startServiceWith, storedKeys, type GroupMember, type World } from './support';

const BIG = { timeout: 600_000 };
const COUNT = 100_000;
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const IDENTITY: ClientIdentity = { type: 'qbittorrent', url: 'http://127.0.0.1:8080' };

const TITLES = [
  '流浪地球2.The.Wandering.Earth.II.2023.2160p.UHD.BluRay.REMUX.HDR10.DoVi.HEVC.TrueHD.Atmos.7.1-FRDS',
  'Some.Documentary.Series.S02.Complete.1080p.NF.WEB-DL.DDP5.1.Atmos.H.264-NTb',
  '[漫游字幕组] 某动画 第一季 全十二话 [01-12][BDRip][1080P][HEVC Main10][FLAC][简繁内封字幕]',
  'Some Artist - Collected Works 1998-2019 (24bit-96kHz) [FLAC] {Deluxe Edition Remastered}',
];
const PATHS = ['/mnt/pool1/PT/影视/电影/2023', '/srv/downloads/pt/hdsky/TV Series', '/volume2/Media/动漫/完结', '/data/torrents/music/lossless'];

function longName(i: number): string {
  const base = `${TITLES[i % TITLES.length]} ${i}`;
  return `${base} ${'额外信息 Extra.Info '.repeat(12)}`.slice(0, 200);
}

const torrents: ClientTorrent[] = Array.from({ length: COUNT }, (_, i) => ({
  hash: sha1(`big ${i}`),
  name: longName(i),
  savePath: `${PATHS[i % PATHS.length]}/${longName(i).slice(0, 40)}`,
  state: i % 20 === 0 ? 'downloading' : 'seeding',
  progress: i % 20 === 0 ? 0.5 : 1,
  size: 1e9 + i,
}));
const client: TorrentClient = {
  kind: 'qbittorrent',
  list: async () => torrents.map((torrent) => ({ ...torrent })),
  test: () => Promise.reject(new Error('not here')),
  lookup: () => Promise.reject(new Error('not here')),
  files: () => Promise.reject(new Error('not here')),
  add: () => Promise.reject(new Error('not here')),
} as unknown as TorrentClient;

// Nine in ten are on hdsky with a copy on pterclub; one in seven more has a copy on m-team too.
const groups: GroupMember[][] = torrents.flatMap((torrent, i) => {
  if (i % 10 === 0) return [];
  const members: GroupMember[] = [
    { site: 'hdsky', torrent_id: 1 + i, info_hash: torrent.hash },
    { site: 'pterclub', torrent_id: 1 + i, info_hash: sha1(`copy ${i}`) },
  ];
  if (i % 7 === 0) members.push({ site: 'm-team', torrent_id: 1 + i, info_hash: sha1(`mteam ${i}`) });
  return [members];
});

let service: ReferenceService;
let world: World;

beforeAll(async () => {
  service = await startServiceWith(groups, { rateLimit: { max: 1_000_000 } });
}, 120_000);
afterAll(async () => {
  await service?.close();
});
beforeEach(() => {
  fakeBrowser.reset();
  world = makeWorld(service);
});

/** A list page of 100 rows on pterclub: copies the client can cross-seed, copies of incomplete ones, unknown ids. */
const PAGE = Array.from({ length: 100 }, (_, i) => String(i < 90 ? 1 + 50_000 + i : 900_000 + i));

describe('100,000 long-named torrents', () => {
  it('are stored and read back after a restart, within the byte bound, the same answers and nothing asked again', BIG, async () => {
    const index = (await world.indexes.open(IDENTITY))!;
    const report = await index.sync(client, world.lookup, { pauseMs: 0, locate: false });
    expect(report).toMatchObject({ outcome: 'done', torrents: COUNT, leftOut: 0, asked: COUNT });
    expect(index.status()).toMatchObject({ torrents: COUNT, answered: COUNT, storage: 'ok' });
    const bytes = index.storedBytes();
    const names = torrents.reduce((sum, torrent) => sum + utf8Length(torrent.name), 0);
    expect(names / COUNT).toBeGreaterThan(200); // long names indeed (Chinese is 3 bytes a character)
    expect(bytes).toBeLessThanOrEqual(MAX_INDEX_BYTES);
    const expected = index.query(SITES.pterclub, PAGE);
    expect([...expected.values()].filter((match) => match.kind === 'can-cross-seed').length).toBeGreaterThan(70);

    const since = service.requests.length;
    const later = restart(world);
    const again = (await later.indexes.open(IDENTITY))!;
    expect(again.status()).toMatchObject({ torrents: COUNT, answered: COUNT, storage: 'ok' });
    expect(again.query(SITES.pterclub, PAGE)).toEqual(expected);
    expect(again.storedBytes()).toBe(bytes);
    expect((await storedKeys()).length).toBe(COUNT + 1);
    await again.sync(client, later.lookup, { pauseMs: 0, locate: false });
    expect(service.requests.length).toBe(since);

    // Bounded by bytes: half the room holds the complete torrents first, and never more than the room.
    const half = makeWorld(service, { maxBytes: Math.floor(bytes / 2) });
    const bounded = (await half.indexes.open(IDENTITY))!;
    const cut = await bounded.sync(client, half.lookup, { pauseMs: 0, locate: false });
    expect(cut.leftOut).toBeGreaterThan(COUNT / 3);
    expect(bounded.storedBytes()).toBeLessThanOrEqual(Math.floor(bytes / 2));
    expect(bounded.status().lastSync?.leftOut).toBe(cut.leftOut);
  });

  it('after a restart the first list page reads only its rows\' records, not the whole index, and answers as the whole index does', BIG, async () => {
    const index = (await world.indexes.open(IDENTITY))!;
    await index.sync(client, world.lookup, { pauseMs: 0, locate: false });
    const expected = index.rows(SITES.pterclub, PAGE);
    expect(expected.matches.size).toBeGreaterThan(70);

    const later = restart(world);
    const first = await later.indexes.rows(IDENTITY, SITES.pterclub, PAGE);
    expect(first).toEqual(expected);
    // Each known row is named by one record (its group's torrent in the client): that one is taken,
    // and no other. The rows are read as one key range of the place index, which in string order
    // also holds longer ids that start like them (500010…500899 between 50001 and 50090): those few
    // are read and dropped, far fewer than the range's limit, and nothing near the whole index.
    const known = PAGE.filter((id) => Number(id) < 900_000 && (Number(id) - 1) % 10 !== 0).length;
    const { placeRecordsRead, placeRecordsDropped } = later.indexes.store;
    expect(placeRecordsRead - placeRecordsDropped).toBe(known);
    expect(placeRecordsDropped).toBeLessThanOrEqual(4 * 90 + 16);
    // The whole index loads beside it, and answers the next page from memory the same.
    const loaded = (await later.indexes.open(IDENTITY))!;
    expect(later.indexes.store.recordsRead).toBeGreaterThanOrEqual(COUNT);
    const placeReads = later.indexes.store.placeRecordsRead;
    expect(await later.indexes.rows(IDENTITY, SITES.pterclub, PAGE)).toEqual(expected);
    expect(later.indexes.store.placeRecordsRead).toBe(placeReads);
    expect(loaded.status().torrents).toBe(COUNT);
  });
});
