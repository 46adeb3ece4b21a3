/**
 * The site definitions hold together: each over an engine that exists, each fact once (no row
 * repeats its engine's default), hosts and names unique across sites, every template usable, every
 * definition file listed in the registry, and the content script's generated views current.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalog, siteForHost, siteForName } from '../../../utils/sites/catalog';
import { definitions } from '../../../utils/sites/definitions';
import { detailsPageLinkOf, downloadRuleOf } from '../../../utils/sites/download-rules';
import { engineSchemas } from '../../../utils/sites/engines';
import { renderNexusphpPaths } from '../../../utils/sites/generate-site-indexes';
import { buildDetailsUrlFromCatalog, buildDownloadUrl } from '../../../utils/sites/links';
import type { SiteDefinition } from '../../../utils/sites/site-types';
import { nexusphp, nexusTorrentId } from '../../../utils/pages/nexusphp';
import { documentFrom } from '../pages/load';

const noFetch = (() => Promise.reject(new Error('no network in this test'))) as typeof fetch;

const ENGINES = ['nexusphp', 'unit3d', 'gazelle', 'mteam', 'other'];
const hostsOf = (definition: SiteDefinition) => [...definition.hosts, ...(definition.oldHosts ?? []), ...(definition.apiHosts ?? [])];
const withId = (template: string) => template.includes('{}') || template.includes('{id}');
const captureGroups = (pattern: RegExp) => new RegExp(`${pattern.source}|`).exec('')!.length - 1;

describe('site definitions', () => {
  it('are the catalog, one entry per definition, in the same order', () => {
    expect(catalog.map((entry) => entry.site)).toEqual(definitions.map((definition) => definition.site));
  });

  it('each stand over an engine that has a schema', () => {
    expect(Object.keys(engineSchemas).sort()).toEqual([...ENGINES].sort());
    for (const definition of definitions) expect(engineSchemas[definition.engine], definition.site).toBeDefined();
  });

  it('name each site, sid and host once across all sites', () => {
    const names = definitions.map((definition) => definition.site);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    const sids = definitions.flatMap((definition) => (definition.sid === undefined ? [] : [definition.sid]));
    expect(sids.filter((sid, index) => sids.indexOf(sid) !== index)).toEqual([]);
    const owners = new Map<string, string>();
    const twice: string[] = [];
    for (const definition of definitions) {
      for (const host of hostsOf(definition)) {
        if (owners.has(host)) twice.push(`${host}: ${owners.get(host)} and ${definition.site}`);
        owners.set(host, definition.site);
      }
    }
    expect(twice).toEqual([]);
  });

  it('say only what differs from their engine: no details page or scheme that is the default anyway', () => {
    const repeated = definitions.flatMap((definition) => [
      ...(definition.detailsPage !== undefined && definition.detailsPage === engineSchemas[definition.engine].detailsPage ? [`${definition.site}: detailsPage`] : []),
      ...(definition.scheme === 'https' ? [`${definition.site}: scheme`] : []),
      ...Object.entries(definition.download ?? {}).flatMap(([field, value]) =>
        (engineSchemas[definition.engine].download as Record<string, unknown>)[field] === value ? [`${definition.site}: download.${field}`] : [],
      ),
    ]);
    expect(repeated).toEqual([]);
  });

  it('give a details page with the torrent id where their engine has none, and every catalog entry has one', () => {
    for (const definition of definitions) {
      if (engineSchemas[definition.engine].detailsPage === undefined) expect(definition.detailsPage, definition.site).toBeDefined();
    }
    for (const entry of catalog) expect(withId(entry.detailsPage), entry.site).toBe(true);
    for (const schema of Object.values(engineSchemas)) if (schema.detailsPage !== undefined) expect(withId(schema.detailsPage)).toBe(true);
  });

  it("have download templates with the torrent id, a passkey template with the passkey, and addresses on the site's first host", () => {
    for (const entry of catalog) {
      const rule = downloadRuleOf(entry);
      if (rule.cookieTemplate !== undefined) {
        expect(withId(rule.cookieTemplate), entry.site).toBe(true);
        const url = buildDownloadUrl(entry, 4242, rule.cookieTemplate);
        expect(url && new URL(url).hostname, entry.site).toBe(entry.hosts[0]);
      }
      if (rule.passkeyTemplate !== undefined) {
        expect(withId(rule.passkeyTemplate) && rule.passkeyTemplate.includes('{passkey}'), entry.site).toBe(true);
        expect(buildDownloadUrl(entry, 4242, rule.passkeyTemplate, { key: '0123456789abcdef0123456789abcdef' }), entry.site).toMatch(/^https?:\/\//);
      }
      // Each site can be had one way at least, or says why not.
      expect(!!(rule.unsupported || rule.cookieTemplate || rule.detailsPageLink) || entry.engine === 'other', entry.site).toBe(true);
    }
  });

  it('name each details-page link shape for one reader only, and that reader is found by its name', () => {
    const readers = new Map<string, unknown>();
    for (const entry of catalog) {
      const link = downloadRuleOf(entry).detailsPageLink;
      if (!link) continue;
      if (readers.has(link.shape)) expect(readers.get(link.shape), `${entry.site}: ${link.shape}`).toBe(link);
      readers.set(link.shape, link);
      expect(detailsPageLinkOf(link.shape)).toBe(link);
      // A reader takes its own torrent's link only: never a link to another id, on any path.
      const detailsUrl = new URL(buildDetailsUrlFromCatalog(entry, 7)!);
      for (const path of ['/download.php?id=8&passkey=abc', '/torrents.php?action=download&id=8&authkey=a&torrent_pass=b', '/dl/8/abc', '/download?id=8']) {
        expect(link.rebuild(new URL(path, detailsUrl), '7'), `${link.shape}: ${path}`).toBeUndefined();
      }
    }
    expect([...readers.keys()].sort()).toEqual(['gazelle', 'hdcity', 'nexusphp', 'nexusphp-downhash', 'ttg']);
    expect(detailsPageLinkOf('no-such-shape')).toBeUndefined();
  });

  it('are all listed: every file of utils/sites/definitions/ gives a definition the registry holds', async () => {
    const folder = new URL('../../../utils/sites/definitions/', import.meta.url);
    const files = readdirSync(folder).filter((file) => file.endsWith('.ts') && file !== 'index.ts');
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const module = (await import(new URL(file, folder).href)) as Record<string, unknown>;
      const own = Object.values(module).filter((value): value is SiteDefinition => typeof value === 'object' && value !== null && 'hosts' in value && 'site' in value);
      expect(own.length, file).toBe(1);
      expect(definitions, file).toContain(own[0]);
      expect(file, 'the file is named after its site').toBe(`${own[0]!.site}.ts`);
    }
  });

  it("say where their pages differ from NexusPHP's, and the NexusPHP page engine then reads them there", () => {
    const withPages = definitions.filter((definition) => definition.pages);
    expect(withPages.map((definition) => definition.site)).toEqual(['ttg', 'hdcity']);
    for (const definition of withPages) {
      const { torrentPage, torrentLinks, downloadLink, listPage } = definition.pages!;
      for (const pattern of [torrentPage, downloadLink, listPage]) if (pattern) expect(pattern.flags, definition.site).toBe('');
      expect(captureGroups(torrentPage), definition.site).toBe(1);
      for (const pattern of [downloadLink, listPage]) if (pattern) expect(captureGroups(pattern), definition.site).toBe(0);
      // Its own details page (its template, on its host) is a torrent page to the engine, and a row's link to it names the torrent.
      const entry = siteForName(definition.site)!;
      const detailsUrl = buildDetailsUrlFromCatalog(entry, 31337)!;
      const url = new URL(detailsUrl);
      expect(nexusphp.applies({ url, document: documentFrom('<p></p>', detailsUrl), fetch: noFetch }), definition.site).toBe(true);
      const relative = entry.detailsPage.replace('{}', '31337');
      expect(nexusTorrentId(relative, url.host), definition.site).toBe('31337');
      expect(nexusTorrentId(`/${relative}`, url.host), definition.site).toBe('31337');
      expect(nexusTorrentId(detailsUrl, url.host), definition.site).toBe('31337');
      const list = `<table class="torrents"><tr><td><a href="/${relative}"><b>A</b></a></td></tr></table>`;
      const listUrl = `${url.origin}/${listPage ? 'browse.php' : 'torrents.php'}`;
      expect(nexusphp.applies({ url: new URL(listUrl), document: documentFrom(list, listUrl), fetch: noFetch }), listUrl).toBe(true);
      expect(nexusphp.listRows!({ url: new URL(listUrl), document: documentFrom(list, listUrl), fetch: noFetch }).map((row) => row.id), definition.site).toEqual(['31337']);
      expect(documentFrom(`<a href="/${relative}">x</a>`, detailsUrl).querySelector(torrentLinks), `${definition.site}: ${torrentLinks}`).not.toBeNull();
    }
  });

  it('ship the NexusPHP page engine paths generated from the current definitions', () => {
    const shipped = readFileSync(new URL('../../../utils/pages/nexusphp-paths.ts', import.meta.url), 'utf8');
    expect(shipped).toBe(renderNexusphpPaths(definitions));
    // Without any such site, the paths match nothing (and the selector finds nothing).
    const none = renderNexusphpPaths(definitions.filter((definition) => !definition.pages));
    expect(none).toContain('export const SITE_TORRENT_PAGES = /(?!)/;');
    expect(none).toContain('export const SITE_TORRENT_LINKS = "a:not(a)";');
  });
});

describe('download rules', () => {
  it("are the engine's with the definition's fields on top", () => {
    const hdsky = downloadRuleOf(siteForName('hdsky')!);
    expect(hdsky.detailsPageLink?.shape).toBe('nexusphp');
    expect(hdsky.passkeyTemplate).toBe(engineSchemas.nexusphp.download.passkeyTemplate);
    expect(downloadRuleOf(siteForName('hdcity')!)).toMatchObject({ cookieTemplate: 'download?id={}', passkeyTemplate: 'download.php?id={}&passkey={passkey}' });
    expect(downloadRuleOf(siteForName('ourbits')!)).toEqual(engineSchemas.nexusphp.download);
    expect(downloadRuleOf(siteForName('hdcity')!).detailsPageLink?.shape).toBe('hdcity');
    for (const site of ['hdhome', 'pthome', 'hddolby']) expect(downloadRuleOf(siteForName(site)!).detailsPageLink?.shape, site).toBe('nexusphp-downhash');
    // M-Team: its API, at its own API host; the engine alone (no definition's rule) cannot download.
    expect(downloadRuleOf(siteForName('m-team')!)).toEqual({
      unsupported: 'needs-api',
      apiToken: { url: 'https://api.m-team.cc/api/torrent/genDlToken', keyHeader: 'x-api-key', idField: 'id' },
    });
    expect(siteForHost(new URL(downloadRuleOf(siteForName('m-team')!).apiToken!.url).hostname)?.site).toBe('m-team');
    expect(downloadRuleOf(siteForName('zhuque')!)).toEqual({});
  });
});
