/**
 * Failures common to every operation: transport (timeout, refused connection, cancel), HTTP
 * statuses, rate limits and spoiled answers, each through the real client and the reference server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
import { startReferenceService, type BadBodyMode, type ReferenceService } from '../../service/server';
import { SERVER_FAILURE_BODY_MODES } from '../../service/bad-bodies';
import { UNKNOWN_HASH, allSids, configFor, failure, sidOf } from './support';

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

interface Operation {
  name: string;
  path: string;
  run(config: ServiceConfig): Promise<unknown>;
  /** Body spoilings this operation must refuse beyond those that break the envelope. */
  refuses: BadBodyMode[];
}

const OPERATIONS: Operation[] = [
  {
    name: 'lookupBatch',
    path: '/reseed/index/index',
    run: (config) => lookupBatch(config, [UNKNOWN_HASH, service.data.torrents[0]!.members[0]!.info_hash], siteHash),
    refuses: ['wrong-types', 'missing-fields', 'bad-hash', 'string-id'],
  },
  {
    name: 'lookupSigned',
    path: '/spider/reseed/index',
    run: (config) => lookupSigned({ ...config, appId: 'demo-app', secret: 'demo-secret' }, service.data.torrents[0]!.members[0]!.info_hash),
    refuses: ['wrong-types', 'missing-fields', 'bad-hash', 'string-id'],
  },
  { name: 'getRecommendedSites', path: '/reseed/sites/recommend', run: getRecommendedSites, refuses: ['wrong-types', 'missing-fields', 'string-id'] },
  { name: 'getSites', path: '/reseed/sites/index', run: getSites, refuses: ['missing-fields'] },
  { name: 'reportExisting', path: '/reseed/sites/reportExisting', run: (config) => reportExisting(config, [1, 4]), refuses: ['wrong-types', 'missing-fields', 'bad-hash'] },
  // Wrong types in the profile's fields are not refused: each field takes its default (sites-and-users.test.ts).
  { name: 'getProfile', path: '/reseed/users/profile', run: getProfile, refuses: ['missing-fields'] },
  {
    name: 'bindAccount',
    path: '/reseed/users/bind',
    run: (config) => {
      const account = service.data.accounts.find((entry) => entry.site === 'hdhome' && entry.user_id === '120087')!;
      return bindAccount({ ...config, token: 'demo-unbound-token' }, { sid: sidOf(service, 'hdhome'), site: 'hdhome', userId: account.user_id, passkey: account.passkey });
    },
    refuses: [],
  },
];

/** Spoilings that break the envelope itself: every operation refuses them. */
const ENVELOPE_BREAKERS: BadBodyMode[] = ['html', 'truncated-json', 'empty', 'json-null', 'not-envelope', 'huge', 'huge-chunked'];

describe.each(OPERATIONS)('$name', (operation) => {
  it('succeeds against the reference server', async () => {
    await operation.run(configFor(service));
  });

  it.each([...ENVELOPE_BREAKERS, ...operation.refuses])('refuses a %s answer as bad-answer', async (mode) => {
    service.control.badBody(mode, 1, operation.path);
    await failure(operation.run(configFor(service)), 'bad-answer');
  });

  it.each(SERVER_FAILURE_BODY_MODES)('takes a %s answer as the server failing (transient), not as a refusal or a broken answer', async (mode) => {
    service.control.badBody(mode, 1, operation.path);
    const error = await failure(operation.run(configFor(service)), 'server');
    expect(error.httpStatus).toBe(200);
  });

  it('fails with timeout when the answer is slower than timeoutMs', async () => {
    // Longer than the test may take: had the client waited the answer out, the test would time out.
    service.control.delayMs = 120_000;
    const error = await failure(operation.run(configFor(service, { timeoutMs: 100 })), 'timeout');
    expect(error.detail).toContain('100 ms');
  });

  it('fails with server for HTTP 5xx, with or without an envelope', async () => {
    service.control.forceStatus(500, 1, { path: operation.path });
    const json = await failure(operation.run(configFor(service)), 'server');
    expect(json).toMatchObject({ httpStatus: 500, code: 500, serviceMessage: 'Internal Server Error' });
    service.control.forceStatus(502, 1, { path: operation.path, body: 'html' });
    expect((await failure(operation.run(configFor(service)), 'server')).httpStatus).toBe(502);
  });

  it('fails with rate-limited after too many requests, with retryAt from Retry-After', async () => {
    service.control.rateLimit = { ...service.control.rateLimit, max: 0, windowSeconds: 45 };
    const now = Date.now();
    const error = await failure(operation.run(configFor(service, { now: () => now })), 'rate-limited');
    expect(error.httpStatus).toBe(429);
    expect(error.serviceMessage).toBe('访问频率过快');
    expect(error.retryAt! - now).toBeGreaterThanOrEqual(44_000);
    expect(error.retryAt! - now).toBeLessThanOrEqual(45_000);
  });
});

