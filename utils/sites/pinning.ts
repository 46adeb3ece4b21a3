/**
 * A catalogued site is pinned by id AND name. The service (IYUU) has renumbered sites before: its
 * site list is the authority on which site has which id now, so "the site the service calls N" is
 * the catalog entry with the name the service gives N, whatever sid the catalog remembers for it.
 *
 * The service's short name is not always spelled as the catalog spells it (PTer: `pterclub` in the
 * reference list, `pter` in IYUU's own code): a name the catalog does not know still means the
 * catalog's site of that sid when the service's address for it is one of that site's hosts too.
 */
import { siteForHost, siteForName, siteForSid } from './catalog';
import type { CatalogSite } from './site-types';

/** The fields of a site of the service's list that say which site it is. */
export interface ListedSite {
  id: number;
  /** The service's short name. */
  site?: string;
  base_url?: string;
}

/**
 * The catalog entry a site of the service's list is: by its name; a name the catalog does not know
 * is the catalog's site of the same sid only when its address is that site's too; no name given,
 * by the sid alone (as before names were compared).
 */
export function catalogEntryOf(listed: ListedSite): CatalogSite | undefined {
  const name = typeof listed.site === 'string' ? listed.site.trim() : '';
  const byName = name ? siteForName(name) : undefined;
  if (byName) return byName;
  const bySid = siteForSid(listed.id);
  if (!name) return bySid;
  return bySid && typeof listed.base_url === 'string' && siteForHost(listed.base_url) === bySid ? bySid : undefined;
}

interface Pinned {
  /** service id → the catalog entry the service means by it (null: none the catalog knows). */
  bySid: Map<number, CatalogSite | null>;
  /** catalog short name → the service id it has now. */
  sidOf: Map<string, number>;
}

const pinnedLists = new WeakMap<readonly ListedSite[], Pinned>();

function pinned(list: readonly ListedSite[]): Pinned {
  let found = pinnedLists.get(list);
  if (!found) {
    found = { bySid: new Map(), sidOf: new Map() };
    for (const listed of list) {
      const entry = catalogEntryOf(listed) ?? null;
      if (!found.bySid.has(listed.id)) found.bySid.set(listed.id, entry);
      if (entry && !found.sidOf.has(entry.site)) found.sidOf.set(entry.site, listed.id);
    }
    pinnedLists.set(list, found);
  }
  return found;
}

/**
 * The catalog entry of the service's site `sid`: the one the service's list names under that id;
 * for an id the list does not hold, the catalog's entry of that sid unless the list gives that
 * site another id now. Without a list, the catalog's sid.
 */
export function siteForServiceSid(sid: number, list: readonly ListedSite[] | undefined): CatalogSite | undefined {
  if (!list?.length) return siteForSid(sid);
  const { bySid, sidOf } = pinned(list);
  if (bySid.has(sid)) return bySid.get(sid) ?? undefined;
  const catalogued = siteForSid(sid);
  return catalogued && !sidOf.has(catalogued.site) ? catalogued : undefined;
}

/** The id the service gives a catalog entry now (the catalog's sid when the list does not name it). */
export function serviceSidOf(entry: CatalogSite, list: readonly ListedSite[] | undefined): number | undefined {
  if (list?.length) {
    const sid = pinned(list).sidOf.get(entry.site);
    if (sid !== undefined) return sid;
    // The catalog's sid, unless the service now gives that id to another site.
    if (entry.sid !== undefined && pinned(list).bySid.has(entry.sid)) return undefined;
  }
  return entry.sid;
}

/** One site of the service's list on which the catalog disagrees. */
export interface Renumbering {
  /** What the service's list says: this id, for a site of this name. */
  serviceSid: number;
  serviceName?: string;
  /** The catalog's site the service means (its short name and the sid the catalog remembers), if any. */
  catalogName?: string;
  catalogSid?: number;
  /** The catalog's site of that id, when it is another one. */
  catalogNameOfSid?: string;
}

/**
 * Every site of the list the catalog pins otherwise: a catalogued site the list names under
 * another id, or a catalogued sid the list gives to a site of another name. Links follow the list.
 */
export function renumberings(list: readonly ListedSite[]): Renumbering[] {
  const found: Renumbering[] = [];
  for (const listed of list) {
    const entry = catalogEntryOf(listed);
    const ofSid = siteForSid(listed.id);
    const moved = !!entry && entry.sid !== undefined && entry.sid !== listed.id;
    if (!moved && (!ofSid || ofSid === entry)) continue;
    found.push({
      serviceSid: listed.id,
      ...(listed.site ? { serviceName: listed.site } : {}),
      ...(entry ? { catalogName: entry.site, ...(entry.sid !== undefined ? { catalogSid: entry.sid } : {}) } : {}),
      ...(ofSid && ofSid !== entry ? { catalogNameOfSid: ofSid.site } : {}),
    });
  }
  return found;
}

/** One line for the background's console: both ids and both names. */
export function renumberingText(change: Renumbering): string {
  const said = `the service's site list gives id ${change.serviceSid} to "${change.serviceName ?? '?'}"`;
  const catalog = [
    change.catalogName !== undefined ? `the catalog has "${change.catalogName}" as ${change.catalogSid ?? 'no id'}` : `the catalog knows no site of that name`,
    change.catalogNameOfSid !== undefined ? `and ${change.serviceSid} as "${change.catalogNameOfSid}"` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return `Reseed Lens: ${said}; ${catalog}. Following the service's list.`;
}
