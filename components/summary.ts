import { formatNumber, t } from '../utils/i18n';
import type { PageView } from '../utils/messages';
import { countOthers } from './groups';

/** One line for what a tab's view has to say: the panel's header, and what the popup announces. */
export function viewSummary(view: Pick<PageView, 'status' | 'candidates' | 'hashes'>): string {
  const { torrents, sites } = countOthers(view.candidates);
  switch (view.status) {
    case 'done':
      return torrents ? t('resultsHeading', formatNumber(torrents), formatNumber(sites)) : t('statusNoCandidates');
    case 'looking-up':
    case 'reading':
      return t('statusLookingUp', formatNumber(view.hashes.length));
    case 'no-credentials':
      return t('statusNoToken');
    case 'error':
      return t('panelError');
    default:
      return t('statusNoHash');
  }
}
