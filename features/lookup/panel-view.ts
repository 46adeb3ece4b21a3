/**
 * The view a tracker page's content script is sent (issue #8: the page learns nothing about the
 * user's other sites). The page's own scripts can measure the panel — find its words with
 * window.find, watch its size and when it changes, count the Tab presses it takes — so whatever the
 * panel gets must be the same for every user shown the same answer: no `held`, no held-first
 * order, none of the popup's fields. The popup, which no page can see, keeps the whole TabView.
 */
import type { PageCandidate, PageView, TabView } from './lookup.messages';

/** By site name, then site, then torrent: an order that depends on the answer alone. */
function neutralOrder(a: PageCandidate, b: PageCandidate): number {
  return a.siteName.localeCompare(b.siteName, 'zh-CN') || a.sid - b.sid || a.torrentId - b.torrentId || a.forHash.localeCompare(b.forHash);
}

export function pageView(view: TabView): PageView {
  // Field by field, so nothing added to TabView later reaches the page unless it is added here.
  return {
    url: view.url,
    status: view.serviceStatus ?? view.status,
    problem: view.problem,
    torrentFileUrl: view.torrentFileUrl,
    torrentFileProblem: view.torrentFileProblem,
    hashes: view.hashes,
    error: view.error,
    fetchedAt: view.fetchedAt,
    panel: view.panel,
    // Only what the service named: a place only a site asked by pieces hash found tells what the client holds.
    candidates: view.candidates
      .filter((candidate) => candidate.foundBy !== 'pieces')
      .map(({ sid, torrentId, infoHash, forHash, siteName, siteKey, detailsUrl, isCurrentSite }) => ({
        sid,
        torrentId,
        infoHash,
        forHash,
        siteName,
        siteKey,
        detailsUrl,
        isCurrentSite,
      }))
      .sort(neutralOrder),
  };
}
