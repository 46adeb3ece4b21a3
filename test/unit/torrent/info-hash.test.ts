import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { infoHashFromTorrent } from '../../../utils/torrent/info-hash';

const folder = join(__dirname, '../../fixtures/torrents');
const expected = JSON.parse(readFileSync(join(folder, 'expected.json'), 'utf8')) as Record<
  string,
  { info?: [number, number]; error?: string }
>;
const read = (name: string) => new Uint8Array(readFileSync(join(folder, name)));
const sha1 = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

describe('infoHashFromTorrent on the fixtures', () => {
  it('has every kind of fixture', () => {
    expect(Object.keys(expected).sort()).toEqual(
      [
        'garbage.torrent',
        'hybrid.torrent',
        'info-not-dict.torrent',
        'login-page.torrent',
        'multi-file.torrent',
        'no-info.torrent',
        'non-canonical.torrent',
        'single-file.torrent',
        'truncated.torrent',
        'v2-only.torrent',
      ].sort(),
    );
  });

  for (const [name, want] of Object.entries(expected)) {
    it(`${name} → ${want.error ?? 'the SHA-1 of its info bytes'}`, async () => {
      const bytes = read(name);
      const result = await infoHashFromTorrent(bytes);
      if (want.error) {
        expect(result).toEqual({ error: want.error });
        return;
      }
      // the slice the generator recorded is a dictionary: "d" … "e"
      const [start, end] = want.info!;
      expect(String.fromCharCode(bytes[start]!, bytes[end - 1]!)).toBe('de');
      expect(result).toEqual({ hash: sha1(bytes.subarray(start, end)) });
    });
  }

  it('single-file: info is the last value, so it also ends one byte before the file does', async () => {
    const bytes = read('single-file.torrent');
    const text = Buffer.from(bytes).toString('latin1');
    const start = text.lastIndexOf('4:infod') + '4:info'.length;
    expect(await infoHashFromTorrent(bytes)).toEqual({ hash: sha1(bytes.subarray(start, bytes.length - 1)) });
  });

  it('multi-file: the decoys before info ("4:infod" in a comment, an inner info key) are not taken', async () => {
    const bytes = read('multi-file.torrent');
    const text = Buffer.from(bytes).toString('latin1');
    const decoy = text.indexOf('4:infod');
    expect(decoy).toBeLessThan(expected['multi-file.torrent']!.info![0] - 6);
    const result = await infoHashFromTorrent(bytes);
    expect(result).not.toEqual({ hash: sha1(bytes.subarray(decoy + 6, decoy + 60)) });
    expect(result).toEqual({ hash: sha1(bytes.subarray(...expected['multi-file.torrent']!.info!)) });
  });

  it('non-canonical: hashes the bytes as written, not a re-encoding', async () => {
    const bytes = read('non-canonical.torrent');
    const [start, end] = expected['non-canonical.torrent']!.info!;
    const written = Buffer.from(bytes.subarray(start, end));
    // a canonical re-encoding would sort keys and drop the zero padding: a different hash
    const canonical = Buffer.from(written.toString('latin1').replace('i0262144e', 'i262144e'), 'latin1');
    const result = await infoHashFromTorrent(bytes);
    expect(result).toEqual({ hash: sha1(written) });
    expect(result).not.toEqual({ hash: sha1(canonical) });
  });

  it('hybrid: the v1 hash (SHA-1 of info), not "v2-only"', async () => {
    const bytes = read('hybrid.torrent');
    const result = await infoHashFromTorrent(bytes);
    expect('hash' in result && result.hash).toMatch(/^[0-9a-f]{40}$/);
  });

  it('rejects an empty input and a lone "d"', async () => {
    expect(await infoHashFromTorrent(new Uint8Array())).toEqual({ error: 'not-a-torrent' });
    expect(await infoHashFromTorrent(new TextEncoder().encode('d'))).toEqual({ error: 'not-a-torrent' });
    expect(await infoHashFromTorrent(new TextEncoder().encode('de'))).toEqual({ error: 'not-a-torrent' });
  });

  it('survives deep nesting without a stack overflow', async () => {
    const deep = new TextEncoder().encode(`d1:x${'l'.repeat(100_000)}${'e'.repeat(100_000)}e`);
    expect(await infoHashFromTorrent(deep)).toEqual({ error: 'malformed' });
  });

  it('never throws on random bytes, and only answers one of its four shapes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          // bencode-looking noise gets further into the walker than random bytes
          fc
            .array(fc.constantFrom('d', 'l', 'e', 'i', '4:', 'info', '6:pieces', '1:', '0', '9', ':', '-', 'x'), { maxLength: 60 })
            .map((parts) => new TextEncoder().encode(`d${parts.join('')}`)),
        ),
        async (bytes) => {
          const result = await infoHashFromTorrent(bytes);
          if ('hash' in result) expect(result.hash).toMatch(/^[0-9a-f]{40}$/);
          else expect(['not-a-torrent', 'v2-only', 'malformed']).toContain(result.error);
        },
      ),
      { numRuns: 500 },
    );
  });
});
