/**
 * Where a candidate's .torrent comes from. Every address is on the candidate site's catalogued
 * host (or the host the service's list names for a site the catalog does not know, as its details
 * links do), built from the numeric torrent id and a template; the only part read from a page is
 * a download link's key values, each checked against a strict shape and put back into a fixed
 * path. Three ways, in this order:
 *
 * 1. `passkey`: the user entered their passkey (or RSS key) for that catalogued site, and the service's
 *    `download_page` template (e.g. `download.php?id={}&passkey={passkey}`) needs nothing else.
 *    No cookie is needed (NexusPHP's download.php accepts id + passkey when the site allows it).
 * 2. `cookie`: the engine's own download path with the user's session there: NexusPHP
 *    `download.php?id=N` (xiaomlove/nexusphp public/download.php: the session, else a redirect to
 *    login.php), UNIT3D `torrents/download/N` (its web route, behind the session), HDCity
 *    `download?id=N`.
 * 3. `details-page`: sites whose download link carries a per-user value only the candidate's
 *    details page shows: HDSky (`download.php?id=N&passkey=…&sign=…`, what MoviePilot's IYUU plugin
 *    and upload tools read from the page), TTG (`/dl/N/<key>`), Gazelle (`torrents.php?action=
 *    download&id=N&authkey=…&torrent_pass=…`, as on DICMusic and GreatPosterWall's pages).
 *
 * Not supported: M-Team (it gives .torrent files only through its API with an API key and a
 * per-download token: nothing a browser session can fetch), Zhuque ({torrent_key}), and sites with
 * neither a known engine path nor a passkey template.
 */
import type { ServiceSite } from '../service/schemas';
import type { SiteOverride } from '../settings';
import { buildDetailsUrl, buildDetailsUrlFromCatalog, buildDownloadUrl, isSiteKey, isTorrentId, siteForSid, type CatalogSite } from '../sites';

/** What the source needs to know of the user's sites: the service's list, their overrides and passkeys (all by sid). */
export interface SiteSettings {
  /** The service's site list, when it could be had. */
  list?: readonly ServiceSite[];
  overrides?: Readonly<Record<string, SiteOverride>>;
  /** The user's passkey (or RSS key) per sid: a credential, sent only to that site. */
  passkeys?: Readonly<Record<string, string>>;
}

/** How a download link on a details page must look, per engine. */
export type PageLinkShape = 'nexusphp' | 'gazelle' | 'ttg';

export type DownloadSource =
  | { way: 'passkey' | 'cookie'; url: string; origin: string; siteKey: string }
  | { way: 'details-page'; detailsUrl: string; shape: PageLinkShape; origin: string; siteKey: string }
  | { way: 'unsupported'; reason: 'unknown-site' | 'needs-api' | 'needs-passkey' | 'no-address' };

/** The engine's own download path, used with the session (cookies). */
const COOKIE_TEMPLATES: Partial<Record<CatalogSite['engine'], string>> = {
  nexusphp: 'download.php?id={}',
  unit3d: 'torrents/download/{}',
};

/** Sites whose path differs from their engine's. */
const SITE_COOKIE_TEMPLATES: Readonly<Record<string, string>> = {
  hdcity: 'download?id={}',
};

/** Sites (by IYUU short name) whose download link needs a value from the details page. */
const SITE_PAGE_SHAPES: Readonly<Record<string, PageLinkShape>> = {
  hdsky: 'nexusphp',
  ttg: 'ttg',
};

const ENGINE_PAGE_SHAPES: Partial<Record<CatalogSite['engine'], PageLinkShape>> = {
  gazelle: 'gazelle',
};

/** What NexusPHP sites take with a passkey when the service's list cannot be had. */
const NEXUSPHP_PASSKEY_TEMPLATE = 'download.php?id={}&passkey={passkey}';

function originOf(url: string): string {
  return new URL(url).origin;
}

