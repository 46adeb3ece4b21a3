/** Spec 4.1 through the client, against the reference server over loopback HTTP. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_HASHES_PER_LOOKUP, lookupBatch, reportExisting } from '../../../utils/iyuu/operations';
import { BAD_BODY_MODES, INVENTED_HASH, startReferenceService, type ReferenceService } from '../../service/server';
import {
  UNKNOWN_HASH,
  VERSION,
  allSids,
  configFor,
  expectedCandidates,
  failure,
  formOf,
  groupTitled,
  nodeSha1,
  sidOf,
  sortCandidates,
} from './support';

let service: ReferenceService;
let siteHash: string;

beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());
beforeEach(async () => {
  service.control.reset();
  siteHash = await reportExisting(configFor(service), allSids(service));
  service.requests.length = 0;
});

const lookups = () => service.requests.filter((request) => request.path === '/reseed/index/index');

describe('lookupBatch: results', () => {
  it('maps every asked hash to its candidates, and hashes the service does not know to []', async () => {
    const avatar = groupTitled(service, 'Avatar.The.Way.of.Water').members[2]!;
    const threeBody = groupTitled(service, 'Three-Body').members[0]!;
    const lonely = groupTitled(service, 'Cui.Jian').members[0]!;
    const asked = [avatar.info_hash, threeBody.info_hash, lonely.info_hash, UNKNOWN_HASH];

    const result = await lookupBatch(configFor(service), asked, siteHash);

    expect([...result.keys()]).toEqual([...asked].sort());
    expect(sortCandidates(result.get(avatar.info_hash)!)).toEqual(expectedCandidates(service, avatar.info_hash));
    expect(result.get(avatar.info_hash)).toHaveLength(8);
    expect(sortCandidates(result.get(threeBody.info_hash)!)).toEqual(expectedCandidates(service, threeBody.info_hash));
    expect(result.get(lonely.info_hash)).toEqual([]);
    expect(result.get(UNKNOWN_HASH)).toEqual([]);
  });

  it("includes another entry on the asked torrent's own site (same content uploaded twice)", async () => {
    const [first, second] = groupTitled(service, 'Three-Body').members;
    expect(first!.site).toBe('hdsky');
    expect(second!.site).toBe('hdsky');
    const result = await lookupBatch(configFor(service), [first!.info_hash], siteHash);
    expect(result.get(first!.info_hash)).toContainEqual({ sid: sidOf(service, 'hdsky'), torrent_id: second!.torrent_id, info_hash: second!.info_hash });
  });

  it('returns only candidates on the sites that were reported, when the service filters by them', async () => {
    service.control.filterBySiteList = true;
    const kept = [sidOf(service, 'hdsky'), sidOf(service, 'ourbits')];
    const narrowHash = await reportExisting(configFor(service), kept);
    const avatar = groupTitled(service, 'Avatar.The.Way.of.Water').members.find((member) => member.site === 'ssd')!;
    const result = await lookupBatch(configFor(service), [avatar.info_hash], narrowHash);
    expect(sortCandidates(result.get(avatar.info_hash)!)).toEqual(expectedCandidates(service, avatar.info_hash, kept));
    expect(result.get(avatar.info_hash)).toHaveLength(2);
  });

  it('turns "未查询到可辅种数据" into empty results, not an error', async () => {
    const lonely = groupTitled(service, 'Chinese.Doctors').members[0]!;
    const result = await lookupBatch(configFor(service), [lonely.info_hash, UNKNOWN_HASH], siteHash);
    expect(result).toEqual(new Map<string, unknown[]>([[lonely.info_hash, []], [UNKNOWN_HASH, []]]));
    expect(lookups()).toHaveLength(1);
  });

  it('asks nothing for an empty list', async () => {
    expect(await lookupBatch(configFor(service), [], siteHash)).toEqual(new Map());
    expect(service.requests).toHaveLength(0);
  });
});

describe('lookupBatch: the request', () => {
  it('sends lowercased, de-duplicated, sorted hashes as compact JSON with its SHA-1, form-encoded, with the Token header', async () => {
    const members = groupTitled(service, 'Blade.Runner').members;
    const lower = [members[3]!.info_hash, members[0]!.info_hash, members[5]!.info_hash];
    const input = [`  ${lower[0]!.toUpperCase()} `, lower[1]!, lower[2]!, lower[1]!.toUpperCase(), lower[0]!];
    const before = Math.floor(Date.now() / 1000);

    await lookupBatch(configFor(service), input, siteHash.toUpperCase());

    const [request] = lookups();
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request!.headers.token).toBe('demo-token');
    expect(request!.body.startsWith('{')).toBe(false);
    const form = formOf(request);
    expect([...form.keys()].sort()).toEqual(['hash', 'sha1', 'sid_sha1', 'timestamp', 'version']);
    const sorted = [...lower].sort();
    expect(form.get('hash')).toBe(`["${sorted[0]}","${sorted[1]}","${sorted[2]}"]`);
    expect(form.get('sha1')).toBe(nodeSha1(form.get('hash')!));
    expect(form.get('sid_sha1')).toBe(siteHash);
    expect(form.get('version')).toBe(VERSION);
    expect(form.get('timestamp')).toMatch(/^\d+$/);
    expect(Number(form.get('timestamp'))).toBeGreaterThanOrEqual(before);
    expect(Number(form.get('timestamp'))).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('makes the timestamp from now() plus clockOffsetSeconds', async () => {
    const now = Date.now() - 250_000;
    await lookupBatch(configFor(service, { now: () => now, clockOffsetSeconds: 250 }), [UNKNOWN_HASH], siteHash);
    expect(formOf(lookups()[0]).get('timestamp')).toBe(String(Math.floor(now / 1000 + 250)));
  });

  it(`sends at most ${MAX_HASHES_PER_LOOKUP} hashes, counted after normalising`, async () => {
    expect(MAX_HASHES_PER_LOOKUP).toBe(200);
    const hashes = Array.from({ length: 200 }, (_, i) => nodeSha1(`hash ${i}`));
    const withDuplicates = [...hashes, hashes[0]!.toUpperCase(), hashes[1]!];
    const result = await lookupBatch(configFor(service), withDuplicates, siteHash);
    expect(result.size).toBe(200);
    expect(JSON.parse(formOf(lookups()[0]).get('hash')!)).toHaveLength(200);

    const error = await failure(lookupBatch(configFor(service), [...hashes, nodeSha1('one more')], siteHash), 'bad-request');
    expect(error.detail).toContain('201');
    expect(lookups()).toHaveLength(1);
  });

  it('refuses something that is not an info-hash without asking', async () => {
    await failure(lookupBatch(configFor(service), [UNKNOWN_HASH, 'abc'], siteHash), 'bad-request');
    await failure(lookupBatch(configFor(service), ['g'.repeat(40)], siteHash), 'bad-request');
    expect(service.requests).toHaveLength(0);
  });

  it('fails as a ServiceError, not a TypeError, on values a caller should not pass (messages are untyped)', async () => {
    await failure(lookupBatch(configFor(service), [42 as unknown as string], siteHash), 'bad-request');
    await failure(lookupBatch(configFor(service), [UNKNOWN_HASH], undefined as unknown as string), 'stale-site-hash');
    await failure(lookupBatch(configFor(service, { baseUrl: undefined as unknown as string }), [UNKNOWN_HASH], siteHash), 'bad-request');
    await failure(lookupBatch(configFor(service, { token: 7 as unknown as string }), [UNKNOWN_HASH], siteHash), 'no-credentials');
    expect(service.requests).toHaveLength(0);
  });

  it('tolerates a trailing slash in the base address', async () => {
    await lookupBatch(configFor(service, { baseUrl: `${service.url}//` }), [UNKNOWN_HASH], siteHash);
    expect(lookups()[0]!.url).toBe('/reseed/index/index');
  });

  it('uses the configured fetch', async () => {
    const seen: string[] = [];
    const counting: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    await lookupBatch(configFor(service, { fetch: counting }), [UNKNOWN_HASH], siteHash);
    expect(seen).toEqual([`${service.url}/reseed/index/index`]);
  });
});

describe('lookupBatch: refusals', () => {
  it('reports a sid_sha1 the service never issued as a stale site hash', async () => {
    const error = await failure(lookupBatch(configFor(service), [UNKNOWN_HASH], nodeSha1('never issued')), 'stale-site-hash');
    expect(error.code).toBe(400);
    expect(error.serviceMessage).toBe('站点缓存哈希值无效');
  });

  it('reports a forgotten sid_sha1 as stale, and one issued to another token too', async () => {
    service.control.forgetSiteHashes();
    await failure(lookupBatch(configFor(service), [UNKNOWN_HASH], siteHash), 'stale-site-hash');

    const othersHash = await reportExisting(configFor(service, { token: 'demo-forever-token' }), allSids(service));
    await failure(lookupBatch(configFor(service), [UNKNOWN_HASH], othersHash), 'stale-site-hash');
  });

  it('reads "站点哈希值 require" as a stale site hash too', async () => {
    service.control.rawAnswer({ body: '{"code":400,"msg":"站点哈希值 require","data":[]}' });
    expect((await failure(lookupBatch(configFor(service), [UNKNOWN_HASH], siteHash), 'stale-site-hash')).code).toBe(400);
  });

  it('asks for a site report first when it has no valid sid_sha1 at all', async () => {
    await failure(lookupBatch(configFor(service), [UNKNOWN_HASH], ''), 'stale-site-hash');
    await failure(lookupBatch(configFor(service), [UNKNOWN_HASH], 'xyz'), 'stale-site-hash');
    expect(service.requests).toHaveLength(0);
  });

  it.each([3600, -3600])('fails with expired-timestamp and the clock offset when the service clock is %i s off, and the offset cures it', async (skew) => {
    service.control.clockSkewSeconds = skew;
    const error = await failure(lookupBatch(configFor(service), [UNKNOWN_HASH], siteHash), 'expired-timestamp');
    expect(error.code).toBe(400);
    expect(error.serviceMessage).toBe('时间戳已过期');
    expect(error.clockOffsetSeconds).toBeGreaterThanOrEqual(skew - 2);
    expect(error.clockOffsetSeconds).toBeLessThanOrEqual(skew + 2);

    const member = groupTitled(service, 'Dune.Part.Two').members[0]!;
    const result = await lookupBatch(configFor(service, { clockOffsetSeconds: error.clockOffsetSeconds }), [member.info_hash], siteHash);
    expect(result.get(member.info_hash)).toHaveLength(4);
  });

  it('fails with not-bound for a token not bound to a recommended site', async () => {
    const error = await failure(lookupBatch(configFor(service, { token: 'demo-unbound-token' }), [UNKNOWN_HASH], siteHash), 'not-bound');
    expect(error.code).toBe(403);
    expect(error.serviceMessage).toBe('用户未绑定推荐站点');
  });

  it('fails with auth for an unknown or expired token', async () => {
    const unknown = await failure(lookupBatch(configFor(service, { token: 'nobody' }), [UNKNOWN_HASH], siteHash), 'auth');
    expect(unknown.serviceMessage).toBe('token未注册，请先绑定推荐站点');
    expect(unknown.httpStatus).toBe(200);
    const expired = await failure(lookupBatch(configFor(service, { token: 'demo-expired-token' }), [UNKNOWN_HASH], siteHash), 'auth');
    expect(expired.serviceMessage).toBe('token已过期');
  });

  it('needs a token, and one that can travel in a header, before asking', async () => {
    await failure(lookupBatch(configFor(service, { token: undefined }), [UNKNOWN_HASH], siteHash), 'no-credentials');
    await failure(lookupBatch(configFor(service, { token: '   ' }), [UNKNOWN_HASH], siteHash), 'no-credentials');
    await failure(lookupBatch(configFor(service, { token: 'two words' }), [UNKNOWN_HASH], siteHash), 'auth');
    await failure(lookupBatch(configFor(service, { token: 'tök' }), [UNKNOWN_HASH], siteHash), 'auth');
    expect(service.requests).toHaveLength(0);
  });
});

describe('lookupBatch: odd and bad answers', () => {
  const member = () => groupTitled(service, 'Top.Gun.Maverick').members[1]!;

  it.each(BAD_BODY_MODES)('refuses a %s answer as bad-answer', async (mode) => {
    service.control.badBody(mode, 1, '/reseed/index/index');
    const error = await failure(lookupBatch(configFor(service), [member().info_hash], siteHash), 'bad-answer');
    expect(error.httpStatus).toBe(200);
  });

  it.each(['numeric-string-id', 'uppercase-hash', 'markup'] as const)('takes a %s answer as the same result', async (mode) => {
    const hash = member().info_hash;
    const plain = await lookupBatch(configFor(service), [hash], siteHash);
    service.control.badBody(mode, 1, '/reseed/index/index');
    const odd = await lookupBatch(configFor(service), [hash], siteHash);
    expect(odd).toEqual(plain);
    expect(odd.get(hash)).toHaveLength(6);
  });

  it('ignores hashes it did not ask for', async () => {
    const hash = member().info_hash;
    service.control.badBody('invented-keys', 1, '/reseed/index/index');
    const result = await lookupBatch(configFor(service), [hash], siteHash);
    expect([...result.keys()]).toEqual([hash]);
    expect(sortCandidates(result.get(hash)!)).toEqual(expectedCandidates(service, hash));
    expect(JSON.stringify([...result])).not.toContain(INVENTED_HASH);
  });

  it('refuses a bad entry under an asked hash, but not under a foreign key', async () => {
    const hash = member().info_hash;
    const good = { sid: 4, torrent_id: 7, info_hash: UNKNOWN_HASH };
    const foreign = `"${'f'.repeat(40)}":{"torrent":"x"},"__proto__":{"torrent":[{"sid":"x"}]},"junk":null`;
    service.control.rawAnswer({ body: `{"code":0,"msg":"ok","data":{${foreign},"${hash}":{"torrent":[${JSON.stringify(good)}]}}}` });
    expect((await lookupBatch(configFor(service), [hash], siteHash)).get(hash)).toEqual([good]);

    service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: { [hash]: { torrent: [{ ...good, sid: -1 }] } } }) });
    await failure(lookupBatch(configFor(service), [hash], siteHash), 'bad-answer');
  });

  it('merges keys that differ only in case and drops duplicate candidates', async () => {
    const hash = member().info_hash;
    const candidate = { sid: 4, torrent_id: 7, info_hash: UNKNOWN_HASH };
    const other = { sid: 5, torrent_id: 8, info_hash: 'a'.repeat(40) };
    service.control.rawAnswer({
      body: JSON.stringify({ code: 0, msg: 'ok', data: { [hash]: { torrent: [candidate, candidate] }, [hash.toUpperCase()]: { torrent: [candidate, other] } } }),
    });
    expect((await lookupBatch(configFor(service), [hash], siteHash)).get(hash)).toEqual([candidate, other]);
  });

  it('takes an empty PHP array as data for "nothing found"', async () => {
    service.control.rawAnswer({ body: '{"code":0,"msg":"ok","data":[]}' });
    expect(await lookupBatch(configFor(service), [UNKNOWN_HASH], siteHash)).toEqual(new Map([[UNKNOWN_HASH, []]]));
  });
});
