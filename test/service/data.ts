/**
 * The reference service's data: sites.json (the live `GET /reseed/sites/index` entries plus the
 * recommended sites) and data.json (tokens, apps, bindable accounts, torrents grouped by content).
 * Torrents name sites by short name, so sites.json can be replaced by a researched list as long as
 * the short names stay; members on a site the list does not know are left out (and reported in
 * `unknownSites`, which test/service/data.test.ts keeps empty).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const hex40 = z.string().regex(/^[0-9a-f]{40}$/);

/** One live site-list entry. Only `id` and `site` matter to the server; the rest is served verbatim. */
const siteEntrySchema = z.looseObject({
  id: z.number().int().nonnegative(),
  site: z.string().min(1),
  nickname: z.string().optional(),
  base_url: z.string().optional(),
  details_page: z.string().optional(),
  download_page: z.string().optional(),
  is_https: z.number().int().optional(),
  cookie_required: z.union([z.number(), z.boolean(), z.string()]).optional(),
});
export type SiteEntry = z.infer<typeof siteEntrySchema>;

/** Spec 2.2 entry; in the file either this whole object or just a site's short name. */
const recommendedEntrySchema = z.object({
  id: z.number().int().nonnegative(),
  site: z.string().min(1),
  nickname: z.string(),
  bind_check: z.string().optional(),
  reseed_check: z.string().optional(),
});
export type RecommendedEntry = z.infer<typeof recommendedEntrySchema>;

const sitesFileSchema = z.object({
  sites: z.array(siteEntrySchema),
  recommend: z.array(z.union([z.string(), recommendedEntrySchema])).default([]),
});

const tokenSchema = z.object({
  token: z.string().min(1),
  /** The recommended-site account this token is bound to; null = registered but not bound. */
  bound: z.object({ site: z.string(), user_id: z.string() }).nullable(),
  /** Unix seconds; a token past it is refused everywhere except the profile. */
  overdue_time: z.number().int(),
  is_ever_level: z.number().int().default(0),
  note: z.string().optional(),
});
export type TokenEntry = z.infer<typeof tokenSchema>;

const dataFileSchema = z.object({
  tokens: z.array(tokenSchema),
  apps: z.array(z.object({ appid: z.string().min(1), secret: z.string().min(1) })),
  /** Accounts a token can be bound with; `passkey` is the raw passkey (the client sends its SHA-1). */
  accounts: z.array(z.object({ site: z.string(), user_id: z.string().regex(/^\d+$/), passkey: z.string().min(1) })),
  torrents: z.array(
    z.object({
      title: z.string(),
      members: z.array(z.object({ site: z.string(), torrent_id: z.number().int().nonnegative(), info_hash: hex40 })).min(1),
    }),
  ),
});

export interface ReferenceData extends z.infer<typeof dataFileSchema> {
  sites: SiteEntry[];
  recommend: RecommendedEntry[];
}

export const DEFAULT_SITES_FILE = new URL('./sites.json', import.meta.url);
export const DEFAULT_DATA_FILE = new URL('./data.json', import.meta.url);

/** Reads and checks both files; a fresh copy each time, so servers never share mutable data. */
export function loadReferenceData(files: { sites?: URL | string; data?: URL | string } = {}): ReferenceData {
  const sitesFile = sitesFileSchema.parse(JSON.parse(readFileSync(files.sites ?? DEFAULT_SITES_FILE, 'utf8')));
  const dataFile = dataFileSchema.parse(JSON.parse(readFileSync(files.data ?? DEFAULT_DATA_FILE, 'utf8')));
  const byName = new Map(sitesFile.sites.map((site) => [site.site, site]));
  const recommend = sitesFile.recommend.flatMap((entry): RecommendedEntry[] => {
    if (typeof entry !== 'string') return [entry];
    const site = byName.get(entry);
    return site ? [{ id: site.id, site: site.site, nickname: site.nickname ?? site.site, bind_check: 'passkey,uid', reseed_check: 'passkey' }] : [];
  });
  return { ...dataFile, sites: sitesFile.sites, recommend };
}

export interface IndexedMember {
  group: number;
  sid: number;
  site: string;
  torrent_id: number;
  info_hash: string;
}

export interface DataIndex {
  siteByName: Map<string, SiteEntry>;
  /** Every member (on a known site) by its info-hash. */
  memberByHash: Map<string, IndexedMember>;
  /** Members of each group, on known sites only. */
  groups: IndexedMember[][];
  /** Short names used by torrents or accounts that sites.json does not define. */
  unknownSites: string[];
  /** info-hashes that occur more than once (the first one wins). */
  duplicateHashes: string[];
}

export function indexReferenceData(data: ReferenceData): DataIndex {
  const siteByName = new Map(data.sites.map((site) => [site.site, site]));
  const unknown = new Set<string>();
  const duplicateHashes: string[] = [];
  const memberByHash = new Map<string, IndexedMember>();
  const groups = data.torrents.map((torrent, group) =>
    torrent.members.flatMap((member): IndexedMember[] => {
      const site = siteByName.get(member.site);
      if (!site) {
        unknown.add(member.site);
        return [];
      }
      const indexed = { group, sid: site.id, site: member.site, torrent_id: member.torrent_id, info_hash: member.info_hash };
      if (memberByHash.has(member.info_hash)) duplicateHashes.push(member.info_hash);
      else memberByHash.set(member.info_hash, indexed);
      return [indexed];
    }),
  );
  for (const account of data.accounts) if (!siteByName.has(account.site)) unknown.add(account.site);
  for (const token of data.tokens) if (token.bound && !siteByName.has(token.bound.site)) unknown.add(token.bound.site);
  return { siteByName, memberByHash, groups, unknownSites: [...unknown].sort(), duplicateHashes };
}

/**
 * The same data as served by a service that renumbered sites (the live one has before): the sites
 * named (by short name) get these ids, in the site list and the recommended list, so every answer
 * names their torrents under the new ids. Two sites given each other's ids are a swap.
 */
export function renumberSites(data: ReferenceData, ids: Readonly<Record<string, number>>): ReferenceData {
  const idOf = (site: string, id: number) => (Object.hasOwn(ids, site) ? ids[site]! : id);
  const sites = data.sites.map((site) => ({ ...site, id: idOf(site.site, site.id) }));
  const taken = new Map<number, string>();
  for (const site of sites) {
    const other = taken.get(site.id);
    if (other !== undefined) throw new Error(`renumberSites: ${site.site} and ${other} would share id ${site.id}`);
    taken.set(site.id, site.site);
  }
  return { ...data, sites, recommend: data.recommend.map((entry) => ({ ...entry, id: idOf(entry.site, entry.id) })) };
}
