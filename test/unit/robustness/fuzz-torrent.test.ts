/**
 * .torrent bytes that are almost right: every strict prefix of the valid fixtures, and thousands of
 * mutations of them (bytes flipped, structure characters planted, ranges dropped or doubled, junk
 * appended), checked against a plain recursive bencode reader written here. The info-hash walker
 * must agree with it on every input: the same hash, or the same kind of refusal.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { infoHashFromTorrent, type TorrentHashResult } from '../../../utils/torrent/info-hash';
import { reportBadInputs, tried } from './support';

reportBadInputs('torrent fuzz', 4000);

const folder = join(__dirname, '../../fixtures/torrents');
const VALID = ['single-file.torrent', 'multi-file.torrent', 'non-canonical.torrent', 'hybrid.torrent', 'v2-only.torrent'];
const ALL = [...VALID, 'truncated.torrent', 'garbage.torrent', 'no-info.torrent', 'info-not-dict.torrent', 'login-page.torrent'];
const files = new Map(ALL.map((name) => [name, new Uint8Array(readFileSync(join(folder, name)))]));

// ------------------------------------------------------------------------------------------------
// The reference reader: recursive, plain, as lenient as the walker means to be (leading zeros in
// lengths and integers, unsorted keys, bytes after the top-level dictionary, and dictionaries below
// the two it reads walked like lists: their keys are never read, only their extent matters).

class Bad extends Error {}
const latin1 = (bytes: Uint8Array, start: number, end: number) => Buffer.from(bytes.subarray(start, end)).toString('latin1');

function stringEnd(bytes: Uint8Array, at: number): { start: number; end: number } {
  const colon = bytes.indexOf(0x3a, at);
  const digits = colon < 0 ? '' : latin1(bytes, at, colon);
  if (!/^\d{1,16}$/.test(digits)) throw new Bad();
  const end = colon + 1 + Number(digits);
  if (end > bytes.length) throw new Bad();
  return { start: colon + 1, end };
}

/** The end of the value at `at`; with `entry`, the dictionary there is read key by key. */
function valueEnd(bytes: Uint8Array, at: number, depth = 0, entry?: (key: string, start: number, end: number) => void): number {
  if (depth > 512 || at >= bytes.length) throw new Bad();
  const kind = String.fromCharCode(bytes[at]!);
  if (kind === 'i') {
    const end = bytes.indexOf(0x65, at + 1);
    if (end < 0) throw new Bad();
    const digits = latin1(bytes, at + 1, end);
    if (digits.length > 64 || !/^-?\d+$/.test(digits)) throw new Bad();
    return end + 1;
  }
  if (kind === 'l' || kind === 'd') {
    let position = at + 1;
    while (position < bytes.length && bytes[position] !== 0x65) {
      if (kind === 'd' && entry) {
        const key = stringEnd(bytes, position);
        const end = valueEnd(bytes, key.end, depth + 1);
        entry(latin1(bytes, key.start, key.end), key.end, end);
        position = end;
      } else position = valueEnd(bytes, position, depth + 1);
    }
    if (position >= bytes.length) throw new Bad();
    return position + 1;
  }
  return stringEnd(bytes, at).end;
}

function referenceHash(bytes: Uint8Array): TorrentHashResult {
  if (bytes.length < 2 || bytes[0] !== 0x64) return { error: 'not-a-torrent' };
  let info: [number, number] | undefined;
  try {
    valueEnd(bytes, 0, 0, (key, start, end) => {
      if (key === 'info' && !info) info = [start, end];
    });
    if (!info) return { error: 'not-a-torrent' };
    if (bytes[info[0]] !== 0x64) return { error: 'malformed' };
    const keys = new Map<string, [number, number]>();
    valueEnd(bytes, info[0], 0, (key, start, end) => void keys.set(key, [start, end]));
    if (keys.has('pieces')) return { hash: createHash('sha1').update(bytes.subarray(info[0], info[1])).digest('hex') };
    const version = keys.get('meta version');
    return { error: version && Number(latin1(bytes, version[0] + 1, version[1] - 1)) === 2 ? 'v2-only' : 'malformed' };
  } catch (error) {
    if (error instanceof Bad) return { error: 'malformed' };
    throw error;
  }
}

// ------------------------------------------------------------------------------------------------

describe('the reference reader', () => {
  it('agrees with the fixtures’ recorded answers (so it can be trusted to judge)', async () => {
    const expected = JSON.parse(readFileSync(join(folder, 'expected.json'), 'utf8')) as Record<string, { info?: [number, number]; error?: string }>;
    for (const [name, want] of Object.entries(expected)) {
      const bytes = files.get(name)!;
      const answer = referenceHash(bytes);
      if (want.error) expect(answer, name).toEqual({ error: want.error });
      else expect(answer, name).toEqual({ hash: createHash('sha1').update(bytes.subarray(...want.info!)).digest('hex') });
    }
  });
});

describe('infoHashFromTorrent on almost-right files', () => {
  it('refuses every strict prefix of a valid file', async () => {
    for (const name of VALID) {
      const bytes = files.get(name)!;
      for (let length = 0; length < bytes.length; length++) {
        const result = await infoHashFromTorrent(bytes.subarray(0, length));
        tried();
        expect('error' in result, `${name} cut at ${length}`).toBe(true);
      }
    }
  });

  it('agrees with the reference reader on thousands of mutated files', async () => {
    const structure = fc.constantFrom(...'dlei:0123456789-'.split('').map((char) => char.charCodeAt(0)));
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.oneof(fc.integer({ min: 0, max: 255 }), structure) }),
      fc.record({ kind: fc.constant('drop' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('double' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ maxLength: 20 }) }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
    );
    let hashed = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ALL), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (name, mutations) => {
        let bytes = Uint8Array.from(files.get(name)!);
        for (const change of mutations) {
          const at = 'at' in change ? change.at % (bytes.length + 1) : 0;
          if (change.kind === 'set' && bytes.length) bytes[at % bytes.length] = change.value;
          if (change.kind === 'drop') bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + change.length)]);
          if (change.kind === 'double') bytes = Uint8Array.from([...bytes.subarray(0, at + change.length), ...bytes.subarray(at)]);
          if (change.kind === 'append') bytes = Uint8Array.from([...bytes, ...change.bytes]);
          if (change.kind === 'cut') bytes = bytes.subarray(0, at);
        }
        tried();
        const result = await infoHashFromTorrent(bytes);
        if ('hash' in result) hashed++;
        expect(result).toEqual(referenceHash(bytes));
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: many mutations (in names, comments, trailing bytes) leave a hashable file.
    expect(hashed).toBeGreaterThan(100);
  });

  it('agrees with it on random and bencode-shaped noise too', async () => {
    const noise = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc
        .array(fc.constantFrom('d', 'l', 'e', 'i1e', 'i-0e', 'i01e', '4:info', '6:pieces', '12:meta version', 'i2e', '0:', '3:abc', '20:', 'x'), { maxLength: 30 })
        .map((parts) => new TextEncoder().encode(`d${parts.join('')}`)),
    );
    await fc.assert(
      fc.asyncProperty(noise, async (bytes) => {
        tried();
        expect(await infoHashFromTorrent(bytes)).toEqual(referenceHash(bytes));
      }),
      { numRuns: 1500 },
    );
  });
});
