/**
 * Random lists in the real service's untidy shapes, served over HTTP by the reference service: good
 * entries with random bad ones mixed in, as a list or a PHP key-preserving object, with nulls in
 * optional fields and unknown extra fields. Every good entry must come out, in order, with its
 * defaults; every bad one must be skipped alone and counted.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRecommendedSites, getSites, lookupBatch, reportExisting } from '../../../utils/iyuu/operations';
import { DEMO_TOKEN, startReferenceService, type ReferenceService } from '../../service/server';
import { reportBadInputs, tried } from './support';

reportBadInputs('real-answer shapes fuzz', 400);

let service: ReferenceService;
let siteHash: string;
const config = () => ({ baseUrl: service.url, token: DEMO_TOKEN });
beforeAll(async () => {
  service = await startReferenceService();
  siteHash = await reportExisting(config(), [1, 2, 3]);
});
afterAll(() => service.close());

const RUNS = 120;

/** How a list goes out: as a list, or as PHP writes a list whose keys it kept ("0", "1", … with gaps). */
const listShape = fc.record({ asObject: fc.boolean(), gaps: fc.array(fc.nat({ max: 3 }), { minLength: 16, maxLength: 16 }) });
type ListShape = { asObject: boolean; gaps: number[] };
function shaped(items: unknown[], { asObject, gaps }: ListShape): unknown {
  if (!asObject) return items;
  let key = -1;
  return Object.fromEntries(items.map((item, index) => [String((key += 1 + (gaps[index % gaps.length] ?? 0))), item]));
}

/** Extra fields a real answer may carry, which must be ignored. */
const extras = fc.dictionary(fc.constantFrom('group_name', 'sort', 'mirror', 'remark', 'created_at'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });

/** A null, a missing key, or a value: each optional field on its own. */
const optional = <T>(value: fc.Arbitrary<T>) => fc.oneof(value, fc.constant(null), fc.constant(undefined));
const withoutUndefined = (entry: Record<string, unknown>) => Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined));

// ------------------------------------------------------------------------------------------------
// Site lists

interface GoodSite {
  raw: Record<string, unknown>;
  expected: Record<string, unknown>;
}

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
const goodSite = (id: number): fc.Arbitrary<GoodSite> =>
  fc
    .record({
      site: label,
      host: fc.tuple(label, fc.constantFrom('me', 'org', 'com', 'cc')).map(([name, tld]) => `${name}.${tld}`),
      dress: fc.constantFrom<(host: string) => string>(
        (host) => host,
        (host) => `${host}/`,
        (host) => `${host}//`,
        (host) => `https://${host}/`,
        (host) => `http://${host}`,
        (host) => ` ${host.toUpperCase()}/ `,
      ),
      nickname: optional(fc.string({ maxLength: 8 })),
      details_page: optional(fc.constantFrom('details.php?id={}', 't/{}/', 'detail/{}', '')),
      download_page: optional(fc.constantFrom('download.php?id={}&passkey={passkey}', '')),
      is_https: optional(fc.constantFrom(0, 1, 2, '0', '2')),
      cookie_required: optional(fc.constantFrom(0, 1)),
      closedFlag: fc.constantFrom({}, { disabled: 0 }, { is_open: 1 }, { closed: false }),
      extra: extras,
    })
    .map(({ site, host, dress, nickname, details_page, download_page, is_https, cookie_required, closedFlag, extra }) => {
      const base_url = dress(host);
      const raw = withoutUndefined({ ...extra, ...closedFlag, id, site, nickname, base_url, details_page, download_page, is_https, cookie_required });
      const expected = {
        id,
        site,
        nickname: nickname ?? '',
        base_url: host,
        details_page: details_page ?? '',
        download_page: download_page ?? '',
        is_https: is_https === undefined || is_https === null ? 1 : Number(is_https),
        cookie_required: cookie_required ?? 0,
      };
      return { raw, expected };
    });

const good = { id: 1, site: 'x', base_url: 'x.org' };
const badSite = fc.oneof(
  fc.constantFrom<unknown>(
    { ...good, id: undefined },
    { ...good, id: null },
    { ...good, id: 'seven' },
    { ...good, id: -1 },
    { ...good, id: 1.5 },
    { ...good, base_url: null },
    { ...good, base_url: '' },
    { ...good, base_url: '   ' },
    { ...good, base_url: 'evil.example/path' },
    { ...good, base_url: 'user@evil.example' },
    { ...good, base_url: 'javascript:alert(1)' },
    { ...good, disabled: 1 },
    { ...good, closed: true },
    { ...good, is_closed: '1' },
    { ...good, is_open: 0 },
    { ...good, site: '' },
    { ...good, site: null },
    { ...good, details_page: '//evil.example/{}' },
    { ...good, details_page: 'javascript:alert({})' },
    { ...good, download_page: 'https://evil.example/{}' },
    null,
    'hdsky',
    42,
    [],
  ),
  fc.record({ id: fc.oneof(fc.constant(null), fc.string()), site: fc.string(), base_url: fc.oneof(fc.constant(null), fc.constant('')) }),
);

