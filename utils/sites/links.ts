/**
 * Links to a candidate's details page and to a site's home page, built only from a numeric id, a
 * host and a relative path template. Whatever the service or a stored setting holds, the result is
 * an http(s) URL on the expected host, or undefined.
 */
import { siteForHost, siteForSid } from './catalog';
import { isHostName, isSameOrSubdomain } from './hosts';
import { nexusphpSchema } from './engines/nexusphp-schema';
import { catalogEntryOf } from './pinning';
import type { CatalogSite, LinkOverride, ServiceSiteLink } from './site-types';

/** When the service leaves details_page empty, a site the catalog does not know is taken for NexusPHP (service-notes). */
export const DEFAULT_DETAILS_PAGE = nexusphpSchema.detailsPage;

/**
 * Shapes a template may not have: a scheme, `//` (a host of its own), backslashes (read as `/` by
 * URL parsers), quotes, angle brackets, backticks, whitespace and control characters.
 */
const UNSAFE_TEMPLATE = /[\s\x00-\x1f\x7f"'`<>\\]|\/\/|^[a-z][a-z0-9+.-]*:/i;

type Scheme = 'http' | 'https';

interface Target {
  host: string;
  scheme: Scheme;
  /** The catalog's entry for the service's base_url, when it has one. */
  entry?: CatalogSite;
  /** Set when the service's template is for a host that serves no pages: the template to use instead. */
  catalogTemplate?: string;
}

export function isTorrentId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * `http(s)://` + base_url + `/` + details_page with `{}` (or `{id}`) replaced by the torrent id.
 * The scheme comes from is_https (0 http; 1 or 2 https), an empty details_page is the catalog's
 * template for that site or `details.php?id={}`, and a base_url that serves no pages (M-Team's API
 * host) or is a site's old domain is replaced by the catalog's current host. The user's override
 * of host and scheme comes last.
 */
export function buildDetailsUrl(site: ServiceSiteLink, torrentId: number, override?: LinkOverride): string | undefined {
  if (!isTorrentId(torrentId)) return undefined;
  const target = serviceTarget(site, override);
  if (!target) return undefined;
  // Blank means "not given"; any other whitespace makes the template unusable (not trimmed away).
  const given = typeof site.details_page === 'string' && site.details_page.trim() !== '' ? site.details_page : undefined;
  const template = target.catalogTemplate ?? given ?? target.entry?.detailsPage ?? DEFAULT_DETAILS_PAGE;
  return compose(target.scheme, target.host, template, torrentId);
}

/** The same from a catalog entry, for when the service's site list cannot be had. */
export function buildDetailsUrlFromCatalog(entry: CatalogSite, torrentId: number, override?: LinkOverride): string | undefined {
  if (!isTorrentId(torrentId)) return undefined;
  const target = catalogTarget(entry, override);
  return target && compose(target.scheme, target.host, entry.detailsPage, torrentId);
}

/**
 * A .torrent download address on a site: `template` (the service's download_page, or an engine's
 * own path such as `download.php?id={}`) with `{}` / `{id}` replaced by the numeric torrent id and
 * `{passkey}` / `{rsskey}` by the user's own key for that site, on the host its details links use
 * (the catalog's hosts for a catalogued sid, the user's override last). A template holding any
 * other placeholder ({authkey}, {torrent_key}, …), or a key placeholder without a usable key,
 * yields undefined: nothing is guessed.
 */
export function buildDownloadUrl(
  site: ServiceSiteLink | CatalogSite,
  torrentId: number,
  template: string,
  options: { key?: string; override?: LinkOverride } = {},
): string | undefined {
  if (!isTorrentId(torrentId) || typeof template !== 'string' || UNSAFE_TEMPLATE.test(template)) return undefined;
  const target = 'hosts' in site ? catalogTarget(site, options.override) : serviceTarget(site, options.override);
  if (!target) return undefined;
  const relative = template.replace(/^\//, '');
  if (!relative.includes('{}') && !relative.includes('{id}')) return undefined;
  const id = String(torrentId);
  let path = relative.replaceAll('{}', id).replaceAll('{id}', id);
  if (/\{(passkey|rsskey)\}/.test(path)) {
    if (!isSiteKey(options.key)) return undefined;
    path = path.replaceAll('{passkey}', options.key).replaceAll('{rsskey}', options.key);
  }
  if (/[{}]/.test(path)) return undefined;
  return checked(`${target.scheme}://${target.host}/${path}`, target.scheme, target.host);
}

/** A passkey or RSS key as sites issue them: letters, digits, `-` and `_` (32 hex on NexusPHP). */
export function isSiteKey(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{8,128}$/.test(value);
}

/** A site's home page, from the service's list or the catalog (e.g. for a recommended site). */
export function homeUrl(
  site: Pick<ServiceSiteLink, 'base_url' | 'is_https'> | CatalogSite | undefined,
  override?: LinkOverride,
): string | undefined {
  if (!site) return undefined;
  const target = 'hosts' in site ? catalogTarget(site, override) : serviceTarget(site, override);
  return target && checked(`${target.scheme}://${target.host}/`, target.scheme, target.host);
}

/**
 * Where a site of the service's list links to. A site the catalog knows by its sid links only to
 * that site's catalogued hosts (an answer naming another host, or `http` for an https site, moves
 * nothing); an old domain or API host becomes the current host. A site the catalog does not know
 * goes to the service's base_url, unless that host is a catalogued site's with another sid.
 */
function serviceTarget(site: Pick<ServiceSiteLink, 'id' | 'site' | 'base_url' | 'is_https'>, override?: LinkOverride): Target | undefined {
  const base = linkHost(site.base_url);
  // Pinned by id and name: a renumbered site is the one the service now names under that id.
  const named = typeof site.site === 'string' && site.site.trim() !== '';
  const bySid = typeof site.id === 'number' ? (named ? catalogEntryOf({ id: site.id, site: site.site, base_url: base }) : siteForSid(site.id)) : undefined;
  const byHost = base ? siteForHost(base) : undefined;
  const entry = bySid ?? byHost;
  // A site the catalog does not know, on another catalogued site's host: no link (it is not that site).
  if (!bySid && byHost?.sid !== undefined && typeof site.id === 'number' && byHost.sid !== site.id) return applyOverride(undefined, override);
  if (!entry) return applyOverride(base ? { host: base, scheme: site.is_https === 0 ? 'http' : 'https' } : undefined, override);
  const home = entry.hosts[0];
  if (!home) return applyOverride(undefined, override);
  // The service may upgrade a site to https, never take it down to http.
  const scheme: Scheme = entry.scheme === 'https' || site.is_https !== 0 ? 'https' : 'http';
  const within = (hosts: readonly string[] | undefined) => !!base && (hosts ?? []).some((host) => isSameOrSubdomain(base, host));
  let target: Target;
  if (within(entry.apiHosts)) target = { host: home, scheme: entry.scheme, entry, catalogTemplate: entry.detailsPage };
  else if (within(entry.hosts)) target = { host: base!, scheme, entry };
  // An old domain, or a host that is not the site's at all: the same pages, on the current host.
  else target = { host: home, scheme: entry.scheme, entry };
  return applyOverride(target, override);
}

function catalogTarget(entry: CatalogSite, override?: LinkOverride): Target | undefined {
  const host = linkHost(entry.hosts[0]);
  return applyOverride(host ? { host, scheme: entry.scheme } : undefined, override);
}

function applyOverride(target: Target | undefined, override?: LinkOverride): Target | undefined {
  if (!override) return target;
  let result = target;
  // A blank host means none; anything else must be a usable host.
  if (typeof override.host === 'string' && override.host.trim() !== '') {
    const host = linkHost(override.host);
    // A bad override yields no link rather than a silent fallback to a host the user replaced.
    if (!host) return undefined;
    result = { ...(result ?? { scheme: 'https' }), host };
  }
  if (result && (override.scheme === 'http' || override.scheme === 'https')) result = { ...result, scheme: override.scheme };
  return result;
}

/** A host a link may go to: a bare host name (case aside), without port, path or user info. */
function linkHost(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const host = value.trim().toLowerCase();
  return isHostName(host) ? host : undefined;
}

function compose(scheme: Scheme, host: string, template: string, torrentId: number): string | undefined {
  if (typeof template !== 'string') return undefined;
  // Checked before the leading `/` goes, so that `//host/...` is refused rather than shortened.
  if (UNSAFE_TEMPLATE.test(template)) return undefined;
  const relative = template.replace(/^\//, '');
  if (!relative.includes('{}') && !relative.includes('{id}')) return undefined;
  const id = String(torrentId);
  const path = relative.replaceAll('{}', id).replaceAll('{id}', id);
  // Any other placeholder ({passkey}, ...) has no value here.
  if (/[{}]/.test(path)) return undefined;
  return checked(`${scheme}://${host}/${path}`, scheme, host);
}

/** The URL as the browser will read it, if that is still `scheme://host/...` with nothing else in the authority. */
function checked(candidate: string, scheme: Scheme, host: string): string | undefined {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${scheme}:` || url.hostname !== host || url.port !== '' || url.username !== '' || url.password !== '') {
    return undefined;
  }
  return url.href;
}
