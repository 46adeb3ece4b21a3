/**
 * Digest authentication's pieces that a live server cannot single out: our MD5 against Node's, and
 * which WWW-Authenticate challenges are answered. rtorrent-live.test.ts proves the whole header
 * against lighttpd's mod_auth.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestChallenge, md5 } from '../../../utils/clients/digest-auth';

describe('Digest authentication', () => {
  it('computes MD5 as Node does, at every length around the 64-byte blocks', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(Buffer.from(md5(bytes)).toString('hex')).toBe(createHash('md5').update(bytes).digest('hex'));
      }),
    );
  });

  it('reads a Digest challenge among others, with quoted and bare values', () => {
    expect(digestChallenge('Basic realm="x", Digest realm="seed\\"box", nonce="n1", qop="auth,auth-int", algorithm=SHA-256, opaque="o", stale=TRUE')).toEqual({
      realm: 'seed"box',
      nonce: 'n1',
      opaque: 'o',
      algorithm: 'SHA-256',
      qopAuth: true,
      stale: true,
    });
    expect(digestChallenge('Digest realm="r", nonce="n"')).toEqual({ realm: 'r', nonce: 'n', algorithm: 'MD5', qopAuth: false, stale: false });
  });

  it.each([
    ['Basic only', 'Basic realm="r"'],
    ['no nonce', 'Digest realm="r"'],
    ['an algorithm we do not have', 'Digest realm="r", nonce="n", algorithm=SHA-512-256'],
    ['only auth-int', 'Digest realm="r", nonce="n", qop="auth-int"'],
  ])('answers no challenge with %s', (_, header) => {
    expect(digestChallenge(header)).toBeUndefined();
  });
});
