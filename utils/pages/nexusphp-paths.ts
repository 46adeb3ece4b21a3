// Generated from utils/sites/definitions/ by utils/sites/generate-site-indexes.ts: do not edit by hand.
// The sites whose NexusPHP-like pages live at paths of their own: ttg, hdcity.

/** Their torrent pages' paths after the leading `/`, the id in one group per site. */
export const SITE_TORRENT_PAGES = /t\/(\d+)|t-(\d+)/;
/** Links to those pages in a list row. */
export const SITE_TORRENT_LINKS = "a[href*=\"/t/\"], a[href^=\"t-\"], a[href^=\"/t-\"]";
/** Their download links' paths before the id. */
export const SITE_DOWNLOAD_LINKS = /dl\/|download\?(?:[^#]*&)?id=/;
/** Their list pages' paths after the leading `/`. */
export const SITE_LIST_PAGES = /browse\.php/;
