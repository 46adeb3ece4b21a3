/**
 * The index's second source (issue 18): pieces hashes read from the client, what sites asked by
 * pieces hash answered, and how those places join the service's in one per-site map (list rows,
 * opportunities, counts), whether built lazily or by prepare() in chunks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClientTorrent } from '../../../utils/clients/client-types';
import { IndexModel, PIECES_ANSWER_MAX_AGE_MS, UNBOUNDED, type IndexRecord, type Opportunity, type RowMatch } from '../../../utils/client-index/model';
import type { Candidate } from '../../../utils/iyuu/answer-schemas';
import { SITES, hashOf } from './support';

const DAY = 24 * 60 * 60 * 1000;
const T0 = 1_700_000_000_000;

function torrent(hash: string, name: string, extra: Partial<ClientTorrent> = {}): ClientTorrent {
  return { hash, name, savePath: `/data/${name}`, size: 1_000_000, state: 'seeding', progress: 1, ...extra };
}

// The film: held twice, from hdsky (its tracker is catalogued) and from a tracker the catalog does not know.
const FILM = { hdsky: hashOf('film@hdsky'), private: hashOf('film@private'), later: hashOf('film@later') };
// The song: held once, complete, from an unknown tracker.
const SONG = hashOf('song@private');
// The draft: still downloading.
const DRAFT = hashOf('draft@private');
// Held from pterclub only.
const OWN = hashOf('own@pterclub');
const PIECES = { film: hashOf('pieces:film'), song: hashOf('pieces:song'), draft: hashOf('pieces:draft'), own: hashOf('pieces:own') };

const CLIENT: ClientTorrent[] = [
  torrent(FILM.hdsky, 'Film.2024', { state: 'paused' }),
  torrent(FILM.private, 'Film.2024'),
  torrent(SONG, 'Song'),
  torrent(DRAFT, 'Draft', { state: 'downloading', progress: 0.3 }),
  torrent(OWN, 'Own'),
];

/** The client listed, every pieces hash read. */
function readModel(client = CLIENT): IndexModel {
  const model = new IndexModel();
  model.applyClientList(client, UNBOUNDED);
  const pieces: Record<string, { hash: string; fromSid?: number }> = {
    [FILM.hdsky]: { hash: PIECES.film, fromSid: SITES.hdsky },
    [FILM.private]: { hash: PIECES.film },
    [FILM.later]: { hash: PIECES.film },
    [SONG]: { hash: PIECES.song },
    [DRAFT]: { hash: PIECES.draft },
    [OWN]: { hash: PIECES.own, fromSid: SITES.pterclub },
  };
  for (const { hash } of client) model.applyPieces(hash, pieces[hash]!);
  return model;
}

const ids = (entries: Record<string, number>) => new Map(Object.entries(entries));
const candidate = (sid: number, torrentId: number, hash: string): Candidate => ({ sid, torrent_id: torrentId, info_hash: hash });

describe('reading pieces hashes', () => {
  it('complete torrents first (what a cross-seed starts from), then by hash; each read once', () => {
    const model = new IndexModel();
    model.applyClientList(CLIENT, UNBOUNDED);
    const complete = [FILM.private, SONG, OWN].sort();
    // FILM.hdsky is complete but paused: still a usable source, so among the first.
    expect(model.piecesToRead()).toEqual([...[...complete, FILM.hdsky].sort(), DRAFT]);
    expect(model.applyPieces(SONG, { hash: PIECES.song })).toBe(true);
    expect(model.piecesToRead()).not.toContain(SONG);
    // Unchanged: false; another tracker's site: a change; a torrent gone: false.
    expect(model.applyPieces(SONG, { hash: PIECES.song })).toBe(false);
    expect(model.applyPieces(SONG, { hash: PIECES.song, fromSid: SITES.hdsky })).toBe(true);
    expect(model.records.get(SONG)!.pieces).toEqual({ hash: PIECES.song, fromSid: SITES.hdsky });
    expect(model.applyPieces(hashOf('gone'), { hash: PIECES.song })).toBe(false);
    expect(readModel().piecesToRead()).toEqual([]);
  });

  it('a torrent whose state keeps it from being a source (missing, checking) is read after the usable ones', () => {
    const model = new IndexModel();
    const broken = hashOf('0-broken'); // lowest hash of all, still last
    model.applyClientList([...CLIENT, torrent(broken, 'Broken', { state: 'missing' })], UNBOUNDED);
    const order = model.piecesToRead();
    expect(order.indexOf(broken)).toBeGreaterThan(order.indexOf(OWN));
    expect(order.slice(-2).sort()).toEqual([DRAFT, broken].sort());
  });
});

