/**
 * The site a torrent's tracker belongs to (issue 18): that site is never asked about the torrent,
 * and a place it answers for this content is the client's own torrent. By the catalog's hosts and
 * their subdomains; the sid is the one the service gives that site now (the sites switched on are
 * keyed by the service's ids, and the service has renumbered sites before).
 */
import { describe, expect, it } from 'vitest';
import { sidOfTracker } from '../../../../features/pieces-hash/pieces-hash.feature';
import { siteForName } from '../../../../utils/sites';

const HDSKY = siteForName('hdsky')!;
const PTER = siteForName('pter')!;

describe('sidOfTracker', () => {
  it("a catalogued host or any of its subdomains, whatever the scheme, port, case or passkey: that site's sid", () => {
    expect(HDSKY.sid).toBeTypeOf('number');
    expect(sidOfTracker('https://hdsky.me/announce.php?passkey=0123456789abcdef0123456789abcdef')).toBe(HDSKY.sid);
    expect(sidOfTracker('http://tracker.HDSKY.me:8080/announce.php?passkey=x')).toBe(HDSKY.sid);
    expect(sidOfTracker('udp://a.b.hdsky.me:6969/announce')).toBe(HDSKY.sid);
    // Every host of a site with several.
    for (const host of ['pterclub.net', 'tracker.pterclub.com', 'pter.club']) expect(sidOfTracker(`https://${host}/announce.php`), host).toBe(PTER.sid);
  });

  it('no tracker, a host the catalog does not know, a look-alike, an address that is not one: none', () => {
    for (const announce of [undefined, '', 'not a url', 'https://', 'http://127.0.0.1:9/alpha/announce.php', 'https://hdsky.me.evil.example/announce', 'https://nothdsky.me/announce', 'https://example.com/?hdsky.me']) {
      expect(sidOfTracker(announce), String(announce)).toBeUndefined();
    }
  });

  it("the service's id for the site when its list gives it another id than the catalog remembers", () => {
    const list = [{ id: 999, site: 'hdsky', base_url: 'hdsky.me' }];
    expect(sidOfTracker('https://hdsky.me/announce.php', list)).toBe(999);
    // A list that does not name the site: the catalog's sid.
    expect(sidOfTracker('https://pter.club/announce.php', list)).toBe(PTER.sid);
  });
});