/** Where the candidate `torrentId` on site `sid` can be downloaded from, or why not. */
export function downloadSource(candidate: { sid: number; torrentId: number }, settings: SiteSettings): DownloadSource {
  const { sid, torrentId } = candidate;
  if (!isTorrentId(torrentId)) return { way: 'unsupported', reason: 'no-address' };
  const listed = settings.list?.find((site) => site.id === sid);
  const catalogued = siteForSid(sid);
  if (!listed && !catalogued) return { way: 'unsupported', reason: 'unknown-site' };
  const override = settings.overrides?.[String(sid)];
  const site = listed ?? catalogued!;
  const name = catalogued?.site ?? listed?.site ?? '';
  const engine = catalogued?.engine;
  const siteKey = `sid:${sid}`;
  if (engine === 'mteam') return { way: 'unsupported', reason: 'needs-api' };

  const key = settings.passkeys?.[String(sid)];
  const serviceTemplate = listed?.download_page?.trim() ?? '';
  const needsKey = /\{(passkey|rsskey)\}/.test(serviceTemplate);
  // The passkey only ever goes to a catalogued site's own hosts: for a site only the service's
  // list knows, that list alone would decide where the user's credential is sent.
  if (isSiteKey(key) && catalogued) {
    const template = needsKey ? serviceTemplate : !listed && engine === 'nexusphp' ? NEXUSPHP_PASSKEY_TEMPLATE : undefined;
    const url = template && buildDownloadUrl(site, torrentId, template, { key, override });
    if (url) return { way: 'passkey', url, origin: originOf(url), siteKey };
  }

  const shape = SITE_PAGE_SHAPES[name] ?? (engine ? ENGINE_PAGE_SHAPES[engine] : undefined);
  if (shape) {
    const detailsUrl = listed ? buildDetailsUrl(listed, torrentId, override) : buildDetailsUrlFromCatalog(catalogued!, torrentId, override);
    return detailsUrl ? { way: 'details-page', detailsUrl, shape, origin: originOf(detailsUrl), siteKey } : { way: 'unsupported', reason: 'no-address' };
  }

  const cookieTemplate = SITE_COOKIE_TEMPLATES[name] ?? (engine ? COOKIE_TEMPLATES[engine] : undefined);
  if (cookieTemplate) {
    const url = buildDownloadUrl(site, torrentId, cookieTemplate, { override });
    return url ? { way: 'cookie', url, origin: originOf(url), siteKey } : { way: 'unsupported', reason: 'no-address' };
  }
  // An engine we have no path for: only the service's template can say, and it wants the key.
  return { way: 'unsupported', reason: needsKey ? 'needs-passkey' : 'needs-api' };
}

// ------------------------------------------------------------------------------------------------
// Reading the download link from a details page (background: no DOM in a service worker)

const MAX_VALUE = /^[A-Za-z0-9_-]{1,128}$/;

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

/** The query's values, when every name is allowed, appears once, and every value has the safe shape. */
function strictQuery(url: URL, allowed: readonly string[]): Map<string, string> | undefined {
  const values = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    if (!allowed.includes(name) || values.has(name) || !MAX_VALUE.test(value)) return undefined;
    values.set(name, value);
  }
  return values;
}

/** The link rebuilt from checked parts, or undefined when it is not this torrent's download link. */
function rebuild(url: URL, shape: PageLinkShape, torrentId: number): string | undefined {
  const id = String(torrentId);
  if (url.hash || url.username || url.password) return undefined;
  if (shape === 'nexusphp') {
    if (url.pathname !== '/download.php') return undefined;
    const query = strictQuery(url, ['id', 'passkey', 't', 'sign', 'https', 'letdown']);
    if (!query || query.get('id') !== id) return undefined;
    const ordered = ['id', 'passkey', 't', 'sign', 'https', 'letdown'].filter((name) => query.has(name));
    return `${url.origin}/download.php?${ordered.map((name) => `${name}=${query.get(name)}`).join('&')}`;
  }
  if (shape === 'gazelle') {
    if (url.pathname !== '/torrents.php') return undefined;
    const query = strictQuery(url, ['action', 'id', 'authkey', 'torrent_pass']);
    if (!query || query.get('action') !== 'download' || query.get('id') !== id || !query.get('authkey') || !query.get('torrent_pass')) return undefined;
    return `${url.origin}/torrents.php?action=download&id=${id}&authkey=${query.get('authkey')}&torrent_pass=${query.get('torrent_pass')}`;
  }
  const match = /^\/dl\/(\d{1,12})\/([A-Za-z0-9]{1,128})\/?$/.exec(url.pathname);
  if (!match || match[1] !== id || url.search) return undefined;
  return `${url.origin}/dl/${id}/${match[2]}`;
}

/**
 * The candidate's download link from its details page: the first link (href or form action) that,
 * resolved against the page's address, is on the same origin and has exactly the engine's shape
 * for this torrent id. Links carrying a per-user value (passkey, sign) are preferred to a bare one.
 */
export function downloadLinkFromPage(html: string, detailsUrl: string, shape: PageLinkShape, torrentId: number): string | undefined {
  const page = new URL(detailsUrl);
  let bare: string | undefined;
  for (const value of linkValues(html)) {
    let url: URL;
    try {
      url = new URL(value.trim(), page);
    } catch {
      continue;
    }
    if (url.origin !== page.origin) continue;
    const link = rebuild(url, shape, torrentId);
    if (!link) continue;
    if (shape !== 'nexusphp' || /[?&](passkey|sign)=/.test(link)) return link;
    bare ??= link;
  }
  return bare;
}
