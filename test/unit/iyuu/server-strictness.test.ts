/**
 * The reference server refuses what the spec and notes say the service refuses. Raw HTTP, no client,
 * so the server's strictness does not depend on the client being right.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startReferenceService, type ReferenceService } from '../../service/server';
import { UNKNOWN_HASH, VERSION, allSids, get, groupTitled, nodeSha1, post, sidOf } from './support';

let service: ReferenceService;
let siteHash: string;
const TOKEN = { Token: 'demo-token' };

beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());
beforeEach(async () => {
  service.control.reset();
  const answer = await post(service, '/reseed/sites/reportExisting', Object.fromEntries(allSids(service).map((sid, i) => [`sid_list[${i}]`, String(sid)])), TOKEN);
  siteHash = (answer.json.data as { sid_sha1: string }).sid_sha1;
});

const now = () => String(Math.floor(Date.now() / 1000));

/** A valid list lookup body for `hashes`, with fields replaced or removed by `change`. */
function listFields(hashes: string[], change: Record<string, string | undefined> = {}): Record<string, string> {
  const hash = JSON.stringify(hashes);
  const fields: Record<string, string | undefined> = { hash, sha1: nodeSha1(hash), sid_sha1: siteHash, timestamp: now(), version: VERSION, ...change };
  return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const listLookup = (fields: Record<string, string> | string, headers: Record<string, string> = TOKEN) => post(service, '/reseed/index/index', fields, headers);

describe('POST /reseed/index/index', () => {
  it('answers code 0 with data keyed by each queried hash that has candidates', async () => {
    const member = groupTitled(service, 'Severance').members[0]!;
    const answer = await listLookup(listFields([member.info_hash, UNKNOWN_HASH]));
    expect(answer.status).toBe(200);
    expect(answer.json.code).toBe(0);
    expect(typeof answer.json.msg).toBe('string');
    const data = answer.json.data as Record<string, { torrent: unknown[] }>;
    expect(Object.keys(data)).toEqual([member.info_hash]);
    expect(data[member.info_hash]!.torrent).toHaveLength(5);
    expect(data[member.info_hash]!.torrent[0]).toEqual({ sid: expect.any(Number), torrent_id: expect.any(Number), info_hash: expect.stringMatching(/^[0-9a-f]{40}$/) });
  });

  it('answers 400 未查询到可辅种数据 when no hash has candidates', async () => {
    expect((await listLookup(listFields([UNKNOWN_HASH]))).json).toEqual({ code: 400, msg: '未查询到可辅种数据', data: [] });
  });

  it.each([
    ['no Token header', {}, 401, '请求缺少token'],
    ['an unknown token', { Token: 'nobody' }, 401, 'token未注册，请先绑定推荐站点'],
    ['a malformed token', { Token: 'a b' }, 401, 'token无效'],
    ['an expired token', { Token: 'demo-expired-token' }, 403, 'token已过期'],
    ['an unbound token', { Token: 'demo-unbound-token' }, 403, '用户未绑定推荐站点'],
  ])('refuses %s in an HTTP 200 envelope', async (_, headers, code, msg) => {
    const answer = await listLookup(listFields([UNKNOWN_HASH]), headers);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ code, msg, data: [] });
  });

  it.each([
    ['a missing sid_sha1', { sid_sha1: undefined }, '站点哈希值 require'],
    ['an unissued sid_sha1', { sid_sha1: nodeSha1('made up') }, '站点缓存哈希值无效'],
    ['an expired timestamp', { timestamp: String(Math.floor(Date.now() / 1000) - 301 - 5) }, '时间戳已过期'],
    ['a timestamp from the future', { timestamp: String(Math.floor(Date.now() / 1000) + 400) }, '时间戳已过期'],
    ['a missing timestamp', { timestamp: undefined }, 'timestamp require'],
    ['a timestamp that is not a number', { timestamp: 'yesterday' }, 'timestamp格式错误'],
    ['a missing version', { version: undefined }, 'version require'],
    ['a version that is not dotted', { version: 'latest' }, 'version格式错误'],
    ['a missing hash', { hash: undefined }, 'hash require'],
    ['a hash that is not JSON', { hash: 'abc,def', sha1: nodeSha1('abc,def') }, 'hash格式错误：不是JSON数组'],
    ['a hash that is a JSON object', { hash: '{"a":1}', sha1: nodeSha1('{"a":1}') }, 'hash格式错误：不是JSON数组'],
    ['an empty hash list', { hash: '[]', sha1: nodeSha1('[]') }, 'hash格式错误：不是JSON数组'],
    ['a hash that is not 40 hex', { hash: '["abc"]', sha1: nodeSha1('["abc"]') }, 'hash格式错误：info_hash应为40位十六进制'],
    ['a missing sha1', { sha1: undefined }, 'sha1 require'],
    ['a sha1 of something else', { sha1: nodeSha1('["x"]') }, 'sha1校验失败'],
  ])('refuses %s with code 400 and data []', async (_, change, msg) => {
    const answer = await listLookup(listFields([UNKNOWN_HASH], change));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ code: 400, msg, data: [] });
  });

  it('takes at most maxHashes (200) hashes', async () => {
    const hashes = (count: number) => Array.from({ length: count }, (_, i) => nodeSha1(`h${i}`));
    expect((await listLookup(listFields(hashes(200)))).json.msg).toBe('未查询到可辅种数据');
    expect((await listLookup(listFields(hashes(201)))).json).toEqual({ code: 400, msg: 'hash数量超过限制（最多200个）', data: [] });
    service.control.maxHashes = 2;
    expect((await listLookup(listFields(hashes(3)))).json.code).toBe(400);
  });

  it('reads only form-encoded bodies (a JSON body has no fields)', async () => {
    const answer = await post(service, '/reseed/index/index', JSON.stringify(listFields([UNKNOWN_HASH])), { ...TOKEN, 'Content-Type': 'application/json' });
    expect(answer.json).toEqual({ code: 400, msg: 'version require', data: [] });
  });

  it('checks the timestamp against its own (skewed) clock and says so in its Date header', async () => {
    service.control.clockSkewSeconds = 1000;
    const answer = await listLookup(listFields([UNKNOWN_HASH]));
    expect(answer.json.msg).toBe('时间戳已过期');
    const serverDate = Date.parse(answer.headers.get('date')!);
    expect(Math.abs(serverDate - (Date.now() + 1_000_000))).toBeLessThan(2000);
    const skewed = String(Math.floor(Date.now() / 1000) + 1000);
    expect((await listLookup(listFields([UNKNOWN_HASH], { timestamp: skewed }))).json.msg).toBe('未查询到可辅种数据');
  });

  it('honours timestampWindowSeconds', async () => {
    service.control.timestampWindowSeconds = 10;
    const old = String(Math.floor(Date.now() / 1000) - 30);
    expect((await listLookup(listFields([UNKNOWN_HASH], { timestamp: old }))).json.msg).toBe('时间戳已过期');
  });
});

