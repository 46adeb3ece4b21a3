import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalog, siteForHost, siteForName } from '../../../utils/sites/catalog';
import { buildDetailsUrl, buildDetailsUrlFromCatalog, homeUrl } from '../../../utils/sites/links';
import type { LinkOverride, ServiceSiteLink } from '../../../utils/sites/site-types';

const site = (base_url: string, details_page = 'details.php?id={}', is_https = 1): ServiceSiteLink => ({ base_url, details_page, is_https });

describe('buildDetailsUrl', () => {
  it('keeps a catalogued site on its own hosts: a service answer cannot move it or take it to http', () => {
    const hdsky = siteForName('hdsky')!;
    const pter = siteForName('pter')!;
    const mteam = siteForName('m-team')!;
    const bySid = (id: number, base_url: string, is_https = 1) => ({ id, base_url, details_page: 'details.php?id={}', is_https });
    // Another host for HDSky's sid: the link stays on hdsky.me.
    expect(buildDetailsUrl(bySid(hdsky.sid!, 'hdsky.evil.example'), 9)).toBe('https://hdsky.me/details.php?id=9');
    expect(buildDetailsUrl(bySid(hdsky.sid!, 'pterclub.net'), 9)).toBe('https://hdsky.me/details.php?id=9');
    // http for an https site: still https.
    expect(buildDetailsUrl(bySid(hdsky.sid!, 'hdsky.me', 0), 9)).toBe('https://hdsky.me/details.php?id=9');
    // Its own old domain and API host still lead to the current host.
    expect(buildDetailsUrl(bySid(pter.sid!, 'pterclub.com'), 9)).toBe('https://pterclub.net/details.php?id=9');
    expect(buildDetailsUrl(bySid(mteam.sid!, 'api.m-team.cc'), 9)).toBe('https://kp.m-team.cc/detail/9');
    // A sid the catalog does not know may not borrow a catalogued site's host.
    expect(buildDetailsUrl(bySid(987_654, 'hdsky.me'), 9)).toBeUndefined();
    expect(buildDetailsUrl(bySid(987_654, 'tracker.example'), 9)).toBe('https://tracker.example/details.php?id=9');
    // Only the user's own override moves a link.
    expect(buildDetailsUrl(bySid(hdsky.sid!, 'hdsky.evil.example'), 9, { host: 'hdsky.mirror.example' })).toBe('https://hdsky.mirror.example/details.php?id=9');
  });

  it('joins scheme, base_url and the template with the id in place of {} or {id}', () => {
    expect(buildDetailsUrl(site('hdsky.me'), 195588)).toBe('https://hdsky.me/details.php?id=195588');
    expect(buildDetailsUrl(site('hdsky.me', 'details.php?id={id}&hit=1'), 7)).toBe('https://hdsky.me/details.php?id=7&hit=1');
    expect(buildDetailsUrl(site('hdsky.me', '/details.php?id={}'), 7)).toBe('https://hdsky.me/details.php?id=7');
    expect(buildDetailsUrl(site('totheglory.im', 't/{}/'), 12)).toBe('https://totheglory.im/t/12/');
    expect(buildDetailsUrl(site('hdsky.me'), 0)).toBe('https://hdsky.me/details.php?id=0');
  });

  it('takes the scheme from is_https: 0 http, 1 https, 2 both (https)', () => {
    expect(buildDetailsUrl(site('hdroute.org', 'details.php?id={}', 0), 1)).toBe('http://hdroute.org/details.php?id=1');
    expect(buildDetailsUrl(site('hdtime.org', 'details.php?id={}', 1), 1)).toBe('https://hdtime.org/details.php?id=1');
    expect(buildDetailsUrl(site('hdtime.org', 'details.php?id={}', 2), 1)).toBe('https://hdtime.org/details.php?id=1');
  });

  it('fills an empty details_page with the catalog’s template, else details.php?id={}', () => {
    expect(buildDetailsUrl(site('pt.btschool.club', ''), 5)).toBe('https://pt.btschool.club/details.php?id=5');
    expect(buildDetailsUrl(site('open.cd', ''), 5)).toBe('https://open.cd/plugin_details.php?id=5');
    expect(buildDetailsUrl(site('hdcity.city', '  '), 5)).toBe('https://hdcity.city/t-5');
    expect(buildDetailsUrl(site('tracker.example', ''), 5)).toBe('https://tracker.example/details.php?id=5');
  });

  it('sends M-Team links to the page host, whatever the API base_url’s template', () => {
    expect(buildDetailsUrl(site('api.m-team.cc', 'detail/{}'), 825601)).toBe('https://kp.m-team.cc/detail/825601');
    expect(buildDetailsUrl(site('api.m-team.cc', 'details.php?id={}'), 825601)).toBe('https://kp.m-team.cc/detail/825601');
    expect(buildDetailsUrl(site('api.m-team.io', ''), 1)).toBe('https://kp.m-team.cc/detail/1');
    expect(buildDetailsUrl(site('kp.m-team.cc', 'detail/{}'), 1)).toBe('https://kp.m-team.cc/detail/1');
    expect(buildDetailsUrl(site('api.m-team.cc', 'detail/{}'), 1, { host: 'zp.m-team.io' })).toBe('https://zp.m-team.io/detail/1');
  });

  it('moves links off a site’s old domain to its current host, keeping the template', () => {
    expect(buildDetailsUrl(site('pterclub.com'), 360102)).toBe('https://pterclub.net/details.php?id=360102');
    expect(buildDetailsUrl(site('hhanclub.top'), 9)).toBe('https://hhanclub.net/details.php?id=9');
    expect(buildDetailsUrl(site('www.hdarea.co', 'details.php?id={}&hit=1'), 9)).toBe('https://hdarea.club/details.php?id=9&hit=1');
    // A current host stays, even when it is also under an old domain of the same site.
    expect(buildDetailsUrl(site('www.qingwapt.com'), 3)).toBe('https://www.qingwapt.com/details.php?id=3');
  });

  it('applies the user’s host and scheme override last', () => {
    expect(buildDetailsUrl(site('pterclub.com'), 1, { host: 'pterclub.com' })).toBe('https://pterclub.com/details.php?id=1');
    expect(buildDetailsUrl(site('hdsky.me'), 1, { scheme: 'http' })).toBe('http://hdsky.me/details.php?id=1');
    expect(buildDetailsUrl(site('hdsky.me'), 1, { host: 'HDSky.Mirror.example', scheme: 'http' })).toBe('http://hdsky.mirror.example/details.php?id=1');
    expect(buildDetailsUrl(site('hdsky.me'), 1, { host: '' })).toBe('https://hdsky.me/details.php?id=1');
    expect(buildDetailsUrl(site('hdsky.me'), 1, { host: '  ' })).toBe('https://hdsky.me/details.php?id=1');
    expect(buildDetailsUrl(site('not a host'), 1, { host: 'hdsky.me' })).toBe('https://hdsky.me/details.php?id=1');
  });

  it('refuses an override host that is not a bare host name', () => {
    for (const host of ['evil.com/x', 'user@evil.com', 'evil.com:8080', 'https://evil.com', 'evil com', '//evil.com']) {
      expect(buildDetailsUrl(site('hdsky.me'), 1, { host }), host).toBeUndefined();
    }
  });

  it('refuses hostile or useless templates', () => {
    for (const template of [
      'details.php?id=',
      'details.php',
      'https://evil.com/{}',
      'javascript:alert({})',
      'data:text/html,{}',
      '//evil.com/{}',
      '/\\evil.com/{}',
      '\\\\evil.com\\{}',
      'a//b/{}',
      'details.php?id={}" onmouseover="x',
      "details.php?id={}'",
      '<script>{}</script>',
      'details.php?id={}`',
      'details.php?id= {}',
      'details.php?id={}\n',
      'details.php?id={}\u2028',
      'details.php\t?id={}',
      'details.php?id={}&passkey={passkey}',
      '{}{',
    ]) {
      expect(buildDetailsUrl(site('hdsky.me', template), 1), JSON.stringify(template)).toBeUndefined();
    }
  });

  it('keeps odd but harmless templates on the site’s host', () => {
    expect(buildDetailsUrl(site('hdsky.me', '@evil.com/{}'), 1)).toBe('https://hdsky.me/@evil.com/1');
    expect(buildDetailsUrl(site('hdsky.me', '%2F%2Fevil.com/{}'), 1)).toBe('https://hdsky.me/%2F%2Fevil.com/1');
    expect(buildDetailsUrl(site('hdsky.me', '../../x{}'), 1)).toBe('https://hdsky.me/x1');
    expect(buildDetailsUrl(site('www.yemapt.org', '#/torrent/detail/{}/'), 1)).toBe('https://www.yemapt.org/#/torrent/detail/1/');
  });

  it('refuses ids that are not non-negative safe integers', () => {
    for (const id of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1e21, -0.5]) {
      expect(buildDetailsUrl(site('hdsky.me'), id), String(id)).toBeUndefined();
    }
    expect(buildDetailsUrl(site('hdsky.me'), '12' as unknown as number)).toBeUndefined();
    expect(buildDetailsUrl(site('hdsky.me'), Number.MAX_SAFE_INTEGER)).toBe(`https://hdsky.me/details.php?id=${Number.MAX_SAFE_INTEGER}`);
  });

  it('refuses a base_url that is not a bare host name', () => {
    for (const base of ['', 'evil.com/path', 'user@evil.com', 'hdsky.me:8080', 'https://hdsky.me', 'hdsky.me\\@evil.com', 'javascript:alert(1)', '127.0.0.1', 'localhost']) {
      expect(buildDetailsUrl(site(base), 1), base).toBeUndefined();
    }
  });
});

