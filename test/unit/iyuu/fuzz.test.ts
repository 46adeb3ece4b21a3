/**
 * Random and hostile answers, sent over real HTTP by the reference server, through every client
 * operation: each call must return valid data or throw a ServiceError, nothing else, ever.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interpretAnswer } from '../../../utils/iyuu/answers';
import {
  bindAccount,
  getProfile,
  getRecommendedSites,
  getSites,
  lookupBatch,
  lookupSigned,
  reportExisting,
  type ServiceConfig,
} from '../../../utils/iyuu/operations';
import { SERVICE_ERROR_KINDS, ServiceError } from '../../../utils/iyuu/service-errors';
import { startReferenceService, type ReferenceService } from '../../service/server';
import { configFor, nodeSha1 } from './support';

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());

const ASKED = [nodeSha1('asked 1'), nodeSha1('asked 2'), nodeSha1('asked 3')].sort();
const SITE_HASH = nodeSha1('any site hash'); // the answer is forced, so the server never checks it
const RUNS = 200;

// ------------------------------------------------------------------------------------------------
// Answers: mostly near-valid, so the deep paths run, with hostile values mixed in.

const hex40 = fc.stringMatching(/^[0-9a-fA-F]{40}$/);
const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom('', ' ', '__proto__', 'constructor', '<script>alert(1)</script>', 'javascript:alert(1)', '0x10', '1e3', '-1', '007', '９', 'NaN', '\u0000', 'a'.repeat(3000)),
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, -0, 1e308),
);
const anyLeaf = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));
/** Five parts near-valid, one part hostile: valid answers must come up often enough to be checked. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: hostile });
const id = mostly(fc.oneof({ weight: 4, arbitrary: fc.nat() }, { weight: 1, arbitrary: fc.nat().map(String) }), anyLeaf);
const candidate = mostly(
  fc.record({ sid: id, torrent_id: id, info_hash: mostly(hex40, anyLeaf), group: anyLeaf }, { requiredKeys: ['sid', 'torrent_id', 'info_hash'] }),
  fc.record({ sid: anyLeaf, torrent_id: anyLeaf, info_hash: anyLeaf, extra: anyLeaf }, { requiredKeys: [] }),
);
const candidates = mostly(fc.array(candidate, { maxLength: 4 }), anyLeaf);
const hashKey = fc.oneof(fc.constantFrom(...ASKED), fc.constantFrom(...ASKED.map((hash) => hash.toUpperCase())), hex40, hostileString);
const listData = mostly(
  fc.dictionary(hashKey, mostly(fc.record({ torrent: candidates }), fc.record({ torrent: anyLeaf }, { requiredKeys: [] })), { maxKeys: 5 }),
  fc.oneof(fc.constant([]), anyLeaf),
);
const signedData = mostly(
  fc.array(
    mostly(
      fc.record({ hash: fc.oneof(fc.constantFrom(ASKED[0]!, ASKED[0]!.toUpperCase()), hex40), torrent: candidates }),
      fc.record({ hash: anyLeaf, torrent: anyLeaf }, { requiredKeys: [] }),
    ),
    { maxLength: 3 },
  ),
  anyLeaf,
);
/** Mostly plain names, sometimes hostile ones. */
const name = fc.oneof({ weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, { weight: 1, arbitrary: hostileString });
const recommended = fc.record(
  { id, site: name, nickname: name, bind_check: fc.oneof(name, anyLeaf), reseed_check: fc.oneof(name, anyLeaf) },
  { requiredKeys: ['id', 'site', 'nickname'] },
);
const recommendData = fc.oneof(
  { weight: 4, arbitrary: fc.record({ count: fc.oneof({ weight: 4, arbitrary: fc.nat() }, { weight: 1, arbitrary: anyLeaf }), list: fc.array(recommended, { maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ count: anyLeaf, list: fc.oneof(fc.array(recommended), anyLeaf) }, { requiredKeys: [] }) },
);
const site = fc.record(
  {
    id,
    site: hostileString,
    nickname: fc.oneof(hostileString, anyLeaf),
    base_url: fc.oneof(fc.constantFrom('hdsky.me', 'HDSKY.ME', 'a.b', 'evil.example/x', 'https://x.y', '127.0.0.1', 'xn--fiqs8s.cn'), hostileString),
    details_page: fc.oneof(fc.constantFrom('details.php?id={}', 'detail/{}', '//evil', 'data:x', ''), hostileString),
    download_page: fc.oneof(hostileString, anyLeaf),
    is_https: fc.oneof(fc.constantFrom(0, 1, 2, '0', '1', '2', 3), anyLeaf),
    cookie_required: anyLeaf,
  },
  { requiredKeys: [] },
);
const sitesData = mostly(fc.record({ sites: fc.array(mostly(site, anyLeaf), { maxLength: 6 }) }), fc.record({ sites: anyLeaf }, { requiredKeys: [] }));
const profileData = mostly(
  fc.record({ state: anyLeaf, overdue_time: mostly(fc.nat(), anyLeaf), is_ever_level: anyLeaf }, { requiredKeys: [] }),
  fc.oneof(anyLeaf, fc.constant([])),
);
const reportData = mostly(fc.record({ sid_sha1: hex40 }), fc.oneof(fc.record({ sid_sha1: anyLeaf }, { requiredKeys: [] }), anyLeaf));

/** Half the time the operation's success code, so the deep paths of the answer get exercised. */
const code = (success: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(success) },
    { weight: 3, arbitrary: fc.constantFrom(0, 200, 400, 401, 403, 429, 500) },
    { weight: 1, arbitrary: fc.oneof(hostileNumber, fc.constantFrom('0', null)) },
  );
const message = mostly(fc.constantFrom('ok', ''), fc.oneof(
  fc.constantFrom('ok', '', '未查询到可辅种数据', '时间戳已过期', '站点缓存哈希值无效', '用户未绑定推荐站点', '访问频率过快', '签名错误', '请求缺少token'),
  hostileString,
  anyLeaf,
));
const envelope = (data: fc.Arbitrary<unknown>, success: number) =>
  fc.record({ code: code(success), msg: message, data: fc.oneof({ weight: 5, arbitrary: data }, { weight: 1, arbitrary: fc.jsonValue() }) }, { requiredKeys: ['code'] });

/** A whole HTTP answer: mostly JSON envelopes, sometimes any JSON, any text, odd statuses and headers. */
const httpAnswer = (data: fc.Arbitrary<unknown>, success: number) =>
  fc.record({
    status: fc.oneof({ weight: 8, arbitrary: fc.constant(200) }, { weight: 2, arbitrary: fc.constantFrom(201, 204, 400, 401, 403, 404, 429, 500, 502) }),
    body: fc.oneof(
      { weight: 8, arbitrary: envelope(data, success).map((value) => JSON.stringify(value)) },
      { weight: 1, arbitrary: fc.json() },
      { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
    ),
    retryAfter: fc.option(fc.oneof(fc.nat().map(String), fc.stringMatching(/^[ -~]{0,30}$/)), { nil: undefined }),
    date: fc.option(fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()), fc.stringMatching(/^[ -~]{0,30}$/)), { nil: undefined }),
  });

// ------------------------------------------------------------------------------------------------
// What "valid data" means, checked independently of the schemas.

const isId = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isHash = (value: unknown) => typeof value === 'string' && /^[0-9a-f]{40}$/.test(value);
function expectCandidate(value: unknown) {
  const candidate = value as Record<string, unknown>;
  expect(isId(candidate.sid) && isId(candidate.torrent_id) && isHash(candidate.info_hash), JSON.stringify(value)).toBe(true);
  expect(Object.keys(candidate).every((key) => ['sid', 'torrent_id', 'info_hash', 'group'].includes(key))).toBe(true);
  if (candidate.group !== undefined) expect(isId(candidate.group)).toBe(true);
}

interface Case {
  name: string;
  path: string;
  data: fc.Arbitrary<unknown>;
  successCode?: number;
  run(config: ServiceConfig): Promise<unknown>;
  check(result: unknown): void;
}

const CASES: Case[] = [
  {
    name: 'lookupBatch',
    path: '/reseed/index/index',
    data: listData,
    run: (config) => lookupBatch(config, ASKED, SITE_HASH),
    check(result) {
      expect(result).toBeInstanceOf(Map);
      const map = result as Map<string, unknown[]>;
      // Every asked hash, in order, but one whose entry was wholly broken (asked again later); never none.
      expect(map.size).toBeGreaterThan(0);
      expect([...map.keys()]).toEqual(ASKED.filter((hash) => map.has(hash)));
      for (const list of map.values()) {
        expect(Array.isArray(list)).toBe(true);
        list.forEach(expectCandidate);
      }
    },
  },
  {
    name: 'lookupSigned',
    path: '/spider/reseed/index',
    data: signedData,
    successCode: 200,
    run: (config) => lookupSigned({ ...config, appId: 'demo-app', secret: 'demo-secret' }, ASKED[0]!),
    check(result) {
      expect(Array.isArray(result)).toBe(true);
      (result as unknown[]).forEach(expectCandidate);
    },
  },
  {
    name: 'getRecommendedSites',
    path: '/reseed/sites/recommend',
    data: recommendData,
    run: getRecommendedSites,
    check(result) {
      const { count, list } = result as { count: unknown; list: unknown[] };
      expect(isId(count)).toBe(true);
      for (const entry of list) {
        const site = entry as Record<string, unknown>;
        expect(isId(site.id) && typeof site.site === 'string' && site.site !== '' && typeof site.nickname === 'string').toBe(true);
      }
    },
  },
  {
    name: 'getSites',
    path: '/reseed/sites/index',
    data: sitesData,
    run: getSites,
    check(result) {
      const { sites, skipped } = result as { sites: Record<string, unknown>[]; skipped: unknown };
      expect(isId(skipped)).toBe(true);
      expect(new Set(sites.map((entry) => entry.id)).size).toBe(sites.length);
      for (const entry of sites) {
        expect(isId(entry.id)).toBe(true);
        expect(entry.base_url).toMatch(/^[a-z0-9.-]+$/);
        expect(entry.details_page).not.toMatch(/[<>"'\s]|^\/\/|^[a-z]+:/i);
        expect([0, 1, 2]).toContain(entry.is_https);
      }
    },
  },
  {
    name: 'reportExisting',
    path: '/reseed/sites/reportExisting',
    data: reportData,
    run: (config) => reportExisting(config, [1, 2]),
    check: (result) => expect(isHash(result)).toBe(true),
  },
  {
    name: 'getProfile',
    path: '/reseed/users/profile',
    data: profileData,
    run: getProfile,
    check(result) {
      expect(result !== null && typeof result === 'object' && !Array.isArray(result)).toBe(true);
      const overdue = (result as Record<string, unknown>).overdue_time;
      if (overdue !== undefined) expect(isId(overdue)).toBe(true);
    },
  },
  {
    name: 'bindAccount',
    path: '/reseed/users/bind',
    data: fc.jsonValue(),
    run: (config) => bindAccount(config, { sid: 1, site: 'ourbits', userId: '1', passkey: 'p' }),
    check: (result) => expect(typeof result).toBe('string'),
  },
];

describe.each(CASES)('fuzzing $name over HTTP', ({ path, data, successCode = 0, run, check }) => {
  it('returns valid data or throws a ServiceError, for any answer', async () => {
    const kinds = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(httpAnswer(data, successCode), async (answer) => {
        const headers: Record<string, string> = {};
        if (answer.retryAfter !== undefined) headers['Retry-After'] = answer.retryAfter;
        if (answer.date !== undefined) headers.Date = answer.date;
        service.control.rawAnswer({ status: answer.status, headers, body: answer.body }, 1, path);
        let result: unknown;
        try {
          result = await run(configFor(service));
        } catch (error) {
          if (!(error instanceof ServiceError)) throw new Error(`not a ServiceError: ${String(error)}`);
          expect(SERVICE_ERROR_KINDS).toContain(error.kind);
          // The server answered, so it can be neither of these; no-credentials is checked before sending.
          expect(['network', 'timeout', 'no-credentials']).not.toContain(error.kind);
          if (error.kind === 'rate-limited') expect(Number.isFinite(error.retryAt)).toBe(true);
          kinds.set(error.kind, (kinds.get(error.kind) ?? 0) + 1);
          return;
        }
        kinds.set('ok', (kinds.get('ok') ?? 0) + 1);
        check(result);
      }),
      { numRuns: RUNS },
    );
    // The generators must reach both outcomes, or the property proves little.
    expect(kinds.get('ok') ?? 0).toBeGreaterThan(0);
    expect(kinds.get('bad-answer') ?? 0).toBeGreaterThan(0);
  }, 60_000);
});

describe('fuzzing the answer interpretation directly', () => {
  it('throws only ServiceErrors for any status, headers and text', () => {
    const rules = { operation: 'fuzz', successCode: 0, noCandidatesIsEmpty: true, parse: (json: unknown) => json };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999 }),
        fc.option(fc.oneof(fc.json(), fc.string()), { nil: null }),
        fc.dictionary(fc.constantFrom('retry-after', 'date', 'content-type'), fc.string()),
        fc.oneof(fc.integer(), fc.double()),
        (status, text, headerValues, receivedAt) => {
          const headers = { get: (name: string) => headerValues[name.toLowerCase()] ?? null };
          try {
            interpretAnswer(rules, { status, headers, text, receivedAt });
          } catch (error) {
            expect(error).toBeInstanceOf(ServiceError);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