describe('what to ask a site', () => {
  it('the content of complete client torrents not from that site, each pieces hash once, in hash order', () => {
    const model = readModel();
    // pterclub: the film (twice held, asked once) and the song; not the draft (incomplete), not OWN (from pterclub itself).
    expect(model.piecesDue(SITES.pterclub, T0)).toEqual({ ask: [PIECES.film, PIECES.song].sort(), changed: [] });
    // hdsky: the film too, as its private copy is not from hdsky; OWN as well.
    expect(model.piecesDue(SITES.hdsky, T0).ask).toEqual([PIECES.film, PIECES.song, PIECES.own].sort());
  });

  it('a content held only from that site is never asked, even when complete', () => {
    const model = new IndexModel();
    model.applyClientList([torrent(FILM.hdsky, 'Film.2024')], UNBOUNDED);
    model.applyPieces(FILM.hdsky, { hash: PIECES.film, fromSid: SITES.hdsky });
    expect(model.piecesDue(SITES.hdsky, T0).ask).toEqual([]);
    expect(model.piecesDue(SITES.pterclub, T0).ask).toEqual([PIECES.film]);
  });

  it('an answer counts for a week: not asked again before, asked again after', () => {
    const model = readModel();
    model.applyFound(SITES.pterclub, [PIECES.film, PIECES.song], ids({ [PIECES.film]: 900 }), T0);
    expect(model.piecesDue(SITES.pterclub, T0 + 1)).toEqual({ ask: [], changed: [] });
    expect(model.piecesDue(SITES.pterclub, T0 + PIECES_ANSWER_MAX_AGE_MS - 1).ask).toEqual([]);
    expect(model.piecesDue(SITES.pterclub, T0 + PIECES_ANSWER_MAX_AGE_MS).ask).toEqual([PIECES.film, PIECES.song].sort());
    // Another site's answer says nothing of this one.
    expect(model.piecesDue(SITES.hdhome, T0 + 1).ask).toEqual([PIECES.film, PIECES.own, PIECES.song].sort());
  });

  it('an answer dated more than a day ahead (the clock was changed) is stale; within a day it counts', () => {
    const model = readModel();
    model.applyFound(SITES.pterclub, [PIECES.film], ids({}), T0 + DAY - 1);
    model.applyFound(SITES.pterclub, [PIECES.song], ids({}), T0 + DAY + 60_000);
    expect(model.piecesDue(SITES.pterclub, T0).ask).toEqual([PIECES.song]);
  });

  it("a new copy of a content answered this week takes that answer without a request; a sibling's stale answer is refreshed from a fresh one", () => {
    const model = readModel();
    model.applyFound(SITES.pterclub, [PIECES.film, PIECES.song], ids({ [PIECES.film]: 900 }), T0);
    // The client now holds a third copy of the film.
    model.applyClientList([...CLIENT, torrent(FILM.later, 'Film.2024')], UNBOUNDED);
    model.applyPieces(FILM.later, { hash: PIECES.film });
    expect(model.piecesDue(SITES.pterclub, T0 + DAY)).toEqual({ ask: [], changed: [FILM.later] });
    expect(model.records.get(FILM.later)!.found).toEqual([{ sid: SITES.pterclub, at: T0, torrentId: 900 }]);
    // One copy's answer goes stale (older), the other's is fresh: the fresh one is copied over.
    model.records.get(FILM.hdsky)!.found = [{ sid: SITES.pterclub, at: T0 - 30 * DAY, torrentId: 1 }];
    const due = model.piecesDue(SITES.pterclub, T0 + DAY);
    expect(due).toEqual({ ask: [], changed: [FILM.hdsky] });
    expect(model.records.get(FILM.hdsky)!.found).toEqual([{ sid: SITES.pterclub, at: T0, torrentId: 900 }]);
    expect(model.query(SITES.pterclub, [1])).toEqual(new Map());
  });
});