describe('buildDetailsUrlFromCatalog', () => {
  it('builds from the entry’s first host, scheme and template', () => {
    expect(buildDetailsUrlFromCatalog(siteForName('hdsky')!, 5)).toBe('https://hdsky.me/details.php?id=5');
    expect(buildDetailsUrlFromCatalog(siteForName('m-team')!, 5)).toBe('https://kp.m-team.cc/detail/5');
    expect(buildDetailsUrlFromCatalog(siteForName('opencd')!, 5)).toBe('https://open.cd/plugin_details.php?id=5');
    expect(buildDetailsUrlFromCatalog(siteForName('hdroute')!, 5)).toBe('http://hdroute.org/details.php?id=5');
    expect(buildDetailsUrlFromCatalog(siteForName('pter')!, 5, { host: 'pterclub.com' })).toBe('https://pterclub.com/details.php?id=5');
    expect(buildDetailsUrlFromCatalog(siteForName('hdsky')!, -5)).toBeUndefined();
    expect(buildDetailsUrlFromCatalog(siteForName('hdsky')!, 5, { host: 'evil.com/' })).toBeUndefined();
  });
});

describe('homeUrl', () => {
  it('gives a site’s root, from the service list or the catalog', () => {
    expect(homeUrl({ base_url: 'ourbits.club', is_https: 1 })).toBe('https://ourbits.club/');
    expect(homeUrl({ base_url: 'hdroute.org', is_https: 0 })).toBe('http://hdroute.org/');
    expect(homeUrl({ base_url: 'api.m-team.cc', is_https: 1 })).toBe('https://kp.m-team.cc/');
    expect(homeUrl(siteForName('zmpt'))).toBe('https://zmpt.cc/');
    expect(homeUrl(siteForName('zmpt'), { host: 'mirror.zmpt.cc', scheme: 'http' })).toBe('http://mirror.zmpt.cc/');
    expect(homeUrl(undefined)).toBeUndefined();
    expect(homeUrl({ base_url: 'evil.com/x', is_https: 1 })).toBeUndefined();
  });
});

