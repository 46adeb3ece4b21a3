/**
 * The reference service's realistic mode: its answers are really in the live service's untidy
 * shapes (raw JSON), and the client reads them to exactly what it reads from strict answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getProfile, getRecommendedSites, getSites, lookupBatch, lookupSigned, reportExisting } from '../../../utils/iyuu/operations';
import { DEMO_APP_ID, DEMO_SECRET, DEMO_TOKEN, UNUSABLE_SITES, startReferenceService, type ReferenceService } from '../../service/server';
import { allSids, configFor, failure, get, post, nodeSha1 } from './support';

let strict: ReferenceService;
let realistic: ReferenceService;

beforeAll(async () => {
  strict = await startReferenceService();
  realistic = await startReferenceService({ shapes: 'realistic', transientLookupFailures: 0 });
});
afterAll(async () => {
  await strict.close();
  await realistic.close();
});

const token = { Token: DEMO_TOKEN };
const hashesWithCandidates = (service: ReferenceService) => service.data.torrents.filter((group) => group.members.length > 2).slice(0, 6).map((group) => group.members[0]!.info_hash);

async function rawLookup(service: ReferenceService, hashes: string[]) {
  const sidSha1 = await reportExisting(configFor(service), allSids(service));
  const hash = JSON.stringify([...hashes].sort());
  return post(service, '/reseed/index/index', { hash, sha1: nodeSha1(hash), sid_sha1: sidSha1, timestamp: String(Math.floor(Date.now() / 1000)), version: '8.2.0' }, token);
}

describe('realistic answers are in the untidy shapes', () => {
  it('site list: nulls for defaults, trailing slashes, extra fields, unusable entries among the good', async () => {
    const { json } = await get(realistic, '/reseed/sites/index', token);
    const sites = (json.data as { sites: Record<string, unknown>[] }).sites;
    expect(sites.length).toBe(realistic.data.sites.length + UNUSABLE_SITES.length);
    expect(sites.some((site) => site.nickname === null)).toBe(true);
    expect(sites.some((site) => site.is_https === null)).toBe(true);
    expect(sites.some((site) => site.cookie_required === null)).toBe(true);
    expect(sites.some((site) => typeof site.base_url === 'string' && site.base_url.endsWith('/'))).toBe(true);
    expect(sites.some((site) => 'reseed_check' in site)).toBe(true);
    expect(sites.some((site) => !('id' in site))).toBe(true);
    expect(sites.some((site) => site.base_url === null)).toBe(true);
    expect(sites.some((site) => site.disabled === 1)).toBe(true);
    // Not only at the end.
    expect(sites.findIndex((site) => !('id' in site))).toBeLessThan(sites.length - UNUSABLE_SITES.length);
  });

  it('lookup: torrent as PHP objects keyed "0", "1", …, with group, digit-string ids and a broken item', async () => {
    const { json } = await rawLookup(realistic, hashesWithCandidates(realistic));
    const entries = Object.values(json.data as Record<string, { torrent: unknown }>);
    expect(entries.some((entry) => !Array.isArray(entry.torrent) && Object.keys(entry.torrent as object)[0] === '0')).toBe(true);
    const items = entries.flatMap((entry) => Object.values(entry.torrent as object) as Record<string, unknown>[]);
    expect(items.every((item) => 'group' in item)).toBe(true);
    expect(items.some((item) => typeof item.sid === 'string')).toBe(true);
    expect(items.some((item) => item.sid === null)).toBe(true);
  });

  it('recommend without count and with a null nickname; profile with null dates', async () => {
    const recommend = (await get(realistic, '/reseed/sites/recommend', token)).json.data as Record<string, unknown>;
    expect('count' in recommend).toBe(false);
    expect((recommend.list as Record<string, unknown>[]).some((entry) => entry.nickname === null)).toBe(true);
    const profile = (await get(realistic, '/reseed/users/profile', token)).json.data as Record<string, unknown>;
    expect(profile).toMatchObject({ overdue_time: null, is_ever_level: null });
  });

  it('strict answers stay exactly the spec shapes', async () => {
    const sites = ((await get(strict, '/reseed/sites/index', token)).json.data as { sites: unknown[] }).sites;
    expect(sites).toEqual(strict.data.sites);
    const { json } = await rawLookup(strict, hashesWithCandidates(strict));
    expect(Object.values(json.data as Record<string, { torrent: unknown }>).every((entry) => Array.isArray(entry.torrent))).toBe(true);
    expect((await get(strict, '/reseed/sites/recommend', token)).json.data).toEqual({ count: strict.data.recommend.length, list: strict.data.recommend });
  });
});

describe('the client reads realistic answers as it reads strict ones', () => {
  it('the site list: the same sites, the unusable entries skipped', async () => {
    const fromStrict = await getSites(configFor(strict));
    const fromRealistic = await getSites(configFor(realistic));
    // A null nickname reads as '' (the UI then names the site from the catalog or its short name); nothing else differs.
    const withoutNickname = (sites: typeof fromStrict.sites) => sites.map(({ nickname: _, ...rest }) => rest);
    expect(withoutNickname(fromRealistic.sites)).toEqual(withoutNickname(fromStrict.sites));
    fromRealistic.sites.forEach((site, index) => expect([fromStrict.sites[index]!.nickname, '']).toContain(site.nickname));
    expect(fromRealistic.skipped).toBe(UNUSABLE_SITES.length);
  });

  it('the recommended sites: the same list, bar the null nickname and check list', async () => {
    const fromStrict = await getRecommendedSites(configFor(strict));
    const fromRealistic = await getRecommendedSites(configFor(realistic));
    expect(fromRealistic.count).toBe(fromStrict.count);
    expect(fromRealistic.list.map((site) => [site.id, site.site])).toEqual(fromStrict.list.map((site) => [site.id, site.site]));
    expect(fromRealistic.list[1]!.nickname).toBe('');
  });

  it('lookups: the same candidates for every hash', async () => {
    const hashes = hashesWithCandidates(strict);
    const strip = (result: Map<string, { sid: number; torrent_id: number; info_hash: string }[]>) =>
      [...result].map(([hash, list]) => [hash, list.map(({ sid, torrent_id, info_hash }) => ({ sid, torrent_id, info_hash }))]);
    const fromStrict = await lookupBatch(configFor(strict), hashes, await reportExisting(configFor(strict), allSids(strict)));
    const fromRealistic = await lookupBatch(configFor(realistic), hashes, await reportExisting(configFor(realistic), allSids(realistic)));
    expect(strip(fromRealistic)).toEqual(strip(fromStrict));
    expect([...fromRealistic.values()].every((list) => list.length > 0 && list.every((candidate) => typeof candidate.group === 'number'))).toBe(true);
  });

  it('the signed lookup and the profile', async () => {
    const signed = (service: ReferenceService) => configFor(service, { appId: DEMO_APP_ID, secret: DEMO_SECRET });
    const [hash] = hashesWithCandidates(strict);
    const strip = (list: { sid: number; torrent_id: number; info_hash: string }[]) => list.map(({ sid, torrent_id, info_hash }) => ({ sid, torrent_id, info_hash }));
    expect(strip(await lookupSigned(signed(realistic), hash!))).toEqual(strip(await lookupSigned(signed(strict), hash!)));
    const profile = await getProfile(configFor(realistic));
    expect(profile.state).toBe(1);
    expect(profile.overdue_time).toBeUndefined();
  });
});

describe('transient failures', () => {
  it('the first lookups fail in turn as webman and Redis do, losing the site report, then answer; again after reset', async () => {
    const service = await startReferenceService({ shapes: 'realistic' });
    try {
      const hashes = hashesWithCandidates(service).slice(0, 1);
      for (let round = 0; round < 2; round++) {
        const sidSha1 = await reportExisting(configFor(service), allSids(service));
        const first = await failure(lookupBatch(configFor(service), hashes, sidSha1), 'server');
        expect(first).toMatchObject({ serviceMessage: 'Server internal error', code: 400, httpStatus: 200 });
        const second = await failure(lookupBatch(configFor(service), hashes, sidSha1), 'server');
        expect(second.serviceMessage).toMatch(/^OOM command not allowed when used memory > 'maxmemory'/);
        // The failures took the site report with them.
        await failure(lookupBatch(configFor(service), hashes, sidSha1), 'stale-site-hash');
        const again = await reportExisting(configFor(service), allSids(service));
        expect((await lookupBatch(configFor(service), hashes, again)).get(hashes[0]!)!.length).toBeGreaterThan(0);
        service.control.reset();
      }
    } finally {
      await service.close();
    }
  });
});
