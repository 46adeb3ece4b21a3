/**
 * buildDownloadUrl: a .torrent address only from a numeric id, a template and the user's own key,
 * on the site's catalogued host, whatever the service's list or a template says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { siteForName } from '../../../utils/sites/catalog';
import { buildDownloadUrl, isSiteKey } from '../../../utils/sites/links';
import type { ServiceSiteLink } from '../../../utils/sites/site-types';

const KEY = '0123456789abcdef0123456789abcdef';
const ourbits = siteForName('ourbits')!;
const listed = (base_url: string, id = ourbits.sid!, is_https = 1): ServiceSiteLink => ({ id, base_url, details_page: 'details.php?id={}', is_https });

describe('buildDownloadUrl', () => {
  it("fills the id and the user's key into the service's template, on the site's host", () => {
    expect(buildDownloadUrl(listed('ourbits.club'), 2001, 'download.php?id={}&passkey={passkey}', { key: KEY })).toBe(`https://ourbits.club/download.php?id=2001&passkey=${KEY}`);
    expect(buildDownloadUrl(listed('ourbits.club'), 2001, 'download.php?id={}')).toBe('https://ourbits.club/download.php?id=2001');
    expect(buildDownloadUrl(siteForName('monikadesign')!, 77, 'torrents/download/{}.{rsskey}', { key: 'AbCdEf123456' })).toBe('https://monikadesign.uk/torrents/download/77.AbCdEf123456');
    expect(buildDownloadUrl(ourbits, 5, '/download.php?id={id}')).toBe('https://ourbits.club/download.php?id=5');
  });

  it('keeps a catalogued site on its own host and scheme: the service cannot move the download (and the key) elsewhere', () => {
    expect(buildDownloadUrl(listed('evil.example'), 1, 'download.php?id={}&passkey={passkey}', { key: KEY })).toBe(`https://ourbits.club/download.php?id=1&passkey=${KEY}`);
    expect(buildDownloadUrl(listed('ourbits.club', ourbits.sid, 0), 1, 'download.php?id={}')).toBe('https://ourbits.club/download.php?id=1');
    // Only the user's own override moves it.
    expect(buildDownloadUrl(listed('ourbits.club'), 1, 'download.php?id={}', { override: { scheme: 'http' } })).toBe('http://ourbits.club/download.php?id=1');
    expect(buildDownloadUrl(listed('ourbits.club'), 1, 'download.php?id={}', { override: { host: 'pt.ourhelp.club' } })).toBe('https://pt.ourhelp.club/download.php?id=1');
  });

  it('builds nothing from a template it cannot fill, or that could leave the host', () => {
    const site = listed('ourbits.club');
    // A key placeholder without a usable key; a placeholder we have no value for.
    expect(buildDownloadUrl(site, 1, 'download.php?id={}&passkey={passkey}')).toBeUndefined();
    expect(buildDownloadUrl(site, 1, 'download.php?id={}&passkey={passkey}', { key: 'short' })).toBeUndefined();
    expect(buildDownloadUrl(site, 1, 'download.php?id={}&passkey={passkey}', { key: 'a&b=c/../../x' })).toBeUndefined();
    expect(buildDownloadUrl(site, 1, 'torrents.php?action=download&id={}&authkey={authkey}&torrent_pass={passkey}', { key: KEY })).toBeUndefined();
    expect(buildDownloadUrl(site, 1, 'api/torrent/download/{}/{torrent_key}', { key: KEY })).toBeUndefined();
    // No id; another host; a scheme; odd characters.
    expect(buildDownloadUrl(site, 1, 'download.php')).toBeUndefined();
    expect(buildDownloadUrl(site, 1, '//evil.example/download.php?id={}')).toBeUndefined();
    expect(buildDownloadUrl(site, 1, 'https://evil.example/download.php?id={}')).toBeUndefined();
    expect(buildDownloadUrl(site, 1, 'download.php?id={}"onload=')).toBeUndefined();
    expect(buildDownloadUrl(site, 1, '\\\\evil.example/x?id={}')).toBeUndefined();
    // Not a torrent id.
    expect(buildDownloadUrl(site, -1, 'download.php?id={}')).toBeUndefined();
    expect(buildDownloadUrl(site, 1.5, 'download.php?id={}')).toBeUndefined();
  });

  it('for any template and key, builds either nothing or an address on the site\'s own host', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 40 }), fc.nat(), (template, key, id) => {
        const url = buildDownloadUrl(listed('evil.example'), id, template, { key });
        if (url === undefined) return;
        expect(new URL(url).origin).toBe('https://ourbits.club');
        // A key placeholder is only ever filled with a key of the safe shape.
        if (/\{(passkey|rsskey)\}/.test(template)) expect(isSiteKey(key)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