describe("a site's answers", () => {
  it('apply to every client torrent with that pieces hash; 0 (absent) is "not on the site"; unknown pieces hashes are ignored', () => {
    const model = readModel();
    const changed = model.applyFound(SITES.pterclub, [PIECES.film, PIECES.song, hashOf('pieces:unknown')], ids({ [PIECES.film]: 900 }), T0);
    expect(changed.sort()).toEqual([FILM.hdsky, FILM.private, SONG].sort());
    expect(model.records.get(FILM.hdsky)!.found).toEqual([{ sid: SITES.pterclub, at: T0, torrentId: 900 }]);
    expect(model.records.get(FILM.private)!.found).toEqual([{ sid: SITES.pterclub, at: T0, torrentId: 900 }]);
    expect(model.records.get(SONG)!.found).toEqual([{ sid: SITES.pterclub, at: T0, torrentId: 0 }]);
    expect(model.query(SITES.pterclub, [0, '0'])).toEqual(new Map());
    expect([...model.opportunities(SITES.pterclub)].map((o) => o.torrentId)).toEqual([900]);
    // A later answer replaces the site's earlier one (one per site).
    model.applyFound(SITES.pterclub, [PIECES.film], ids({ [PIECES.film]: 901 }), T0 + 1);
    expect(model.records.get(FILM.private)!.found).toEqual([{ sid: SITES.pterclub, at: T0 + 1, torrentId: 901 }]);
    expect(model.query(SITES.pterclub, [900, 901]).has('900')).toBe(false);
    expect(model.query(SITES.pterclub, [900, 901]).get('901')?.kind).toBe('can-cross-seed');
  });

  it('forgetFound: the site switched off takes its places; other sites stay', () => {
    const model = readModel();
    model.applyFound(SITES.pterclub, [PIECES.film], ids({ [PIECES.film]: 900 }), T0);
    model.applyFound(SITES.hdhome, [PIECES.song], ids({ [PIECES.song]: 77 }), T0);
    expect(model.anyAnswered()).toBe(true);
    expect(model.forgetFound(SITES.pterclub).sort()).toEqual([FILM.hdsky, FILM.private].sort());
    expect(model.records.get(FILM.hdsky)!.found).toBeUndefined();
    expect(model.query(SITES.pterclub, [900])).toEqual(new Map());
    expect(model.query(SITES.hdhome, [77]).get('77')?.kind).toBe('can-cross-seed');
    expect(model.forgetFound(SITES.pterclub)).toEqual([]);
    model.forgetFound(SITES.hdhome);
    expect(model.anyAnswered()).toBe(false);
  });

  it('anyAnswered: a site saying "none of these" is an answer too', () => {
    const model = readModel();
    expect(model.anyAnswered()).toBe(false);
    model.applyFound(SITES.pterclub, [PIECES.song], ids({}), T0);
    expect(model.anyAnswered()).toBe(true);
  });
});

describe('piecesPlaces', () => {
  it("a content's places, with the client's own torrent where the client holds it from that very site", () => {
    const model = readModel();
    model.applyFound(SITES.hdsky, [PIECES.film], ids({ [PIECES.film]: 101 }), T0);
    model.applyFound(SITES.pterclub, [PIECES.film, PIECES.song], ids({ [PIECES.film]: 900 }), T0);
    const expected = [
      { sid: SITES.hdsky, torrentId: 101, piecesHash: PIECES.film, heldHash: FILM.hdsky },
      { sid: SITES.pterclub, torrentId: 900, piecesHash: PIECES.film },
    ];
    // The same from either copy of the film.
    expect(model.piecesPlaces(FILM.private)).toEqual(expected);
    expect(model.piecesPlaces(FILM.hdsky)).toEqual(expected);
    // "Not on the site" is no place; a torrent never answered or never read has none.
    expect(model.piecesPlaces(SONG)).toEqual([]);
    expect(model.piecesPlaces(DRAFT)).toEqual([]);
    expect(model.piecesPlaces(hashOf('unknown'))).toEqual([]);
  });
});

