/**
 * Magnet links of every shape (hex, base32, any case, encoded, buried among other parameters),
 * near misses, junk and huge ones, through hashFromMagnet and the magnet engine: a hash comes out
 * only when the link really carries it, and nothing ever throws or takes long.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashFromMagnet } from '../../../utils/pages/hash';
import { magnet } from '../../../utils/pages/magnet';
import { hexToBase32 } from '../../fixtures/pages/generate';
import { documentFrom } from '../pages/load';
import { reportBadInputs, tried } from './support';

reportBadInputs('magnet fuzz', 2000);

const hex40 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 });
/** A usable info-hash: one repeated character is a placeholder, never a hash. */
const infoHash = hex40.filter((hash) => !/^(.)\1{39}$/.test(hash));
const encoded = fc.string({ maxLength: 30 }).map(encodeURIComponent);
const otherParam = fc.oneof(
  encoded.map((name) => `dn=${name}`),
  fc.constantFrom('tr=udp%3A%2F%2Ftracker.example%3A80%2Fannounce', 'tr=http://t.example/announce?passkey=abc', 'xl=1048576', 'ws=https%3A%2F%2Fweb.example%2Ff', 'x.pe=10.0.0.1:6881'),
  fc.constantFrom(`xt=urn:btmh:1220${'ab'.repeat(32)}`, 'xt=urn:ed2k:31D6CFE0D16AE931B73C59D7E0C089C0', 'dn=urn:btih:not-here'),
);
/** Ways the same hash is written in the xt parameter. */
const written = (hash: string) =>
  fc.constantFrom(hash, hash.toUpperCase(), hexToBase32(hash), hexToBase32(hash).toLowerCase()).chain((value) =>
    fc.constantFrom(`xt=urn:btih:${value}`, `xt=URN:BTIH:${value}`, `xt=urn%3Abtih%3A${value}`, `xt.1=urn:btih:${value}`),
  );

/** Whether `text` visibly carries this hash, as hex or base32, in any case. */
const carries = (text: string, hash: string) => text.toLowerCase().includes(hash) || text.toUpperCase().includes(hexToBase32(hash));

describe('hashFromMagnet', () => {
  it('reads the hash of any well-formed magnet, wherever the xt sits among the other parameters', () => {
    fc.assert(
      fc.property(infoHash, fc.array(otherParam, { maxLength: 6 }), fc.nat(), fc.constantFrom('magnet:?', 'MAGNET:?', ' magnet:?'), (hash, others, at, scheme) =>
        fc.assert(
          fc.property(written(hash), (xt) => {
            const params = [...others];
            params.splice(at % (params.length + 1), 0, xt);
            expect(hashFromMagnet(`${scheme}${params.join('&')}`)).toBe(hash);
          }),
          { numRuns: 4 },
        ),
      ),
      { numRuns: 400 },
    );
  });

  it('refuses near misses: wrong lengths, wrong alphabets, placeholders, btih outside xt', () => {
    const nearMiss = infoHash.chain((hash) =>
      fc.constantFrom(
        `magnet:?xt=urn:btih:${hash.slice(1)}`,
        `magnet:?xt=urn:btih:${hash}0`,
        `magnet:?xt=urn:btih:${hash.slice(1)}g`,
        `magnet:?xt=urn:btih:${hexToBase32(hash).slice(1)}`,
        `magnet:?xt=urn:btih:${hexToBase32(hash)}A`,
        `magnet:?xt=urn:btih:${hexToBase32(hash).slice(0, 31)}1`,
        `magnet:?xt=urn:btih:${'0'.repeat(40)}`,
        `magnet:?xt=urn:btih:${'A'.repeat(32)}`,
        `magnet:?dn=urn:btih:${hash}`,
        `magnet:?tr=x&dn=xt%3Durn%3Abtih%3A${hash}`,
        `magnet:?xt=urn:btmh:${hash}`,
        `https://tracker.example/?xt=urn:btih:${hash}`,
        `javascript:alert('magnet:?xt=urn:btih:${hash}')`,
        `magnet:?xt=urn:btih:${hash.slice(0, 20)} ${hash.slice(20)}`,
      ),
    );
    fc.assert(
      fc.property(nearMiss, (link) => {
        tried();
        expect(hashFromMagnet(link)).toBeNull();
      }),
      { numRuns: 600 },
    );
  });

  it('answers null or a hash the junk really carries, for any string', () => {
    const piece = fc.oneof(fc.constantFrom('xt=', 'urn:', 'btih:', '&', '%3A', '=', '?', '#', 'xt.1=', ' ', 'dn='), fc.string({ maxLength: 8 }));
    const pieces = fc.array(piece, { maxLength: 5 }).map((parts) => parts.join(''));
    const junk = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ maxLength: 200, unit: 'binary' }),
      {
        weight: 4,
        arbitrary: fc
          .tuple(pieces, fc.constantFrom('xt=urn:btih:', 'xt=URN%3Abtih%3a', 'xt=urn:btih', '&xt=urn:btih:', 'xt:urn:btih:'), fc.oneof(hex40, hex40.map(hexToBase32), fc.string({ maxLength: 40 })), pieces)
          .map((parts) => `magnet:?${parts.join('')}`),
      },
    );
    let found = 0;
    fc.assert(
      fc.property(junk, (link) => {
        tried();
        const hash = hashFromMagnet(link);
        if (hash === null) return;
        found++;
        expect(hash).toMatch(/^[0-9a-f]{40}$/);
        expect(hash).not.toMatch(/^(.)\1{39}$/);
        expect(carries(link, hash), `${hash} is not in ${link}`).toBe(true);
      }),
      { numRuns: 1000 },
    );
    expect(found, 'the junk never carried a hash: the check ran on nothing').toBeGreaterThan(10);
  });

  it('stays fast and right on huge links', () => {
    const hash = '3f786850e387550fdab836ed7e6dc881de23001b';
    const cases: [string, string | null][] = [
      [`magnet:?dn=${'x'.repeat(1_000_000)}&xt=urn:btih:${hash}`, hash],
      [`magnet:?${'xt=urn:btih:zz&'.repeat(50_000)}xt=urn:btih:${hexToBase32(hash)}`, hash],
      [`magnet:?xt=urn:btih:${'a'.repeat(1_000_000)}`, null],
      [`magnet:?${'&'.repeat(1_000_000)}`, null],
      [`magnet:?${'%3A'.repeat(300_000)}`, null],
    ];
    for (const [link, expected] of cases) {
      const started = performance.now();
      expect(hashFromMagnet(link)).toBe(expected);
      // Linear work takes milliseconds; a backtracking pattern would take minutes on these inputs.
      // The bound only has to tell those apart, with room for a machine under any load.
      expect(performance.now() - started).toBeLessThan(10_000);
      tried();
    }
  });
});

