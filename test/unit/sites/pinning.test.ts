/**
 * Issue 15, point 8: a catalogued site pinned by id AND name against the service's site list
 * (utils/sites/pinning.ts): the list decides which site an id is now; disagreements are named.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceSiteSchema, type ServiceSite } from '../../../utils/iyuu/answer-schemas';
import { buildDetailsUrl } from '../../../utils/sites/links';
import { catalogEntryOf, renumberings, renumberingText, serviceSidOf, siteForServiceSid } from '../../../utils/sites/pinning';
import { siteForName } from '../../../utils/sites/catalog';
import { downloadSource } from '../../../utils/cross-seed-engine/source';
import { renumberSites, loadReferenceData } from '../../service/data';

const listOf = (sites: unknown[]): ServiceSite[] => sites.flatMap((entry) => {
  const parsed = serviceSiteSchema.safeParse(entry);
  return parsed.success ? [parsed.data] : [];
});
const reference = listOf((JSON.parse(readFileSync(join(__dirname, '../../service/sites.json'), 'utf8')) as { sites: unknown[] }).sites);
const swapped = listOf(renumberSites(loadReferenceData(), { ourbits: 5, tjupt: 9 }).sites);
const KEY = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';

describe('pinning by id and name', () => {
  it('the reference list agrees with the catalog (PTer spelled `pterclub` by the list is still sid 6)', () => {
    expect(renumberings(reference)).toEqual([]);
    expect(catalogEntryOf(reference.find((site) => site.id === 6)!)?.site).toBe('pter');
    expect(siteForServiceSid(9, reference)?.site).toBe('ourbits');
  });

  it('swapped ids: the list decides, both ids and names are named, links follow the name', () => {
    expect(siteForServiceSid(9, swapped)?.site).toBe('tjupt');
    expect(siteForServiceSid(5, swapped)?.site).toBe('ourbits');
    expect(serviceSidOf(siteForName('ourbits')!, swapped)).toBe(5);
    const changes = renumberings(swapped).sort((a, b) => a.serviceSid - b.serviceSid);
    expect(changes).toEqual([
      { serviceSid: 5, serviceName: 'ourbits', catalogName: 'ourbits', catalogSid: 9, catalogNameOfSid: 'tjupt' },
      { serviceSid: 9, serviceName: 'tjupt', catalogName: 'tjupt', catalogSid: 5, catalogNameOfSid: 'ourbits' },
    ]);
    expect(renumberingText(changes[0]!)).toBe(
      `Reseed Lens: the service's site list gives id 5 to "ourbits"; the catalog has "ourbits" as 9 and 5 as "tjupt". Following the service's list.`,
    );
    expect(buildDetailsUrl(swapped.find((site) => site.id === 9)!, 42)).toBe('https://tjupt.org/details.php?id=42');
    expect(buildDetailsUrl(swapped.find((site) => site.id === 5)!, 42)).toBe('https://ourbits.club/details.php?id=42');
  });

  it("a catalogued id given to a site the catalog does not know: not the catalog's site; the catalog's site, listed elsewhere, is not that id", () => {
    const newcomer = { id: 9, site: 'newsite', nickname: 'New', base_url: 'newsite.example', details_page: 'details.php?id={}', download_page: '', is_https: 1, cookie_required: 0 };
    const list = listOf([...reference.filter((site) => site.id !== 9), newcomer, { ...reference.find((site) => site.id === 9)!, id: 777 }]);
    expect(siteForServiceSid(9, list)).toBeUndefined();
    expect(siteForServiceSid(777, list)?.site).toBe('ourbits');
    expect(buildDetailsUrl(list.find((site) => site.id === 9)!, 3)).toBe('https://newsite.example/details.php?id=3');
    expect(renumberings(list).sort((a, b) => a.serviceSid - b.serviceSid).map((change) => [change.serviceSid, change.serviceName, change.catalogName, change.catalogNameOfSid])).toEqual([
      [9, 'newsite', undefined, 'ourbits'],
      [777, 'ourbits', 'ourbits', undefined],
    ]);
    // An id the list does not hold whose catalog site the list gives another id: not that site either.
    expect(siteForServiceSid(9, list.filter((site) => site.id !== 9))).toBeUndefined();
  });

  it('what the user keyed by a sid (a passkey) is not used when the catalog and the list disagree on that sid', () => {
    // The passkey was entered for "9" (OurBits); the service now calls TJUPT 9: it goes to no one.
    expect(downloadSource({ sid: 9, torrentId: 1 }, { list: swapped, passkeys: { '9': KEY } })).toEqual({
      way: 'cookie',
      url: 'https://tjupt.org/download.php?id=1',
      origin: 'https://tjupt.org',
      siteKey: 'sid:9',
      detailsUrl: 'https://tjupt.org/details.php?id=1',
    });
    expect(downloadSource({ sid: 5, torrentId: 1 }, { list: swapped, passkeys: { '5': KEY } })).toMatchObject({ way: 'cookie', url: 'https://ourbits.club/download.php?id=1' });
    // The same passkey with the list agreeing: used.
    expect(downloadSource({ sid: 9, torrentId: 1 }, { list: reference, passkeys: { '9': KEY } })).toMatchObject({ way: 'passkey' });
  });
});
