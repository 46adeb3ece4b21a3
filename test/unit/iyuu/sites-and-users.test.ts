/** Recommended sites, the site list, the site report, the profile and binding, against the reference server. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bindAccount, getProfile, getRecommendedSites, getSites, lookupBatch, reportExisting } from '../../../utils/iyuu/operations';
import { startReferenceService, type ReferenceService } from '../../service/server';
import { allSids, configFor, expectedCandidates, failure, formOf, groupTitled, nodeSha1, sidOf, sortCandidates } from './support';

let service: ReferenceService;

beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());
beforeEach(() => service.control.reset());

const only = (path: string) => service.requests.filter((request) => request.path === path);

describe('getRecommendedSites', () => {
  it('returns the recommended sites with their count, sending only the Token header on a GET', async () => {
    const { count, list } = await getRecommendedSites(configFor(service));
    expect(count).toBe(service.data.recommend.length);
    expect(list).toEqual(service.data.recommend);
    expect(list.map((site) => site.site)).toContain('ourbits');
    const [request] = only('/reseed/sites/recommend');
    expect(request!.method).toBe('GET');
    expect(request!.headers.token).toBe('demo-token');
    expect(request!.headers['content-type']).toBeUndefined();
    expect(request!.body).toBe('');
  });

  it('works for a token that is not bound yet (binding needs it)', async () => {
    expect((await getRecommendedSites(configFor(service, { token: 'demo-unbound-token' }))).list.length).toBeGreaterThan(0);
  });

  it('keeps markup in names as plain text, for the UI to render as text', async () => {
    service.control.badBody('markup', 1, '/reseed/sites/recommend');
    const { list } = await getRecommendedSites(configFor(service));
    expect(list[0]!.nickname).toBe(`${service.data.recommend[0]!.nickname}<img src=x onerror=alert(1)>`);
  });

  it('fails with auth for an unknown token and no-credentials without one', async () => {
    const error = await failure(getRecommendedSites(configFor(service, { token: 'nobody' })), 'auth');
    expect(error.serviceMessage).toBe('token未注册，请先绑定推荐站点');
    await failure(getRecommendedSites(configFor(service, { token: undefined })), 'no-credentials');
  });
});

describe('getSites', () => {
  it('returns every site of the list, none skipped', async () => {
    const { sites, skipped } = await getSites(configFor(service));
    expect(skipped).toBe(0);
    expect(sites).toHaveLength(service.data.sites.length);
    const mteam = sites.find((site) => site.site === 'm-team')!;
    expect(mteam).toMatchObject({ base_url: 'api.m-team.cc', details_page: 'detail/{}' });
    expect(sites.find((site) => site.site === 'dmhy')!.base_url).toBe('u2.dmhy.org');
    expect(only('/reseed/sites/index')[0]!.headers.token).toBe('demo-token');
  });

  it('skips and counts entries that are not valid sites, and a second entry with a known id', async () => {
    const good = { id: 4, site: 'hdsky', nickname: 'HDSky', base_url: 'HDSky.me', details_page: 'details.php?id={}', download_page: '', is_https: '1', cookie_required: 0 };
    const bad = [
      { ...good, id: 99, base_url: 'https://evil.example/x' },
      { ...good, id: 98, details_page: 'javascript:alert(1)' },
      { ...good, id: 'x' },
      { ...good, id: 97, base_url: 'evil.example"><script>' },
      null,
      'hdsky',
      { ...good, nickname: 'duplicate id' },
    ];
    service.control.rawAnswer({ body: JSON.stringify({ code: 0, msg: 'ok', data: { sites: [good, ...bad] } }) });
    const { sites, skipped } = await getSites(configFor(service));
    expect(sites).toEqual([{ ...good, base_url: 'hdsky.me', is_https: 1 }]);
    expect(skipped).toBe(bad.length);
  });

  it.each(['markup', 'string-id', 'wrong-types'] as const)('skips every entry of a %s answer', async (mode) => {
    service.control.badBody(mode, 1, '/reseed/sites/index');
    const { sites, skipped } = await getSites(configFor(service));
    expect(sites).toEqual([]);
    expect(skipped).toBe(service.data.sites.length);
  });

  it('refuses an answer without the list', async () => {
    service.control.badBody('missing-fields', 1, '/reseed/sites/index');
    await failure(getSites(configFor(service)), 'bad-answer');
  });
});

describe('reportExisting', () => {
  it('posts the sorted, de-duplicated sids as sid_list[n] form fields and returns the sid_sha1', async () => {
    const sidSha1 = await reportExisting(configFor(service), [7, 1, 4, 7]);
    expect(sidSha1).toMatch(/^[0-9a-f]{40}$/);
    const [request] = only('/reseed/sites/reportExisting');
    expect(request!.method).toBe('POST');
    expect(request!.headers.token).toBe('demo-token');
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect([...formOf(request)]).toEqual([
      ['sid_list[0]', '1'],
      ['sid_list[1]', '4'],
      ['sid_list[2]', '7'],
    ]);
    expect(request!.body).toBe('sid_list%5B0%5D=1&sid_list%5B1%5D=4&sid_list%5B2%5D=7');
    expect(await reportExisting(configFor(service), [4, 1, 7])).toBe(sidSha1);
    expect(await reportExisting(configFor(service), [1, 4])).not.toBe(sidSha1);
  });

  it('refuses an empty or odd list without asking', async () => {
    await failure(reportExisting(configFor(service), []), 'bad-request');
    await failure(reportExisting(configFor(service), [1, -2]), 'bad-request');
    await failure(reportExisting(configFor(service), [1.5]), 'bad-request');
    expect(service.requests).toHaveLength(0);
  });

  it('fails with not-bound for an unbound token', async () => {
    await failure(reportExisting(configFor(service, { token: 'demo-unbound-token' }), [1]), 'not-bound');
  });

  it.each(['wrong-types', 'missing-fields', 'bad-hash'] as const)('refuses a %s answer', async (mode) => {
    service.control.badBody(mode, 1, '/reseed/sites/reportExisting');
    await failure(reportExisting(configFor(service), [1]), 'bad-answer');
  });
});

describe('getProfile', () => {
  it("tells a bound token's state and expiry", async () => {
    const profile = await getProfile(configFor(service));
    expect(profile).toMatchObject({ state: 1, overdue_time: 4102444800, is_ever_level: 0 });
    expect(only('/reseed/users/profile')[0]!.headers.token).toBe('demo-token');
  });

  it('tells an unbound token apart, and still answers for an expired one', async () => {
    expect((await getProfile(configFor(service, { token: 'demo-unbound-token' }))).state).toBe(0);
    const expired = await getProfile(configFor(service, { token: 'demo-expired-token' }));
    expect(expired.overdue_time! * 1000).toBeLessThan(Date.now());
  });

  it('refuses a profile without data', async () => {
    service.control.badBody('missing-fields', 1, '/reseed/users/profile');
    await failure(getProfile(configFor(service)), 'bad-answer');
  });
});

describe('bindAccount', () => {
  const hdhome = () => service.data.accounts.find((account) => account.site === 'hdhome' && account.user_id === '120087')!;
  const unbound = () => configFor(service, { token: 'demo-unbound-token' });

  it('binds with the SHA-1 of the passkey, never the passkey, and the token then works', async () => {
    const account = hdhome();
    const message = await bindAccount(unbound(), { sid: sidOf(service, 'hdhome'), site: 'hdhome', userId: account.user_id, passkey: ` ${account.passkey} ` });
    expect(message).toBe('绑定成功');

    const [request] = only('/reseed/users/bind');
    expect(request!.method).toBe('POST');
    expect(request!.headers.token).toBe('demo-unbound-token');
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = formOf(request);
    expect([...form.keys()].sort()).toEqual(['id', 'passkey', 'sid', 'site', 'token']);
    expect(Object.fromEntries(form)).toEqual({
      token: 'demo-unbound-token',
      id: account.user_id,
      site: 'hdhome',
      sid: String(sidOf(service, 'hdhome')),
      passkey: nodeSha1(account.passkey),
    });
    const everything = JSON.stringify(service.requests).toLowerCase();
    expect(everything).not.toContain(account.passkey.toLowerCase());

    expect((await getProfile(unbound())).state).toBe(1);
    const sidSha1 = await reportExisting(unbound(), allSids(service));
    const member = groupTitled(service, 'Better.Call.Saul').members[0]!;
    const found = await lookupBatch(unbound(), [member.info_hash], sidSha1);
    expect(sortCandidates(found.get(member.info_hash)!)).toEqual(expectedCandidates(service, member.info_hash));
  });

  it('fails with the service message for a wrong passkey, a site outside the list, or an account bound elsewhere', async () => {
    const account = hdhome();
    const sid = sidOf(service, 'hdhome');
    const wrong = await failure(bindAccount(unbound(), { sid, site: 'hdhome', userId: account.user_id, passkey: 'not it' }), 'bad-request');
    expect(wrong.serviceMessage).toBe('绑定失败：站点用户校验未通过');
    expect(wrong.code).toBe(400);
    const notRecommended = await failure(bindAccount(unbound(), { sid: sidOf(service, 'hdsky'), site: 'hdsky', userId: '1', passkey: 'x' }), 'bad-request');
    expect(notRecommended.serviceMessage).toBe('该站点不在推荐站点列表');
    const ourbits = service.data.accounts.find((entry) => entry.site === 'ourbits')!;
    const taken = await failure(
      bindAccount(unbound(), { sid: sidOf(service, 'ourbits'), site: 'ourbits', userId: ourbits.user_id, passkey: ourbits.passkey }),
      'bad-request',
    );
    expect(taken.serviceMessage).toBe('该站点账号已被其他token绑定');
    expect(service.control.binding('demo-unbound-token')).toBeUndefined();
  });

  it('fails with code 400 when the token is already bound', async () => {
    const account = hdhome();
    const error = await failure(bindAccount(configFor(service), { sid: sidOf(service, 'hdhome'), site: 'hdhome', userId: account.user_id, passkey: account.passkey }), 'bad-request');
    expect(error.code).toBe(400);
    expect(error.serviceMessage).toBe('用户已绑定，请勿重复操作');
  });

  it('refuses an account that cannot be right without asking', async () => {
    await failure(bindAccount(unbound(), { sid: 3, site: 'hdhome', userId: 'alice', passkey: 'x' }), 'bad-request');
    await failure(bindAccount(unbound(), { sid: 3, site: 'hdhome', userId: '1', passkey: '   ' }), 'bad-request');
    await failure(bindAccount(unbound(), { sid: -1, site: 'hdhome', userId: '1', passkey: 'x' }), 'bad-request');
    await failure(bindAccount(configFor(service, { token: undefined }), { sid: 3, site: 'hdhome', userId: '1', passkey: 'x' }), 'no-credentials');
    expect(service.requests).toHaveLength(0);
  });
});
