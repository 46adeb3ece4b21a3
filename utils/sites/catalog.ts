/**
 * The bundled site catalog (catalog.json), for the background and the views. The content script
 * should import from ./hosts instead, which carries only the compact host index.
 */
import data from './catalog.json';
import { siteKeyForHost } from './hosts';
import type { CatalogSite } from './site-types';

/** Checked against CatalogSite by test/unit/sites/catalog.test.ts. */
export const catalog = data as unknown as readonly CatalogSite[];

let bySid: Map<number, CatalogSite> | undefined;
let byName: Map<string, CatalogSite> | undefined;

export function siteForSid(sid: number): CatalogSite | undefined {
  bySid ??= new Map(catalog.flatMap((entry) => (entry.sid === undefined ? [] : [[entry.sid, entry] as const])));
  return bySid.get(sid);
}

/** By IYUU's short name, e.g. "hdsky". */
export function siteForName(site: string): CatalogSite | undefined {
  byName ??= new Map(catalog.map((entry) => [entry.site, entry]));
  return byName.get(site);
}

/** By host: current hosts, old hosts, API hosts and any subdomain of them (`www.` included). */
export function siteForHost(host: string): CatalogSite | undefined {
  const key = siteKeyForHost(host);
  return key && siteForName(key.site);
}
