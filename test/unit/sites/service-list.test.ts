import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalog, siteForHost, siteForName } from '../../../utils/sites/catalog';
import { buildDetailsUrl } from '../../../utils/sites/links';

/**
 * test/service/sites.json is the reference service's copy of the live site list. It must keep the
 * live shape, agree with the catalog where both know a site, and keep the short names the
 * reference torrents use.
 */
interface ServiceEntry {
  id: number;
  site: string;
  nickname: string;
  base_url: string;
  details_page: string;
  download_page: string;
  is_https: number;
  cookie_required: number;
}

const file = JSON.parse(readFileSync(new URL('../../service/sites.json', import.meta.url), 'utf8')) as {
  sites: ServiceEntry[];
  recommend: { id: number; site: string; nickname: string; bind_check: string; reseed_check: string }[];
};
const referenceData = JSON.parse(readFileSync(new URL('../../service/data.json', import.meta.url), 'utf8')) as unknown;

/** Short names the reference list keeps although IYUU spells them otherwise (SOURCES.md). */
const KEPT_NAMES: Record<string, string> = { pterclub: 'pter' };
/** Placeholder ids for sites whose sid no public source gives. */
const PLACEHOLDER_IDS = 9001;

describe('test/service/sites.json', () => {
  it('has the live `GET /reseed/sites/index` shape, unique ids and short names', () => {
    const keys = ['base_url', 'cookie_required', 'details_page', 'download_page', 'id', 'is_https', 'nickname', 'site'];
    for (const entry of file.sites) {
      expect(Object.keys(entry).sort(), entry.site).toEqual(keys);
      expect(Number.isSafeInteger(entry.id) && entry.id > 0, entry.site).toBe(true);
      expect([0, 1, 2], entry.site).toContain(entry.is_https);
      expect([0, 1], entry.site).toContain(entry.cookie_required);
      expect(entry.base_url, entry.site).toMatch(/^[a-z0-9.-]+\.[a-z]+$/);
    }
    expect(new Set(file.sites.map((s) => s.id)).size).toBe(file.sites.length);
    expect(new Set(file.sites.map((s) => s.site)).size).toBe(file.sites.length);
  });

  it('keeps every short name the reference data uses', () => {
    const used = new Set([...JSON.stringify(referenceData).matchAll(/"site":"([^"]+)"/g)].map((m) => m[1]!));
    // JSON.stringify drops the spaces the file has, so the pattern above sees every "site" value.
    expect(used.size).toBeGreaterThan(5);
    const listed = new Set(file.sites.map((s) => s.site));
    expect([...used].filter((name) => !listed.has(name))).toEqual([]);
  });

  it('agrees with the catalog on sids and hosts', () => {
    for (const entry of file.sites) {
      const known = siteForName(KEPT_NAMES[entry.site] ?? entry.site);
      if (!known) continue;
      if (known.sid !== undefined) expect(entry.id, entry.site).toBe(known.sid);
      else expect(entry.id, entry.site).toBeGreaterThanOrEqual(PLACEHOLDER_IDS);
      expect(siteForHost(entry.base_url)?.site, entry.site).toBe(known.site);
    }
  });

  it('lists every catalog site (the catalog is the live subset of the service list)', () => {
    const listed = new Set(file.sites.map((s) => KEPT_NAMES[s.site] ?? s.site));
    expect(catalog.filter((entry) => !listed.has(entry.site)).map((e) => e.site)).toEqual([]);
  });

  it('gives a safe details link for every site it lists', () => {
    for (const entry of file.sites) {
      const url = buildDetailsUrl(entry, 1234);
      expect(url, entry.site).toBeDefined();
      expect(url, entry.site).toContain('1234');
    }
    const mteam = file.sites.find((s) => s.site === 'm-team')!;
    expect(mteam.base_url).toBe('api.m-team.cc');
    expect(buildDetailsUrl(mteam, 825601)).toBe('https://kp.m-team.cc/detail/825601');
  });

  it('recommends only listed sites, with their ids and nicknames', () => {
    expect(file.recommend.length).toBeGreaterThan(0);
    const byName = new Map(file.sites.map((s) => [s.site, s]));
    for (const entry of file.recommend) {
      expect(byName.get(entry.site)?.id, entry.site).toBe(entry.id);
      expect(byName.get(entry.site)?.nickname, entry.site).toBe(entry.nickname);
      expect(entry.bind_check).toBe('passkey,uid');
    }
  });
});
