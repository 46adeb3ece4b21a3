/**
 * The index's group math, fed with what the reference service really answers (over HTTP, through
 * the Lookup): which rows are in the client, which can be cross-seeded and from which torrent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import type { ClientTorrent } from '../../../utils/clients/client-types';
import { IndexModel, RECHECK_AFTER_MS, LOCATE_AGAIN_AFTER_MS, UNBOUNDED } from '../../../utils/client-index/model';
import type { Candidate } from '../../../utils/iyuu/answer-schemas';
import type { ReferenceService } from '../../service/server';
import { SITES, hashOf, makeWorld, startServiceWith, type World } from './support';

// Group "album": the client holds it from hdsky and from pthome; m-team and tjupt carry it too.
const ALBUM = { hdsky: hashOf('album@hdsky'), pthome: hashOf('album@pthome'), mteam: hashOf('album@m-team'), tjupt: hashOf('album@tjupt') };
// Group "movie": the client holds it from hdsky only; hdhome and pterclub carry it too.
const MOVIE = { hdsky: hashOf('movie@hdsky'), hdhome: hashOf('movie@hdhome'), pterclub: hashOf('movie@pterclub') };
// Group "show": the client is still downloading it from btschool; keepfrds carries it.
const SHOW = { btschool: hashOf('show@btschool'), keepfrds: hashOf('show@keepfrds') };
// A torrent no other site carries.
const LONE = hashOf('lone@hdsky');

let service: ReferenceService;
let world: World;

beforeAll(async () => {
  service = await startServiceWith([
    [
      { site: 'hdsky', torrent_id: 101, info_hash: ALBUM.hdsky },
      { site: 'pthome', torrent_id: 201, info_hash: ALBUM.pthome },
      { site: 'm-team', torrent_id: 301, info_hash: ALBUM.mteam },
      { site: 'tjupt', torrent_id: 501, info_hash: ALBUM.tjupt },
    ],
    [
      { site: 'hdsky', torrent_id: 102, info_hash: MOVIE.hdsky },
      { site: 'hdhome', torrent_id: 702, info_hash: MOVIE.hdhome },
      { site: 'pterclub', torrent_id: 602, info_hash: MOVIE.pterclub },
    ],
    [
      { site: 'btschool', torrent_id: 803, info_hash: SHOW.btschool },
      { site: 'keepfrds', torrent_id: 103, info_hash: SHOW.keepfrds },
    ],
  ]);
});
afterAll(() => service.close());
beforeEach(() => {
  fakeBrowser.reset();
  service.control.reset();
  world = makeWorld(service);
});

function torrent(hash: string, name: string, extra: Partial<ClientTorrent> = {}): ClientTorrent {
  return { hash, name, savePath: `/data/${name}`, size: 1_000_000, state: 'seeding', progress: 1, ...extra };
}

const CLIENT: ClientTorrent[] = [
  torrent(ALBUM.hdsky, 'Album (2024) [FLAC]'),
  torrent(ALBUM.pthome, 'Album (2024) [FLAC]', { state: 'paused' }),
  torrent(MOVIE.hdsky, 'Movie.2024.1080p.mkv'),
  torrent(SHOW.btschool, 'Show.S01', { state: 'downloading', progress: 0.42 }),
  torrent(LONE, 'Lone.Release'),
];

/** The service's answers for these hashes, as the Lookup reads them from the reference service. */
async function answersFor(hashes: string[]): Promise<Map<string, Candidate[]>> {
  const outcome = await world.lookup.answers(hashes);
  return new Map([...outcome.answers].map(([hash, answer]) => [hash, answer.candidates]));
}

async function indexedModel(client = CLIENT, now = Date.now()): Promise<IndexModel> {
  const model = new IndexModel();
  model.applyClientList(client, UNBOUNDED);
  model.applyAnswers(await answersFor(client.map((t) => t.hash)), now);
  return model;
}

describe('what the service answers', () => {
  it('for a hash: the other members of its group, never the queried torrent itself', async () => {
    const answers = await answersFor([MOVIE.hdsky]);
    expect(answers.get(MOVIE.hdsky)!.map((c) => c.info_hash).sort()).toEqual([MOVIE.hdhome, MOVIE.pterclub].sort());
  });
});