describe('POST /spider/reseed/index', () => {
  const signedFields = (change: Record<string, string | undefined> = {}) => {
    const timestamp = change.timestamp ?? now();
    const fields: Record<string, string | undefined> = {
      info_hash: groupTitled(service, 'Godzilla').members[0]!.info_hash,
      sign: nodeSha1(`${timestamp}demo-secret`),
      appid: 'demo-app',
      timestamp,
      version: VERSION,
      ...change,
    };
    return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined));
  };
  const signedLookup = (fields: Record<string, string>, headers: Record<string, string> = {}) => post(service, '/spider/reseed/index', fields, headers);

  it('answers code 200 with data [{hash, torrent}], needing no token', async () => {
    const fields = signedFields();
    const answer = await signedLookup(fields);
    expect(answer.json.code).toBe(200);
    const data = answer.json.data as { hash: string; torrent: unknown[] }[];
    expect(data).toHaveLength(1);
    expect(data[0]!.hash).toBe(fields.info_hash);
    expect(data[0]!.torrent).toHaveLength(3);
  });

  it('refuses an expired timestamp with code 403 and no data field', async () => {
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    const answer = await signedLookup(signedFields({ timestamp: old }));
    expect(answer.json).toEqual({ code: 403, msg: '时间戳已过期' });
    expect('data' in answer.json).toBe(false);
  });

  it.each([
    ['a wrong sign', { sign: nodeSha1('wrong') }, { code: 403, msg: '签名错误' }],
    ['a sign of the secret alone', { sign: nodeSha1('demo-secret') }, { code: 403, msg: '签名错误' }],
    ['an unknown appid', { appid: 'nobody' }, { code: 403, msg: 'appid无效' }],
    ['a missing appid', { appid: undefined }, { code: 400, msg: 'appid require' }],
    ['a missing sign', { sign: undefined }, { code: 400, msg: 'sign require' }],
    ['a missing version', { version: undefined }, { code: 400, msg: 'version require' }],
    ['a missing info_hash', { info_hash: undefined }, { code: 400, msg: 'info_hash require' }],
    ['an info_hash that is not 40 hex', { info_hash: 'abc' }, { code: 400, msg: 'info_hash格式错误' }],
  ])('refuses %s (no data field)', async (_, change, expected) => {
    expect((await signedLookup(signedFields(change))).json).toEqual(expected);
  });
});

