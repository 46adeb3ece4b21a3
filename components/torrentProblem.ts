import type { TabView } from '../utils/messages';
import { t } from '../utils/i18n';

/** Why "Get hash from the .torrent file" gave nothing, in the user's words. */
export function torrentProblemText(problem: NonNullable<TabView['torrentFileProblem']>): string {
  switch (problem) {
    case 'no-link':
      return t('torrentProblemNoLink');
    case 'download-failed':
      return t('torrentProblemDownloadFailed');
    case 'not-a-torrent':
      return t('torrentProblemNotATorrent');
    case 'v2-only':
      return t('torrentProblemV2Only');
    case 'malformed':
      return t('torrentProblemMalformed');
  }
}
