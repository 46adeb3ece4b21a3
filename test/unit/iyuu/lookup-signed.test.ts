/** Spec 4.2 (App ID + Secret signature, no token) through the client, against the reference server. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lookupSigned } from '../../../utils/iyuu/operations';
import { BAD_BODY_MODES, INVENTED_HASH, startReferenceService, type ReferenceService } from '../../service/server';
import { UNKNOWN_HASH, VERSION, configFor, expectedCandidates, failure, formOf, groupTitled, nodeSha1, sortCandidates } from './support';

let service: ReferenceService;

beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());
beforeEach(() => service.control.reset());

/** A signed config that also carries a token, to prove the token stays home. */
const signed = (overrides = {}) => configFor(service, { appId: 'demo-app', secret: 'demo-secret', ...overrides });
const PATH = '/spider/reseed/index';

describe('lookupSigned', () => {
  it("returns the other members of the torrent's group, on every site", async () => {
    const member = groupTitled(service, 'Interstellar').members[1]!;
    const candidates = await lookupSigned(signed(), member.info_hash);
    expect(sortCandidates(candidates)).toEqual(expectedCandidates(service, member.info_hash));
    expect(candidates).toHaveLength(5);
  });

  it('signs with sha1(timestamp + secret), form-encoded, and never sends the token', async () => {
    const member = groupTitled(service, 'Interstellar').members[0]!;
    await lookupSigned(signed(), `  ${member.info_hash.toUpperCase()}`);
    const [request] = service.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe(PATH);
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request!.headers.token).toBeUndefined();
    expect(request!.body).not.toContain('demo-token');
    const form = formOf(request);
    expect([...form.keys()].sort()).toEqual(['appid', 'info_hash', 'sign', 'timestamp', 'version']);
    expect(form.get('info_hash')).toBe(member.info_hash);
    expect(form.get('appid')).toBe('demo-app');
    expect(form.get('version')).toBe(VERSION);
    expect(form.get('sign')).toBe(nodeSha1(`${form.get('timestamp')}demo-secret`));
    expect(Math.abs(Number(form.get('timestamp')) - Date.now() / 1000)).toBeLessThan(3);
  });

  it('returns [] for a hash without candidates', async () => {
    expect(await lookupSigned(signed(), UNKNOWN_HASH)).toEqual([]);
    expect(await lookupSigned(signed(), groupTitled(service, 'Cui.Jian').members[0]!.info_hash)).toEqual([]);
  });

  it('returns [] when the service says 未查询到可辅种数据', async () => {
    service.control.rawAnswer({ body: JSON.stringify({ code: 400, msg: '未查询到可辅种数据' }) });
    expect(await lookupSigned(signed(), UNKNOWN_HASH)).toEqual([]);
  });

  it('ignores entries for hashes it did not ask for', async () => {
    const member = groupTitled(service, 'Suzume').members[0]!;
    service.control.badBody('invented-keys', 1, PATH);
    const candidates = await lookupSigned(signed(), member.info_hash);
    expect(sortCandidates(candidates)).toEqual(expectedCandidates(service, member.info_hash));
    expect(JSON.stringify(candidates)).not.toContain(INVENTED_HASH);
  });

  it.each([3600, -900])('fails with expired-timestamp (code 403, no data) when the service clock is %i s off, and the offset cures it', async (skew) => {
    service.control.clockSkewSeconds = skew;
    const member = groupTitled(service, 'Suzume').members[1]!;
    const error = await failure(lookupSigned(signed(), member.info_hash), 'expired-timestamp');
    expect(error.code).toBe(403);
    expect(error.serviceMessage).toBe('时间戳已过期');
    expect(Math.abs(error.clockOffsetSeconds! - skew)).toBeLessThanOrEqual(2);
    expect(await lookupSigned(signed({ clockOffsetSeconds: error.clockOffsetSeconds }), member.info_hash)).toHaveLength(3);
  });

  it('reads a bare code 403 as the expired timestamp (spec 5 rule 1), without a Date header offset', async () => {
    service.control.rawAnswer({ body: '{"code":403,"msg":""}' });
    const error = await failure(lookupSigned(signed(), UNKNOWN_HASH), 'expired-timestamp');
    expect(Math.abs(error.clockOffsetSeconds!)).toBeLessThanOrEqual(2); // the reference server's Date header is its (unskewed) clock
  });

  it('fails with bad-sign for a wrong secret or an unknown App ID', async () => {
    const wrongSecret = await failure(lookupSigned(signed({ secret: 'guess' }), UNKNOWN_HASH), 'bad-sign');
    expect(wrongSecret.serviceMessage).toBe('签名错误');
    expect(wrongSecret.code).toBe(403);
    const unknownApp = await failure(lookupSigned(signed({ appId: 'someone-else' }), UNKNOWN_HASH), 'bad-sign');
    expect(unknownApp.serviceMessage).toBe('appid无效');
  });

  it('needs App ID and Secret before asking', async () => {
    await failure(lookupSigned(signed({ appId: undefined }), UNKNOWN_HASH), 'no-credentials');
    await failure(lookupSigned(signed({ secret: '' }), UNKNOWN_HASH), 'no-credentials');
    await failure(lookupSigned(signed(), 'not a hash'), 'bad-request');
    expect(service.requests).toHaveLength(0);
  });

  it.each(BAD_BODY_MODES)('refuses a %s answer as bad-answer', async (mode) => {
    service.control.badBody(mode, 1, PATH);
    await failure(lookupSigned(signed(), groupTitled(service, 'Suzume').members[0]!.info_hash), 'bad-answer');
  });

  it('refuses the list lookup success code (0) as a refusal, not as a result', async () => {
    const member = groupTitled(service, 'Suzume').members[0]!;
    service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: [{ hash: member.info_hash, torrent: [] }] }) });
    await failure(lookupSigned(signed(), member.info_hash), 'bad-request');
  });
});
