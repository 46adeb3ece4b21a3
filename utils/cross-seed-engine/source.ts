/**
 * Where a candidate's .torrent comes from. Every address is on the candidate site's catalogued
 * host (or the host the service's list names for a site the catalog does not know, as its details
 * links do), built from the numeric torrent id and a template; the only part read from a page is
 * a download link's key values, each checked against a strict shape and put back into a fixed
 * path. What each site needs is its download rule (utils/sites/download-rules.ts: its engine's
 * schema, with its definition's own rule on top). Three ways, in this order:
 *
 * 1. `passkey`: the user entered their passkey (or RSS key) for that catalogued site, and the service's
 *    `download_page` template (e.g. `download.php?id={}&passkey={passkey}`) needs nothing else, or,
 *    without the service's list, the rule's passkey template (NexusPHP's).
 *    No cookie is needed (NexusPHP's download.php accepts id + passkey when the site allows it).
 * 2. `details-page`: sites whose download link carries a per-user value only the candidate's
 *    details page shows, in the shape the rule names: HDSky's signed link, HDCity's `cuhash`, the
 *    `downhash` of HDHome / PTHome / HDDolby, TTG's `/dl/N/<key>`, Gazelle's `authkey` and `torrent_pass`.
 * 3. `cookie`: the rule's own download path with the user's session there: NexusPHP
 *    `download.php?id=N`, UNIT3D `torrents/download/N`.
 *
 * Whose hosts: a site's passkey and the user's session go only to that site's catalogued hosts
 * (current, old and API hosts of THAT site in utils/sites/definitions/). The user's address override
 * for a site (a mirror) moves its links; downloads follow it only when it is one of those hosts, or
 * the user confirmed that exact host for that site (`confirmedHost`: a tick in the options page or
 * in an import's preview, never a settings file alone). A mirror not confirmed leaves downloads on
 * the catalogued host; an override onto ANOTHER catalogued site's host is refused for downloads
 * (every catalogued host is a granted permission: the browser would ask nothing). Every address
 * built is checked against that rule once more before it is handed out. The site is the one the
 * service's list names under the sid (utils/sites/pinning.ts); where the list and the catalog
 * disagree on it, nothing keyed by the sid (passkey, confirmed mirror) is used.
 *
 * 0. `api-token` (before all): sites whose rule asks their API for the download address (M-Team's
 *    `genDlToken`), with the API key the user entered for that site; without one, `needs-api-key`.
 *    The key goes only to the rule's API address, which must be one of that site's own hosts.
 *
 * Not supported: sites whose rule says so, Zhuque
 * ({torrent_key}), and sites with neither a rule nor a passkey template.
 */
import type { ServiceSite } from '../iyuu/answer-schemas';
import type { SiteOverride } from '../settings';
import { buildDetailsUrl, buildDetailsUrlFromCatalog, buildDownloadUrl, isSiteKey, isTorrentId, normalizeHost, siteForHost, siteForSid, type CatalogSite } from '../sites';
import { detailsPageLinkOf, downloadRuleOf } from '../sites/download-rules';
import { siteForServiceSid } from '../sites/pinning';
import { hostOf, originOf } from '../url';

/** What the source needs to know of the user's sites: the service's list, their overrides and passkeys (all by sid). */
export interface SiteSettings {
  /** The service's site list, when it could be had. */
  list?: readonly ServiceSite[];
  overrides?: Readonly<Record<string, SiteOverride>>;
  /** The user's passkey (or RSS key) per sid: a credential, sent only to that site. */
  passkeys?: Readonly<Record<string, string>>;
  /** The user's API key per sid (M-Team): a credential, sent only to that site's API host. */
  apiKeys?: Readonly<Record<string, string>>;
}

/** How a download link on a details page must look: the name of a site's or engine's link shape ('nexusphp', 'gazelle', 'ttg'). */
export type PageLinkShape = string;

/** Set when the download goes to a mirror the user confirmed for the site (not a catalogued host). */
interface Mirror {
  mirror?: string;
}

export type DownloadSource =
  | ({ way: 'passkey'; url: string; origin: string; siteKey: string } & Mirror)
  /** `detailsUrl`: the torrent's details page, read only to tell a notice from a login when the download was sent elsewhere. */
  | ({ way: 'cookie'; url: string; origin: string; siteKey: string; detailsUrl?: string } & Mirror)
  | ({ way: 'details-page'; detailsUrl: string; shape: PageLinkShape; origin: string; siteKey: string } & Mirror)
  /**
   * Ask the site's API for the download address: POST `tokenUrl` with the torrent id in the form
   * field `idField` and `apiKey` in the header `keyHeader`; the address it answers must be on the
   * same site's hosts (`downloadAddressOf`).
   */
  | ({ way: 'api-token'; tokenUrl: string; keyHeader: string; idField: string; apiKey: string; origin: string; siteKey: string } & Mirror)
  | { way: 'unsupported'; reason: 'unknown-site' | 'needs-api' | 'needs-api-key' | 'needs-passkey' | 'no-address' }
  /** The site's address override is another catalogued site's host (`owner`, its display name): no download. */
  | { way: 'unsupported'; reason: 'other-site-host'; host: string; owner: string };