describe('sites, recommendations, profile', () => {
  it('serves the site list verbatim to any registered token', async () => {
    const answer = await get(service, '/reseed/sites/index', { Token: 'demo-unbound-token' });
    expect(answer.json).toEqual({ code: 0, msg: 'ok', data: { sites: service.data.sites } });
    expect((await get(service, '/reseed/sites/index')).json.msg).toBe('请求缺少token');
  });

  it('serves the recommended list with its count', async () => {
    const answer = await get(service, '/reseed/sites/recommend', TOKEN);
    expect(answer.json.data).toEqual({ count: service.data.recommend.length, list: service.data.recommend });
  });

  it('answers the profile even for an expired token, but nothing else', async () => {
    const expired = { Token: 'demo-expired-token' };
    expect(((await get(service, '/reseed/users/profile', expired)).json.data as { overdue_time: number }).overdue_time).toBe(1577836800);
    expect((await get(service, '/reseed/sites/recommend', expired)).json).toEqual({ code: 403, msg: 'token已过期', data: [] });
  });
});

describe('POST /reseed/sites/reportExisting', () => {
  const report = (body: string, contentType: string, token = 'demo-token') => post(service, '/reseed/sites/reportExisting', body, { Token: token, 'Content-Type': contentType });
  const sidSha1 = (answer: { json: Record<string, unknown> }) => (answer.json.data as { sid_sha1?: string }).sid_sha1;

  it('gives the same sid_sha1 for the same list, however it is encoded or ordered', async () => {
    const form = sidSha1(await report('sid_list[0]=4&sid_list[1]=1', 'application/x-www-form-urlencoded'));
    expect(form).toMatch(/^[0-9a-f]{40}$/);
    expect(sidSha1(await report('{"sid_list":[1,4,4]}', 'application/json'))).toBe(form);
    expect(sidSha1(await report('sid_list[]=1&sid_list[]=4', 'application/x-www-form-urlencoded'))).toBe(form);
    expect(sidSha1(await report('sid_list%5B0%5D=1&sid_list%5B1%5D=4', 'application/x-www-form-urlencoded'))).toBe(form);
  });

  it('issues a sid_sha1 per token: the list lookup takes it only from that token', async () => {
    const mine = sidSha1(await report('sid_list[0]=1', 'application/x-www-form-urlencoded'));
    const theirs = sidSha1(await report('sid_list[0]=1', 'application/x-www-form-urlencoded', 'demo-forever-token'));
    expect(theirs).not.toBe(mine);
    expect((await listLookup(listFields([UNKNOWN_HASH], { sid_sha1: theirs }))).json.msg).toBe('站点缓存哈希值无效');
    expect((await listLookup(listFields([UNKNOWN_HASH], { sid_sha1: mine }))).json.msg).toBe('未查询到可辅种数据');
  });

  it('lets a sid_sha1 expire after siteHashTtlSeconds', async () => {
    service.control.siteHashTtlSeconds = 0;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await listLookup(listFields([UNKNOWN_HASH]))).json.msg).toBe('站点缓存哈希值无效');
  });

  it.each([
    ['no list', '', 'application/x-www-form-urlencoded', '缺少sid_list'],
    ['an empty JSON list', '{"sid_list":[]}', 'application/json', '缺少sid_list'],
    ['broken JSON', '{"sid_list":', 'application/json', '缺少sid_list'],
    ['a non-numeric sid', 'sid_list[0]=hdsky', 'application/x-www-form-urlencoded', 'sid_list格式错误'],
    ['a negative sid', '{"sid_list":[-1]}', 'application/json', 'sid_list格式错误'],
  ])('refuses %s', async (_, body, type, msg) => {
    expect((await report(body, type)).json).toEqual({ code: 400, msg, data: [] });
  });
});

