import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalog, siteForHost, siteForName, siteForSid } from '../../../utils/sites/catalog';
import { renderHostIndex } from '../../../utils/sites/generate-site-indexes';
import { isHostName } from '../../../utils/sites/hosts';
import { buildDetailsUrlFromCatalog } from '../../../utils/sites/links';
import type { CatalogSite } from '../../../utils/sites/site-types';

const ENGINES = ['nexusphp', 'unit3d', 'gazelle', 'mteam', 'other'];
const KEYS: Record<string, 'required' | 'optional'> = {
  sid: 'optional',
  site: 'required',
  nickname: 'required',
  nameZh: 'optional',
  engine: 'required',
  hosts: 'required',
  oldHosts: 'optional',
  apiHosts: 'optional',
  scheme: 'required',
  detailsPage: 'required',
  piecesHashPath: 'optional',
};

/** Every way a catalog entry (a site definition over its engine) can fail the CatalogSite contract, as readable messages. */
function contractProblems(entry: unknown): string[] {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return ['not an object'];
  const record = entry as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(record)) if (!(key in KEYS)) problems.push(`unknown key ${key}`);
  for (const [key, need] of Object.entries(KEYS)) if (need === 'required' && !(key in record)) problems.push(`missing ${key}`);
  const text = (key: string) => typeof record[key] === 'string' && (record[key] as string).trim() !== '';
  const hostList = (key: string, allowEmpty: boolean) => {
    const value = record[key];
    if (value === undefined) return;
    if (!Array.isArray(value) || (!allowEmpty && value.length === 0)) problems.push(`${key} not a non-empty list`);
    else for (const host of value) if (typeof host !== 'string' || !isHostName(host)) problems.push(`${key}: bad host ${String(host)}`);
  };
  if ('sid' in record && !(Number.isSafeInteger(record.sid) && (record.sid as number) > 0)) problems.push('sid not a positive integer');
  if (!text('site') || !/^[a-z0-9-]+$/.test(String(record.site))) problems.push('site not a short name');
  if (!text('nickname')) problems.push('nickname empty');
  if ('nameZh' in record && !text('nameZh')) problems.push('nameZh empty');
  if (!ENGINES.includes(record.engine as string)) problems.push(`engine ${String(record.engine)}`);
  hostList('hosts', false);
  hostList('oldHosts', false);
  hostList('apiHosts', false);
  if (record.scheme !== 'https' && record.scheme !== 'http') problems.push('scheme');
  if (!text('detailsPage') || !/\{(id)?\}/.test(String(record.detailsPage))) problems.push('detailsPage without {} or {id}');
  if ('piecesHashPath' in record && !/^(\/[^/]|https:\/\/)/.test(String(record.piecesHashPath))) problems.push('piecesHashPath neither a path nor an https address');
  return problems;
}

function allHosts(entry: CatalogSite): string[] {
  return [...entry.hosts, ...(entry.oldHosts ?? []), ...(entry.apiHosts ?? [])];
}

/** The 20 hosts the brief names: each must be recognised (with subdomains) as some catalog site. */
const REQUIRED_HOSTS = [
  'hdsky.me', 'ourbits.club', 'springsunday.net', 'pterclub.com', 'tjupt.org', 'hdhome.org', 'pthome.net',
  'pt.keepfrds.com', 'audiences.me', 'hdfans.org', 'www.hddolby.com', 'pt.btschool.club', 'open.cd', 'u2.dmhy.org',
  'hdtime.org', '52pt.site', 'www.nicept.net', 'carpt.net', 'hhanclub.top', 'zmpt.cc',
];

// The entries as the definitions make them, looked at as untyped data.
const data: unknown = catalog;

