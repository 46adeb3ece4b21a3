/**
 * Where a site's pieces-hash API is asked (utils/pieces-hash/nexus-api.ts), or why it is not. The
 * request carries the user's passkey for that site, so the address must be the site's own, by the
 * same rule as its downloads (utils/cross-seed-engine/source.ts): one of its catalogued hosts (current,
 * old, API) or a subdomain of one, or the mirror the user confirmed for this site (`confirmedHost`,
 * honoured only while it equals the override's host and no catalogued site owns it). A path the user
 * typed may move the API on the site, never off it.
 */
import { DEFAULT_PIECES_HASH_PATH, piecesHashEndpoint } from '../pieces-hash/nexus-api';
import type { SiteOverride } from '../settings';
import { siteForHost } from './catalog';
import { normalizeHost } from './hosts';
import type { CatalogSite } from './site-types';

export type PiecesHashAddress =
  | { endpoint: string }
  /**
   * - `not-nexusphp`: the site's engine has no such API and its definition names none;
   * - `bad-path`: the path is neither a path on the site nor an http(s) address;
   * - `other-host`: the address is on `host`, which is not this site's.
   */
  | { problem: 'not-nexusphp' | 'bad-path' }
  | { problem: 'other-host'; host: string };

/** The mirror this site's passkey may go to: the override's host when the user confirmed it and no catalogued site owns it. */
function confirmedMirror(entry: CatalogSite, override: SiteOverride | undefined): string | undefined {
  const host = override?.host && normalizeHost(override.host);
  if (!host || override?.confirmedHost !== host) return undefined;
  return siteForHost(host) ? undefined : host;
}

/**
 * The API's address for `entry`: `userPath` (trimmed; empty = the definition's) on the site's base
 * (its confirmed mirror or its own host given by the override, else its first host; the override's
 * scheme, else the site's). An absolute address must be https, or the base's own scheme.
 */
export function piecesHashAddress(entry: CatalogSite, userPath: string | undefined, override?: SiteOverride): PiecesHashAddress {
  if (entry.piecesHashPath === undefined && entry.engine !== 'nexusphp') return { problem: 'not-nexusphp' };
  const path = userPath?.trim() || entry.piecesHashPath || DEFAULT_PIECES_HASH_PATH;

  const mirror = confirmedMirror(entry, override);
  const overrideHost = override?.host ? normalizeHost(override.host) : undefined;
  // An override onto one of the site's own hosts moves the API with it; any other unconfirmed host does not.
  const host = mirror ?? (overrideHost && siteForHost(overrideHost)?.site === entry.site ? overrideHost : entry.hosts[0]);
  const scheme = override?.scheme ?? entry.scheme;
  if (!host) return { problem: 'bad-path' };
  const base = `${scheme}://${host}/`;

  const endpoint = piecesHashEndpoint(base, path);
  if (!endpoint) return { problem: 'bad-path' };
  const url = new URL(endpoint);
  const endpointHost = url.hostname.toLowerCase();
  // By short name: an entry may be a copy (catalog entries are data).
  const own = siteForHost(endpointHost)?.site === entry.site || (mirror !== undefined && endpointHost === mirror);
  if (!own) return { problem: 'other-host', host: endpointHost };
  if (url.protocol !== 'https:' && url.protocol !== `${scheme}:`) return { problem: 'bad-path' };
  return { endpoint };
}