describe('POST /reseed/users/bind', () => {
  const unbound = { Token: 'demo-unbound-token' };
  const account = () => service.data.accounts.find((entry) => entry.site === 'zmpt')!;
  const bindFields = (change: Record<string, string> = {}) => ({
    token: 'demo-unbound-token',
    id: account().user_id,
    site: 'zmpt',
    sid: String(sidOf(service, 'zmpt')),
    passkey: nodeSha1(account().passkey),
    ...change,
  });
  const bind = (fields: Record<string, string>, headers = unbound) => post(service, '/reseed/users/bind', fields, headers);

  it('binds with the SHA-1 of the raw passkey, once', async () => {
    expect((await bind(bindFields())).json).toEqual({ code: 0, msg: '绑定成功', data: [] });
    expect(service.control.binding('demo-unbound-token')).toEqual({ site: 'zmpt', user_id: account().user_id });
    expect((await bind(bindFields())).json).toEqual({ code: 400, msg: '用户已绑定，请勿重复操作', data: [] });
  });

  it.each([
    ['the raw passkey', () => ({ passkey: account().passkey }), 'passkey应为sha1值，请勿提交明文passkey'],
    ['an uppercase raw passkey', () => ({ passkey: account().passkey.toUpperCase() }), 'passkey应为sha1值，请勿提交明文passkey'],
    ['the SHA-1 of another passkey', () => ({ passkey: nodeSha1('other') }), '绑定失败：站点用户校验未通过'],
    ['another user id', () => ({ id: '1' }), '绑定失败：站点用户校验未通过'],
    ['a sid that is not the site’s', () => ({ sid: String(sidOf(service, 'hdsky')) }), '该站点不在推荐站点列表'],
    ['a body token unlike the header', () => ({ token: 'demo-token' }), '参数token与请求头Token不一致'],
    ['a missing passkey', () => ({ passkey: '' }), 'passkey require'],
  ])('refuses %s', async (_, change, msg) => {
    expect((await bind(bindFields(change()))).json).toEqual({ code: 400, msg, data: [] });
    expect(service.control.binding('demo-unbound-token')).toBeUndefined();
  });
});