describe('found places in list rows and opportunities', () => {
  it('a place only a pieces-hash answer named: can cross-seed from the best complete copy, with no info-hash and the pieces hash to check', () => {
    const model = readModel();
    model.applyFound(SITES.pterclub, [PIECES.film], ids({ [PIECES.film]: 900 }), T0);
    const match = model.query(SITES.pterclub, ['900']).get('900');
    // The seeding copy before the paused one.
    expect(match).toEqual({ kind: 'can-cross-seed', clientTorrent: expect.objectContaining({ hash: FILM.private }), candidateHash: '', candidatePieces: PIECES.film, foundBy: 'pieces' });
    expect([...model.opportunities(SITES.pterclub)]).toEqual([{ torrentId: 900, hash: '', piecesHash: PIECES.film, source: expect.objectContaining({ hash: FILM.private }), foundBy: 'pieces' }]);
  });

  it('the place of a torrent the client holds from that very site is in the client (its own hash), and no opportunity', () => {
    const model = readModel();
    model.applyFound(SITES.hdsky, [PIECES.film], ids({ [PIECES.film]: 101 }), T0);
    expect(model.query(SITES.hdsky, [101]).get('101')).toEqual({ kind: 'in-client', clientTorrent: expect.objectContaining({ hash: FILM.hdsky }), candidateHash: FILM.hdsky, foundBy: 'pieces' });
    expect([...model.opportunities(SITES.hdsky)]).toEqual([]);
    expect(model.counts()).toMatchObject({ places: 1, inClient: 1, canCrossSeed: 0 });
  });

  it('a row showing its own hash is judged by it: one the client holds is in the client, another can be cross-seeded by that hash', () => {
    const model = readModel();
    model.applyFound(SITES.pterclub, [PIECES.film], ids({ [PIECES.film]: 900 }), T0);
    const shown = hashOf('film@pterclub');
    expect(model.query(SITES.pterclub, [{ id: '900', hash: shown.toUpperCase() }]).get('900')).toEqual({
      kind: 'can-cross-seed',
      clientTorrent: expect.objectContaining({ hash: FILM.private }),
      candidateHash: shown,
      foundBy: 'pieces',
    });
    expect(model.query(SITES.pterclub, [{ id: '900', hash: FILM.hdsky }]).get('900')).toMatchObject({ kind: 'in-client', candidateHash: FILM.hdsky, clientTorrent: { hash: FILM.hdsky } });
  });

  it('a place both sources named: found by both, with the service info-hash (nothing left to learn from the .torrent)', () => {
    const model = readModel();
    const songOnPterclub = hashOf('song@pterclub');
    model.applyAnswers(new Map([[SONG, [candidate(SITES.pterclub, 700, songOnPterclub), candidate(SITES.hdhome, 55, hashOf('song@hdhome'))]]]), T0);
    model.applyFound(SITES.pterclub, [PIECES.song], ids({ [PIECES.song]: 700 }), T0);
    const expectedRow: RowMatch = { kind: 'can-cross-seed', clientTorrent: expect.objectContaining({ hash: SONG }), candidateHash: songOnPterclub, foundBy: 'both' };
    expect(model.query(SITES.pterclub, [700]).get('700')).toEqual(expectedRow);
    const expectedOpportunity: Opportunity = { torrentId: 700, hash: songOnPterclub, source: expect.objectContaining({ hash: SONG }), foundBy: 'both' };
    expect([...model.opportunities(SITES.pterclub)]).toEqual([expectedOpportunity]);
    expect(model.query(SITES.hdhome, [55]).get('55')?.foundBy).toBe('iyuu');
    // The same whichever came first.
    const reversed = readModel();
    reversed.applyFound(SITES.pterclub, [PIECES.song], ids({ [PIECES.song]: 700 }), T0);
    reversed.applyAnswers(new Map([[SONG, [candidate(SITES.pterclub, 700, songOnPterclub)]]]), T0);
    expect(reversed.query(SITES.pterclub, [700]).get('700')).toEqual(expectedRow);
    expect([...reversed.opportunities(SITES.pterclub)]).toEqual([expectedOpportunity]);
  });

  it('a place the service names with a hash the client holds is in the client even when a site also found it by pieces', () => {
    const model = readModel();
    // The service names the private copy of the film on pterclub at 900 (the client holds it).
    model.applyAnswers(new Map([[FILM.hdsky, [candidate(SITES.pterclub, 900, FILM.private)]]]), T0);
    model.applyFound(SITES.pterclub, [PIECES.film], ids({ [PIECES.film]: 900 }), T0);
    expect(model.query(SITES.pterclub, [900]).get('900')).toMatchObject({ kind: 'in-client', candidateHash: FILM.private, foundBy: 'both' });
    expect([...model.opportunities(SITES.pterclub)]).toEqual([]);
  });

  it('an incomplete copy is no source: the draft found on a site offers nothing', () => {
    const model = readModel();
    model.applyFound(SITES.pterclub, [PIECES.draft], ids({ [PIECES.draft]: 5 }), T0);
    expect(model.query(SITES.pterclub, [5])).toEqual(new Map());
    expect([...model.opportunities(SITES.pterclub)]).toEqual([]);
    expect(model.counts()).toMatchObject({ places: 1, inClient: 0, canCrossSeed: 0 });
  });

  it('counts: pieces places among the places; a pieces answer alone leaves the torrent "waiting" for the service', () => {
    const model = readModel();
    model.applyFound(SITES.pterclub, [PIECES.film, PIECES.song], ids({ [PIECES.film]: 900, [PIECES.song]: 901 }), T0);
    model.applyFound(SITES.hdsky, [PIECES.film], ids({ [PIECES.film]: 101 }), T0);
    expect(model.counts()).toEqual({ torrents: 5, answered: 0, waiting: 5, places: 3, inClient: 1, canCrossSeed: 2 });
  });

  it("a copy whose pieces hash is read after its sibling's answer is a source at once (the map is rebuilt)", () => {
    const model = new IndexModel();
    model.applyClientList(CLIENT, UNBOUNDED);
    model.applyPieces(FILM.hdsky, { hash: PIECES.film, fromSid: SITES.hdsky });
    model.applyFound(SITES.pterclub, [PIECES.film], ids({ [PIECES.film]: 900 }), T0);
    // Only the paused copy so far.
    expect(model.query(SITES.pterclub, [900]).get('900')?.clientTorrent.hash).toBe(FILM.hdsky);
    // The seeding copy's pieces hash is read: it is the better source.
    model.applyPieces(FILM.private, { hash: PIECES.film });
    expect(model.query(SITES.pterclub, [900]).get('900')?.clientTorrent.hash).toBe(FILM.private);
    expect([...model.opportunities(SITES.pterclub)][0]?.source.hash).toBe(FILM.private);
  });

  it('prepare() gives the same map as the lazy build', async () => {
    const model = readModel();
    model.applyFound(SITES.pterclub, [PIECES.film, PIECES.song], ids({ [PIECES.film]: 900 }), T0);
    const lazy = model.query(SITES.pterclub, [900]);
    const prepared = readModel();
    prepared.applyFound(SITES.pterclub, [PIECES.film, PIECES.song], ids({ [PIECES.film]: 900 }), T0);
    let pauses = 0;
    await prepared.prepare(() => {
      pauses++;
      return Promise.resolve();
    }, 1);
    expect(pauses).toBeGreaterThan(0);
    expect(prepared.query(SITES.pterclub, [900])).toEqual(lazy);
  });
});