describe('links for any input (property)', () => {
  const catalogHost = fc.constantFrom(...catalog.flatMap((e) => [...e.hosts, ...(e.oldHosts ?? []), ...(e.apiHosts ?? [])]));
  const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
  const randomHost = fc.array(label, { minLength: 2, maxLength: 4 }).map((labels) => labels.join('.'));
  const junk = fc.constantFrom('//', '\\', '"', "'", '<', '>', ' ', '\n', '\t', '@', ':', '#', '?', '%2F', '..', '{', '}', '{}', '{id}', 'javascript:', 'https://evil.com', '\u2028', '\u0000', '／／');
  const host = fc.oneof(catalogHost, randomHost, fc.string({ maxLength: 30 }), fc.tuple(randomHost, junk, randomHost).map((parts) => parts.join('')));
  const template = fc.oneof(
    fc.constantFrom('details.php?id={}', 'detail/{}', 't-{}', 'torrents/{id}', '', '#/torrent/detail/{}/'),
    fc.array(fc.oneof(junk, fc.string({ maxLength: 6 })), { maxLength: 8 }).map((parts) => parts.join('')),
  );
  const id = fc.oneof(fc.nat(), fc.maxSafeNat(), fc.integer(), fc.double(), fc.constant(2 ** 53));
  const override = fc.option(
    fc.record({ host: fc.option(fc.oneof(randomHost, host), { nil: undefined }), scheme: fc.option(fc.constantFrom<'http' | 'https'>('http', 'https'), { nil: undefined }) }, { requiredKeys: [] }),
    { nil: undefined },
  );

  /** The hosts a link may go to: the override's, or the base_url and the catalog's current host for it. */
  function allowedHosts(base: string, given?: LinkOverride): string[] {
    // A blank override host means none (as a blank details_page does).
    if (given?.host?.trim()) return [given.host.trim().toLowerCase()];
    const normalized = base.trim().toLowerCase();
    const entry = siteForHost(normalized);
    return entry ? [normalized, entry.hosts[0]!] : [normalized];
  }

  it('buildDetailsUrl yields undefined or an http(s) URL on the expected host', () => {
    fc.assert(
      fc.property(host, template, fc.integer({ min: -2, max: 3 }), id, override, (base, details, isHttps, torrentId, given) => {
        const url = buildDetailsUrl({ base_url: base, details_page: details, is_https: isHttps }, torrentId, given);
        if (url === undefined) return;
        expect(url).toMatch(/^https?:\/\/[a-z0-9.-]+\//);
        const parsed = new URL(url);
        expect(allowedHosts(base, given)).toContain(parsed.hostname);
        expect(parsed.username + parsed.password + parsed.port).toBe('');
        expect(Number.isSafeInteger(torrentId) && torrentId >= 0).toBe(true);
        expect(url).toContain(String(torrentId));
        if (given?.scheme) expect(parsed.protocol).toBe(`${given.scheme}:`);
      }),
      { numRuns: 3000 },
    );
  });

  it('buildDetailsUrlFromCatalog and homeUrl stay on the entry’s host or the override', () => {
    fc.assert(
      fc.property(fc.constantFrom(...catalog), id, override, (entry, torrentId, given) => {
        // A blank override host is no override.
        const expectedHost = given?.host?.trim().toLowerCase() || entry.hosts[0];
        for (const url of [buildDetailsUrlFromCatalog(entry, torrentId, given), homeUrl(entry, given)]) {
          if (url === undefined) continue;
          expect(url).toMatch(/^https?:\/\//);
          expect(new URL(url).hostname).toBe(expectedHost);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
