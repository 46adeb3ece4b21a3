/**
 * The site catalog (utils/sites/definitions/, each over its engine's schema), for the background
 * and the views. The content script should import from ./hosts instead, which carries only the
 * compact host index.
 */
import { definitions } from './definitions';
import { engineSchemas } from './engines';
import { siteKeyForHost } from './hosts';
import type { CatalogSite, SiteDefinition } from './site-types';

/** A definition as a catalog entry: data only, the engine's details page and https filled in. */
function catalogEntry({ download: _download, pages: _pages, ...definition }: SiteDefinition): CatalogSite {
  // A definition of an engine without a details page must give one (test/unit/sites/definitions.test.ts).
  const detailsPage = definition.detailsPage ?? engineSchemas[definition.engine].detailsPage ?? '';
  const piecesHashPath = definition.piecesHashPath ?? engineSchemas[definition.engine].piecesHashPath;
  return { ...definition, scheme: definition.scheme ?? 'https', detailsPage, ...(piecesHashPath !== undefined ? { piecesHashPath } : {}) };
}

export const catalog: readonly CatalogSite[] = definitions.map(catalogEntry);

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
