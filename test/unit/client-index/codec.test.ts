/** How the index is stored: compact hashes, buckets that read back exactly, bad parts dropped alone. */
import { describe, expect, it } from 'vitest';
import { bucketOf, decodeBucket, encodeBucket, packHash, unpackHash } from '../../../utils/client-index/codec';
import type { IndexRecord } from '../../../utils/client-index/model';
import { hashOf } from './support';

describe('hashes as 27 characters', () => {
  it('round-trips every hash and refuses what it would not have written', () => {
    for (let i = 0; i < 2000; i++) {
      const hash = hashOf(`h${i}`);
      const packed = packHash(hash)!;
      expect(packed).toMatch(/^[A-Za-z0-9_-]{27}$/);
      expect(unpackHash(packed)).toBe(hash);
    }
    expect(unpackHash(packHash('0'.repeat(40)))).toBe('0'.repeat(40));
    expect(unpackHash(packHash('f'.repeat(40)))).toBe('f'.repeat(40));
    expect(packHash('F'.repeat(40))).toBeUndefined();
    expect(packHash('abc')).toBeUndefined();
    // The last character carries 4 bits of the hash and 2 zero bits: 'B' sets one of those.
    expect(unpackHash(`${'A'.repeat(26)}B`)).toBeUndefined();
    expect(unpackHash(`${'A'.repeat(26)}=`)).toBeUndefined();
    expect(unpackHash(42)).toBeUndefined();
  });
});

const AT = Date.UTC(2025, 0, 2, 3, 4); // a whole minute: stored in minutes

function recordsIn(bucket: number, count: number): IndexRecord[] {
  const records: IndexRecord[] = [];
  for (let i = 0; records.length < count; i++) {
    const hash = hashOf(`torrent ${i}`);
    if (bucketOf(hash) !== bucket) continue;
    records.push({
      torrent: { hash, name: `名字 ${i} [FLAC]`, savePath: i % 2 ? '/data/music' : '/data/影视', state: i % 3 ? 'seeding' : 'paused', progress: i % 4 ? 1 : 0.375, size: 1_234_567_890_123 + i },
      ...(i % 2 ? { answer: { at: AT, times: 2, members: [{ sid: 7, torrentId: 123_456, hash: hashOf(`copy ${i}`) }, { sid: 1, torrentId: 9, hash: hashOf(`other ${i}`) }] } } : {}),
      ...(i % 3 === 1 ? { located: { at: AT + 60_000, places: [{ sid: 4, torrentId: 77 }] } } : {}),
    });
  }
  return records;
}

describe('buckets', () => {
  it('read back exactly what was written, with save paths shared', () => {
    const records = recordsIn(5, 20);
    const stored = JSON.parse(JSON.stringify(encodeBucket(records)));
    expect(stored.p).toHaveLength(2);
    expect(decodeBucket(stored, 5)).toEqual({ records, dropped: 0 });
  });

  it('keep a torrent that is not quite complete incomplete', () => {
    const [record] = recordsIn(0, 1);
    record!.torrent.progress = 0.9999;
    const [back] = decodeBucket(JSON.parse(JSON.stringify(encodeBucket([record!]))), 0)!.records;
    expect(back!.torrent.progress).toBe(0.999);
  });

  it('drop a bad row alone, and a row filed under the wrong bucket', () => {
    const records = recordsIn(9, 4);
    const stored = JSON.parse(JSON.stringify(encodeBucket(records)));
    stored.t[1][3] = 99; // no such state
    stored.t[2][6] = [1, 1, 7, 9]; // an answer cut short
    stored.t.push(encodeBucket(recordsIn(10, 1)).t[0]); // another bucket's row
    expect(decodeBucket(stored, 9)).toEqual({ records: [records[0], records[3]], dropped: 3 });
  });

  it('give nothing for a value that is not a bucket', () => {
    for (const value of [undefined, null, 'text', [], { v: 2, p: [], t: [] }, { v: 1, p: 'x', t: [] }, { v: 1, p: [], t: {} }]) {
      expect(decodeBucket(value, 0)).toBeUndefined();
    }
  });
});