describe('transport', () => {
  it('fails with network when nothing listens on the port', async () => {
    const closed = await startReferenceService();
    const url = closed.url;
    await closed.close();
    const error = await failure(getProfile(configFor(service, { baseUrl: url })), 'network');
    expect(error.detail).toMatch(/could not be reached/);
  });

  it('fails with network (cancelled) when the caller aborts, and does not wait for the answer', async () => {
    // Longer than the test may take: had the call waited for the answer, the test would time out.
    service.control.delayMs = 120_000;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(getProfile(configFor(service, { signal: controller.signal })), 'network');
    expect(error.detail).toContain('cancelled');

    const already = new AbortController();
    already.abort();
    expect((await failure(getProfile(configFor(service, { signal: already.signal })), 'network')).detail).toContain('cancelled');
  });

  it('refuses a base address that is not http(s)', async () => {
    await failure(getProfile(configFor(service, { baseUrl: 'ftp://2025.iyuu.cn' })), 'bad-request');
    await failure(getProfile(configFor(service, { baseUrl: 'not a url' })), 'bad-request');
    expect(service.requests).toHaveLength(0);
  });

  it('falls back to the default timeout for a nonsensical timeoutMs', async () => {
    service.control.delayMs = 150;
    await getProfile(configFor(service, { timeoutMs: -1 }));
    await getProfile(configFor(service, { timeoutMs: Number.NaN }));
  });

  it('refuses an oversized answer by its Content-Length before reading it', async () => {
    service.control.rawAnswer({ body: '{"code":0,"msg":"ok","data":{"state":1}}', headers: { 'X-Note': 'small body' } });
    await getProfile(configFor(service));
    service.control.badBody('huge', 1);
    expect((await failure(getProfile(configFor(service)), 'bad-answer')).detail).toContain('larger');
  });
});

describe('HTTP statuses', () => {
  it.each([
    [401, 'auth'],
    [403, 'bad-request'],
    [404, 'bad-request'],
    [400, 'bad-request'],
    [503, 'server'],
  ] as const)('maps a bare HTTP %i to %s', async (status, kind) => {
    service.control.forceStatus(status, 1, { body: 'html' });
    expect((await failure(getProfile(configFor(service)), kind)).httpStatus).toBe(status);
  });

  it('maps a 204 without a body to bad-answer', async () => {
    service.control.rawAnswer({ status: 204, body: '' });
    await failure(getProfile(configFor(service)), 'bad-answer');
  });
});

describe('rate limits', () => {
  const limit = (settings: Partial<ReferenceService['control']['rateLimit']>) => {
    service.control.rateLimit = { ...service.control.rateLimit, max: 1, windowSeconds: 20, ...settings };
    service.control.resetRateLimits(); // the site report in beforeEach counted already
  };

  it('counts every operation of one token, and other tokens separately', async () => {
    limit({});
    await getProfile(configFor(service));
    await failure(getSites(configFor(service)), 'rate-limited');
    await getProfile(configFor(service, { token: 'demo-unbound-token' }));
  });

  it.each(['header', 'body'] as const)('reads Retry-After from the %s alone', async (retryAfterIn) => {
    limit({ retryAfterIn, max: 0 });
    const now = Date.now();
    const error = await failure(getProfile(configFor(service, { now: () => now })), 'rate-limited');
    expect(error.retryAt! - now).toBeGreaterThanOrEqual(19_000);
    expect(error.retryAt! - now).toBeLessThanOrEqual(20_000);
  });

  it('waits 30 s when the service does not say how long', async () => {
    limit({ retryAfterIn: 'none', max: 0 });
    const now = 1_700_000_000_000;
    // now() only feeds retryAt here: the timestamp does not matter to the profile.
    expect((await failure(getProfile(configFor(service, { now: () => now })), 'rate-limited')).retryAt).toBe(now + 30_000);
  });

  it('recognises the envelope form (HTTP 200, code 400, 辅种间隔过于频繁)', async () => {
    limit({ style: 'envelope', retryAfterIn: 'body', max: 0 });
    const now = Date.now();
    const error = await failure(lookupBatch(configFor(service, { now: () => now }), [UNKNOWN_HASH], siteHash), 'rate-limited');
    expect(error).toMatchObject({ httpStatus: 200, code: 400, serviceMessage: '辅种间隔过于频繁' });
    expect(error.retryAt! - now).toBeGreaterThanOrEqual(19_000);
  });

  it('reads an HTTP-date Retry-After against the service clock', async () => {
    const serverNow = Date.now();
    service.control.rawAnswer({
      status: 429,
      headers: { 'Retry-After': new Date(serverNow + 90_000).toUTCString(), Date: new Date(serverNow).toUTCString() },
      body: '{"code":429,"msg":"访问频率过快","data":[]}',
    });
    const now = 5_000_000;
    const error = await failure(getProfile(configFor(service, { now: () => now })), 'rate-limited');
    expect(error.retryAt! - now).toBeGreaterThanOrEqual(89_000);
    expect(error.retryAt! - now).toBeLessThanOrEqual(91_000);
  });

  it('gives up waiting on an absurd Retry-After after a day', async () => {
    service.control.rawAnswer({ status: 429, headers: { 'Retry-After': '99999999' }, body: '' });
    const now = 1_000;
    expect((await failure(getProfile(configFor(service, { now: () => now })), 'rate-limited')).retryAt).toBe(now + 86_400_000);
  });
});

describe("the reference service's hold (tests see a state that lasts while a request is out)", () => {
  it('keeps a held path unanswered until released, while other paths answer', async () => {
    const release = service.control.hold('/reseed/index/index');
    let answered = false;
    const held = lookupBatch(configFor(service), [UNKNOWN_HASH], siteHash).then((answer) => {
      answered = true;
      return answer;
    });
    // Arrived (recorded) before the next request is even sent, so an unheld answer would come first.
    for (let tries = 0; !service.requests.some((request) => request.path === '/reseed/index/index'); tries++) {
      if (tries > 2000) throw new Error('the held request never arrived');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await getProfile(configFor(service));
    expect(answered).toBe(false);
    release();
    await held;
    expect(answered).toBe(true);
  });

  it('reset() lets held requests go', async () => {
    service.control.hold();
    const profile = getProfile(configFor(service));
    for (let tries = 0; !service.requests.some((request) => request.path === '/reseed/users/profile'); tries++) {
      if (tries > 2000) throw new Error('the held request never arrived');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    service.control.reset();
    await expect(profile).resolves.toBeDefined();
  });
});
