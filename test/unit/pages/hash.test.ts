import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base32ToHex, hashFromMagnet, hashInText, isInfoHash, normaliseHash } from '../../../utils/pages/hash';

const HASH = '3f786850e387550fdab836ed7e6dc881de23001b';

/** Independent base32 encoder (RFC 4648) for the round trip. */
function toBase32(hex: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...hex].map((c) => parseInt(c, 16).toString(2).padStart(4, '0')).join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

describe('normaliseHash', () => {
  it('lowercases hex and trims blanks, nbsp and zero-width characters', () => {
    expect(normaliseHash(`\u00a0 ${HASH.toUpperCase()}\u200b\n`)).toBe(HASH);
  });
  it('converts 32-character base32 to hex', () => {
    expect(toBase32(HASH)).toHaveLength(32);
    expect(normaliseHash(toBase32(HASH))).toBe(HASH);
    expect(normaliseHash(toBase32(HASH).toLowerCase())).toBe(HASH);
  });
  it('refuses wrong lengths, non-hex and one repeated character', () => {
    expect(normaliseHash(HASH.slice(1))).toBeNull();
    expect(normaliseHash(`${HASH}a`)).toBeNull();
    expect(normaliseHash(`${HASH.slice(1)}g`)).toBeNull();
    expect(normaliseHash('a'.repeat(40))).toBeNull();
    expect(normaliseHash('0'.repeat(40))).toBeNull();
    expect(normaliseHash('A'.repeat(32))).toBeNull(); // base32 of all-zero bits
  });
  it('matches a node-computed SHA-1 round trip through base32', () => {
    for (const seed of ['a', 'b', 'reseed', '种子']) {
      const hex = createHash('sha1').update(seed).digest('hex');
      expect(base32ToHex(toBase32(hex))).toBe(hex);
    }
  });
});

describe('isInfoHash', () => {
  it('wants exactly 40 lowercase hex', () => {
    expect(isInfoHash(HASH)).toBe(true);
    expect(isInfoHash(HASH.toUpperCase())).toBe(false);
    expect(isInfoHash(`${HASH} `)).toBe(false);
  });
});

describe('hashFromMagnet', () => {
  it('reads hex and base32 btih, any case, encoded or not', () => {
    expect(hashFromMagnet(`magnet:?xt=urn:btih:${HASH.toUpperCase()}&dn=x`)).toBe(HASH);
    expect(hashFromMagnet(`MAGNET:?dn=a%20b&xt=URN:BTIH:${toBase32(HASH)}`)).toBe(HASH);
    expect(hashFromMagnet(`magnet:?xt=urn%3Abtih%3A${HASH}`)).toBe(HASH);
  });
  it('takes the btih of a hybrid magnet and skips btmh', () => {
    const v2 = `1220${'ab'.repeat(32)}`;
    expect(hashFromMagnet(`magnet:?xt=urn:btmh:${v2}&xt=urn:btih:${HASH}`)).toBe(HASH);
    expect(hashFromMagnet(`magnet:?xt.1=urn:btmh:${v2}&xt.2=urn:btih:${HASH}`)).toBe(HASH);
  });
  it('survives names with & and stray %', () => {
    expect(hashFromMagnet(`magnet:?dn=Tom & Jerry 100%&xt=urn:btih:${HASH}`)).toBe(HASH);
  });
  it('refuses non-magnets, bad lengths and placeholders', () => {
    expect(hashFromMagnet(`https://x/?xt=urn:btih:${HASH}`)).toBeNull();
    expect(hashFromMagnet(`magnet:?xt=urn:btih:${HASH}0`)).toBeNull();
    expect(hashFromMagnet(`magnet:?xt=urn:btih:${'f'.repeat(40)}`)).toBeNull();
    expect(hashFromMagnet(`magnet:?dn=urn:btih:${HASH}`)).toBeNull();
  });
});

describe('hashInText', () => {
  it('finds a standalone 40-hex run', () => {
    expect(hashInText(`Hash码: ${HASH.toUpperCase()} (v1)`)).toBe(HASH);
  });
  it('refuses 41-hex and 64-hex runs', () => {
    expect(hashInText(`${HASH}0`)).toBeNull();
    expect(hashInText('ab'.repeat(32))).toBeNull();
  });
  it('joins a hash grouped by blanks only when the value is nothing else', () => {
    const grouped = HASH.match(/.{4}/g)!.join(' ');
    expect(hashInText(grouped)).toBe(HASH);
    expect(hashInText(`see ${grouped}`)).toBeNull();
  });
  it('skips a repeated-character run and takes the next real one', () => {
    expect(hashInText(`${'a'.repeat(40)} ${HASH}`)).toBe(HASH);
  });
});
