/**
 * The small interface every tracker engine implements (one engine per file in utils/pages/).
 * Runs in the content script: plain TypeScript, no zod, no browser APIs beyond the DOM and fetch.
 */

/** Where on the page a hash was read. */
export type HashSource =
  | 'info-row' // the engine's labelled info-hash row ("Hash码", "Info hash", ...)
  | 'magnet' // a magnet link's xt=urn:btih:
  | 'site-api' // the site's own JSON API (Gazelle ajax.php)
  | 'torrent-file' // the SHA-1 of the .torrent's info dictionary, on the user's click
  | 'label'; // a generic labelled 40-hex string

export interface FoundHash {
  /** 40 lowercase hex characters, always. */
  hash: string;
  source: HashSource;
  /** For list pages: the row's torrent id (its 1-based position when the row names no id), so a result can be tied to its row. */
  row?: string;
  /** The torrent's title where the page states it (for display only; plain text). */
  title?: string;
}

export type PageKind = 'details' | 'list';

/**
 * One torrent row of a list page (torrents.php, /torrents, browse…): the site's torrent id, found by
 * the row's own details link, so a row can be tied to the user's client even when it shows no hash.
 */
export interface ListRow {
  /** The site's torrent id, digits only. */
  id: string;
  /** 40 lowercase hex, when the row shows its hash (a magnet, a label). */
  hash?: string;
  /** The name the row shows (plain text, for display only). */
  title?: string;
}

/** A list row's element in the page, for marking it later. */
export interface RowElement {
  id: string;
  element: Element;
  /** The row's own details link (its title), where a mark goes beside. */
  link?: Element;
}

export interface PageReading {
  /** The engine that read the page (e.g. 'nexusphp', 'unit3d', 'gazelle', 'mteam', 'magnet', 'generic'). */
  engine: string;
  kind: PageKind;
  hashes: FoundHash[];
  /**
   * When the page is one the engine knows but no hash could be had, why (shown to the user).
   * 'not-loaded-yet': the hash block is still empty or the app has not rendered: re-read on change.
   * 'site-error': the site's own API failed (network, HTTP error, rate limit, not JSON): retry later.
   */
  problem?: 'site-gives-no-hash' | 'needs-login' | 'not-loaded-yet' | 'site-error';
  /**
   * A .torrent download link for this page's torrent (absolute, same origin as the page), offered
   * for "Get hash from the .torrent file". Never fetched by the engines themselves.
   */
  torrentFileUrl?: string;
  /** For lists: every torrent row in page order, one per torrent, with or without a hash. */
  rows?: ListRow[];
}

export interface ReadContext {
  url: URL;
  document: Document;
  /** fetch with the user's session (same-origin JSON requests only, e.g. Gazelle's ajax.php). */
  fetch: typeof fetch;
  /**
   * The engine the site catalog says this host runs, when known (readPage sets it from its hint),
   * for engines that cannot tell their site by URL alone (M-Team's mirrors).
   */
  hint?: string;
}

export interface PageEngine {
  id: string;
  /** Cheap test: does this engine know this URL/document? */
  applies(context: ReadContext): boolean;
  /** Read the hashes of this page. Never throws for a broken page: returns no hashes instead. */
  read(context: ReadContext): PageReading | null | Promise<PageReading | null>;
  /** For list pages: each torrent row's element by its torrent id, in page order (the rows `read` names). */
  listRows?(context: ReadContext): RowElement[];
}