describe('rows of a list page', () => {
  it('a member whose hash the client holds is in the client; the others can be cross-seeded from a complete client torrent', async () => {
    const model = await indexedModel();
    // m-team carries the album: cross-seedable from the complete hdsky copy (seeding preferred over the paused pthome one).
    expect(model.query(SITES['m-team'], ['301'])).toEqual(
      new Map([['301', { kind: 'can-cross-seed', clientTorrent: expect.objectContaining({ hash: ALBUM.hdsky, savePath: '/data/Album (2024) [FLAC]' }), candidateHash: ALBUM.mteam, foundBy: 'iyuu' }]]),
    );
    // The client holds the album twice, so each answer names the other's place: both are in the client.
    expect(model.query(SITES.hdsky, ['101']).get('101')).toMatchObject({ kind: 'in-client', candidateHash: ALBUM.hdsky, clientTorrent: { hash: ALBUM.hdsky } });
    expect(model.query(SITES.pthome, ['201']).get('201')).toMatchObject({ kind: 'in-client', candidateHash: ALBUM.pthome, clientTorrent: { hash: ALBUM.pthome, state: 'paused' } });
    expect(model.query(SITES.hdhome, [702]).get('702')).toMatchObject({ kind: 'can-cross-seed', clientTorrent: { hash: MOVIE.hdsky }, candidateHash: MOVIE.hdhome });
  });

  it("a torrent held from one site only is not placed by its own answer (the service names only the others)", async () => {
    const model = await indexedModel();
    expect(model.query(SITES.hdsky, ['102'])).toEqual(new Map());
    // ...unless the row shows its hash.
    expect(model.query(SITES.hdsky, [{ id: '102', hash: MOVIE.hdsky.toUpperCase() }]).get('102')).toMatchObject({ kind: 'in-client', candidateHash: MOVIE.hdsky });
  });

  it('once located (the answer for one of its candidates names it), it is in the client on its own site', async () => {
    const model = await indexedModel();
    const asks = model.toLocate(Date.now());
    // The album is placed by its two answers; the movie needs one question; the show's only candidate is on keepfrds.
    expect([...asks.values()].flat().sort()).toEqual([MOVIE.hdsky, SHOW.btschool].sort());
    const candidate = [...asks].find(([, held]) => held.includes(MOVIE.hdsky))![0];
    expect([MOVIE.hdhome, MOVIE.pterclub]).toContain(candidate);
    model.applyLocated(asks, await answersFor([...asks.keys()]), Date.now());
    expect(model.query(SITES.hdsky, ['102']).get('102')).toMatchObject({ kind: 'in-client', clientTorrent: { hash: MOVIE.hdsky } });
    expect(model.query(SITES.btschool, ['803']).get('803')).toMatchObject({ kind: 'in-client', clientTorrent: { hash: SHOW.btschool, progress: 0.42 } });
    // Nothing left to locate, and not asked again.
    expect(model.toLocate(Date.now()).size).toBe(0);
  });

  it('an incomplete client torrent is no source: the show, still downloading, offers nothing on keepfrds', async () => {
    const model = await indexedModel();
    expect(model.query(SITES.keepfrds, ['103'])).toEqual(new Map());
    // Complete now: offered.
    model.applyClientList(CLIENT.map((t) => (t.hash === SHOW.btschool ? { ...t, progress: 1, state: 'seeding' } : t)), UNBOUNDED);
    expect(model.query(SITES.keepfrds, ['103']).get('103')).toMatchObject({ kind: 'can-cross-seed', clientTorrent: { hash: SHOW.btschool } });
  });

  it.each(['missing', 'error', 'moving', 'checking'] as const)('a complete torrent in state %s is no source', async (state) => {
    const client = CLIENT.map((t) => (t.hash === MOVIE.hdsky ? { ...t, state } : t));
    const model = await indexedModel(client);
    expect(model.query(SITES.hdhome, ['702'])).toEqual(new Map());
  });

  it('falls back to another complete copy when the preferred one is not usable', async () => {
    const client = CLIENT.map((t) => (t.hash === ALBUM.hdsky ? { ...t, progress: 0.5, state: 'downloading' as const } : t));
    const model = await indexedModel(client);
    expect(model.query(SITES.tjupt, ['501']).get('501')).toMatchObject({ kind: 'can-cross-seed', clientTorrent: { hash: ALBUM.pthome } });
  });

  it('picks the same source whatever order the client lists its torrents in (a restart reads them back in another)', async () => {
    const client = CLIENT.map((t) => (t.hash === ALBUM.pthome ? { ...t, state: 'seeding' as const } : t));
    const forward = await indexedModel(client);
    const backward = await indexedModel([...client].reverse());
    const source = forward.query(SITES['m-team'], ['301']).get('301')?.clientTorrent.hash;
    expect(source).toBe([ALBUM.hdsky, ALBUM.pthome].sort()[0]);
    expect(backward.query(SITES['m-team'], ['301']).get('301')?.clientTorrent.hash).toBe(source);
  });

  it("a client torrent named in another's answer is a source before its own answer came (a sync cut short)", async () => {
    const client = CLIENT.map((t) => (t.hash === ALBUM.hdsky ? { ...t, progress: 0.5, state: 'downloading' as const } : t));
    const model = new IndexModel();
    model.applyClientList(client, UNBOUNDED);
    model.applyAnswers(await answersFor([ALBUM.hdsky]), Date.now());
    expect(model.query(SITES['m-team'], ['301']).get('301')).toMatchObject({ kind: 'can-cross-seed', clientTorrent: { hash: ALBUM.pthome } });
  });

  it('a row showing a hash other than the one the service gave for its id is judged by its own hash', async () => {
    const model = await indexedModel();
    expect(model.query(SITES['m-team'], [{ id: '301', hash: hashOf('something else') }])).toEqual(new Map());
    expect(model.query(SITES['m-team'], [{ id: '301', hash: ALBUM.mteam }]).get('301')?.kind).toBe('can-cross-seed');
  });

  it('rows of sites and ids the index does not know, and a torrent nobody else carries, give nothing', async () => {
    const model = await indexedModel();
    expect(model.query(SITES.hdsky, ['999', '1', 'abc'])).toEqual(new Map());
    expect(model.query(12345, ['301'])).toEqual(new Map());
    expect(model.counts()).toMatchObject({ torrents: 5, answered: 5, waiting: 0 });
  });
});

