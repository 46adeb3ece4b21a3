/**
 * A site as the extension knows it. Each site is written once, in utils/sites/definitions/ (a row
 * of the catalog, or a file of its own when it has a rule of its own), over its engine's schema in
 * utils/sites/engines/; `CatalogSite` is the data that comes out, `DownloadRule` the behaviour.
 */
export type Engine = 'nexusphp' | 'unit3d' | 'gazelle' | 'mteam' | 'other';

/** One site of the catalog, its engine's defaults filled in: data only (it may be cloned, stored or sent). */
export interface CatalogSite {
  /** IYUU's site id (sid), when public evidence establishes it (utils/sites/SOURCES.md). */
  sid?: number;
  /** IYUU's short name, e.g. "hdsky". */
  site: string;
  /** The display name users know, e.g. "HDSky". */
  nickname: string;
  /** The Chinese name users know, e.g. "天空", when there is one. */
  nameZh?: string;
  engine: Engine;
  /** Current hosts, the first being where pages live. Subdomains of each are the same site. */
  hosts: string[];
  /** Earlier domains that still serve or redirect; recognised, never linked to. */
  oldHosts?: string[];
  /**
   * Hosts the service may give as a site's base_url although they serve no pages (M-Team's API
   * host): recognised; links go to hosts[0] with detailsPage instead.
   */
  apiHosts?: string[];
  scheme: 'https' | 'http';
  /** Details page template relative to the site root; `{}` is the torrent id. */
  detailsPage: string;
  /**
   * Where the site answers NexusPHP's pieces-hash API (utils/pieces-hash/nexus-api.ts): a path on the
   * site, or an absolute https URL on one of the site's own hosts or their subdomains (piggo's
   * `https://api.piggo.me/…`). NexusPHP's `/api/pieces-hash` unless its definition moves it; none for
   * sites of other engines unless their definition gives one (utils/sites/pieces-hash-address.ts).
   */
  piecesHashPath?: string;
}

/**
 * A download link as a details page shows it, in one engine's or site's exact shape: the link is
 * read from the page only when it has this shape, and rebuilt from its checked parts.
 */
export interface DetailsPageLink {
  /** The shape's name in a download source ('nexusphp', 'gazelle', 'ttg'): the page is read later by it. */
  shape: string;
  /** The link rebuilt from its checked parts, or undefined when `url` is not the download link of torrent `id`. */
  rebuild(url: URL, id: string): string | undefined;
  /** A link this calls not the best kind (NexusPHP: without passkey or sign) is taken only when no better one follows. */
  isBest?(link: string): boolean;
}

/**
 * How a site's .torrent is had in the browser, tried in this order by
 * utils/cross-seed-engine/source.ts (after the service's own passkey template). A site's rule is
 * its engine's, with the fields its definition gives on top.
 */
export interface DownloadRule {
  /**
   * The .torrent's address comes from the site's API, asked with the API key the user entered for
   * the site (M-Team's `genDlToken`): tried first; without a key the site cannot be downloaded from.
   */
  apiToken?: ApiTokenRule;
  /** Nothing a browser session can fetch (M-Team without its API rule): said before any passkey is tried. */
  unsupported?: 'needs-api';
  /** The path that takes the user's passkey, for when the service's list cannot be had. */
  passkeyTemplate?: string;
  /** The link on the candidate's details page, which carries a per-user value (HDSky's sign, Gazelle's authkey). */
  detailsPageLink?: DetailsPageLink;
  /** The .torrent's own path (`{}` the torrent id), fetched with the user's session. */
  cookieTemplate?: string;
}

/**
 * A download address handed out by the site's API for one torrent (M-Team: `POST
 * https://api.m-team.cc/api/torrent/genDlToken`, form field `id`, header `x-api-key`, answer
 * `{ code, message, data: <url> }`). The key goes only to `url`, one of the site's own API hosts;
 * the address it answers must be on the site's own hosts too.
 */
export interface ApiTokenRule {
  /** The API's absolute address (https, on one of the site's `apiHosts`). */
  url: string;
  /** The request header that carries the user's API key. */
  keyHeader: string;
  /** The form field that carries the torrent id. */
  idField: string;
}

/**
 * Where a site's torrent pages live when the NexusPHP page engine reads them at paths other than
 * details.php / download.php (TTG `/t/N/`, HDCity `/t-N`). The content script gets these through the
 * generated utils/pages/nexusphp-paths.ts, never from the definitions themselves.
 */
export interface NexusphpPaths {
  /** A torrent page's path after the leading `/`, without its trailing `/`; the id in its one group: TTG `t\/(\d+)`. */
  torrentPage: RegExp;
  /** CSS selector of the links to such pages in a list row. */
  torrentLinks: string;
  /** A download link's path before the id, after `/` or at the start: TTG `dl\/`. */
  downloadLink?: RegExp;
  /** A list page's path after the leading `/`: TTG `browse\.php`. */
  listPage?: RegExp;
}

/** What an engine means for its sites, unless a site's definition says otherwise. */
export interface EngineSchema {
  /** The details page of its sites; none when the engine fixes none (each site then gives its own). */
  detailsPage?: string;
  download: DownloadRule;
  /** Where its sites answer the pieces-hash API, unless a site's definition says otherwise; none: not asked. */
  piecesHashPath?: string;
}

/**
 * One site, written once: its catalog entry, with the engine's details page and https left out
 * when they hold, and whatever the site does differently from its engine.
 */
export interface SiteDefinition extends Omit<CatalogSite, 'scheme' | 'detailsPage'> {
  /** `https` unless given. */
  scheme?: CatalogSite['scheme'];
  /** The engine's details page unless given. */
  detailsPage?: string;
  /** Where the site's download differs from its engine's rule (field by field). */
  download?: DownloadRule;
  /** Where its torrent pages differ from NexusPHP's paths. */
  pages?: NexusphpPaths;
}

/** The fields of a site of the service's list (`GET /reseed/sites/index`) that links are built from. */
export interface ServiceSiteLink {
  /** The site's sid: when the catalog knows it, its links stay on the catalog's hosts for it. */
  id?: number;
  /**
   * The service's short name for it: with the id, it pins the site (utils/sites/pinning.ts); the
   * service has renumbered sites before, and then the name decides which catalogued site it is.
   */
  site?: string;
  base_url: string;
  details_page: string;
  /** 0 http, 1 https, 2 both (https is used). */
  is_https: number;
}

/** A user's per-site correction, on top of the service's list and the catalog. */
export interface LinkOverride {
  host?: string;
  scheme?: 'http' | 'https';
}
