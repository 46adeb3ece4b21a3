/**
 * One IndexedDB record with the second source's fields (issue 18): the pieces hash with its
 * tracker's site, and what the sites asked by pieces hash answered. Read back exactly; a record of
 * the version before (7 fields) still reads; a bad new field drops that record alone.
 */
import { describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord, packHash, placeKey, type StoredRecord } from '../../../utils/client-index/codec';
import { bytesOfTorrent } from '../../../utils/client-index/indexes-by-client.ts';
import type { IndexRecord } from '../../../utils/client-index/model';
import { hashOf } from './support';

const AT = Date.UTC(2025, 0, 2, 3, 4); // a whole minute: stored in minutes
const SLOT = 3;

const HASH = hashOf('torrent');
const PIECES = hashOf('pieces');

function base(extra: Partial<IndexRecord> = {}): IndexRecord {
  return {
    torrent: { hash: HASH, name: 'Film.2024 [影视]', savePath: '/data/影视', state: 'seeding', progress: 1, size: 4_000_000_000 },
    ...extra,
  };
}

const roundTrip = (record: IndexRecord) => decodeRecord(structuredClone(encodeRecord(SLOT, record)), SLOT);

describe('a record with pieces and found', () => {
  it('reads back exactly: pieces with and without its site, found places and "not on the site"', () => {
    const full = base({
      answer: { at: AT, times: 2, members: [{ sid: 7, torrentId: 123, hash: hashOf('copy') }] },
      located: { at: AT + 60_000, places: [{ sid: 4, torrentId: 77 }] },
      pieces: { hash: PIECES, fromSid: 4 },
      found: [
        { sid: 6, at: AT, torrentId: 900 },
        { sid: 2, at: AT + 120_000, torrentId: 0 },
      ],
    });
    expect(roundTrip(full)).toEqual(full);
    const bare = base({ pieces: { hash: PIECES } });
    expect(roundTrip(bare)).toEqual(bare);
    expect(encodeRecord(SLOT, bare)!.r).toHaveLength(9);
    expect(encodeRecord(SLOT, bare)!.r.slice(7)).toEqual([[packHash(PIECES)], 0]);
    // fromSid 0 is a site id, not "none".
    const zero = base({ pieces: { hash: PIECES, fromSid: 0 } });
    expect(roundTrip(zero)).toEqual(zero);
  });

  it('no pieces hash read: the 7 fields of before; answers of a site without a pieces hash are not kept', () => {
    const stored = encodeRecord(SLOT, base({ found: [{ sid: 6, at: AT, torrentId: 900 }] }))!;
    expect(stored.r).toHaveLength(7);
    expect(stored.k).toBeUndefined();
    // (`a` is still set here: found without pieces never comes from the model, which files answers by pieces hash.)
    expect(decodeRecord(stored, SLOT)).toEqual(base());
  });

  it('found places (torrent id > 0) are in k beside the service places; a (the slot) once any site answered, even "none"', () => {
    const stored = encodeRecord(
      SLOT,
      base({
        answer: { at: AT, times: 1, members: [{ sid: 7, torrentId: 123, hash: hashOf('copy') }] },
        pieces: { hash: PIECES },
        found: [
          { sid: 6, at: AT, torrentId: 900 },
          { sid: 7, at: AT, torrentId: 123 }, // the same place the service named: one key
          { sid: 2, at: AT, torrentId: 0 },
        ],
      }),
    )!;
    expect(stored.k).toEqual([placeKey(SLOT, 7, 123), placeKey(SLOT, 6, 900)]);
    expect(stored.a).toBe(SLOT);
    const notFound = encodeRecord(SLOT, base({ pieces: { hash: PIECES }, found: [{ sid: 2, at: AT, torrentId: 0 }] }))!;
    expect(notFound.k).toBeUndefined();
    expect(notFound.a).toBe(SLOT);
    const unanswered = encodeRecord(SLOT, base({ pieces: { hash: PIECES } }))!;
    expect(unanswered.a).toBeUndefined();
  });

  it('a record of the version before (7 fields) still reads', () => {
    const stored = encodeRecord(SLOT, base({ answer: { at: AT, times: 1, members: [] } }))!;
    expect(stored.r).toHaveLength(7);
    expect(decodeRecord({ s: SLOT, h: packHash(HASH), r: stored.r }, SLOT)).toEqual(base({ answer: { at: AT, times: 1, members: [] } }));
  });

  it('a bad pieces or found field drops that record alone (its torrent is read and asked again)', () => {
    const good = encodeRecord(SLOT, base({ pieces: { hash: PIECES, fromSid: 4 }, found: [{ sid: 6, at: AT, torrentId: 900 }] }))!;
    const withFields = (pieces: unknown, found: unknown): StoredRecord => ({ ...good, r: [...good.r.slice(0, 7), pieces, found] as StoredRecord['r'] });
    expect(decodeRecord(withFields(good.r[7], good.r[8]), SLOT)).toBeDefined();
    const badPieces: unknown[] = [0, [], [PIECES], ['x'], [packHash(PIECES), -1], [packHash(PIECES), 1.5], [packHash(PIECES), '4'], [packHash(PIECES), 4, 5], 'abc', null];
    for (const pieces of badPieces) expect(decodeRecord(withFields(pieces, 0), SLOT), JSON.stringify(pieces)).toBeUndefined();
    const badFound: unknown[] = [[], [6, 1], [6, 1, 2, 3], [-6, 1, 2], [6, -1, 2], [6, 1, 2.5], ['6', 1, 2], [6, 1, 2, 6, 5, 3], 1, null, {}];
    for (const found of badFound) expect(decodeRecord(withFields(good.r[7], found), SLOT), JSON.stringify(found)).toBeUndefined();
    // 8 fields (a pieces field with no found) is no version at all.
    expect(decodeRecord({ ...good, r: good.r.slice(0, 8) }, SLOT)).toBeUndefined();
    // Another slot's record is not this one's.
    expect(decodeRecord(good, SLOT + 1)).toBeUndefined();
  });

  it('the bound counts the pieces bytes: a record grows by its pieces hash and by its answers', () => {
    const torrent = base().torrent;
    const plain = bytesOfTorrent(torrent, base({ answer: { at: AT, times: 1, members: [] } }));
    const read = bytesOfTorrent(torrent, base({ answer: { at: AT, times: 1, members: [] }, pieces: { hash: PIECES, fromSid: 4 } }));
    // At least the packed hash (27 characters) and its JSON around it.
    expect(read - plain).toBeGreaterThanOrEqual(27);
    const answered = bytesOfTorrent(torrent, base({ answer: { at: AT, times: 1, members: [] }, pieces: { hash: PIECES, fromSid: 4 }, found: [{ sid: 6, at: AT, torrentId: 900 }] }));
    // The found entry's numbers, and its place key in k.
    expect(answered - read).toBeGreaterThanOrEqual(placeKey(0, 6, 900).length);
  });
});