describe('the client changes', () => {
  it('a torrent removed from the client takes its answer and marks with it', async () => {
    const model = await indexedModel();
    const change = model.applyClientList(
      CLIENT.filter((t) => t.hash !== MOVIE.hdsky),
      UNBOUNDED,
    );
    expect(change).toMatchObject({ removed: [MOVIE.hdsky], added: [] });
    expect(model.query(SITES.hdhome, ['702'])).toEqual(new Map());
    // The album, held twice, loses one copy: still in the client from pthome, and still a source for m-team.
    model.applyClientList(
      CLIENT.filter((t) => t.hash !== ALBUM.hdsky),
      UNBOUNDED,
    );
    expect(model.query(SITES.hdsky, ['101']).get('101')).toMatchObject({ kind: 'can-cross-seed', clientTorrent: { hash: ALBUM.pthome } });
    expect(model.query(SITES['m-team'], ['301']).get('301')).toMatchObject({ kind: 'can-cross-seed', clientTorrent: { hash: ALBUM.pthome } });
  });

  it('past the bound (in bytes), complete torrents are kept first', () => {
    const model = new IndexModel();
    const change = model.applyClientList(CLIENT, { maxBytes: 4 * 300 + 299, bytesOf: () => 300 });
    expect(change.leftOut).toBe(1);
    expect(model.torrent(SHOW.btschool)).toBeUndefined();
    expect(model.size).toBe(4);
  });
});

