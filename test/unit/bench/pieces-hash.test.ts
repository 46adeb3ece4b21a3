/** The cache estimate of the pieces bench (bench/pieces-hash-node.ts): what a torrent's record costs. */
import { describe, expect, it } from 'vitest';
import { cachedBytesPerTorrent } from '../../../bench/pieces-hash-node';

describe('cachedBytesPerTorrent', () => {
  const piecesHash = 'a'.repeat(40);

  it('the 20-byte pieces hash as 28 base64 characters, each site as [seconds, id]', () => {
    expect(Buffer.from(piecesHash, 'hex').toString('base64')).toHaveLength(28);
    expect(cachedBytesPerTorrent({ piecesHash, answers: { 42: { at: 1_700_000_000_123, id: 1_234_567 } } })).toBe(
      JSON.stringify({ p: Buffer.from(piecesHash, 'hex').toString('base64'), a: { 42: [1_700_000_000, 1_234_567] } }).length,
    );
  });

  it('grows with each site asked and with the id’s digits, not with anything else', () => {
    const one = cachedBytesPerTorrent({ piecesHash, answers: { 1: { at: 1_700_000_000_000, id: 0 } } });
    const two = cachedBytesPerTorrent({ piecesHash, answers: { 1: { at: 1_700_000_000_000, id: 0 }, 2: { at: 1_700_000_000_000, id: 0 } } });
    expect(two - one).toBe(',"2":[1700000000,0]'.length);
    expect(cachedBytesPerTorrent({ piecesHash, answers: { 1: { at: 1_700_000_000_000, id: 99 } } }) - one).toBe(1);
  });
});
