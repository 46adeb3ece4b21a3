import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalog, siteForHost } from '../../../utils/sites/catalog';
import { normalizeHost, siteKeyForHost } from '../../../utils/sites/hosts';

const everyHost = catalog.flatMap((entry) => [...entry.hosts, ...(entry.oldHosts ?? []), ...(entry.apiHosts ?? [])].map((host) => [host, entry.site] as const));

describe('siteForHost', () => {
  it('finds a site by its current host, www. and any subdomain', () => {
    expect(siteForHost('hdsky.me')?.site).toBe('hdsky');
    expect(siteForHost('www.hdsky.me')?.site).toBe('hdsky');
    expect(siteForHost('a.b.c.hdsky.me')?.site).toBe('hdsky');
    expect(siteForHost('open.cd')?.site).toBe('opencd');
    expect(siteForHost('www.open.cd')?.site).toBe('opencd');
    expect(siteForHost('u2.dmhy.org')?.site).toBe('dmhy');
  });

  it('reads hosts the way pages report them: any case, a port, a trailing dot, spaces', () => {
    expect(siteForHost('HDSky.ME')?.site).toBe('hdsky');
    expect(siteForHost('hdsky.me:443')?.site).toBe('hdsky');
    expect(siteForHost('hdsky.me.')?.site).toBe('hdsky');
    expect(siteForHost('  zmpt.cc ')?.site).toBe('zmpt');
  });

  it('recognises old domains and API hosts as the same site', () => {
    expect(siteForHost('pterclub.com')?.site).toBe('pter');
    expect(siteForHost('www.pterclub.com')?.site).toBe('pter');
    expect(siteForHost('hhanclub.top')?.site).toBe('hhanclub');
    expect(siteForHost('api.m-team.cc')?.site).toBe('m-team');
    expect(siteForHost('zp.m-team.io')?.site).toBe('m-team');
    expect(siteForHost('hdcmct.org')?.site).toBe('ssd');
  });

  it('does not match look-alikes', () => {
    for (const host of [
      'hdsky.me.evil.com',
      'nothdsky.me',
      'hdsky.mee',
      'hdsky-me.com',
      'evil-hdsky.me',
      'hdskyme',
      'me',
      'dmhy.org',
      'share.dmhy.org',
      'sjtu.edu.cn',
      'edu.cn',
      'm-team.cc.evil.com',
      'xn--hdsky-9ua.me',
      'open.cd.evil.cd',
    ]) {
      expect(siteForHost(host), host).toBeUndefined();
    }
  });

  it('rejects anything that is not a bare host', () => {
    for (const value of ['', '.', 'hdsky.me/evil', 'user@hdsky.me', 'hdsky.me:abc', 'https://hdsky.me', 'hdsky.me\\x', '127.0.0.1', 'hd sky.me', 'hdsky..me', '-hdsky.me']) {
      expect(siteKeyForHost(value), value).toBeUndefined();
    }
    expect(normalizeHost('HDSKY.me:8080')).toBe('hdsky.me');
    expect(normalizeHost('hdsky.me/x')).toBeUndefined();
  });

  it('gives the content script the engine without the catalog', () => {
    expect(siteKeyForHost('kp.m-team.cc')).toEqual({ site: 'm-team', engine: 'mteam' });
    expect(siteKeyForHost('greatposterwall.com')).toEqual({ site: 'greatposterwall', engine: 'gazelle' });
    expect(siteKeyForHost('monikadesign.uk')).toEqual({ site: 'monikadesign', engine: 'unit3d' });
  });

  it('matches every catalog host under any subdomain (property)', () => {
    const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.constantFrom(...everyHost), fc.array(label, { maxLength: 3 }), ([host, site], prefix) => {
        const full = [...prefix, host].join('.');
        expect(siteForHost(full)?.site).toBe(site);
      }),
    );
  });

  it('only ever matches a host that is a catalog host or under one (property)', () => {
    const hostish = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(...everyHost).map(([host]) => host),
      fc.tuple(fc.constantFrom(...everyHost), fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([[host], before, after]) => `${before}${host}${after}`),
    );
    fc.assert(
      fc.property(hostish, (value) => {
        const found = siteForHost(value);
        if (!found) return;
        const normalized = normalizeHost(value)!;
        const own = [...found.hosts, ...(found.oldHosts ?? []), ...(found.apiHosts ?? [])];
        expect(own.some((host) => normalized === host || normalized.endsWith(`.${host}`))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