describe('what to ask', () => {
  it('new hashes in hash order; nothing once answered; again after a day, a week, then four weeks; a changed answer starts over', async () => {
    const model = new IndexModel();
    model.applyClientList(CLIENT, UNBOUNDED);
    const t0 = 1_700_000_000_000;
    expect(model.toAsk(t0, 1000)).toEqual({ fresh: CLIENT.map((t) => t.hash).sort(), due: [] });
    const answers = await answersFor(CLIENT.map((t) => t.hash));
    model.applyAnswers(answers, t0);
    expect(model.toAsk(t0 + RECHECK_AFTER_MS[0] - 1, 1000)).toEqual({ fresh: [], due: [] });
    expect(model.toAsk(t0 + RECHECK_AFTER_MS[0], 1000).due).toHaveLength(5);
    const t1 = t0 + RECHECK_AFTER_MS[0];
    model.applyAnswers(answers, t1);
    expect(model.toAsk(t1 + RECHECK_AFTER_MS[1] - 1, 1000).due).toEqual([]);
    const t2 = t1 + RECHECK_AFTER_MS[1];
    model.applyAnswers(answers, t2);
    expect(model.toAsk(t2 + RECHECK_AFTER_MS[1], 1000).due).toEqual([]);
    expect(model.toAsk(t2 + RECHECK_AFTER_MS[2], 1000).due).toHaveLength(5);
    // A new copy of the movie appeared: its answer changed, so it is asked again after a day.
    const movie = [...answers.get(MOVIE.hdsky)!, { sid: SITES.tjupt, torrent_id: 9, info_hash: hashOf('movie@tjupt') }];
    model.applyAnswers(new Map([[MOVIE.hdsky, movie]]), t2);
    expect(model.toAsk(t2 + RECHECK_AFTER_MS[0], 1000).due).toEqual([MOVIE.hdsky]);
    // At most this many old answers per sync, the oldest first.
    expect(model.toAsk(t2 + RECHECK_AFTER_MS[2], 2).due).toHaveLength(2);
  });

  it('a torrent located once is not asked about again; one the answer did not place is asked again after four weeks', async () => {
    const model = await indexedModel();
    const now = Date.now();
    const asks = model.toLocate(now);
    // The service answers for the candidate, but without the movie's own entry (say, filtered).
    const movieAsk = [...asks].find(([, held]) => held.includes(MOVIE.hdsky))!;
    model.applyLocated(new Map([movieAsk]), new Map([[movieAsk[0], []]]), now);
    expect([...model.toLocate(now + LOCATE_AGAIN_AFTER_MS - 1).values()].flat()).not.toContain(MOVIE.hdsky);
    expect([...model.toLocate(now + LOCATE_AGAIN_AFTER_MS).values()].flat()).toContain(MOVIE.hdsky);
  });
});

describe('the per-site map built in slices (prepare: a large index\'s first build blocks nothing long)', () => {
  const everything = (model: IndexModel) => ({
    counts: model.counts(),
    places: Object.values(SITES).map((sid) => [...model.opportunities(sid)].map((place) => [sid, place.torrentId, place.hash, place.source.hash])),
  });

  it('gives what the map built at once gives, pausing between slices', async () => {
    const atOnce = everything(await indexedModel());
    const model = await indexedModel();
    let pauses = 0;
    await model.prepare(() => {
      pauses++;
      return Promise.resolve();
    }, 1);
    expect(pauses).toBeGreaterThan(1);
    expect(everything(model)).toEqual(atOnce);
  });

  it('starts over when the records change during a pause (a sync\'s answers), and ends with the map of the records as they are', async () => {
    const model = await indexedModel(CLIENT.filter((t) => t.hash !== MOVIE.hdsky));
    const answers = await answersFor([MOVIE.hdsky]);
    let changed = false;
    await model.prepare(async () => {
      if (changed) return;
      changed = true;
      // The movie comes into the client and its answer with it, mid-build.
      model.applyClientList(CLIENT, UNBOUNDED);
      model.applyAnswers(answers, Date.now());
    }, 1);
    expect(everything(model)).toEqual(everything(await indexedModel()));
    expect(model.query(SITES.hdhome, [702]).get('702')).toMatchObject({ kind: 'can-cross-seed', clientTorrent: { hash: MOVIE.hdsky } });
  });
});
