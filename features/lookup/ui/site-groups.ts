/** Candidates grouped by site, in the order the UI shows them. Pure, so it is tested on its own. */
import type { CandidateView } from '../lookup.messages';

export interface SiteGroup {
  sid: number;
  siteName: string;
  isCurrentSite: boolean;
  held?: boolean;
  candidates: CandidateView[];
}

export function groupBySite(candidates: readonly CandidateView[]): SiteGroup[] {
  const groups = new Map<number, SiteGroup>();
  for (const candidate of candidates) {
    let group = groups.get(candidate.sid);
    if (!group) {
      group = { sid: candidate.sid, siteName: candidate.siteName, isCurrentSite: candidate.isCurrentSite, held: candidate.held, candidates: [] };
      groups.set(candidate.sid, group);
    }
    group.candidates.push(candidate);
  }
  return [...groups.values()];
}

/** The same groups in the same order, but the current site's own entries last. */
export function currentSiteLast(groups: readonly SiteGroup[]): SiteGroup[] {
  return [...groups].sort((a, b) => Number(a.isCurrentSite) - Number(b.isCurrentSite));
}

/**
 * Splits groups into the sites the user is on (shown) and the others (folded), for the popup only:
 * the in-page panel never splits (the page could measure the split). Until the user has picked
 * their sites, every group counts as shown. The current site's own entries stay last.
 */
export function splitByHeld(groups: readonly SiteGroup[]): { shown: SiteGroup[]; folded: SiteGroup[] } {
  const shown: SiteGroup[] = [];
  const folded: SiteGroup[] = [];
  for (const group of groups) (group.held === false && !group.isCurrentSite ? folded : shown).push(group);
  return { shown: currentSiteLast(shown), folded };
}

/** Every candidate link, one per line, for "copy all links". */
export function allLinks(candidates: readonly CandidateView[]): string {
  return candidates
    .filter((candidate) => candidate.detailsUrl && !candidate.isCurrentSite)
    .map((candidate) => candidate.detailsUrl)
    .join('\n');
}

/** How many torrents on how many other sites (the current site's own entries do not count). */
export function countOthers(candidates: readonly CandidateView[]): { torrents: number; sites: number } {
  const others = candidates.filter((candidate) => !candidate.isCurrentSite);
  return { torrents: others.length, sites: new Set(others.map((candidate) => candidate.sid)).size };
}
