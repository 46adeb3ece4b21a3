/** The cache figure of the pieces bench (bench/pieces-hash-node.ts): what the second source adds to a torrent's stored record. */
import { describe, expect, it } from 'vitest';
import { cachedBytesPerTorrent } from '../../../bench/pieces-hash-node';
import { decodeRecord, encodeRecord } from '../../../utils/client-index/codec';

describe('cachedBytesPerTorrent', () => {
  const piecesHash = 'a'.repeat(40);

  it('is the index codec’s bytes: the pieces hash packed (27 characters) and each site as [sid, minute, id]', () => {
    const none = cachedBytesPerTorrent({ piecesHash, answers: {} });
    // ,["<27>"],0 — the packed hash in its array and an empty answer list
    expect(none).toBe(',["'.length + 27 + '"],0'.length);
    const miss = cachedBytesPerTorrent({ piecesHash, answers: { 42: { at: 1_700_000_000_123, id: 0 } } });
    // [42,28333333,0] instead of 0, and the record now counts as answered ("a", and its index entry: key + 8)
    expect(miss - none).toBe('[42,28333333,0]'.length - 1 + ',"a":1'.length + 8 + 27 + 8);
    const twoSites = cachedBytesPerTorrent({ piecesHash, answers: { 42: { at: 1_700_000_000_123, id: 0 }, 43: { at: 1_700_000_000_123, id: 0 } } });
    expect(twoSites - miss).toBe(',43,28333333,0'.length);
  });

  it('a hit costs its digits and its entry in the place index; what is counted reads back', () => {
    const miss = cachedBytesPerTorrent({ piecesHash, answers: { 1: { at: 1_700_000_000_000, id: 0 } } });
    const hit = cachedBytesPerTorrent({ piecesHash, answers: { 1: { at: 1_700_000_000_000, id: 99 } } });
    expect(hit - miss).toBeGreaterThan(2);
    const torrent = { hash: 'ab'.repeat(20), name: 'x', savePath: '/d', state: 'seeding' as const, progress: 1, size: 1 };
    const stored = encodeRecord(1, { torrent, pieces: { hash: piecesHash }, found: [{ sid: 1, at: 1_700_000_000_000 - (1_700_000_000_000 % 60_000), torrentId: 99 }] });
    expect(stored?.k).toEqual(['1:1:99']);
    expect(decodeRecord(stored, 1)).toMatchObject({ pieces: { hash: piecesHash }, found: [{ sid: 1, torrentId: 99 }] });
  });
});