// --------------------------------------------------------------------------------------------
// Property: random but consistent worlds (every place has one info-hash and one content), both
// sources mixed, built lazily, by prepare() in chunks, and from records in another order.

const SIDS = [1, 2, 3, 4];
const STATES = ['seeding', 'paused', 'downloading', 'missing', 'checking'] as const;

interface WorldSpec {
  /** Per place (sid, torrent id): its content (0..3); at most one place per content on a site. */
  places: { sid: number; torrentId: number; content: number }[];
  /** Client torrents: a place it is (index into places) or a local torrent of a content. */
  client: { place?: number; content: number; local: number; state: (typeof STATES)[number]; complete: boolean; read: boolean; fromSid: boolean }[];
  /** Which places the service names in each answer, which sites answered by pieces. */
  serviceAnswers: boolean[];
  sitesAnswered: number[][];
  at: number;
}

const worldSpec: fc.Arbitrary<WorldSpec> = fc
  .uniqueArray(fc.record({ sid: fc.constantFrom(...SIDS), torrentId: fc.integer({ min: 1, max: 6 }), content: fc.integer({ min: 0, max: 3 }) }), {
    maxLength: 10,
    selector: (place) => `${place.sid}:${place.torrentId}`,
  })
  // A site answers one torrent id per pieces hash: one place per content on a site.
  .map((places) => places.filter((place, index) => places.findIndex((other) => other.sid === place.sid && other.content === place.content) === index))
  .chain((places) =>
    fc.record({
      places: fc.constant(places),
      client: fc.array(
        fc.record({
          place: places.length ? fc.option(fc.integer({ min: 0, max: places.length - 1 }), { nil: undefined }) : fc.constant(undefined),
          content: fc.integer({ min: 0, max: 3 }),
          local: fc.integer({ min: 0, max: 3 }),
          state: fc.constantFrom(...STATES),
          complete: fc.boolean(),
          read: fc.boolean(),
          fromSid: fc.boolean(),
        }),
        { maxLength: 8 },
      ),
      serviceAnswers: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      sitesAnswered: fc.array(fc.subarray(SIDS), { minLength: 8, maxLength: 8 }),
      at: fc.integer({ min: 0, max: 10 }),
    }),
  );

