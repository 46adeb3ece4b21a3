/**
 * The reference service's realistic mode: the same answers, in the untidy shapes the real service
 * sends (utils/iyuu/REAL-ANSWERS.md). Every change here keeps the meaning a tolerant client must
 * read: a null stands where the value is the documented default, a base_url gains a trailing "/",
 * lists become PHP key-preserving objects, extra fields appear, and entries no client can use
 * (no id, no host, a closed site, a broken candidate) are added beside the good ones. So a
 * tolerant client shows exactly what it shows in strict mode. Pure and deterministic.
 */
import type { SiteEntry } from './data';

export type Shapes = 'strict' | 'realistic';

/** Site-list entries no client can use; each must be skipped alone (ids far from the data's). */
export const UNUSABLE_SITES: readonly Record<string, unknown>[] = [
  { site: 'noid', nickname: '无编号', base_url: 'noid.example', details_page: 'details.php?id={}', download_page: '', is_https: 1, cookie_required: 0 },
  { id: 9001, site: 'nohost', nickname: '无域名', base_url: null, details_page: 'details.php?id={}', download_page: '', is_https: 1, cookie_required: 0 },
  { id: 9002, site: 'emptyhost', nickname: '空域名', base_url: '', details_page: 'details.php?id={}', download_page: '', is_https: 1, cookie_required: 0 },
  // The official client marks a site off with `disabled` (its own sites table).
  { id: 9003, site: 'closedpt', nickname: '已关站', base_url: 'closedpt.example', details_page: 'details.php?id={}', download_page: '', is_https: 1, cookie_required: 0, disabled: 1 },
];

/** A candidate no client can use (no site id, no torrent id, no hash): skipped alone. */
export const BROKEN_CANDIDATE = { sid: null, torrent_id: '', info_hash: '', group: 0 };

/** PHP's json_encode of an array that kept its keys: {"0": …, "1": …}. */
export function keyPreserving<T>(items: readonly T[]): Record<string, T> {
  return Object.fromEntries(items.map((item, index) => [String(index), item]));
}

/** `GET /reseed/sites/index` data.sites, as the real service sends it. */
export function realisticSites(sites: readonly SiteEntry[]): unknown[] {
  const shaped = sites.map((site, index) => {
    const entry: Record<string, unknown> = { ...site, reseed_check: 'passkey', sort: index };
    if (index % 2 === 0 && site.base_url) entry.base_url = `${site.base_url}/`;
    if (site.details_page === '') entry.details_page = null;
    if (site.download_page === '') entry.download_page = null;
    if (site.is_https === 1 && index % 3 === 0) entry.is_https = null;
    if (site.is_https === 1 && index % 3 === 1) delete entry.is_https;
    if (site.cookie_required === 0 && index % 2 === 1) entry.cookie_required = null;
    if (index % 5 === 0) entry.nickname = null;
    return entry;
  });
  // The unusable entries among the good ones, not only at the end.
  UNUSABLE_SITES.forEach((entry, index) => shaped.splice(Math.min(shaped.length, 1 + index * 7), 0, { ...entry }));
  return shaped;
}

/** `GET /reseed/sites/recommend` data: no count, a null nickname and check list, one unusable entry. */
export function realisticRecommend(data: { count: number; list: readonly Record<string, unknown>[] }): unknown {
  const list: unknown[] = data.list.map((entry, index) => (index === 1 ? { ...entry, nickname: null } : index === 2 ? { ...entry, bind_check: null } : { ...entry }));
  list.splice(Math.min(list.length, 1), 0, { site: 'noid', nickname: '无编号', bind_check: 'passkey,uid' });
  return { list };
}

/** `GET /reseed/users/profile` data: the optional fields null, as for a token the service has no dates for. */
export function realisticProfile(data: Record<string, unknown>): unknown {
  return { ...data, overdue_time: null, is_ever_level: null };
}

interface PlainCandidate {
  sid: number;
  torrent_id: number;
  info_hash: string;
}

/** One hash's torrent list: `group` on each, some ids as digit strings, a broken item, and every other one as a PHP object. */
function realisticTorrent(candidates: readonly PlainCandidate[], group: number, index: number): unknown {
  const items: unknown[] = candidates.map((candidate, at) => ({
    ...candidate,
    ...(at % 2 === 1 ? { sid: String(candidate.sid) } : {}),
    group,
  }));
  items.splice(Math.min(items.length, 1), 0, { ...BROKEN_CANDIDATE, group });
  return index % 2 === 0 ? keyPreserving(items) : items;
}

/** `POST /reseed/index/index` data: keyed by hash, each `{ torrent }` in the real shapes. */
export function realisticLookup(data: Record<string, { torrent: PlainCandidate[] }>, groupOf: (hash: string) => number): unknown {
  return Object.fromEntries(Object.entries(data).map(([hash, entry], index) => [hash, { torrent: realisticTorrent(entry.torrent, groupOf(hash), index) }]));
}

/** `POST /spider/reseed/index` data: the list as a PHP object, each torrent list in the real shapes. */
export function realisticSigned(data: readonly { hash: string; torrent: PlainCandidate[] }[], groupOf: (hash: string) => number): unknown {
  return keyPreserving(data.map((entry, index) => ({ hash: entry.hash, torrent: realisticTorrent(entry.torrent, groupOf(entry.hash.toLowerCase()), index) })));
}
