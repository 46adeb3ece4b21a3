/**
 * Where a candidate's .torrent comes from: per catalogued site and engine, with and without the
 * user's passkey, always on the site's own host; and the download link read from a details page
 * (fixture pages of the real engines), accepted only in its engine's exact shape.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { downloadLinkFromPage, downloadSource, type DownloadSource, type SiteSettings } from '../../../utils/cross-seed-engine/source';
import { serviceSiteSchema, type ServiceSite } from '../../../utils/iyuu/answer-schemas';
import { siteForHost, siteForName, siteForSid } from '../../../utils/sites/catalog';
import { FIXTURE_PAGES_DIR } from '../../e2e/harness/host-router';

const serviceList: ServiceSite[] = (JSON.parse(readFileSync(join(__dirname, '../../service/sites.json'), 'utf8')) as { sites: unknown[] }).sites.flatMap((entry) => {
  const parsed = serviceSiteSchema.safeParse(entry);
  return parsed.success ? [parsed.data] : [];
});
const sid = (name: string) => siteForName(name)!.sid!;
const KEY = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
const page = (name: string) => readFileSync(join(FIXTURE_PAGES_DIR, `${name}.html`), 'utf8');

describe('downloadSource', () => {
  const withList: SiteSettings = { list: serviceList };

  it('NexusPHP: download.php?id=N with the session, on the catalogued host', () => {
    expect(downloadSource({ sid: sid('ourbits'), torrentId: 2001 }, withList)).toEqual({
      way: 'cookie',
      url: 'https://ourbits.club/download.php?id=2001',
      origin: 'https://ourbits.club',
      siteKey: `sid:${sid('ourbits')}`,
      // Read only when the download is sent elsewhere: a notice to confirm, or the login.
      detailsUrl: 'https://ourbits.club/details.php?id=2001',
    });
    // Without the service's list, from the catalog alone.
    expect(downloadSource({ sid: sid('btschool'), torrentId: 5 }, {})).toMatchObject({ way: 'cookie', url: 'https://pt.btschool.club/download.php?id=5' });
  });

  it("with the user's passkey: the service's download_page template, no session needed", () => {
    const settings: SiteSettings = { list: serviceList, passkeys: { [String(sid('ourbits'))]: KEY } };
    expect(downloadSource({ sid: sid('ourbits'), torrentId: 2001 }, settings)).toMatchObject({ way: 'passkey', url: `https://ourbits.club/download.php?id=2001&passkey=${KEY}` });
    // From the catalog alone, NexusPHP's own passkey form.
    expect(downloadSource({ sid: sid('ourbits'), torrentId: 2001 }, { passkeys: settings.passkeys })).toMatchObject({ way: 'passkey', url: `https://ourbits.club/download.php?id=2001&passkey=${KEY}` });
    // A passkey for one site never goes to another.
    expect(downloadSource({ sid: sid('btschool'), torrentId: 3 }, settings)).toMatchObject({ way: 'cookie', url: 'https://pt.btschool.club/download.php?id=3' });
    // HDSky takes id + passkey too, and then needs no page.
    expect(downloadSource({ sid: sid('hdsky'), torrentId: 9 }, { list: serviceList, passkeys: { [String(sid('hdsky'))]: KEY } })).toMatchObject({
      way: 'passkey',
      url: `https://hdsky.me/download.php?id=9&passkey=${KEY}`,
    });
  });

  it('a passkey is used only for a catalogued site: for one only the service lists, its list would decide where the key goes', () => {
    const unknown = { id: 987_654, site: 'newsite', nickname: 'New', base_url: 'tracker.example', details_page: 'details.php?id={}', download_page: 'download.php?id={}&passkey={passkey}', is_https: 1, cookie_required: 0 } as ServiceSite;
    expect(downloadSource({ sid: 987_654, torrentId: 1 }, { list: [...serviceList, unknown], passkeys: { '987654': KEY } })).toEqual({ way: 'unsupported', reason: 'needs-passkey' });
  });

  it("the service's list cannot send the download elsewhere: the catalog's host for a known sid", () => {
    const moved = serviceList.map((site) => (site.id === sid('ourbits') ? { ...site, base_url: 'evil.example', download_page: 'download.php?id={}&passkey={passkey}' } : site));
    expect(downloadSource({ sid: sid('ourbits'), torrentId: 1 }, { list: moved, passkeys: { [String(sid('ourbits'))]: KEY } })).toMatchObject({ origin: 'https://ourbits.club' });
    expect(downloadSource({ sid: sid('ourbits'), torrentId: 1 }, { list: moved })).toMatchObject({ origin: 'https://ourbits.club' });
  });

  it("the user's override (scheme, mirror) applies as it does to links", () => {
    expect(downloadSource({ sid: sid('ourbits'), torrentId: 1 }, { list: serviceList, overrides: { [String(sid('ourbits'))]: { scheme: 'http' } } })).toMatchObject({
      url: 'http://ourbits.club/download.php?id=1',
      origin: 'http://ourbits.club',
    });
  });

  describe("a site's passkey and session go only to its catalogued hosts (issue 15, point 4)", () => {
    const SSD = sid('ssd');
    const passkeys = { [String(SSD)]: KEY, [String(sid('hdsky'))]: KEY };
    const hostOf = (source: DownloadSource) => new URL(source.way === 'details-page' ? source.detailsUrl : source.way === 'unsupported' ? 'x:' : source.way === 'api-token' ? source.tokenUrl : source.url).hostname;

    it("an override onto another catalogued site's host is refused for downloads, with or without a confirmation", () => {
      for (const override of [{ host: 'tjupt.org' }, { host: 'tjupt.org', confirmedHost: 'tjupt.org' }, { host: 'www.tjupt.org', scheme: 'http' as const }]) {
        for (const list of [serviceList, undefined]) {
          const source = downloadSource({ sid: SSD, torrentId: 7 }, { list, passkeys, overrides: { [String(SSD)]: override } });
          expect(source).toEqual({ way: 'unsupported', reason: 'other-site-host', host: override.host, owner: 'TJUPT' });
        }
      }
      // Details-page sites too: HDSky moved onto SpringSunday's host reads no page there.
      expect(downloadSource({ sid: sid('hdsky'), torrentId: 7 }, { list: serviceList, overrides: { [String(sid('hdsky'))]: { host: 'springsunday.net' } } })).toMatchObject({
        reason: 'other-site-host',
        owner: 'SpringSunday',
      });
    });

    it('a mirror the user did not confirm moves links only: the download stays on the catalogued host, the passkey with it', () => {
      for (const override of [{ host: 'ssd-mirror.example.org' }, { host: 'ssd-mirror.example.org', confirmedHost: 'other-mirror.example.org' }]) {
        const source = downloadSource({ sid: SSD, torrentId: 7 }, { list: serviceList, passkeys, overrides: { [String(SSD)]: override } });
        expect(source).toMatchObject({ way: 'passkey', url: `https://springsunday.net/download.php?id=7&passkey=${KEY}` });
        expect(source).not.toHaveProperty('mirror');
        const cookie = downloadSource({ sid: SSD, torrentId: 7 }, { list: serviceList, overrides: { [String(SSD)]: override } });
        expect(cookie).toMatchObject({ way: 'cookie', url: 'https://springsunday.net/download.php?id=7' });
      }
    });

    it('a mirror the user confirmed for that site gets its downloads, and says so (its login page is its own)', () => {
      const overrides = { [String(SSD)]: { host: 'ssd-mirror.example.org', confirmedHost: 'ssd-mirror.example.org' } };
      expect(downloadSource({ sid: SSD, torrentId: 7 }, { list: serviceList, passkeys, overrides })).toMatchObject({
        way: 'passkey',
        url: `https://ssd-mirror.example.org/download.php?id=7&passkey=${KEY}`,
        mirror: 'ssd-mirror.example.org',
      });
      // Its own old host is the site's: no confirmation needed.
      expect(downloadSource({ sid: SSD, torrentId: 7 }, { list: serviceList, passkeys, overrides: { [String(SSD)]: { host: 'hdcmct.org' } } })).toMatchObject({
        url: `https://hdcmct.org/download.php?id=7&passkey=${KEY}`,
      });
    });

    it('whatever the overrides and the service list say, the passkey is never in an address on a host not that site’s', () => {
      const hosts = ['tjupt.org', 'hdsky.me', 'evil.example', 'springsunday.net.evil.example', 'ourbits.club', 'kp.m-team.cc'];
      const lists = [serviceList, undefined, serviceList.map((site) => (site.id === SSD ? { ...site, base_url: 'evil.example' } : site))];
      for (const host of hosts) {
        for (const confirmedHost of [undefined, host]) {
          for (const list of lists) {
            for (const candidateSid of [SSD, sid('hdsky'), sid('ttg')]) {
              const overrides = { [String(candidateSid)]: { host, ...(confirmedHost ? { confirmedHost } : {}) } };
              const source = downloadSource({ sid: candidateSid, torrentId: 1 }, { list, passkeys: { [String(candidateSid)]: KEY }, overrides });
              if (source.way === 'unsupported') continue;
              const at = hostOf(source);
              const own = siteForHost(at) === siteForSid(candidateSid);
              // Only the site's own host, or the mirror the user confirmed for it (a host no catalogued site has).
              expect(own || (at === confirmedHost && !siteForHost(at)), `${candidateSid} → ${at}`).toBe(true);
              if (!own) expect(source).toMatchObject({ mirror: at });
            }
          }
        }
      }
    });
  });

  it('sites whose link needs a per-user value go through the details page: HDSky, TTG, Gazelle', () => {
    expect(downloadSource({ sid: sid('hdsky'), torrentId: 1001 }, withList)).toEqual({
      way: 'details-page',
      detailsUrl: 'https://hdsky.me/details.php?id=1001',
      shape: 'nexusphp',
      origin: 'https://hdsky.me',
      siteKey: `sid:${sid('hdsky')}`,
    });
    expect(downloadSource({ sid: sid('ttg'), torrentId: 7 }, withList)).toMatchObject({ way: 'details-page', detailsUrl: 'https://totheglory.im/t/7/', shape: 'ttg' });
    expect(downloadSource({ sid: sid('dicmusic'), torrentId: 8 }, withList)).toMatchObject({ way: 'details-page', detailsUrl: 'https://dicmusic.com/torrents.php?torrentid=8', shape: 'gazelle' });
  });

  it('engine and site paths: UNIT3D torrents/download/N; HDCity its cuhash link from /t-N', () => {
    expect(downloadSource({ sid: sid('monikadesign'), torrentId: 12 }, withList)).toMatchObject({ way: 'cookie', url: 'https://monikadesign.uk/torrents/download/12' });
    expect(downloadSource({ sid: sid('hdcity'), torrentId: 13 }, withList)).toMatchObject({ way: 'details-page', detailsUrl: 'https://hdcity.city/t-13', shape: 'hdcity' });
  });

  it('says why not: M-Team without an API key, a passkey-only site without a passkey, an unknown site, a bad id', () => {
    expect(downloadSource({ sid: sid('m-team'), torrentId: 1 }, withList)).toEqual({ way: 'unsupported', reason: 'needs-api-key' });
    expect(downloadSource({ sid: sid('skyeysnow'), torrentId: 1 }, withList)).toEqual({ way: 'unsupported', reason: 'needs-passkey' });
    expect(downloadSource({ sid: sid('skyeysnow'), torrentId: 1 }, { list: serviceList, passkeys: { [String(sid('skyeysnow'))]: KEY } })).toMatchObject({ way: 'passkey' });
    expect(downloadSource({ sid: sid('zhuque'), torrentId: 1 }, { list: serviceList, passkeys: { [String(sid('zhuque'))]: KEY } })).toEqual({ way: 'unsupported', reason: 'needs-api' });
    expect(downloadSource({ sid: 987_654, torrentId: 1 }, withList)).toEqual({ way: 'unsupported', reason: 'unknown-site' });
    expect(downloadSource({ sid: sid('ourbits'), torrentId: -3 }, withList)).toEqual({ way: 'unsupported', reason: 'no-address' });
  });
});

describe('downloadLinkFromPage', () => {
  it("reads Gazelle's link (authkey, torrent_pass) for that torrent id, not another's", () => {
    const html = page('gazelle-details');
    const url = 'https://dicmusic.com/torrents.php?id=1001&torrentid=2002';
    expect(downloadLinkFromPage(html, url, 'gazelle', 2002)).toBe(
      'https://dicmusic.com/torrents.php?action=download&id=2002&authkey=565643147fb5131f601fbd0afb0b67bedf2fa3b0&torrent_pass=0000aaaa',
    );
    expect(downloadLinkFromPage(html, url, 'gazelle', 2001)).toMatch(/id=2001&/);
    expect(downloadLinkFromPage(html, url, 'gazelle', 2003)).toBeUndefined();
  });

  it("reads TTG's /dl/N/<key> link", () => {
    expect(downloadLinkFromPage(page('ttg-details'), 'https://ttg.example.net/t/123456/', 'ttg', 123456)).toBe('https://ttg.example.net/dl/123456/3f2c9a');
  });

  it('NexusPHP: prefers the signed link (HDSky) to a bare one, and takes the bare one when that is all', () => {
    const bare = page('nexusphp-details-chs');
    expect(downloadLinkFromPage(bare, 'https://hdsky.me/details.php?id=12345', 'nexusphp', 12345)).toBe('https://hdsky.me/download.php?id=12345');
    const signed = `${bare}<form action="download.php?id=12345&amp;passkey=${KEY}&amp;sign=9a8b7c6d5e4f3a2b"></form>`;
    expect(downloadLinkFromPage(signed, 'https://hdsky.me/details.php?id=12345', 'nexusphp', 12345)).toBe(`https://hdsky.me/download.php?id=12345&passkey=${KEY}&sign=9a8b7c6d5e4f3a2b`);
  });

  it("takes nothing from another origin, another shape, or with values it does not expect", () => {
    const url = 'https://hdsky.me/details.php?id=5';
    const links = (...hrefs: string[]) => hrefs.map((href) => `<a href="${href}">x</a>`).join('');
    expect(downloadLinkFromPage(links('https://evil.example/download.php?id=5&sign=a'), url, 'nexusphp', 5)).toBeUndefined();
    expect(downloadLinkFromPage(links('//evil.example/download.php?id=5'), url, 'nexusphp', 5)).toBeUndefined();
    expect(downloadLinkFromPage(links('http://hdsky.me/download.php?id=5'), url, 'nexusphp', 5)).toBeUndefined();
    expect(downloadLinkFromPage(links('download.php?id=5&amp;sign=a%22b'), url, 'nexusphp', 5)).toBeUndefined();
    expect(downloadLinkFromPage(links('download.php?id=5&amp;redirect=x'), url, 'nexusphp', 5)).toBeUndefined();
    expect(downloadLinkFromPage(links('download.php?id=5&amp;id=6'), url, 'nexusphp', 5)).toBeUndefined();
    expect(downloadLinkFromPage(links('download.php?id=6'), url, 'nexusphp', 5)).toBeUndefined();
    expect(downloadLinkFromPage(links('download.php?downhash=1|abc'), url, 'nexusphp', 5)).toBeUndefined();
    expect(downloadLinkFromPage(links('/dl/5/abc?x=1'), 'https://totheglory.im/t/5/', 'ttg', 5)).toBeUndefined();
    expect(downloadLinkFromPage(page('nexusphp-login'), url, 'nexusphp', 5)).toBeUndefined();
    // Entities decode; the rebuilt link keeps only the checked parts.
    expect(downloadLinkFromPage(links('download.php?id&#61;5&#38;sign=abc'), url, 'nexusphp', 5)).toBe('https://hdsky.me/download.php?id=5&sign=abc');
  });
});

describe('permissionPattern', () => {
  it('is the match pattern for an origin without its port (Firefox refuses ports in patterns)', async () => {
    const { permissionPattern } = await import('../../../utils/cross-seed-engine/cross-seed');
    expect(permissionPattern('https://ourbits.club')).toBe('https://ourbits.club/*');
    expect(permissionPattern('http://127.0.0.1:8080')).toBe('http://127.0.0.1/*');
    expect(permissionPattern('http://[::1]:9091')).toBe('http://[::1]/*');
  });
});
