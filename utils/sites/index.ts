/**
 * The site catalog and link building, for the background and the views. The content script
 * imports from ./hosts (host → site, match patterns) to stay clear of the catalog data.
 */
export type { CatalogSite, DetailsPageLink, DownloadRule, Engine, LinkOverride, ServiceSiteLink, SiteDefinition } from './site-types';
export { catalog, siteForHost, siteForName, siteForSid } from './catalog';
export { downloadRuleOf } from './download-rules';
export { contentScriptMatches, isHostName, normalizeHost, siteKeyForHost, type SiteKey } from './hosts';
export { buildDetailsUrl, buildDetailsUrlFromCatalog, buildDownloadUrl, DEFAULT_DETAILS_PAGE, homeUrl, isSiteKey, isTorrentId } from './links';
export { piecesHashAddress, type PiecesHashAddress } from './pieces-hash-address';