describe('the magnet engine', () => {
  it('reads from a page of random magnets only hashes its links carry, at most one per row', async () => {
    const link = fc.oneof(
      fc.tuple(infoHash, fc.boolean()).map(([hash, base32]) => ({ href: `magnet:?xt=urn:btih:${base32 ? hexToBase32(hash) : hash}&dn=x`, hash })),
      fc.string({ maxLength: 60 }).map((text) => ({ href: `magnet:?${text.replace(/"/g, '')}`, hash: undefined })),
    );
    const row = fc.record({ links: fc.array(link, { minLength: 1, maxLength: 3 }), id: fc.option(fc.nat({ max: 99_999 }), { nil: undefined }), tag: fc.constantFrom('tr', 'li', 'div') });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 20 }), async (rows) => {
        tried(rows.reduce((sum, entry) => sum + entry.links.length, 0));
        const markup = rows
          .map(({ links, id, tag }) => {
            const anchors = links.map((entry) => `<a href="${entry.href.replace(/&/g, '&amp;')}">magnet</a>`).join(' ');
            const idLink = id === undefined ? '' : `<a href="details.php?id=${id}">t</a>`;
            return tag === 'tr' ? `<table><tr><td>${idLink}</td><td>${anchors}</td></tr></table>` : `<${tag}>${idLink}${anchors}</${tag}>`;
          })
          .join('\n');
        const url = 'https://unknown-tracker.example/torrents.php';
        const document = documentFrom(`<!DOCTYPE html><html><body><ul>${markup}</ul></body></html>`, url);
        const context = { url: new URL(url), document, fetch: (() => Promise.reject(new Error('offline'))) as typeof fetch };
        if (!magnet.applies(context)) return;
        const reading = await magnet.read(context);
        const carried = new Set(rows.flatMap((entry) => entry.links.flatMap((item) => (item.hash ? [item.hash] : []))));
        for (const found of reading?.hashes ?? []) {
          expect(found.hash).toMatch(/^[0-9a-f]{40}$/);
          expect(carried.has(found.hash) || rows.some((entry) => entry.links.some((item) => carries(item.href, found.hash)))).toBe(true);
        }
        if (reading?.kind === 'list') expect(new Set(reading.hashes.map((found) => found.row)).size).toBe(reading.hashes.length);
        expect(reading?.hashes.length ?? 0).toBeLessThanOrEqual(1000);
      }),
      { numRuns: 150 },
    );
  });
});