const placeHash = (sid: number, torrentId: number) => hashOf(`place ${sid}:${torrentId}`);
const contentPieces = (content: number) => hashOf(`pieces ${content}`);

/** The records such a world gives: each a stored record as a sync would leave it. */
function recordsOf(spec: WorldSpec): IndexRecord[] {
  const records = new Map<string, IndexRecord>();
  for (const [i, entry] of spec.client.entries()) {
    const place = entry.place === undefined ? undefined : spec.places[entry.place]!;
    const content = place ? place.content : entry.content;
    const hash = place ? placeHash(place.sid, place.torrentId) : hashOf(`local ${entry.content}:${entry.local}`);
    if (records.has(hash)) continue;
    const record: IndexRecord = {
      torrent: { hash, name: `t${i}`, savePath: '/data', state: entry.complete ? entry.state : 'downloading', progress: entry.complete ? 1 : 0.5, size: 1 },
    };
    if (spec.serviceAnswers[i]) {
      // The service: the other places of its content.
      const members = spec.places
        .filter((other) => other.content === content && placeHash(other.sid, other.torrentId) !== hash)
        .map((other) => ({ sid: other.sid, torrentId: other.torrentId, hash: placeHash(other.sid, other.torrentId) }));
      record.answer = { at: T0, times: 1, members };
    }
    if (entry.read) {
      record.pieces = place && entry.fromSid ? { hash: contentPieces(content), fromSid: place.sid } : { hash: contentPieces(content) };
      const found = spec.sitesAnswered[i]!.map((sid) => ({ sid, at: T0 + spec.at, torrentId: spec.places.find((other) => other.sid === sid && other.content === content)?.torrentId ?? 0 }));
      if (found.length) record.found = found;
    }
    records.set(hash, record);
  }
  return [...records.values()];
}

function modelOf(records: readonly IndexRecord[]): IndexModel {
  const model = new IndexModel();
  for (const record of records) model.restore(structuredClone(record));
  return model;
}

/** Everything a caller reads of the map, for every site and torrent id. */
function readAll(model: IndexModel) {
  const rows: Record<string, RowMatch> = {};
  const opportunities: Record<number, Opportunity[]> = {};
  for (const sid of SIDS) {
    for (const [id, match] of model.query(sid, [1, 2, 3, 4, 5, 6])) rows[`${sid}:${id}`] = match;
    opportunities[sid] = [...model.opportunities(sid)].sort((a, b) => a.torrentId - b.torrentId);
  }
  return { rows, opportunities, counts: model.counts() };
}