/** What a site's address override may do for its downloads. */
type DownloadHost =
  /** Downloads use this override (none, a scheme alone, one of the site's own hosts, or a confirmed mirror). */
  | { override?: SiteOverride; mirror?: string }
  | { refused: string; owner: CatalogSite };

/**
 * The override downloads may use: the site's own catalogued host, or a mirror the user confirmed
 * for it (when `trusted`: the sid means the same site to the catalog and the service). A mirror
 * not confirmed moves links only: downloads stay on the catalogued host, with its own scheme.
 */
function downloadHost(entry: CatalogSite, override: SiteOverride | undefined, trusted: boolean): DownloadHost {
  if (!override?.host) return { override };
  const host = normalizeHost(override.host);
  if (!host) return {};
  const owner = siteForHost(host);
  if (owner === entry) return { override };
  if (owner) return { refused: host, owner };
  if (trusted && override.confirmedHost === host) return { override, mirror: host };
  return {};
}

/** The last word on an address that would carry the site's passkey or the user's session. */
function mayCarryCredentials(url: string, entry: CatalogSite, mirror: string | undefined): boolean {
  const host = hostOf(url);
  if (host === undefined) return false;
  return siteForHost(host) === entry || (mirror !== undefined && host === mirror && !siteForHost(host));
}

/** Where the candidate `torrentId` on site `sid` can be downloaded from, or why not. */
export function downloadSource(candidate: { sid: number; torrentId: number }, settings: SiteSettings): DownloadSource {
  const source = unchecked(candidate, settings);
  if (source.way === 'unsupported') return source;
  const entry = siteForServiceSid(candidate.sid, settings.list);
  if (source.way === 'api-token') return entry && mayCarryCredentials(source.tokenUrl, entry, undefined) ? source : { way: 'unsupported', reason: 'no-address' };
  const url = source.way === 'details-page' ? source.detailsUrl : source.url;
  return entry && mayCarryCredentials(url, entry, source.mirror) ? source : { way: 'unsupported', reason: 'no-address' };
}

/** A value an API key may be (M-Team's are long letters, digits and dashes): nothing to escape in a header. */
export function isApiKey(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{8,256}$/.test(value);
}

/**
 * The download address a site's API answered, when it may be fetched: https (or the API's own
 * scheme), on one of the same site's catalogued hosts (M-Team answers an address on its API host),
 * no user name or password in it. Anything else is refused: the address came from an answer.
 */
export function downloadAddressOf(answered: unknown, tokenUrl: string): string | undefined {
  if (typeof answered !== 'string' || answered.length > 4000) return undefined;
  let url: URL;
  try {
    url = new URL(answered.trim());
  } catch {
    return undefined;
  }
  const api = new URL(tokenUrl);
  const owner = siteForHost(url.hostname);
  if (!owner || owner !== siteForHost(api.hostname) || url.username || url.password || url.hash) return undefined;
  if (url.protocol !== 'https:' && url.protocol !== api.protocol) return undefined;
  return url.href;
}