describe('site lists with random bad entries', () => {
  it('keep every good entry, in order, with its defaults, and count every bad one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 6 }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, index) => goodSite(index + 1)))),
        fc.array(fc.tuple(fc.nat({ max: 6 }), badSite), { maxLength: 6 }),
        listShape,
        async (goods, bads, shape) => {
          const entries: unknown[] = goods.map((entry) => entry.raw);
          // Bad entries at random places, good ones keeping their order.
          for (const [at, bad] of bads) entries.splice(Math.min(at, entries.length), 0, bad);
          const sites = shaped(entries, shape);
          tried(bads.length + goods.length);
          service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: { sites } }) }, 1, '/reseed/sites/index');
          const result = await getSites(config());
          expect(result.sites).toEqual(goods.map((entry) => entry.expected));
          expect(result.skipped).toBe(bads.length);
        },
      ),
      { numRuns: RUNS },
    );
  }, 60_000);
});

describe('recommended site lists with random bad entries', () => {
  it('keep every good entry, and a count that is sent or else the number listed', async () => {
    const goodEntry = (id: number) =>
      fc.record({ site: label, nickname: optional(fc.string({ maxLength: 6 })), bind_check: optional(fc.constantFrom('passkey,uid', '')), extra: extras }).map(({ site, nickname, bind_check, extra }) => ({
        raw: withoutUndefined({ ...extra, id, site, nickname, bind_check }),
        expected: withoutUndefined({ id, site, nickname: nickname ?? '', bind_check: bind_check ?? undefined }),
      }));
    const badEntry = fc.constantFrom<unknown>({ site: 'noid' }, { id: null, site: 'x' }, { id: 'x', site: 'x' }, { id: 3 }, { id: 3, site: '' }, null, 'ourbits', 7);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, index) => goodEntry(index + 1)))),
        fc.array(fc.tuple(fc.nat({ max: 5 }), badEntry), { maxLength: 4 }),
        optional(fc.nat({ max: 500 })),
        listShape,
        async (goods, bads, count, shape) => {
          const entries: unknown[] = goods.map((entry) => entry.raw);
          for (const [at, bad] of bads) entries.splice(Math.min(at, entries.length), 0, bad);
          tried(bads.length + 1);
          const data = withoutUndefined({ count, list: shaped(entries, shape) });
          service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data }) }, 1, '/reseed/sites/recommend');
          const result = await getRecommendedSites(config());
          expect(result.list).toEqual(goods.map((entry) => entry.expected));
          expect(result.count).toBe(count ?? goods.length);
        },
      ),
      { numRuns: RUNS },
    );
  }, 60_000);
});

// ------------------------------------------------------------------------------------------------
// Candidate lists

const hex40 = fc.stringMatching(/^[0-9a-f]{40}$/);
const goodCandidate = fc
  .record({ sid: fc.nat({ max: 300 }), torrent_id: fc.nat({ max: 9_999_999 }), info_hash: hex40, group: optional(fc.nat()), asText: fc.boolean(), upper: fc.boolean(), extra: extras })
  .map(({ sid, torrent_id, info_hash, group, asText, upper, extra }) => ({
    raw: withoutUndefined({ ...extra, sid: asText ? String(sid) : sid, torrent_id, info_hash: upper ? info_hash.toUpperCase() : info_hash, group }),
    expected: withoutUndefined({ sid, torrent_id, info_hash, group: group ?? undefined }),
  }));
const badCandidate = fc.oneof(
  fc.constantFrom<unknown>(null, 'junk', 7, [], {}, { sid: 1 }, { torrent_id: 1, info_hash: 'ab'.repeat(20) }),
  hex40.map((info_hash) => ({ sid: null, torrent_id: 1, info_hash })),
  hex40.map((info_hash) => ({ sid: 'x1', torrent_id: 1, info_hash })),
  hex40.map((info_hash) => ({ sid: 1, torrent_id: -5, info_hash })),
  hex40.map((info_hash) => ({ sid: 1, torrent_id: 2 ** 53, info_hash })),
  hex40.map((info_hash) => ({ sid: 1.5, torrent_id: 2, info_hash })),
  hex40.map((info_hash) => ({ sid: 1, torrent_id: 2, info_hash: `${info_hash.slice(0, 39)}g` })),
  hex40.map((info_hash) => ({ sid: 1, torrent_id: 2, info_hash: `${info_hash}0` })),
);

describe('lookups with random bad candidates', () => {
  it('keep every good candidate of every asked hash, in order', async () => {
    const asked = ['11'.repeat(20), '22'.repeat(20), '33'.repeat(20)];
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(...asked.map(() => fc.tuple(fc.array(goodCandidate, { minLength: 1, maxLength: 4 }), fc.array(fc.tuple(fc.nat({ max: 4 }), badCandidate), { maxLength: 4 }), listShape))),
        async (perHash) => {
          const data: Record<string, unknown> = {};
          perHash.forEach(([goods, bads, shape], index) => {
            const items: unknown[] = goods.map((candidate) => candidate.raw);
            for (const [at, bad] of bads) items.splice(Math.min(at, items.length), 0, bad);
            tried(bads.length);
            data[asked[index]!] = { torrent: shaped(items, shape), hash_title: 'x' };
          });
          service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data }) }, 1, '/reseed/index/index');
          const result = await lookupBatch(config(), asked, siteHash);
          perHash.forEach(([goods], index) => {
            const unique = goods
              .map((candidate) => candidate.expected)
              .filter((candidate, at, all) => all.findIndex((other) => other.sid === candidate.sid && other.torrent_id === candidate.torrent_id && other.info_hash === candidate.info_hash) === at);
            expect(result.get(asked[index]!)).toEqual(unique);
          });
        },
      ),
      { numRuns: RUNS },
    );
  }, 60_000);
});
