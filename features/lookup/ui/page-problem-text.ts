import type { TabView } from '../lookup.messages';
import { t, type MessageKey } from '../../../utils/i18n';

const TORRENT_PROBLEMS: Record<NonNullable<TabView['torrentFileProblem']>, MessageKey> = {
  'no-link': 'torrentProblemNoLink',
  'download-failed': 'torrentProblemDownloadFailed',
  'not-a-torrent': 'torrentProblemNotATorrent',
  'v2-only': 'torrentProblemV2Only',
  malformed: 'torrentProblemMalformed',
};

const PAGE_PROBLEMS: Record<NonNullable<TabView['problem']>, MessageKey> = {
  'site-gives-no-hash': 'problemSiteGivesNoHash',
  'needs-login': 'problemNeedsLogin',
  'not-loaded-yet': 'problemNotLoaded',
  'site-error': 'problemSiteError',
};

/** Why "Get hash from the .torrent file" gave nothing, in the user's words. */
export function torrentProblemText(problem: NonNullable<TabView['torrentFileProblem']>): string {
  return t(TORRENT_PROBLEMS[problem]);
}

/** Why a page the extension knows gave no hash, in the user's words. */
export function pageProblemText(problem: NonNullable<TabView['problem']>): string {
  return t(PAGE_PROBLEMS[problem]);
}
