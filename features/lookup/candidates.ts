/**
 * Turns the service's answers into what the UI shows: one CandidateView per candidate, with the
 * site's name and a details link built only from the numeric id and a site template.
 */
import { browser } from 'wxt/browser';
import type { CandidateView } from './lookup.messages';
import type { RecommendedSiteView } from '../account/account.messages';
import type { FoundHash } from '../../utils/pages/page-types';
import type { CachedAnswer } from '../../utils/lookup/answer-cache';
import type { RecommendedSite, ServiceSite } from '../../utils/iyuu/answer-schemas';
import type { SiteOverride } from '../../utils/settings';
import { buildDetailsUrl, buildDetailsUrlFromCatalog, homeUrl, siteForHost } from '../../utils/sites';
import { serviceSidOf, siteForServiceSid } from '../../utils/sites/pinning';

export interface SiteContext {
  /** The service's site list, when it could be had. */
  sites?: ServiceSite[];
  /** The host of the page the hashes came from. */
  host?: string;
  heldSites: number[] | null;
  overrides: Record<string, SiteOverride>;
}

/** The sid of the site a host belongs to: the catalog first, then the service's own list. */
export function sidForHost(host: string | undefined, sites: ServiceSite[] | undefined): number | undefined {
  if (!host) return undefined;
  // The id the service gives the host's site now (it has renumbered sites before).
  const entry = siteForHost(host);
  const catalogued = entry && serviceSidOf(entry, sites);
  if (catalogued !== undefined) return catalogued;
  const match = sites?.find((site) => host === site.base_url || host.endsWith(`.${site.base_url}`));
  return match?.id;
}

/**
 * Chinese readers know sites by their Chinese names (IYUU's nicknames); others by the Latin ones.
 * Decided by the language the extension's messages are actually shown in (languageName), so the
 * names match the words around them: Chromium can serve the zh_CN messages while getUILanguage()
 * and @@ui_locale still say en-US (seen in a service worker).
 */
export function prefersChinese(): boolean {
  try {
    const shown = browser.i18n.getMessage('languageName');
    return shown ? shown.includes('中文') : browser.i18n.getUILanguage().toLowerCase().startsWith('zh');
  } catch {
    return false;
  }
}

export function siteName(sid: number, sites: readonly ServiceSite[] | undefined, chinese = prefersChinese()): { name: string; key?: string } {
  const listed = sites?.find((site) => site.id === sid);
  const catalogued = siteForServiceSid(sid, sites);
  const key = listed?.site || catalogued?.site;
  const name = chinese
    ? listed?.nickname || catalogued?.nameZh || catalogued?.nickname || key
    : catalogued?.nickname || listed?.nickname || key;
  return { name: name || `#${sid}`, key };
}

/** A torrent's details page on its site, built only from its numeric id and a template: the service's list's, else the catalog's; the user's address for the site applied. */
export function detailsUrlOf(sid: number, torrentId: number, sites: readonly ServiceSite[] | undefined, override: SiteOverride | undefined): string | undefined {
  const listed = sites?.find((site) => site.id === sid);
  if (listed) return buildDetailsUrl(listed, torrentId, override);
  const catalogued = siteForServiceSid(sid, sites as ServiceSite[] | undefined);
  return catalogued ? buildDetailsUrlFromCatalog(catalogued, torrentId, override) : undefined;
}

/** A candidate's site name and details link, built only from its numeric id and a site template. */
function placeView(sid: number, torrentId: number, context: SiteContext): Pick<CandidateView, 'siteName' | 'siteKey' | 'detailsUrl'> {
  const { name, key } = siteName(sid, context.sites);
  return { siteName: name, siteKey: key, detailsUrl: detailsUrlOf(sid, torrentId, context.sites, context.overrides[String(sid)]) };
}

/** Sites the user holds first, then by name; within a site by torrent id. */
function heldFirst(a: CandidateView, b: CandidateView): number {
  return Number(b.held ?? false) - Number(a.held ?? false) || a.siteName.localeCompare(b.siteName, 'zh-CN') || a.sid - b.sid || a.torrentId - b.torrentId;
}

export function buildCandidateViews(hashes: FoundHash[], answers: Map<string, CachedAnswer>, context: SiteContext): CandidateView[] {
  const currentSid = sidForHost(context.host, context.sites);
  const held = context.heldSites ? new Set(context.heldSites) : undefined;
  const views: CandidateView[] = [];
  const seen = new Set<string>();
  for (const { hash } of hashes) {
    for (const candidate of answers.get(hash)?.candidates ?? []) {
      const key = `${candidate.sid}:${candidate.torrent_id}:${hash}`;
      if (seen.has(key)) continue;
      seen.add(key);
      views.push({
        sid: candidate.sid,
        torrentId: candidate.torrent_id,
        infoHash: candidate.info_hash,
        forHash: hash,
        ...placeView(candidate.sid, candidate.torrent_id, context),
        isCurrentSite: currentSid === candidate.sid,
        held: held ? held.has(candidate.sid) : undefined,
      });
    }
  }
  return views.sort(heldFirst);
}

/** A place a site asked by pieces hash named for one of the page's hashes (the client holds that torrent). */
export interface PiecesPlace {
  forHash: string;
  sid: number;
  torrentId: number;
  piecesHash: string;
  /** The client's own torrent at that place, when the client holds this content from that very site. */
  heldHash?: string;
}

/**
 * The service's candidates and the places sites asked by pieces hash named, as one list (popup
 * only): a place both name is one candidate, found by both, with the service's info-hash; a place
 * only the pieces hash found has no info-hash yet ('' — its .torrent tells it, and must carry that
 * pieces hash). Ordered as buildCandidateViews orders.
 */
export function mergePiecesCandidates(views: readonly CandidateView[], places: readonly PiecesPlace[], context: SiteContext): CandidateView[] {
  const merged = views.map((view) => ({ ...view, foundBy: view.foundBy ?? ('iyuu' as const) }));
  if (!places.length) return merged;
  const currentSid = sidForHost(context.host, context.sites);
  const held = context.heldSites ? new Set(context.heldSites) : undefined;
  for (const place of places) {
    const same = merged.find((view) => view.sid === place.sid && view.torrentId === place.torrentId && view.forHash === place.forHash);
    if (same) {
      same.foundBy = same.foundBy === 'pieces' ? 'pieces' : 'both';
      continue;
    }
    merged.push({
      sid: place.sid,
      torrentId: place.torrentId,
      infoHash: place.heldHash ?? '',
      ...(!place.heldHash && { piecesHash: place.piecesHash }),
      foundBy: 'pieces',
      forHash: place.forHash,
      ...placeView(place.sid, place.torrentId, context),
      isCurrentSite: currentSid === place.sid,
      held: held ? held.has(place.sid) : undefined,
    });
  }
  return merged.sort(heldFirst);
}

export function recommendedViews(list: RecommendedSite[], sites: ServiceSite[] | undefined): RecommendedSiteView[] {
  return list.map((entry) => {
    const listed = sites?.find((site) => site.id === entry.id);
    const catalogued = siteForServiceSid(entry.id, sites);
    return {
      sid: entry.id,
      site: entry.site,
      nickname: prefersChinese()
        ? entry.nickname || listed?.nickname || catalogued?.nameZh || entry.site
        : catalogued?.nickname || entry.nickname || listed?.nickname || entry.site,
      homeUrl: homeUrl(listed ?? catalogued),
    };
  });
}