describe('the catalog (utils/sites/definitions/)', () => {
  it('is a list of CatalogSite entries and nothing else', () => {
    expect(Array.isArray(data)).toBe(true);
    const problems = (data as unknown[]).flatMap((entry, i) => contractProblems(entry).map((p) => `#${i} ${JSON.stringify((entry as { site?: string }).site)}: ${p}`));
    expect(problems).toEqual([]);
    expect(catalog.length).toBeGreaterThanOrEqual(90);
  });

  it('catches a broken entry (the validator can fail)', () => {
    expect(contractProblems({ site: 'x', nickname: 'X', engine: 'nexusphp', hosts: ['x.org'], scheme: 'https', detailsPage: 'details.php?id={}' })).toEqual([]);
    expect(contractProblems({ site: 'X y', nickname: '', engine: 'phpbb', hosts: ['x.org/'], scheme: 'ftp', detailsPage: 'details.php', extra: 1 })).toHaveLength(7);
    expect(contractProblems({ sid: 0, site: 'x', nickname: 'X', engine: 'other', hosts: [], scheme: 'https', detailsPage: '{}' })).toEqual([
      'sid not a positive integer',
      'hosts not a non-empty list',
    ]);
  });

  it('has unique sids, short names and hosts', () => {
    const sids = catalog.flatMap((e) => (e.sid === undefined ? [] : [e.sid]));
    expect(new Set(sids).size).toBe(sids.length);
    const names = catalog.map((e) => e.site);
    expect(new Set(names).size).toBe(names.length);
    const hosts = catalog.flatMap(allHosts);
    expect(new Set(hosts).size).toBe(hosts.length);
  });

  it('never puts one site under another site’s domain (a host would match two sites)', () => {
    const clashes: string[] = [];
    for (const a of catalog) {
      for (const b of catalog) {
        if (a === b) continue;
        for (const host of allHosts(a)) for (const base of allHosts(b)) if (host === base || host.endsWith(`.${base}`)) clashes.push(`${a.site}:${host} under ${b.site}:${base}`);
      }
    }
    expect(clashes).toEqual([]);
  });

  it('uses plain lowercase host names of two labels or more', () => {
    for (const host of catalog.flatMap(allHosts)) {
      expect(host, host).toBe(host.toLowerCase());
      expect(isHostName(host), host).toBe(true);
      expect(host.split('.').length, host).toBeGreaterThanOrEqual(2);
    }
  });

  it('recognises the 20 required hosts and their subdomains', () => {
    for (const host of REQUIRED_HOSTS) {
      const entry = siteForHost(host);
      expect(entry, host).toBeDefined();
      expect(allHosts(entry!), host).toContain(host);
      expect(siteForHost(`www.${host}`)?.site, `www.${host}`).toBe(entry!.site);
      expect(siteForHost(`a.b.${host}`)?.site, `a.b.${host}`).toBe(entry!.site);
    }
  });

  it('covers the well-known IYUU sites under their IYUU short names', () => {
    const expected: Record<string, string> = {
      'kp.m-team.cc': 'm-team', 'ptchdbits.co': 'chdbits', 'totheglory.im': 'ttg', 'hdcity.city': 'hdcity', 'hdarea.club': 'hdarea',
      'pthome.net': 'pthome', 'pt.soulvoice.club': 'soulvoice', 'www.haidan.cc': 'haidan', 'www.pttime.org': 'pttime',
      'u2.dmhy.org': 'dmhy', 'springsunday.net': 'ssd', 'pterclub.net': 'pter', 'et8.org': 'torrentccf', 'pt.sjtu.edu.cn': 'pt',
    };
    for (const [host, site] of Object.entries(expected)) expect(siteForHost(host)?.site, host).toBe(site);
  });

  it('keeps the sids that IYUU’s own 2020 site list states', () => {
    // From the service's answer quoted in a public client (SOURCES.md, source A).
    const listed: Record<string, number> = { keepfrds: 1, pthome: 2, 'm-team': 3, hdsky: 4, tjupt: 5, pter: 6, hdhome: 7, btschool: 8, ourbits: 9, ssd: 23, chdbits: 25, opencd: 33, dmhy: 37, hdtime: 30, '52pt': 19, nicept: 18 };
    for (const [site, sid] of Object.entries(listed)) {
      expect(siteForName(site)?.sid, site).toBe(sid);
      expect(siteForSid(sid)?.site, String(sid)).toBe(site);
    }
    // The pitfall: IYUU's "dmhy" is U2, not the public dmhy tracker.
    expect(siteForName('dmhy')?.hosts[0]).toBe('u2.dmhy.org');
    expect(siteForHost('share.dmhy.org')).toBeUndefined();
  });

  it('gives M-Team its page host first and its API host as an API host', () => {
    const mteam = siteForName('m-team')!;
    expect(mteam.engine).toBe('mteam');
    expect(mteam.hosts[0]).toBe('kp.m-team.cc');
    expect(mteam.apiHosts).toContain('api.m-team.cc');
    expect(mteam.detailsPage).toBe('detail/{}');
  });

  it('builds a details link for every entry, on its first host', () => {
    for (const entry of catalog) {
      const url = buildDetailsUrlFromCatalog(entry, 424242);
      expect(url, entry.site).toBeDefined();
      const parsed = new URL(url!);
      expect(parsed.hostname, entry.site).toBe(entry.hosts[0]);
      expect(parsed.protocol, entry.site).toBe(`${entry.scheme}:`);
      expect(url, entry.site).toContain('424242');
    }
  });

  it('ships a host index generated from the current catalog', () => {
    const shipped = readFileSync(new URL('../../../utils/sites/host-index.ts', import.meta.url), 'utf8');
    expect(shipped).toBe(renderHostIndex(catalog));
    expect(renderHostIndex([...catalog, { site: 'new', nickname: 'New', engine: 'other', hosts: ['new.example'], scheme: 'https', detailsPage: '{}' }])).not.toBe(shipped);
  });
});