describe('HTTP', () => {
  it('answers 404 for unknown paths and 405 for wrong methods', async () => {
    const missing = await get(service, '/reseed/index/nothing', TOKEN);
    expect(missing.status).toBe(404);
    const wrong = await get(service, '/reseed/index/index', TOKEN);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('refuses more than 1 MB of request body with 413', async () => {
    const answer = await post(service, '/reseed/index/index', `hash=${'a'.repeat(1024 * 1024 + 10)}`, TOKEN);
    expect(answer.status).toBe(413);
  });

  it('answers whatever the Host header, and absolute-form (proxy) request targets', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port: service.port, method: 'GET', path: 'http://2025.iyuu.cn/reseed/sites/recommend', headers: { Host: '2025.iyuu.cn', Token: 'demo-token' } },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).code).toBe(0);
    const recorded = service.requests.at(-1)!;
    expect(recorded.path).toBe('/reseed/sites/recommend');
    expect(recorded.url).toBe('http://2025.iyuu.cn/reseed/sites/recommend');
    expect(recorded.headers.host).toBe('2025.iyuu.cn');
  });

  it('lets another server delegate to handle()', async () => {
    const proxy = createServer((req, res) => service.handle(req, res));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/reseed/users/profile`, { headers: TOKEN });
      expect(((await response.json()) as { data: { state: number } }).data.state).toBe(1);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('records method, path, headers, body and time of each request', async () => {
    const before = Date.now();
    await post(service, '/reseed/index/index', 'a=1&b=%5B%5D', TOKEN);
    const recorded = service.requests.at(-1)!;
    expect(recorded).toMatchObject({ method: 'POST', path: '/reseed/index/index', body: 'a=1&b=%5B%5D' });
    expect(recorded.headers.token).toBe('demo-token');
    expect(recorded.time).toBeGreaterThanOrEqual(before);
  });

  it('sends 429 with Retry-After and the rate-limit data when over the limit', async () => {
    service.control.rateLimit = { ...service.control.rateLimit, max: 1, windowSeconds: 30 };
    service.control.resetRateLimits();
    expect((await get(service, '/reseed/users/profile', TOKEN)).status).toBe(200);
    const limited = await get(service, '/reseed/users/profile', TOKEN);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(limited.json).toEqual({
      code: 429,
      msg: '访问频率过快',
      data: { 'Retry-After': retryAfter, 'X-RateLimit-Limit': 1, 'X-RateLimit-Reset': expect.any(Number) },
    });
    service.control.resetRateLimits();
    expect((await get(service, '/reseed/users/profile', TOKEN)).status).toBe(200);
  });

  it('spoils only as many answers as asked, on the path asked', async () => {
    service.control.badBody('html', 1, '/reseed/sites/index');
    expect((await get(service, '/reseed/users/profile', TOKEN)).status).toBe(200);
    const spoiled = await fetch(`${service.url}/reseed/sites/index`, { headers: TOKEN });
    expect(spoiled.headers.get('content-type')).toContain('text/html');
    await spoiled.text();
    expect((await get(service, '/reseed/sites/index', TOKEN)).json.code).toBe(0);
  });

  it('takes settings and faults at start, and reset() brings them back', async () => {
    const faulty = await startReferenceService({ forceStatus: { status: 503, count: 1 }, badBody: { mode: 'empty', count: 1, path: '/reseed/users/profile' }, delayMs: 1 });
    try {
      expect(faulty.control.delayMs).toBe(1);
      expect((await fetch(`${faulty.url}/reseed/sites/index`, { headers: TOKEN })).status).toBe(503);
      expect(await (await fetch(`${faulty.url}/reseed/users/profile`, { headers: TOKEN })).text()).toBe('');
      expect((await get(faulty, '/reseed/users/profile', TOKEN)).json.code).toBe(0);
      faulty.control.reset();
      expect((await fetch(`${faulty.url}/reseed/sites/index`, { headers: TOKEN })).status).toBe(503);
    } finally {
      await faulty.close();
    }
  });

  it('answers slowly with delayMs', async () => {
    service.control.delayMs = 200;
    const started = Date.now();
    await get(service, '/reseed/users/profile', TOKEN);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('reset() restores bindings, settings and overrides', async () => {
    const account = service.data.accounts.find((entry) => entry.site === 'zmpt')!;
    const fields = { token: 'demo-unbound-token', id: account.user_id, site: 'zmpt', sid: String(sidOf(service, 'zmpt')), passkey: nodeSha1(account.passkey) };
    expect((await post(service, '/reseed/users/bind', fields, { Token: 'demo-unbound-token' })).json.code).toBe(0);
    service.control.delayMs = 5;
    service.control.forceStatus(500, 5);
    service.control.reset();
    expect(service.control.binding('demo-unbound-token')).toBeUndefined();
    expect(service.control.delayMs).toBe(0);
    expect(service.requests).toEqual([]);
    expect((await get(service, '/reseed/users/profile', TOKEN)).status).toBe(200);
  });
});