describe('property: one map however it is built', () => {
  it('prepare() in chunks and the lazy build give the same rows, opportunities and counts; no place is both in the client and to cross-seed', async () => {
    await fc.assert(
      fc.asyncProperty(worldSpec, fc.integer({ min: 1, max: 4 }), async (spec, every) => {
        const records = recordsOf(spec);
        const lazy = readAll(modelOf(records));
        const chunked = modelOf(records);
        await chunked.prepare(() => Promise.resolve(), every);
        expect(readAll(chunked)).toEqual(lazy);

        let inClient = 0;
        let canCrossSeed = 0;
        for (const sid of SIDS) {
          const offered = new Set(lazy.opportunities[sid]!.map((opportunity) => opportunity.torrentId));
          for (let id = 1; id <= 6; id++) {
            const row = lazy.rows[`${sid}:${id}`];
            if (row?.kind === 'in-client') inClient++;
            if (row?.kind === 'can-cross-seed') canCrossSeed++;
            // An opportunity is exactly a row to cross-seed; never one the client holds.
            expect(offered.has(id)).toBe(row?.kind === 'can-cross-seed');
            if (row?.kind === 'in-client') expect(records.some((record) => record.torrent.hash === row.candidateHash)).toBe(true);
            if (row?.kind === 'can-cross-seed') {
              expect(records.some((record) => record.torrent.hash === row.candidateHash)).toBe(false);
              expect(row.clientTorrent.progress).toBe(1);
              // No info-hash only when just a pieces answer named it, and then the pieces hash to check.
              if (!row.candidateHash) expect(row).toMatchObject({ foundBy: 'pieces', candidatePieces: expect.stringMatching(/^[0-9a-f]{40}$/) });
            }
          }
        }
        expect(lazy.counts.inClient).toBe(inClient);
        expect(lazy.counts.canCrossSeed).toBe(canCrossSeed);
      }),
      { numRuns: 300 },
    );
  });

  it('the records read back in another order give the same map (a restart reads them in storage order)', () => {
    fc.assert(
      fc.property(worldSpec, (spec) => {
        const records = recordsOf(spec);
        expect(readAll(modelOf([...records].reverse()))).toEqual(readAll(modelOf(records)));
      }),
      { numRuns: 300 },
    );
  });

  it('piecesDue: each content asked at most once, only with a complete copy not from that site; once answered, nothing is due within the week, and every copy holds the answer', () => {
    fc.assert(
      fc.property(worldSpec, fc.constantFrom(...SIDS), fc.integer({ min: 0, max: 14 }), (spec, sid, days) => {
        const model = modelOf(recordsOf(spec));
        const now = T0 + days * DAY;
        const { ask, changed } = model.piecesDue(sid, now);
        expect(ask).toEqual([...new Set(ask)].sort());
        for (const pieces of ask) {
          const group = [...model.records.values()].filter((record) => record.pieces?.hash === pieces);
          expect(group.some((record) => record.pieces!.fromSid !== sid && record.torrent.progress === 1 && ['seeding', 'paused', 'downloading'].includes(record.torrent.state))).toBe(true);
        }
        for (const hash of changed) expect(model.records.get(hash)!.found?.some((found) => found.sid === sid)).toBe(true);
        // The site answers: the first place of each content on it.
        const ids = new Map<string, number>();
        for (const place of spec.places) if (place.sid === sid && !ids.has(contentPieces(place.content))) ids.set(contentPieces(place.content), place.torrentId);
        model.applyFound(sid, ask, ids, now);
        expect(model.piecesDue(sid, now)).toEqual({ ask: [], changed: [] });
        // A day on, what was just asked is still not due (older answers may be, by then).
        const later = model.piecesDue(sid, now + DAY).ask;
        for (const pieces of ask) expect(later).not.toContain(pieces);
        for (const pieces of ask) {
          for (const record of model.records.values()) {
            if (record.pieces?.hash === pieces) expect(record.found?.find((found) => found.sid === sid)).toEqual({ sid, at: now, torrentId: ids.get(pieces) ?? 0 });
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
