/**
 * Answers in the shapes the real service sends (utils/iyuu/REAL-ANSWERS.md), over loopback HTTP
 * from the reference server: each optional field that is null or missing takes its default alone,
 * each unusable entry is skipped alone, PHP's key-preserving arrays are lists. One test per rule.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  SERVICE_CLIENT_VERSION,
  getProfile,
  getRecommendedSites,
  getSites,
  lookupBatch,
  lookupSigned,
  reportExisting,
} from '../../../utils/iyuu/operations';
import { DEMO_APP_ID, DEMO_SECRET, startReferenceService, type ReferenceService } from '../../service/server';
import { UNKNOWN_HASH, allSids, configFor, failure, formOf } from './support';

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

const answer = (data: unknown, path: string, code = 0) => service.control.rawAnswer({ body: JSON.stringify({ code, msg: 'ok', data }) }, 1, path);
const SITES = '/reseed/sites/index';
const RECOMMEND = '/reseed/sites/recommend';
const PROFILE = '/reseed/users/profile';
const LOOKUP = '/reseed/index/index';
const SIGNED = '/spider/reseed/index';

const hdsky = { id: 4, site: 'hdsky', nickname: '天空', base_url: 'hdsky.me', details_page: 'details.php?id={}', download_page: 'download.php?id={}', is_https: 1, cookie_required: 0 };
const hash = (n: number) => n.toString(16).padStart(2, '0').repeat(20);
const candidate = (sid: number, id: number, n: number) => ({ sid, torrent_id: id, info_hash: hash(n) });

describe('site list: optional fields', () => {
  it.each([
    ['nickname', ''],
    ['details_page', ''],
    ['download_page', ''],
    ['is_https', 1],
    ['cookie_required', 0],
  ] as const)('a null %s takes its default (%j), and the site is kept', async (field, fallback) => {
    answer({ sites: [{ ...hdsky, is_https: 2, cookie_required: 1, [field]: null }, { ...hdsky, id: 7, site: 'hdhome', base_url: 'hdhome.org' }] }, SITES);
    const { sites, skipped } = await getSites(configFor(service));
    expect(skipped).toBe(0);
    expect(sites).toHaveLength(2);
    expect(sites[0]![field]).toEqual(fallback);
    // Only that field: the others are as sent.
    expect(sites[0]).toMatchObject({ id: 4, site: 'hdsky', base_url: 'hdsky.me', ...(field === 'is_https' ? {} : { is_https: 2 }), ...(field === 'cookie_required' ? {} : { cookie_required: 1 }) });
  });

  it('a site without any optional field is kept with every default', async () => {
    answer({ sites: [{ id: 4, site: 'hdsky', base_url: 'hdsky.me' }] }, SITES);
    const { sites } = await getSites(configFor(service));
    expect(sites).toEqual([{ id: 4, site: 'hdsky', nickname: '', base_url: 'hdsky.me', details_page: '', download_page: '', is_https: 1, cookie_required: 0 }]);
  });

  it('ignores fields it does not know', async () => {
    answer({ sites: [{ ...hdsky, reseed_check: 'passkey', mirror: null, sort: 3, group: { a: 1 } }] }, SITES);
    const { sites } = await getSites(configFor(service));
    expect(sites).toEqual([hdsky]);
  });
});

describe('site list: unusable entries are skipped alone', () => {
  it.each([
    ['no id', { ...hdsky, id: undefined }],
    ['a null id', { ...hdsky, id: null }],
    ['a null base_url', { ...hdsky, base_url: null }],
    ['an empty base_url', { ...hdsky, base_url: '' }],
    ['no base_url', { ...hdsky, base_url: undefined }],
    ['disabled: 1 (closed)', { ...hdsky, disabled: 1 }],
    ['closed: true', { ...hdsky, closed: true }],
    ['is_open: 0', { ...hdsky, is_open: 0 }],
    ['status: "closed"', { ...hdsky, status: 'closed' }],
    ['status: "已关站"', { ...hdsky, status: '已关站' }],
  ])('an entry with %s', async (_, bad) => {
    const good = { ...hdsky, id: 7, site: 'hdhome', base_url: 'hdhome.org' };
    answer({ sites: [bad, good] }, SITES);
    const { sites, skipped } = await getSites(configFor(service));
    expect(skipped).toBe(1);
    expect(sites).toEqual([good]);
  });

  it('keeps an open site flagged so', async () => {
    answer({ sites: [{ ...hdsky, disabled: 0, is_open: 1, closed: false, status: 1 }] }, SITES);
    expect((await getSites(configFor(service))).sites).toEqual([hdsky]);
  });
});

describe('site list: base_url and list shapes', () => {
  it.each(['hdsky.me/', 'hdsky.me//', ' HDSky.me/ ', 'https://hdsky.me/', 'http://hdsky.me'])('trims %j to the bare host', async (base) => {
    answer({ sites: [{ ...hdsky, base_url: base }] }, SITES);
    expect((await getSites(configFor(service))).sites[0]!.base_url).toBe('hdsky.me');
  });

  it('still refuses a base_url with a path or anything else past the host', async () => {
    answer({ sites: [{ ...hdsky, base_url: 'hdsky.me/pt/' }, { ...hdsky, id: 5, base_url: 'https://hdsky.me:8443/' }] }, SITES);
    expect(await getSites(configFor(service))).toEqual({ sites: [], skipped: 2 });
  });

  it('reads the list as a PHP key-preserving object', async () => {
    const hdhome = { ...hdsky, id: 7, site: 'hdhome', base_url: 'hdhome.org' };
    answer({ sites: { '0': hdsky, '2': hdhome } }, SITES);
    expect((await getSites(configFor(service))).sites).toEqual([hdsky, hdhome]);
  });
});

describe('recommended sites', () => {
  const list = [
    { id: 9, site: 'ourbits', nickname: '我堡', bind_check: 'passkey,uid', reseed_check: 'passkey' },
    { id: 2, site: 'pthome', nickname: '铂金家', bind_check: 'passkey,uid', reseed_check: 'passkey' },
  ];

  it('a missing count is the number listed', async () => {
    answer({ list }, RECOMMEND);
    expect(await getRecommendedSites(configFor(service))).toEqual({ count: 2, list });
  });

  it('a null count is the number listed', async () => {
    answer({ count: null, list }, RECOMMEND);
    expect((await getRecommendedSites(configFor(service))).count).toBe(2);
  });

  it('a null nickname or check list takes its default, and the site is kept', async () => {
    answer({ count: 2, list: [{ ...list[0], nickname: null, bind_check: null }, list[1]] }, RECOMMEND);
    const result = await getRecommendedSites(configFor(service));
    expect(result.list).toEqual([{ id: 9, site: 'ourbits', nickname: '', reseed_check: 'passkey' }, list[1]]);
  });

  it('skips an entry without an id alone', async () => {
    answer({ count: 3, list: [{ site: 'noid', nickname: 'x' }, ...list] }, RECOMMEND);
    expect(await getRecommendedSites(configFor(service))).toEqual({ count: 3, list });
  });

  it('reads the list as a PHP key-preserving object', async () => {
    answer({ count: 2, list: { '0': list[0], '1': list[1] } }, RECOMMEND);
    expect((await getRecommendedSites(configFor(service))).list).toEqual(list);
  });
});

describe('profile', () => {
  it('a null overdue_time or is_ever_level is absent, the rest kept', async () => {
    answer({ state: 1, overdue_time: null, is_ever_level: null }, PROFILE);
    const profile = await getProfile(configFor(service));
    expect(profile.state).toBe(1);
    expect(profile.overdue_time).toBeUndefined();
    expect(profile.is_ever_level).toBeUndefined();
  });

  it('a missing overdue_time is absent, and a wrong-typed one too, one field at a time', async () => {
    answer({ state: 1, is_ever_level: 1 }, PROFILE);
    expect(await getProfile(configFor(service))).toMatchObject({ state: 1, is_ever_level: 1 });
    answer({ state: 1, overdue_time: true, is_ever_level: 0 }, PROFILE);
    const profile = await getProfile(configFor(service));
    expect(profile).toMatchObject({ state: 1, is_ever_level: 0 });
    expect(profile.overdue_time).toBeUndefined();
  });
});

describe('lookups: torrent lists', () => {
  const asked = hash(0xa1);
  const other = hash(0xb2);

  it('reads `torrent` as a PHP key-preserving object keyed "0", "1", …', async () => {
    answer({ [asked]: { torrent: { '0': candidate(1, 10, 1), '1': candidate(4, 40, 2) } } }, LOOKUP);
    expect((await lookupBatch(configFor(service), [asked], siteHash)).get(asked)).toEqual([candidate(1, 10, 1), candidate(4, 40, 2)]);
  });

  it('ignores extra fields of a candidate, keeping a numeric group', async () => {
    answer({ [asked]: { torrent: [{ ...candidate(1, 10, 1), group: 77, title: 'x', size: 1 }] } }, LOOKUP);
    expect((await lookupBatch(configFor(service), [asked], siteHash)).get(asked)).toEqual([{ ...candidate(1, 10, 1), group: 77 }]);
  });

  it('skips a bad candidate alone, and keeps the rest of the batch', async () => {
    const bad = [{ ...candidate(1, 11, 3), sid: null }, { ...candidate(1, 12, 4), torrent_id: 'x' }, { ...candidate(1, 13, 5), info_hash: 'zz' }, null, 'junk'];
    answer({ [asked]: { torrent: [candidate(1, 10, 1), ...bad, candidate(4, 40, 2)] }, [other]: { torrent: [candidate(7, 70, 6)] } }, LOOKUP);
    const result = await lookupBatch(configFor(service), [asked, other, UNKNOWN_HASH], siteHash);
    expect(result.get(asked)).toEqual([candidate(1, 10, 1), candidate(4, 40, 2)]);
    expect(result.get(other)).toEqual([candidate(7, 70, 6)]);
    expect(result.get(UNKNOWN_HASH)).toEqual([]);
  });

  it('leaves out a hash whose entry is wholly broken, and answers the others', async () => {
    answer({ [asked]: { torrent: [{ sid: 'x' }] }, [other]: { torrent: [candidate(7, 70, 6)] } }, LOOKUP);
    const result = await lookupBatch(configFor(service), [asked, other, UNKNOWN_HASH], siteHash);
    expect(result.has(asked)).toBe(false);
    expect(result.get(other)).toEqual([candidate(7, 70, 6)]);
    expect(result.get(UNKNOWN_HASH)).toEqual([]);
  });

  it.each([
    ['a null entry', null],
    ['an empty PHP array entry', []],
    ['a null torrent', { torrent: null }],
    ['an empty torrent object', { torrent: {} }],
  ])('takes %s as no candidates', async (_, entry) => {
    answer({ [asked]: entry, [other]: { torrent: [candidate(7, 70, 6)] } }, LOOKUP);
    expect((await lookupBatch(configFor(service), [asked, other], siteHash)).get(asked)).toEqual([]);
  });

  it('takes a single candidate object as a list of one', async () => {
    answer({ [asked]: { torrent: candidate(1, 10, 1) } }, LOOKUP);
    expect((await lookupBatch(configFor(service), [asked], siteHash)).get(asked)).toEqual([candidate(1, 10, 1)]);
  });

  it('still refuses ids that are not numbers and hashes that are not 40 hex', async () => {
    answer({ [asked]: { torrent: [{ sid: 1.5, torrent_id: 1, info_hash: hash(1) }, { sid: 1, torrent_id: -1, info_hash: hash(2) }, { sid: 1, torrent_id: 2, info_hash: `${hash(3)}0` }] } }, LOOKUP);
    await failure(lookupBatch(configFor(service), [asked], siteHash), 'bad-answer');
  });

  it('reads the signed lookup the same way: PHP objects, bad items skipped alone', async () => {
    service.control.rawAnswer(
      { body: JSON.stringify({ code: 200, msg: '', data: { '0': { hash: asked, torrent: { '0': candidate(1, 10, 1), '1': { sid: 'x' }, '2': candidate(4, 40, 2) } } } }) },
      1,
      SIGNED,
    );
    expect(await lookupSigned(configFor(service, { appId: DEMO_APP_ID, secret: DEMO_SECRET }), asked)).toEqual([candidate(1, 10, 1), candidate(4, 40, 2)]);
  });
});

describe('version', () => {
  it(`sends ${SERVICE_CLIENT_VERSION} as version on every operation that carries one, unless told otherwise`, async () => {
    await lookupBatch(configFor(service), [UNKNOWN_HASH], siteHash);
    await lookupSigned(configFor(service, { appId: DEMO_APP_ID, secret: DEMO_SECRET }), UNKNOWN_HASH);
    const sent = service.requests.filter((request) => request.path === LOOKUP || request.path === SIGNED).map((request) => formOf(request).get('version'));
    expect(sent).toEqual([SERVICE_CLIENT_VERSION, SERVICE_CLIENT_VERSION]);
    expect(SERVICE_CLIENT_VERSION).toMatch(/^8\.\d+\.\d+$/);
  });
});
