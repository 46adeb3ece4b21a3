import { countKey, formatNumber, t } from '../../../utils/i18n';
import type { PageView } from '../lookup.messages';
import { countOthers } from './site-groups';

/** "4 torrents on 3 other sites", "2 torrents on 1 other site", "1 torrent on 1 other site". */
export function resultsText(torrents: number, sites: number): string {
  const key = sites === 1 ? countKey(torrents, 'resultsHeadingOne', 'resultsHeadingOneSite') : 'resultsHeading';
  return t(key, formatNumber(torrents), formatNumber(sites));
}

/** "Looking up 1 hash…", "Looking up 3 hashes…". */
export function lookingUpText(hashes: number): string {
  return t(countKey(hashes, 'statusLookingUpOne', 'statusLookingUp'), formatNumber(hashes));
}

/** One line for what a tab's view has to say: the panel's header, and what the popup announces. */
export function viewSummary(view: Pick<PageView, 'status' | 'candidates' | 'hashes'>): string {
  const { torrents, sites } = countOthers(view.candidates);
  switch (view.status) {
    case 'done':
      return torrents ? resultsText(torrents, sites) : t('statusNoCandidates');
    case 'looking-up':
    case 'reading':
      return lookingUpText(view.hashes.length);
    case 'no-credentials':
      return t('statusNoToken');
    case 'error':
      return t('panelError');
    case 'waiting-for-user':
      return t('statusHeld');
    default:
      return t('statusNoHash');
  }
}
