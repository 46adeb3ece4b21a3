/**
 * The download rules of the sites whose download needs more than the session (issue 17, point 3),
 * each in its site's definition: M-Team's API token (the user's API key, only to M-Team's API host,
 * and the address it answers only when it is M-Team's), HDCity's `cuhash` link and the downhash
 * sites' link read from the details page (fixtures in test/fixtures/download-rules, written from the
 * sources in utils/sites/SOURCES.md), HDSky's signed link kept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { downloadAddressOf, downloadLinkFromPage, downloadSource, type SiteSettings } from '../../../utils/cross-seed-engine/source';
import { serviceSiteSchema, type ServiceSite } from '../../../utils/iyuu/answer-schemas';
import { siteForName } from '../../../utils/sites/catalog';

const serviceList: ServiceSite[] = (JSON.parse(readFileSync(join(__dirname, '../../service/sites.json'), 'utf8')) as { sites: unknown[] }).sites.flatMap((entry) => {
  const parsed = serviceSiteSchema.safeParse(entry);
  return parsed.success ? [parsed.data] : [];
});
const sid = (name: string) => siteForName(name)!.sid!;
const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/download-rules', name), 'utf8');
const API_KEY = '3f9a1c2b-7d6e-4a5b-9c8d-0e1f2a3b4c5d';
const TOKEN_URL = 'https://api.m-team.cc/api/torrent/genDlToken';

describe('M-Team: the address from its API, with the API key the user entered', () => {
  const MT = String(sid('m-team'));

  it("asks M-Team's own API host with the key; without a usable key it names what is missing", () => {
    const settings: SiteSettings = { list: serviceList, apiKeys: { [MT]: API_KEY } };
    expect(downloadSource({ sid: sid('m-team'), torrentId: 901234 }, settings)).toEqual({
      way: 'api-token',
      tokenUrl: TOKEN_URL,
      keyHeader: 'x-api-key',
      idField: 'id',
      apiKey: API_KEY,
      origin: 'https://api.m-team.cc',
      siteKey: `sid:${MT}`,
    });
    expect(downloadSource({ sid: sid('m-team'), torrentId: 1 }, { list: serviceList })).toEqual({ way: 'unsupported', reason: 'needs-api-key' });
    for (const bad of ['', 'short', 'has space inside it', 'x'.repeat(300), 'key\r\nx-other: 1']) {
      expect(downloadSource({ sid: sid('m-team'), torrentId: 1 }, { list: serviceList, apiKeys: { [MT]: bad } }), bad).toEqual({ way: 'unsupported', reason: 'needs-api-key' });
    }
  });

  it("never sends a site's API key anywhere else: not for another sid, not to a mirror, not when the service names another site under M-Team's sid", () => {
    // Another site's key is not M-Team's; a passkey is not an API key.
    expect(downloadSource({ sid: sid('m-team'), torrentId: 1 }, { list: serviceList, apiKeys: { [String(sid('hdsky'))]: API_KEY }, passkeys: { [MT]: 'f0e1d2c3b4a5968778695a4b3c2d1e0f' } })).toEqual({
      way: 'unsupported',
      reason: 'needs-api-key',
    });
    // The user's mirror for M-Team moves links, never the API call.
    const mirrored = downloadSource(
      { sid: sid('m-team'), torrentId: 1 },
      { list: serviceList, apiKeys: { [MT]: API_KEY }, overrides: { [MT]: { host: 'mt-mirror.example', confirmedHost: 'mt-mirror.example' } } },
    );
    expect(mirrored).toMatchObject({ way: 'api-token', tokenUrl: TOKEN_URL });
    // The service's list renamed sid 3 to another site: what the user keyed by sid 3 is not used.
    const renamed = serviceList.map((site) => (site.id === sid('m-team') ? { ...site, site: 'hdsky', base_url: 'hdsky.me' } : site));
    expect(downloadSource({ sid: sid('m-team'), torrentId: 1 }, { list: renamed, apiKeys: { [MT]: API_KEY } })).not.toMatchObject({ way: 'api-token' });
    // No other site has an API rule: the key never leaves for them.
    for (const site of ['hdsky', 'ourbits', 'hdcity', 'dicmusic', 'ttg']) {
      expect(downloadSource({ sid: sid(site), torrentId: 1 }, { list: serviceList, apiKeys: { [String(sid(site))]: API_KEY } }), site).not.toMatchObject({ way: 'api-token' });
    }
  });

  it("takes the address M-Team answers only on M-Team's own hosts", () => {
    const answered = JSON.parse(fixture('mteam-gendltoken.json')) as { code: string; data: string };
    expect(answered.code).toBe('0');
    expect(downloadAddressOf(answered.data, TOKEN_URL)).toBe(answered.data);
    expect(downloadAddressOf('https://kp.m-team.cc/download/1?sign=a', TOKEN_URL)).toBe('https://kp.m-team.cc/download/1?sign=a');
    for (const refused of [
      'https://evil.example/api/rss/dlv2?sign=a',
      'https://api.m-team.cc.evil.example/x',
      'https://hdsky.me/download.php?id=1',
      'http://api.m-team.cc/api/rss/dlv2?sign=a',
      'https://user:pass@api.m-team.cc/x',
      'https://api.m-team.cc/x#frag',
      'javascript:alert(1)',
      '/api/rss/dlv2?sign=a',
      42,
      null,
      { url: 'https://api.m-team.cc/x' },
    ]) {
      expect(downloadAddressOf(refused, TOKEN_URL), String(refused)).toBeUndefined();
    }
  });
});

describe("HDCity: the link with the user's cuhash, from the details page at /t-N", () => {
  const page = fixture('hdcity-details.html');
  const detailsUrl = 'https://hdcity.city/t-98765';

  it('goes through the details page', () => {
    expect(downloadSource({ sid: sid('hdcity'), torrentId: 98765 }, { list: serviceList })).toMatchObject({ way: 'details-page', detailsUrl, shape: 'hdcity' });
  });

  it("reads this torrent's cuhash link, preferred to the bare one before it; never another torrent's", () => {
    expect(downloadLinkFromPage(page, detailsUrl, 'hdcity', 98765)).toBe('https://hdcity.city/download?id=98765&cuhash=0f1e2d3c4b5a69788796a5b4c3d2e1f0');
    expect(downloadLinkFromPage(page, 'https://hdcity.city/t-98766', 'hdcity', 98766)).toBe('https://hdcity.city/download?id=98766&cuhash=0f1e2d3c4b5a69788796a5b4c3d2e1f0');
    expect(downloadLinkFromPage(page, 'https://hdcity.city/t-5', 'hdcity', 5)).toBeUndefined();
    // A page with only the bare link gives it (fetched with the session).
    expect(downloadLinkFromPage('<a href="download?id=7">x</a>', 'https://hdcity.city/t-7', 'hdcity', 7)).toBe('https://hdcity.city/download?id=7');
  });

  it('takes no cuhash of another shape, origin or with values it does not expect', () => {
    const url = 'https://hdcity.city/t-7';
    const links = (...hrefs: string[]) => hrefs.map((href) => `<a href="${href}">x</a>`).join('');
    for (const href of [
      'download?id=7&amp;cuhash=a%22b',
      'download?id=7&amp;cuhash=abc&amp;cuhash=def',
      'download?id=7&amp;cuhash=abc&amp;next=evil',
      'https://evil.example/download?id=7&amp;cuhash=abc',
      'download.php?id=7&amp;cuhash=abc',
      'download?id=8&amp;cuhash=abc',
    ]) {
      expect(downloadLinkFromPage(links(href), url, 'hdcity', 7), href).toBeUndefined();
    }
  });
});

describe('downhash sites (HDHome, PTHome, HDDolby): the downhash link from the details page', () => {
  const page = fixture('downhash-details.html');

  it('go through the details page; a passkey the user entered still wins', () => {
    for (const site of ['hdhome', 'pthome', 'hddolby']) {
      expect(downloadSource({ sid: sid(site), torrentId: 4321 }, { list: serviceList }), site).toMatchObject({ way: 'details-page', shape: 'nexusphp-downhash' });
    }
    expect(downloadSource({ sid: sid('hdhome'), torrentId: 4321 }, { list: serviceList, passkeys: { [String(sid('hdhome'))]: 'f0e1d2c3b4a5968778695a4b3c2d1e0f' } })).toMatchObject({ way: 'passkey' });
  });

  it("prefers this torrent's downhash link to the bare one before it", () => {
    expect(downloadLinkFromPage(page, 'https://hdhome.org/details.php?id=4321', 'nexusphp-downhash', 4321)).toBe(
      'https://hdhome.org/download.php?id=4321&downhash=4242.0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    );
    expect(downloadLinkFromPage('<a href="download.php?id=9">x</a>', 'https://hdhome.org/details.php?id=9', 'nexusphp-downhash', 9)).toBe('https://hdhome.org/download.php?id=9');
  });

  it('takes no downhash link without this id, or with anything else in it', () => {
    const url = 'https://hdhome.org/details.php?id=5';
    const links = (...hrefs: string[]) => hrefs.map((href) => `<a href="${href}">x</a>`).join('');
    for (const href of [
      'download.php?downhash=4242.0a1b2c3d4e5f6071',
      'download.php?id=6&amp;downhash=4242.0a1b2c3d4e5f6071',
      'download.php?id=5&amp;downhash=4242.0a1b%22c3d4e5f6071',
      'download.php?id=5&amp;downhash=short',
      'download.php?id=5&amp;downhash=4242.0a1b2c3d4e5f6071&amp;next=x',
      'https://evil.example/download.php?id=5&amp;downhash=4242.0a1b2c3d4e5f6071',
    ]) {
      expect(downloadLinkFromPage(links(href), url, 'nexusphp-downhash', 5), href).toBeUndefined();
    }
  });
});

describe('HDSky: its signed link from the details page (kept)', () => {
  it('goes through the details page unless the user entered a passkey', () => {
    expect(downloadSource({ sid: sid('hdsky'), torrentId: 3 }, { list: serviceList })).toMatchObject({ way: 'details-page', shape: 'nexusphp' });
  });
});
