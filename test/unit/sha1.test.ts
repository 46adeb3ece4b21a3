import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha1HexOfBytes, sha1HexOfText, sha1HexScript } from '../../utils/sha1';

const sha1 = (value: Uint8Array | string) => createHash('sha1').update(value).digest('hex');

describe('sha1HexOfText', () => {
  it('is lowercase hex SHA-1 of the UTF-8 text', async () => {
    expect(await sha1HexOfText('')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(await sha1HexOfText('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(await sha1HexOfText('春天 1700000000demo-secret')).toBe(sha1('春天 1700000000demo-secret'));
  });
});

describe('script SHA-1 (for http pages without crypto.subtle)', () => {
  it('agrees with node:crypto on lengths around the block edges', () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 31 + 7) & 255);
      expect(sha1HexScript(bytes)).toBe(sha1(bytes));
    }
  });
  it('agrees with node:crypto on random input', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 500 }), (bytes) => sha1HexScript(bytes) === sha1(bytes)));
  });
});

describe('sha1HexOfBytes', () => {
  it('agrees with node:crypto', async () => {
    const bytes = new Uint8Array(300).map((_, i) => (i * 13 + 5) & 255);
    expect(await sha1HexOfBytes(bytes)).toBe(sha1(bytes));
  });
});
