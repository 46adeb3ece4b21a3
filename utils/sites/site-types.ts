/** One site of the bundled catalog (utils/sites/catalog.json): data, not code. */
export type Engine = 'nexusphp' | 'unit3d' | 'gazelle' | 'mteam' | 'other';

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