function unchecked(candidate: { sid: number; torrentId: number }, settings: SiteSettings): DownloadSource {
  const { sid, torrentId } = candidate;
  if (!isTorrentId(torrentId)) return { way: 'unsupported', reason: 'no-address' };
  const listed = settings.list?.find((site) => site.id === sid);
  // The site the service's list names under this id (it has renumbered sites before).
  const catalogued = siteForServiceSid(sid, settings.list);
  if (!listed && !catalogued) return { way: 'unsupported', reason: 'unknown-site' };
  // What the user keyed by this sid (passkey, confirmed mirror) was for the site they saw under it:
  // when the catalog and the service's list now disagree on which site that is, none of it is used.
  const trusted = !!catalogued && catalogued === siteForSid(sid);
  const hostRule = catalogued ? downloadHost(catalogued, settings.overrides?.[String(sid)], trusted) : {};
  if ('refused' in hostRule) return { way: 'unsupported', reason: 'other-site-host', host: hostRule.refused, owner: hostRule.owner.nickname };
  const { override, mirror } = hostRule;
  const site = listed ?? catalogued!;
  const at = mirror ? { mirror } : {};
  // A site only the service's list knows has no rule: only its passkey template could say.
  const rule = catalogued ? downloadRuleOf(catalogued) : {};
  const siteKey = `sid:${sid}`;
  // A site whose API hands out the download address: the user's API key for it (catalogued and
  // trusted only: what the user keyed by this sid was for the site they saw under it).
  if (rule.apiToken) {
    const apiKey = settings.apiKeys?.[String(sid)];
    if (!isApiKey(apiKey) || !catalogued || !trusted) return { way: 'unsupported', reason: 'needs-api-key' };
    const { url: tokenUrl, keyHeader, idField } = rule.apiToken;
    return { way: 'api-token', tokenUrl, keyHeader, idField, apiKey, origin: originOf(tokenUrl)!, siteKey };
  }
  if (rule.unsupported) return { way: 'unsupported', reason: rule.unsupported };

  // Every address below is built by links.ts from a parsed URL (its href): its origin is never undefined.
  const key = settings.passkeys?.[String(sid)];
  const serviceTemplate = listed?.download_page?.trim() ?? '';
  const needsKey = /\{(passkey|rsskey)\}/.test(serviceTemplate);
  // The passkey only ever goes to a catalogued site's own hosts: for a site only the service's
  // list knows, that list alone would decide where the user's credential is sent.
  if (isSiteKey(key) && catalogued && trusted) {
    const template = needsKey ? serviceTemplate : !listed ? rule.passkeyTemplate : undefined;
    const url = template && buildDownloadUrl(site, torrentId, template, { key, override });
    if (url) return { way: 'passkey', url, origin: originOf(url)!, siteKey, ...at };
  }

  const shape = rule.detailsPageLink?.shape;
  const detailsUrl = listed ? buildDetailsUrl(listed, torrentId, override) : buildDetailsUrlFromCatalog(catalogued!, torrentId, override);
  if (shape) {
    return detailsUrl ? { way: 'details-page', detailsUrl, shape, origin: originOf(detailsUrl)!, siteKey, ...at } : { way: 'unsupported', reason: 'no-address' };
  }

  const cookieTemplate = rule.cookieTemplate;
  if (cookieTemplate) {
    const url = buildDownloadUrl(site, torrentId, cookieTemplate, { override });
    if (!url) return { way: 'unsupported', reason: 'no-address' };
    // The details page only on the download's own origin (it carries the same session).
    return { way: 'cookie', url, origin: originOf(url)!, siteKey, ...at, ...(detailsUrl && originOf(detailsUrl) === originOf(url) && { detailsUrl }) };
  }
  // A site with no rule for its path: only the service's template can say, and it wants the key.
  return { way: 'unsupported', reason: needsKey ? 'needs-passkey' : 'needs-api' };
}

// ------------------------------------------------------------------------------------------------
// Reading the download link from a details page (background: no DOM in a service worker)

/** `&amp;`, `&#38;`, `&#x26;` and the other entities an attribute value may hold around a URL. */
function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|amp|quot|apos|lt|gt);/gi, (entity, code: string) => {
    const lower = code.toLowerCase();
    if (lower === 'amp') return '&';
    if (lower === 'quot') return '"';
    if (lower === 'apos') return "'";
    if (lower === 'lt') return '<';
    if (lower === 'gt') return '>';
    const point = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
    return point > 0 && point < 0x110000 ? String.fromCodePoint(point) : entity;
  });
}

/** Every href / action value in the page, in order. */
function linkValues(html: string): string[] {
  const values: string[] = [];
  const attribute = /\s(?:href|action)\s*=\s*(?:"([^"]{0,2000})"|'([^']{0,2000})')/gi;
  for (const match of html.matchAll(attribute)) {
    values.push(decodeAttribute(match[1] ?? match[2] ?? ''));
    if (values.length > 20_000) break;
  }
  return values;
}

/**
 * The candidate's download link from its details page: the first link (href or form action) that,
 * resolved against the page's address, is on the same origin and has exactly the shape's form
 * for this torrent id. A shape may prefer some links (NexusPHP: with a passkey or sign) to others.
 */
export function downloadLinkFromPage(html: string, detailsUrl: string, shape: PageLinkShape, torrentId: number): string | undefined {
  const page = new URL(detailsUrl);
  const reader = detailsPageLinkOf(shape);
  if (!reader) return undefined;
  const id = String(torrentId);
  let lesser: string | undefined;
  for (const value of linkValues(html)) {
    let url: URL;
    try {
      url = new URL(value.trim(), page);
    } catch {
      continue;
    }
    if (url.origin !== page.origin || url.hash || url.username || url.password) continue;
    const link = reader.rebuild(url, id);
    if (!link) continue;
    if (!reader.isBest || reader.isBest(link)) return link;
    lesser ??= link;
  }
  return lesser;
}
