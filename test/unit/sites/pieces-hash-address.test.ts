/**
 * Where a site's pieces-hash API is asked: NexusPHP's default path, the sites that move it, a path
 * the user typed, and the one rule that matters most: the passkey goes to the site's own hosts (or
 * the mirror the user confirmed for it) and nowhere else.
 */
import { describe, expect, it } from 'vitest';
import { catalog, piecesHashAddress, siteForName } from '../../../utils/sites';

const site = (name: string) => {
  const entry = siteForName(name);
  if (!entry) throw new Error(`no site ${name}`);
  return entry;
};

describe('piecesHashAddress', () => {
  it("NexusPHP's default path on the site's first host; keepfrds, hhanclub and piggo where they moved it", () => {
    expect(piecesHashAddress(site('hdsky'), undefined)).toEqual({ endpoint: 'https://hdsky.me/api/pieces-hash' });
    expect(piecesHashAddress(site('keepfrds'), undefined)).toEqual({ endpoint: 'https://pt.keepfrds.com/api/torrents/pieces-hash' });
    expect(piecesHashAddress(site('hhanclub'), '')).toEqual({ endpoint: 'https://hhanclub.net/nexusapi/pieces-hash' });
    expect(piecesHashAddress(site('piggo'), '  ')).toEqual({ endpoint: 'https://api.piggo.me/api/pieces-hash' });
  });

  it('every catalogued NexusPHP site has an address; sites of other engines none', () => {
    for (const entry of catalog) {
      const address = piecesHashAddress(entry, undefined);
      if (entry.engine === 'nexusphp') expect(address, entry.site).toHaveProperty('endpoint');
      else expect(address, entry.site).toEqual({ problem: 'not-nexusphp' });
    }
    // A path the user types does not make a Gazelle or UNIT3D site a NexusPHP one.
    expect(piecesHashAddress(site('dicmusic'), '/api/pieces-hash')).toEqual({ problem: 'not-nexusphp' });
    expect(piecesHashAddress(site('m-team'), undefined)).toEqual({ problem: 'not-nexusphp' });
  });

  it("a site of another engine whose definition names a path is asked there", () => {
    const custom = { ...site('zhuque'), piecesHashPath: '/api/pieces-hash' };
    expect(piecesHashAddress(custom, undefined)).toEqual({ endpoint: 'https://zhuque.in/api/pieces-hash' });
  });

  it("the user's path: on the site, or an address on one of its own hosts or their subdomains", () => {
    expect(piecesHashAddress(site('hhanclub'), '/npapi/pieces-hash')).toEqual({ endpoint: 'https://hhanclub.net/npapi/pieces-hash' });
    expect(piecesHashAddress(site('hhanclub'), 'https://hhanclub.top/npapi/pieces-hash')).toEqual({ endpoint: 'https://hhanclub.top/npapi/pieces-hash' });
    expect(piecesHashAddress(site('hdsky'), 'https://api.hdsky.me/api/pieces-hash')).toEqual({ endpoint: 'https://api.hdsky.me/api/pieces-hash' });
    expect(piecesHashAddress(site('hdsky'), '/api/pieces-hash?x=1')).toEqual({ endpoint: 'https://hdsky.me/api/pieces-hash?x=1' });
  });

  it('never another host: a stranger, another catalogued site, a look-alike, a protocol-relative path', () => {
    expect(piecesHashAddress(site('hdsky'), 'https://collector.example/api/pieces-hash')).toEqual({ problem: 'other-host', host: 'collector.example' });
    expect(piecesHashAddress(site('hdsky'), 'https://pthome.net/api/pieces-hash')).toEqual({ problem: 'other-host', host: 'pthome.net' });
    expect(piecesHashAddress(site('hdsky'), 'https://hdsky.me.evil.example/api')).toEqual({ problem: 'other-host', host: 'hdsky.me.evil.example' });
    expect(piecesHashAddress(site('hdsky'), '//evil.example/api/pieces-hash')).toEqual({ problem: 'other-host', host: 'evil.example' });
    expect(piecesHashAddress(site('piggo'), 'https://api.piggo.me.example/api/pieces-hash')).toMatchObject({ problem: 'other-host' });
  });

  it('a path that is no address: another scheme, credentials, a fragment, plain http to an https site', () => {
    expect(piecesHashAddress(site('hdsky'), 'javascript:alert(1)')).toEqual({ problem: 'bad-path' });
    expect(piecesHashAddress(site('hdsky'), 'ftp://hdsky.me/api')).toEqual({ problem: 'bad-path' });
    expect(piecesHashAddress(site('hdsky'), 'https://user:pw@hdsky.me/api/pieces-hash')).toEqual({ problem: 'bad-path' });
    expect(piecesHashAddress(site('hdsky'), '/api/pieces-hash#x')).toEqual({ problem: 'bad-path' });
    expect(piecesHashAddress(site('hdsky'), 'http://hdsky.me/api/pieces-hash')).toEqual({ problem: 'bad-path' });
    // A site the user reaches over http keeps its scheme for a path on it.
    expect(piecesHashAddress(site('hdsky'), 'http://hdsky.me/api/pieces-hash', { scheme: 'http' })).toEqual({ endpoint: 'http://hdsky.me/api/pieces-hash' });
  });

  it("a mirror: only once the user confirmed it for this site; an unconfirmed one or another site's host leaves the API on the site's own host", () => {
    const hdsky = site('hdsky');
    expect(piecesHashAddress(hdsky, undefined, { host: 'mirror.example', confirmedHost: 'mirror.example' })).toEqual({ endpoint: 'https://mirror.example/api/pieces-hash' });
    expect(piecesHashAddress(hdsky, 'https://mirror.example/x', { host: 'mirror.example', confirmedHost: 'mirror.example' })).toEqual({ endpoint: 'https://mirror.example/x' });
    // Not confirmed, or confirmed for an earlier host: the site's own host, and an address on the mirror is refused.
    expect(piecesHashAddress(hdsky, undefined, { host: 'mirror.example' })).toEqual({ endpoint: 'https://hdsky.me/api/pieces-hash' });
    expect(piecesHashAddress(hdsky, undefined, { host: 'mirror.example', confirmedHost: 'older.example' })).toEqual({ endpoint: 'https://hdsky.me/api/pieces-hash' });
    expect(piecesHashAddress(hdsky, 'https://mirror.example/api/pieces-hash', { host: 'mirror.example' })).toEqual({ problem: 'other-host', host: 'mirror.example' });
    // Another catalogued site's host is never this site's mirror, confirmed or not.
    expect(piecesHashAddress(hdsky, undefined, { host: 'pthome.net', confirmedHost: 'pthome.net' })).toEqual({ endpoint: 'https://hdsky.me/api/pieces-hash' });
    // One of the site's own other hosts moves the API with it.
    expect(piecesHashAddress(site('hhanclub'), undefined, { host: 'hhan.club' })).toEqual({ endpoint: 'https://hhan.club/nexusapi/pieces-hash' });
    // piggo's API host stays where its definition puts it.
    expect(piecesHashAddress(site('piggo'), undefined, { host: 'mirror.example', confirmedHost: 'mirror.example' })).toEqual({ endpoint: 'https://api.piggo.me/api/pieces-hash' });
  });
});
